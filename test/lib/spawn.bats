#!/usr/bin/env bats
# The spawn, the self-pipe and the supervised run, each on its own: a
# reader that stops reading never blocks the supervision (the timeout and
# the signals still act), output passes through whole and in order, the
# self-pipe loses no signal, and a child whose parent died before its exec
# never runs the command.

load ../helpers/helper
load ../helpers/lifecycle

N=pi-sbx-4242-abcd1234

setup() {
	common_setup
	mkdir -m 700 -p "$SBX_STATE_DIR"
	stub_sandbox "$N"
	export SBX_STUB_EXEC_RUN=1
	F="$BATS_TEST_TMPDIR/fifo"
	mkfifo "$F"
	rd=
}

teardown() {
	[ -n "$rd" ] && kill "$rd" 2>/dev/null
	lifecycle_teardown
	return 0
}

# A reader that opens the fifo and never reads it.
stalled_reader() {
	sleep 30 <"$F" 3>&- &
	rd=$!
}

@test "relay class: a stalled stdout reader does not stop the timeout (124)" {
	stalled_reader
	start=$(date +%s)
	rc=0
	timeout -s KILL 20 sbx-run -s "$N" -t 2 -x sh -c yes >"$F" || rc=$?
	[ "$rc" -eq 124 ] || fail "exit $rc, want 124"
	[ $(($(date +%s) - start)) -lt 10 ] || fail "took $(($(date +%s) - start)) s"
}

@test "relay class: a stalled stderr reader does not stop the timeout (command killed)" {
	stalled_reader
	sbx-run -s "$N" -t 2 -x sh -c \
	    "echo \$\$ >'$BATS_TEST_TMPDIR/pid'; exec yes >&2" 2>"$F" &
	pid=$!
	sleep 1
	cmd=$(cat "$BATS_TEST_TMPDIR/pid")
	alive "$cmd" || fail "the command did not start"
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		alive "$cmd" || break
		sleep 0.5
	done
	gone=1
	alive "$cmd" && gone=0
	# sbx-run's own word on the timeout waits for a reader: give it none
	kill "$rd"
	rd=
	wait "$pid" || true
	[ "$gone" = 1 ] || fail "the command outlived its timeout"
}

@test "relay class: a signal reaches the command while the reader stalls (TERM 143, INT 130)" {
	for sig in TERM INT; do
		stalled_reader
		timeout -s KILL 20 sbx-run -s "$N" -x sh -c \
		    'trap "exit 99" HUP; yes' >"$F" &
		pid=$!
		sleep 1
		kill -s "$sig" "$pid"
		rc=0
		wait "$pid" || rc=$?
		want=143
		[ "$sig" = INT ] && want=130
		[ "$rc" -eq "$want" ] || fail "$sig: exit $rc, want $want"
		kill "$rd" 2>/dev/null
		rd=
	done
}

@test "relay class: output passes whole and in order, to a slow reader too, and is counted" {
	seq 100000 >"$BATS_TEST_TMPDIR/want"
	seq 50000 >"$BATS_TEST_TMPDIR/wanterr"
	sbx-run -s "$N" -x sh -c 'seq 100000' >"$BATS_TEST_TMPDIR/got"
	cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	# the command ends long before the reader has taken it all
	sbx-run -s "$N" -x sh -c 'seq 100000; seq 50000 >&2' \
	    2>"$BATS_TEST_TMPDIR/goterr" | { sleep 2; cat; } >"$BATS_TEST_TMPDIR/got"
	cmp "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	cmp "$BATS_TEST_TMPDIR/wanterr" "$BATS_TEST_TMPDIR/goterr"
	# both streams to one pipe, each in its own order
	sbx-run -s "$N" -x sh -c 'seq 100000; seq 50000 >&2' 2>&1 |
	    { sleep 1; cat; } >"$BATS_TEST_TMPDIR/both"
	[ "$(wc -c <"$BATS_TEST_TMPDIR/both")" -eq \
	    $(($(wc -c <"$BATS_TEST_TMPDIR/want") + $(wc -c <"$BATS_TEST_TMPDIR/wanterr"))) ]
	b=$(wc -c <"$BATS_TEST_TMPDIR/want")
	e=$(wc -c <"$BATS_TEST_TMPDIR/wanterr")
	grep -c '"bytes":'"$b"',' "$SBX_STATE_DIR/$N.journal" | grep -qx 1
	grep -c '"bytes":'"$((b + e))"',' "$SBX_STATE_DIR/$N.journal" | grep -qx 2
}

@test "self-pipe class: signals arrive all and in order; nested traps, untrap, hand-back, a child's defaults" {
	run -0 "$TOP/test/tools/selfpipe"
	printf '%s\n' "$output"
	for c in trap order empty nested-trap untrap untrap-ignored run \
	    passed-on handed-back restored child; do
		grep -qx "ok $c" <<<"$output" || fail "check $c did not pass"
	done
}

@test "dead-parent class: a child whose parent died before its exec never runs the command" {
	run -0 "$TOP/test/tools/orphan" "$BATS_TEST_TMPDIR/ran" dead
	[ "$output" = "status=127 errno=No such process" ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	# the control: with its parent alive, the same child runs it
	run -0 "$TOP/test/tools/orphan" "$BATS_TEST_TMPDIR/ran" alive
	[ "$output" = "status=0 errno=none" ]
	[ -e "$BATS_TEST_TMPDIR/ran" ]
}

@test "dead-parent class: sbx-run killed with KILL leaves no command behind (the guardian)" {
	sbx-run -s "$N" -x sh -c "echo \$\$ >'$BATS_TEST_TMPDIR/pid'; exec sleep 60" &
	pid=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -s "$BATS_TEST_TMPDIR/pid" ] && break
		sleep 0.2
	done
	cmd=$(cat "$BATS_TEST_TMPDIR/pid")
	alive "$cmd" || fail "the command did not start"
	kill -KILL "$pid"
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		alive "$cmd" || break
		sleep 0.2
	done
	! alive "$cmd"
}
