# Shared by the tier-1 suites: a private HOME, TMPDIR and state directory
# per test, the recording stand-in sbx, and small helpers to read what it
# recorded.
bats_require_minimum_version 1.5.0
# the tree's top, from this file's place, whatever the suite's folder
TOP=$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd)
. "$TOP/test/helpers/locks.bash"

# Every setting the programs read, as sbx-env -c lists them (run with no
# environment, where each takes its default), so a new setting cannot be
# left out of what the tests unset.
settings_names() {
	local out
	out=$(env -i "$TOP/sbx-env/sbx-env" -c) || {
		echo "helper: sbx-env -c failed; is the tree built?" >&2
		return 1
	}
	sed -n 's/^\(DOCKER_SANDBOX[A-Z_]*\)=.*/\1/p' <<<"$out"
}

common_setup() {
	local names
	names=$(settings_names) && [ -n "$names" ] || return 1
	# shellcheck disable=SC2086 # one name a word
	unset $names DOCKER_HOST DOCKER_CONTEXT DOCKER_CONFIG XDG_STATE_HOME
	export HOME="$BATS_TEST_TMPDIR/home"
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	export SBX_STUB_DIR="$BATS_TEST_TMPDIR/stub"
	export SBX_STATE_DIR="$BATS_TEST_TMPDIR/state"
	export DOCKER_SANDBOX_SBX="$TOP/test/bin/sbx"
	export PATH="$TOP/sbx-env:$TOP/sbx-run:$TOP/test/tools:/usr/local/bin:/usr/bin:/bin"
	export WS="$BATS_TEST_TMPDIR/ws"
	mkdir -p "$HOME" "$TMPDIR" "$SBX_STUB_DIR" "$WS"
	# the image cache's fill adds execs to every teardown and its load
	# one to every create; test/lib/imgcache.bats turns it on and counts them
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
# command of an exec (sh -c PROLOGUE sbx-run MARK, see lib/stampsh.c), so
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

# Program $1 refuses each argument list after its usage line $2 as a
# usage error: exit 64, nothing on stdout, that line first on stderr.
usage_refused() {
	local prog=$1 usage=$2 args
	shift 2
	for args in "$@"; do
		# shellcheck disable=SC2086
		run -64 --separate-stderr "$prog" $args
		[ -z "$output" ] || fail "'$args': stdout: $output"
		[ "${stderr_lines[0]}" = "$usage" ] || fail "'$args': $stderr"
	done
}

# A test that cannot run here skips, except under CI=true, where a skip
# would hide a check CI is meant to make: there it fails.
skip_unless_ci() {
	[ "${CI:-}" = true ] && fail "cannot run here (CI=true): $*"
	skip "$*"
}
