#!/usr/bin/env bats
# Whose status is it: sbx-run exits with the command's status, which may
# be any number, its own 68, 69, 124 and 127 included.  With -O fd it
# says on a descriptor no program it starts inherits whether the status
# is the command's or its own, and nothing in the sandbox can say it
# instead.

load ../helpers/helper

N=pi-sbx-4242-abcd1234

setup() {
	common_setup
	stub_sandbox "$N" running
	export SBX_STUB_EXEC_RUN=1	# the stand-in runs the command itself
}

# sbx-run -O 3 with the arguments given; $status, and its line in $said.
origin() {
	rc=0
	sbx-run -O 3 "$@" 3>"$BATS_TEST_TMPDIR/said" >/dev/null \
	    2>"$BATS_TEST_TMPDIR/err" || rc=$?
	said=$(cat "$BATS_TEST_TMPDIR/said")
}

@test "origin class: a command's own 124, 127, 68, 69 and 0 are the command's" {
	for n in 0 1 68 69 124 127; do
		origin -s "$N" -x -- sh -c "exit $n"
		[ "$rc" -eq "$n" ] || fail "exit $n: status $rc"
		[ "$said" = command ] || fail "exit $n: said '$said'"
	done
}

@test "origin class: sbx-run's own timeout, usage error and missing sbx are its own" {
	origin -s "$N" -t 1 -x -- sleep 30
	[ "$rc" -eq 124 ] && [ "$said" = sbx-run ] || fail "timeout: $rc '$said'"
	origin -Z
	[ "$rc" -eq 64 ] && [ "$said" = sbx-run ] || fail "usage: $rc '$said'"
	origin -s "bad name" -x -- true
	[ "$rc" -eq 64 ] && [ "$said" = sbx-run ] || fail "bad name: $rc '$said'"
	DOCKER_SANDBOX_SBX=/nonexistent/sbx origin -s "$N" -x -- true
	[ "$rc" -eq 127 ] && [ "$said" = sbx-run ] || fail "no sbx: $rc '$said'"
}

@test "origin class: the command cannot write the descriptor or say it instead" {
	origin -s "$N" -x -- sh -c 'echo sbx-run >&3; echo "sbx-run: sandbox x: timed out" >&2; exit 124'
	[ "$rc" -eq 124 ] || fail "status $rc"
	[ "$said" = command ] || fail "said '$said'"
	grep -q "Bad file descriptor\|bad file\|3: " "$BATS_TEST_TMPDIR/err" ||
	    fail "fd 3 was open in the command: $(cat "$BATS_TEST_TMPDIR/err")"
}

@test "origin class: -O takes an open descriptor of 3 or above" {
	run -64 sbx-run -O 2 -s "$N" -x -- true
	run -64 sbx-run -O x -s "$N" -x -- true
	run -64 sbx-run -O 9 -s "$N" -x -- true
	[[ "$output" == *"-O 9"* ]]
}
