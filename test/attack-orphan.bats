#!/usr/bin/env bats
# No sandbox without a teardown, against the race the soak found: a
# session dies while one of its sbx-run calls is still in flight.  Its
# watcher tears down at once; the orphaned sbx-run must not provision a
# sandbox afterwards that no watcher would ever remove.

load helper
load lifecycle

setup() {
	common_setup
	mkdir -m 700 -p "$SBX_STATE_DIR"
}

teardown() {
	lifecycle_teardown
	return 0
}

# A session shell that names its sandbox and starts one sbx-run call whose
# first exec answers "no such sandbox" after a delay; $SESSION, $N, $RUN.
session_in_flight() {
	echo 2 >"$SBX_STUB_DIR/delay.exec"
	sh -c 'N=$(sbx-run -n) || exit 1
		echo "$N" >"$1/name"
		sbx-run -s "$N" ps >"$1/out" 2>"$1/err" &
		echo $! >"$1/run"
		wait $!
		echo $? >"$1/status"
		exec sleep 1000' sh "$BATS_TEST_TMPDIR" </dev/null >/dev/null 2>&1 3>&- &
	SESSION=$!
	BG_PIDS="$BG_PIDS $SESSION"
	until_ok test -s "$BATS_TEST_TMPDIR/run" || fail "no sbx-run started"
	N=$(cat "$BATS_TEST_TMPDIR/name")
	RUN=$(cat "$BATS_TEST_TMPDIR/run")
}

@test "orphan class: an sbx-run whose session died during its call provisions nothing" {
	session_in_flight
	kill -9 "$SESSION"
	# the orphan ends on its own, with no sbx create
	for _ in $(seq 100); do dead "$RUN" && break; sleep 0.1; done
	dead "$RUN" || fail "sbx-run $RUN still runs"
	[ "$(stub_count create)" -eq 0 ] || fail "$(cat "$SBX_STUB_DIR/calls.log")"
	grep -q "its session has ended" "$BATS_TEST_TMPDIR/err" ||
	    fail "stderr: $(cat "$BATS_TEST_TMPDIR/err")"
	[ ! -e "$SBX_STATE_DIR/$N.created" ] || fail "an intent marker was left"
}

@test "orphan class (control): the same call with its session alive provisions once" {
	session_in_flight
	until_ok test -s "$BATS_TEST_TMPDIR/status" || fail "sbx-run never ended"
	[ "$(cat "$BATS_TEST_TMPDIR/status")" -eq 0 ] ||
	    fail "status $(cat "$BATS_TEST_TMPDIR/status"): $(cat "$BATS_TEST_TMPDIR/err")"
	[ "$(stub_count create)" -eq 1 ] || fail "$(cat "$SBX_STUB_DIR/calls.log")"
}

@test "orphan class: a hand-made or foreign name is never judged by a pid" {
	# sbx-run started by this shell with a name naming a dead pid: not its
	# session, so provisioning goes on (the name is just a name)
	run -0 sbx-run -s pi-sbx-4242-abcd1234 ps
	[ "$(stub_count create)" -eq 1 ] || fail "$(cat "$SBX_STUB_DIR/calls.log")"
}
