# Simulator plumbing for the sbx-ports and sbx-verify suites (tier 2): one
# SBX_SIM_ROOT per suite file, sandboxes made on first use and reused by
# the tests of the file, emptied after each test, all removed at the end.
# Needs root, dockerd, busybox-static, socat, curl, iproute2, util-linux;
# without them a tier-2 test is skipped, or fails under CI=true.

SIM_SBX="$TOP/test/sbx-sim/sbx"

skip_or_fail() {
	if [ "${CI:-}" = true ]; then
		fail "required by this test: $*"
		return 1
	fi
	skip "$*"
}

sim_missing() {
	local c m=
	[ "$(id -u)" -eq 0 ] || m="root"
	for c in dockerd socat curl ip nsenter unshare ss busybox; do
		command -v "$c" >/dev/null 2>&1 || m="$m $c"
	done
	[ -x /usr/local/bin/docker ] || [ -x /usr/bin/docker ] || m="$m docker"
	printf '%s' "${m# }"
}

setup_file() {
	local m
	m=$(sim_missing)
	export SIM_MISSING="$m"
	SBX_SIM_ROOT=$(mktemp -d /tmp/sbxt.XXXXXX)
	export SBX_SIM_ROOT
	export SIM_FILE_HOME="$BATS_FILE_TMPDIR/home"
	export SIM_FILE_WS="$BATS_FILE_TMPDIR/ws"
	mkdir -p "$SIM_FILE_HOME" "$SIM_FILE_WS"
}

teardown_file() {
	if [ -n "${SBX_SIM_ROOT:-}" ] && [ -d "$SBX_SIM_ROOT" ]; then
		"$SIM_SBX" sim-cleanup >&2 || true
		rm -rf "$SBX_SIM_ROOT"
	fi
}

# sim_sandbox KEY: the sandbox pi-sbx-1-KEY of this file, made on first
# use (through sbx-run, so its marker is written), in SIM_SB.  Tests that
# use the simulator share HOME, state and workspace within the file.
sim_sandbox() {
	if [ -n "$SIM_MISSING" ]; then
		skip_or_fail "$SIM_MISSING"
		return 1
	fi
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
	wc -l <"$SBX_SIM_ROOT/calls.log"
}

sim_calls_since() {
	tail -n +"$(($1 + 1))" "$SBX_SIM_ROOT/calls.log"
}

# A port nothing listens on, in SIM_PORT.
sim_free_port() {
	local p flag=-Hltn
	[ "${1:-tcp}" = udp ] && flag=-Hlun
	for _ in $(seq 100); do
		p=$((20000 + RANDOM % 10000))
		if ! ss "$flag" | awk '{print $4}' | grep -q ":$p\$"; then
			export SIM_PORT=$p
			return 0
		fi
	done
	return 1
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
		specs=$(SBX_SIM_LEAK='' SBX_SIM_DIALECT='' sbx-ports -s "$sb" ls |
		    sed -n 's/^[a-z]*:\/\/\(.*\):\([0-9]*\)\/* -> \([0-9]*\/[a-z]*\).*/\2:\3/p')
		if [ -n "$specs" ]; then
			# shellcheck disable=SC2086
			SBX_SIM_LEAK='' SBX_SIM_DIALECT='' sbx-ports -s "$sb" unpublish $specs ||
			    true
		fi
	done
}
