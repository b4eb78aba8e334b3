# Shared by the tier-1 suites: a private HOME, TMPDIR and state directory
# per test, the recording stand-in sbx, and small helpers to read what it
# recorded.
bats_require_minimum_version 1.5.0

TOP=$(cd "$BATS_TEST_DIRNAME/.." && pwd)

common_setup() {
	export HOME="$BATS_TEST_TMPDIR/home"
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	export SBX_STUB_DIR="$BATS_TEST_TMPDIR/stub"
	export SBX_STATE_DIR="$BATS_TEST_TMPDIR/state"
	export DOCKER_SANDBOX_SBX="$TOP/test/bin/sbx"
	export PATH="$TOP/sbx-env:$TOP/sbx-run:$TOP/test/tools:/usr/local/bin:/usr/bin:/bin"
	export WS="$BATS_TEST_TMPDIR/ws"
	mkdir -p "$HOME" "$TMPDIR" "$SBX_STUB_DIR" "$WS"
	unset DOCKER_SANDBOX DOCKER_SANDBOX_ENV_ALLOWLIST \
	    DOCKER_SANDBOX_ENV_PASSTHROUGH DOCKER_SANDBOX_WORKSPACE_RO \
	    DOCKER_SANDBOX_AUTOCREATE DOCKER_SANDBOX_TEMPLATE \
	    DOCKER_SANDBOX_CPUS DOCKER_SANDBOX_MEMORY DOCKER_SANDBOX_TIMEOUT \
	    DOCKER_HOST DOCKER_CONTEXT DOCKER_CONFIG XDG_STATE_HOME
	# the image cache's fill adds execs to every teardown and its load
	# one to every create; test/imgcache.bats turns it on and counts them
	export DOCKER_SANDBOX_IMAGE_CACHE=0 XDG_CACHE_HOME="$HOME/.cache"
	cd "$WS" || return 1
}

# A sandbox the stand-in already knows, with a status.
stub_sandbox() {
	mkdir -p "$SBX_STUB_DIR/sandboxes"
	echo "${2:-running}" >"$SBX_STUB_DIR/sandboxes/$1"
}

# How many times sbx was called (optionally: with this verb).
stub_count() {
	if [ $# -eq 0 ]; then
		cat "$SBX_STUB_DIR/calls.log" 2>/dev/null | wc -l
	else
		grep -c "^$1\( \|\$\)" "$SBX_STUB_DIR/calls.log" 2>/dev/null ||
		    true
	fi
}

# The argv of call N (1-based), one word a line.
stub_argv() {
	stub_rawargv "$1" | grep -vx -- --no-input
}

# The argv of call N, every word (stub_argv leaves out --no-input, which
# the programs add to each call of sbx's own words where sbx takes it).
stub_rawargv() {
	tr '\0' '\n' <"$SBX_STUB_DIR/calls/$(printf '%04d' "$1").argv"
}

# An argv, one word a line, without the marks sbx-run puts before the
# command of an exec (sh -c PROLOGUE sbx-run MARK, see lib/marksh.c), so
# that a test compares the docker argv: stub_argv 1 | argv_unmarked.
argv_unmarked() {
	awk '{ w[NR] = $0 }
	END {
		for (i = 1; i <= NR; i++) {
			if (w[i] == "sh" && w[i + 1] == "-c" &&
			    index(w[i + 2], "m=$1;shift;") == 1 &&
			    w[i + 3] == "sbx-run" && length(w[i + 4]) == 16 &&
			    w[i + 4] ~ /^[0-9a-f]+$/) {
				i += 4
				continue
			}
			print w[i]
		}
	}'
}

# The environment of call N, one entry a line.
stub_env() {
	tr '\0' '\n' <"$SBX_STUB_DIR/calls/$(printf '%04d' "$1").env"
}

# Is pid a live process?  A zombie is not: nobody may reap orphans here.
alive() {
	local state
	state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[ -n "$state" ] && [ "${state#Z}" = "$state" ]
}

# Fail with a message: bats shows it.
# The stand-in's hung call has started its process tree.
hung_started() {
	for i in $(seq 50); do
		[ -s "$SBX_STUB_DIR/hung.pids" ] && return 0
		sleep 0.1
	done
	fail "the hung call never started"
}

fail() {
	printf '%s\n' "$*" >&2
	return 1
}

# A test that cannot run here skips, except under CI=true, where a skip
# would hide a check CI is meant to make: there it fails.
skip_unless_ci() {
	[ "${CI:-}" = true ] && fail "cannot run here (CI=true): $*"
	skip "$*"
}
