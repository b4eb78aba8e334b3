#!/usr/bin/env bats
# No sandbox without a teardown, against the race the soak found: a
# session dies while one of its sbx-run calls is still in flight.  Its
# watcher tears down at once; the orphaned sbx-run must not provision a
# sandbox afterwards that no watcher would ever remove.

load ../helpers/helper
load ../helpers/lifecycle

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

# The call of an ended session made no create, said why, left no intent.
provisioned_nothing() {
	[ "$(stub_count create)" -eq 0 ] || fail "$(cat "$SBX_STUB_DIR/calls.log")"
	grep -q "its session has ended" "$BATS_TEST_TMPDIR/err" ||
	    fail "stderr: $(cat "$BATS_TEST_TMPDIR/err")"
	[ ! -e "$SBX_STATE_DIR/$N.created" ] || fail "an intent marker was left"
}

@test "orphan class: an sbx-run whose session died during its call provisions nothing" {
	session_in_flight
	kill -9 "$SESSION"
	# the orphan ends on its own, with no sbx create
	for _ in $(seq 100); do dead "$RUN" && break; sleep 0.1; done
	dead "$RUN" || fail "sbx-run $RUN still runs"
	provisioned_nothing
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

# A session whose process lives on after it ended (a new session in the
# same editor): its watcher armed on a lifeline, one sbx-run call in
# flight whose first exec answers "no such sandbox" after a delay; the
# lifeline's writer in $LIFE.  $N, $RUN, $WP as above.
armed_in_flight() {
	export DOCKER_SANDBOX_KEEPALIVE=0
	echo 2 >"$SBX_STUB_DIR/delay.exec"
	mkfifo "$BATS_TEST_TMPDIR/life"
	# from a subshell: nobody's job, so no notice when it is killed
	LIFE=$( (exec sleep 1000 >"$BATS_TEST_TMPDIR/life") </dev/null \
	    >/dev/null 2>&1 3>&- & echo $!)
	BG_PIDS="$BG_PIDS $LIFE"
	N=$(sbx-run -n)
	"$TOP/sbx-watch/sbx-watch" -f 4 "$N" 4<"$BATS_TEST_TMPDIR/life" 3>&-
	WP=$(watcher_pid "$N")
	sbx-run -s "$N" ps >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	RUN=$!
	BG_PIDS="$BG_PIDS $RUN"
	# in flight: its exec made (sbx-run looked at the watcher before it)
	for _ in $(seq 100); do
		[ "$(stub_count exec)" -ge 1 ] && return 0
		sleep 0.05
	done
	fail "no exec of sbx-run's came"
}

@test "orphan class: a call of a session that ended while its process lives provisions nothing" {
	armed_in_flight
	kill -9 "$LIFE"	# the session ends: its watcher sees EOF and goes
	for _ in $(seq 100); do dead "$WP" && break; sleep 0.1; done
	dead "$WP" || fail "the watcher still runs"
	rc=0
	wait "$RUN" || rc=$?
	[ "$rc" -eq 1 ] || fail "status $rc: $(cat "$BATS_TEST_TMPDIR/err")"
	provisioned_nothing
}

@test "orphan class (control): the same call with its watcher armed throughout provisions once" {
	armed_in_flight
	rc=0
	wait "$RUN" || rc=$?
	[ "$rc" -eq 0 ] || fail "status $rc: $(cat "$BATS_TEST_TMPDIR/err")"
	[ "$(stub_count create)" -eq 1 ] || fail "$(cat "$SBX_STUB_DIR/calls.log")"
}

@test "orphan class: a call of a watched session whose sandbox was torn down during it makes none again" {
	export DOCKER_SANDBOX_KEEPALIVE=0
	N0=$(sbx-run -n)
	provisioned "$N0"
	echo 2 >"$SBX_STUB_DIR/delay.exec"
	mkfifo "$BATS_TEST_TMPDIR/life"
	LIFE=$( (exec sleep 1000 >"$BATS_TEST_TMPDIR/life") </dev/null \
	    >/dev/null 2>&1 3>&- & echo $!)
	BG_PIDS="$BG_PIDS $LIFE"
	"$TOP/sbx-watch/sbx-watch" -f 4 "$N0" 4<"$BATS_TEST_TMPDIR/life" 3>&-
	sbx-run -s "$N0" ps >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	RUN=$!
	BG_PIDS="$BG_PIDS $RUN"
	sleep 0.5
	# the sandbox goes while the call's exec is under way (its watcher stays)
	rm -f "$SBX_STUB_DIR/sandboxes/$N0"
	rm -f "$SBX_STATE_DIR/$N0.created"
	rc=0
	wait "$RUN" || rc=$?
	[ "$rc" -eq 1 ] || fail "status $rc: $(cat "$BATS_TEST_TMPDIR/err")"
	[ "$(stub_count create)" -eq 0 ] || fail "$(cat "$SBX_STUB_DIR/calls.log")"
}
