# Simulator plumbing for the suites of single programs (tier 2), on top of
# sim-helper.bash: one SBX_SIM_ROOT per suite file, sandboxes made through
# sbx-run on first use and reused by the tests of the file, emptied after
# each test, all removed at the end with a check that nothing is left.
# Without the simulator's dependencies a tier-2 test is skipped, or fails
# under CI=true.

. "${BASH_SOURCE[0]%/*}/sim-helper.bash"

SIM_SBX="$SIM"

skip_or_fail() {
	if [ "${CI:-}" = true ]; then
		fail "required by this test: $*"
		return 1
	fi
	skip "$*"
}

setup_file() {
	sim_setup_file
	export SIM_FILE_HOME="$BATS_FILE_TMPDIR/home"
	export SIM_FILE_WS="$BATS_FILE_TMPDIR/ws"
	mkdir -p "$SIM_FILE_HOME" "$SIM_FILE_WS"
}

# Remove the root and fail if it left anything on the host.
teardown_file() {
	sim_teardown_file
}

# sim_sandbox KEY: the sandbox pi-sbx-1-KEY of this file, made on first
# use (through sbx-run, so its marker is written), in SIM_SB.  Tests that
# use the simulator share HOME, state and workspace within the file.
sim_sandbox() {
	sim_require || return 1
	export HOME="$SIM_FILE_HOME"
	export SBX_STATE_DIR="$HOME/.local/state/sbx-tools"
	export DOCKER_SANDBOX_SBX="$SIM_SBX"
	# the simulator starts dockerd from the PATH it is given
	export PATH="$PATH:/usr/sbin:/sbin"
	export WS="$SIM_FILE_WS"
	cd "$WS" || return 1
	SIM_SB=pi-sbx-1-$1
	export SIM_SB
	echo "$SIM_SB" >>"$BATS_TEST_TMPDIR/sim-used"
	if ! "$SIM_SBX" ls -q | grep -qx "$SIM_SB"; then
		sbx-run -s "$SIM_SB" -x true ||
		    fail "cannot provision $SIM_SB in the simulator"
	fi
}

# sim_web KEY NAME -p SPEC PORT: a busybox httpd listening on PORT
sim_web() {
	sbx-run -s "pi-sbx-1-$1" run -d --name "$2" "$3" "$4" busybox:local \
	    httpd -f -p "$5" -h /www >/dev/null ||
	    fail "docker run $2 failed"
}

sim_calls() {
	sim_ncalls
}

sim_calls_since() {
	sim_calls_after "$1"
}

sim_wait_listen() {
	for _ in $(seq 100); do
		ss -Hltn | awk '{print $4}' | grep -q ":$1\$" && return 0
		sleep 0.05
	done
	return 1
}

# After each test: kill what it started, empty the sandboxes it used
# (containers and every published port) so the next test starts clean.
sim_test_teardown() {
	local p sb specs
	if [ -f "$BATS_TEST_TMPDIR/pids" ]; then
		while read -r p; do
			kill "$p" 2>/dev/null
			wait "$p" 2>/dev/null
		done <"$BATS_TEST_TMPDIR/pids"
	fi
	[ -f "$BATS_TEST_TMPDIR/sim-used" ] || return 0
	sort -u "$BATS_TEST_TMPDIR/sim-used" | while read -r sb; do
		# shellcheck disable=SC2016
		SBX_SIM_LEAK='' SBX_SIM_DIALECT='' sbx-run -s "$sb" -x sh -c \
		    'ids=$(docker -H unix:///var/run/docker.sock ps -aq); [ -z "$ids" ] || docker -H unix:///var/run/docker.sock rm -f $ids >/dev/null' ||
		    true
		specs=$(SBX_SIM_LEAK='' SBX_SIM_DIALECT='' "$TOP/sbx-ports/sbx-ports" -s "$sb" ls |
		    sed -n 's/^[a-z]*:\/\/\(.*\):\([0-9]*\)\/* -> \([0-9]*\/[a-z]*\).*/\2:\3/p')
		if [ -n "$specs" ]; then
			# shellcheck disable=SC2086
			SBX_SIM_LEAK='' SBX_SIM_DIALECT='' "$TOP/sbx-ports/sbx-ports" -s "$sb" unpublish $specs ||
			    true
		fi
	done
}
