#!/usr/bin/env bats
# test/run-suites, the runner make check and .ci/run use: its parts
# record their counts, the closing line adds them up, and nothing that
# did not run to its end, nor a skip under CI=true, passes as a pass.

load helper

# the runner as make runs it: none of this bats run's own variables
runner() {	# CI-value args...
	local ci=$1 path
	shift
	# bats puts its inner commands first on PATH; the runner wants bats
	path=$(printf '%s\n' "$PATH" | tr : '\n' | grep -v bats-core | paste -sd :)
	env -i PATH="$path" HOME="$HOME" TMPDIR="${TMPDIR:-/tmp}" CI="$ci" \
	    SBX_SANITIZE="${SBX_SANITIZE:-1}" SBX_TEST_LOG="$SBX_TEST_LOG" \
	    SBX_TEST_COUNTS="$SBX_TEST_COUNTS" sh "$R" "$@"
}

setup() {
	export SBX_TEST_LOG="$BATS_TEST_TMPDIR/log.tap"
	export SBX_TEST_COUNTS="$BATS_TEST_TMPDIR/counts"
	R="$TOP/test/run-suites"
	# (written so, since bats would take a test line here for its own)
	local t=@test
	printf '%s "passes" { true; }\n%s "skips" { skip "not here"; }\n' \
	    "$t" "$t" >"$BATS_TEST_TMPDIR/two.bats"
	printf '%s "fails" { false; }\n' "$t" >"$BATS_TEST_TMPDIR/bad.bats"
}

@test "runner: a named suite runs alone; a skip is a skip, under CI=true a failure" {
	run runner "" "$BATS_TEST_TMPDIR/two.bats"
	[ "$status" -eq 0 ] || fail "$output"
	[ "${lines[-1]}" = "1 passed, 0 failed, 1 skipped" ]
	run runner true "$BATS_TEST_TMPDIR/two.bats"
	[ "$status" -ne 0 ]
	[ "${lines[-1]}" = "1 passed, 1 failed" ]
	run runner "" "$BATS_TEST_TMPDIR/two.bats" "$BATS_TEST_TMPDIR/bad.bats"
	[ "$status" -ne 0 ]
	[ "${lines[-1]}" = "1 passed, 1 failed, 1 skipped" ]
	grep -q '^not ok 1 fails' "$SBX_TEST_LOG"
}

@test "runner: total adds the parts up, and a part missing or cut short is a failure" {
	runner "" reset
	[ ! -s "$SBX_TEST_COUNTS" ]
	printf '%s\n' 'begin bats' 'end bats 5 0 1' 'begin pi' 'end pi 3 2 0' \
	    >"$SBX_TEST_COUNTS"
	run runner "" total bats pi
	[ "$status" -ne 0 ]
	[ "$output" = "8 passed, 2 failed, 1 skipped" ]
	printf '%s\n' 'begin bats' 'end bats 5 0 0' >"$SBX_TEST_COUNTS"
	run runner "" total bats
	[ "$status" -eq 0 ]
	[ "$output" = "5 passed, 0 failed" ]
	# the sanitized part never ran, then began and never ended
	run runner "" total bats sanitized
	[ "$status" -ne 0 ]
	[ "$output" = "5 passed, 1 failed" ]
	echo 'begin sanitized' >>"$SBX_TEST_COUNTS"
	run runner "" total bats sanitized
	[ "$status" -ne 0 ]
	[ "$output" = "5 passed, 1 failed" ]
	# nothing recorded at all
	rm -f "$SBX_TEST_COUNTS"
	run runner "" total bats
	[ "$status" -ne 0 ]
	[ "$output" = "0 passed, 1 failed" ]
}

@test "runner: a part records what it counted; SBX_SANITIZE=0 runs no sanitized suite" {
	runner "" reset
	SBX_SANITIZE=0 run runner "" sanitized
	[ "$status" -eq 0 ]
	[ "$output" = "sanitized: 0 passed, 0 failed" ]
	grep -qx 'begin sanitized' "$SBX_TEST_COUNTS"
	grep -qx 'end sanitized 0 0 0' "$SBX_TEST_COUNTS"
	run runner "" total sanitized
	[ "$status" -eq 0 ]
	[ "$output" = "0 passed, 0 failed" ]
}

@test "runner: make check runs the three parts in turn, then the one closing line" {
	run make -s -n -C "$TOP" check
	[ "$status" -eq 0 ]
	# make -n runs the recursive makes, with -n: their lines come too
	local want="sh test/run-suites reset
make -s check-bats
MAKEFLAGS= MAKELEVEL= MFLAGS= sh test/run-suites bats
make -s check-sanitized
MAKEFLAGS= MAKELEVEL= MFLAGS= sh test/run-suites sanitized
make -s check-pi
MAKEFLAGS= MAKELEVEL= MFLAGS= sh test/run-suites pi
sh test/run-suites total bats sanitized pi"
	# (the recursive make may be named by its path)
	[ "$(printf '%s\n' "$output" | sed 's|^[^ ]*make |make |' |
	    grep -E '^((MAKEFLAGS= MAKELEVEL= MFLAGS= )?sh test/run-suites|make -s check-)')" = "$want" ]
}
