#!/usr/bin/env bats
# The provisioning lock under attack (issue 18 findings 9 and 10).  A
# provisioning that outlives its session, or its session's watcher, is
# torn down all the same; sessions provisioning different sandboxes never
# wait on each other; and every wait for the lock ends within the call's
# timeout, in 124 (sbx-run) or 75 (sbx-watch -n).

load ../helpers/helper
load ../helpers/lifecycle

N=pi-sbx-4242-abcd1234
M=pi-sbx-4242-other000

setup() {
	lifecycle_setup
	export PATH="$TOP/sbx-watch:$TOP/sbx-gc:$PATH"
}

teardown() {
	lifecycle_teardown
}

created_logged() {	# count
	[ "$(stub_count create)" -ge "$1" ] 2>/dev/null
}

# A session with its watcher armed for $N, the create slowed to $1 s.
armed_session() {
	echo "$1" >"$SBX_STUB_DIR/delay.create"
	session
	sbx-watch -p "$SESSION" "$N"
	WP=$(watcher_pid "$N")
}

# sbx-run in the background, its pid in $RUNP, its status in $RUNRC_FILE.
bg_run() {
	RUNRC_FILE="$BATS_TEST_TMPDIR/run.rc.$RANDOM"
	# errexit would end the subshell before it says a failure
	(rc=0; sbx-run "$@" >/dev/null 2>"$RUNRC_FILE.err" || rc=$?
	    echo "$rc" >"$RUNRC_FILE") &
	RUNP=$!
	BG_PIDS="$BG_PIDS $RUNP"
}

bg_status() {
	until_ok test -s "$RUNRC_FILE" || fail "sbx-run never ended"
	cat "$RUNRC_FILE"
}

@test "orphaned provisioning class: a create that outlives its session is torn down, though the watcher's bound is 0" {
	export DOCKER_SANDBOX_TIMEOUT=0
	armed_session 3
	bg_run -s "$N" ps
	until_ok created_logged 1 || fail "no create"
	sleep 0.8
	kill -9 "$SESSION"
	[ "$(bg_status)" -ne 0 ]
	until_ok dead "$WP" || fail "watcher still running"
	[ ! -e "$SBX_STUB_DIR/sandboxes/$N" ]
	# the command itself never ran: one exec, the one that found nothing
	[ "$(stub_count exec)" -eq 1 ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
	# the removal came after the creation
	c=$(grep -n '^create' "$SBX_STUB_DIR/calls.log" | cut -d: -f1)
	r=$(grep -n '^rm' "$SBX_STUB_DIR/calls.log" | tail -1 | cut -d: -f1)
	[ -n "$r" ] && [ "$c" -lt "$r" ]
}

@test "orphaned provisioning class: with the watcher SIGKILLed too, the creator removes what it made" {
	armed_session 2
	bg_run -s "$N" ps
	until_ok created_logged 1 || fail "no create"
	kill -9 "$WP" "$SESSION"
	[ "$(bg_status)" -eq 1 ]
	grep -q "its session ended while it was being created" "$RUNRC_FILE.err"
	[ ! -e "$SBX_STUB_DIR/sandboxes/$N" ]
	[ "$(stub_count rm)" -eq 1 ]
	[ "$(stub_count exec)" -eq 1 ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
}

@test "orphaned provisioning class: no watcher at all, the generated name's session dies mid-create" {
	echo 2 >"$SBX_STUB_DIR/delay.create"
	# sbx-run's parent is the session the name is made from
	sh -c 'echo $$ >"$1/sess.pid"; exec 3>&-; sbx-run -s "pi-sbx-$$-abcd1234" ps \
	    >/dev/null 2>"$1/run.err" & echo $! >"$1/run.pid"; wait' sh "$BATS_TEST_TMPDIR" &
	until_ok test -s "$BATS_TEST_TMPDIR/run.pid" || fail "no sbx-run"
	local s r
	s=$(cat "$BATS_TEST_TMPDIR/sess.pid")
	r=$(cat "$BATS_TEST_TMPDIR/run.pid")
	BG_PIDS="$BG_PIDS $s $r"
	until_ok created_logged 1 || fail "no create"
	kill -9 "$s"
	until_ok dead "$r" || fail "sbx-run still running"
	[ ! -e "$SBX_STUB_DIR/sandboxes/pi-sbx-$s-abcd1234" ]
	[ "$(stub_count exec)" -eq 1 ]
	grep -q "its session ended while it was being created" "$BATS_TEST_TMPDIR/run.err"
}

@test "orphaned provisioning class: a live session's provisioning is not touched" {
	armed_session 1
	bg_run -s "$N" ps
	[ "$(bg_status)" -eq 0 ]
	[ -e "$SBX_STUB_DIR/sandboxes/$N" ]
	[ "$(stub_count exec)" -eq 2 ] && [ "$(stub_count rm)" -eq 0 ]
	grep -q '^state=ready$' "$SBX_STATE_DIR/$N.created"
}

@test "orphaned provisioning class: sbx-watch -n with DOCKER_SANDBOX_TIMEOUT=0 waits for the create, without limit" {
	echo 2 >"$SBX_STUB_DIR/delay.create"
	bg_run -s "$N" ps
	until_ok created_logged 1 || fail "no create"
	DOCKER_SANDBOX_TIMEOUT=0 run -0 --separate-stderr sbx-watch -n "$N"
	[ "$(stub_count rm)" -eq 1 ]
	[ ! -e "$SBX_STUB_DIR/sandboxes/$N" ]
	c=$(grep -n '^create' "$SBX_STUB_DIR/calls.log" | cut -d: -f1)
	r=$(grep -n '^rm' "$SBX_STUB_DIR/calls.log" | cut -d: -f1)
	[ "$c" -lt "$r" ]
}

@test "provisioning lock class: sessions provisioning different sandboxes do not wait on each other" {
	echo 3 >"$SBX_STUB_DIR/delay.create"
	bg_run -s "$N" ps
	until_ok created_logged 1 || fail "no create"
	local t0=$SECONDS
	run -0 sbx-run -t 10 -s "$M" ps
	# its own 3 s create, not the other's first
	[ $((SECONDS - t0)) -le 4 ]
	[ "$(bg_status)" -eq 0 ]
}

@test "provisioning lock class: the wait for the same sandbox ends in 124 within -t" {
	echo 6 >"$SBX_STUB_DIR/delay.create"
	bg_run -s "$N" ps
	until_ok created_logged 1 || fail "no create"
	local t0=$SECONDS
	run -124 --separate-stderr sbx-run -t 1 -s "$N" ps
	[ $((SECONDS - t0)) -le 3 ]
	[[ "$stderr" == *"sandbox $N: another call is provisioning it; still waiting after 1 s"* ]]
	DOCKER_SANDBOX_TIMEOUT=1 run -124 sbx-run -s "$N" ps
	[ $((SECONDS - t0)) -le 5 ]
	# neither ran a second create
	[ "$(stub_count create)" -eq 1 ]
	[ "$(bg_status)" -eq 0 ]
}

@test "provisioning lock class: a slow teardown of one sandbox holds no other's provisioning" {
	stub_sandbox "$M" running
	printf 'created=%s\nstate=ready\nby=1\nworkspace=%s\nmode=rw\n' \
	    "$(date +%s)" "$WS" >"$SBX_STATE_DIR/$M.created"
	echo 4 >"$SBX_STUB_DIR/delay.rm"
	sbx-watch -n "$M" >/dev/null 2>&1 &
	BG_PIDS="$BG_PIDS $!"
	until_ok grep -q '^rm' "$SBX_STUB_DIR/calls.log" || fail "no rm"
	local t0=$SECONDS
	run -0 sbx-run -t 2 -s "$N" ps
	[ $((SECONDS - t0)) -le 2 ]
}

@test "provisioning lock class: sbx-gc still leaves the markers of a sandbox being provisioned, and only those" {
	echo 3 >"$SBX_STUB_DIR/delay.create"
	bg_run -s "$N" ps
	until_ok created_logged 1 || fail "no create"
	# as if the create had begun long before the sweep
	touch -d '-1 hour' "$SBX_STATE_DIR/$N.created"
	# a gone sandbox's markers, which go meanwhile
	printf 'created=1\nstate=ready\nby=1\nworkspace=%s\nmode=rw\n' "$WS" \
	    >"$SBX_STATE_DIR/$M.created"
	touch -d '-1 hour' "$SBX_STATE_DIR/$M.created"
	run -0 sbx-gc
	[ -e "$SBX_STATE_DIR/$N.created" ]
	[ ! -e "$SBX_STATE_DIR/$M.created" ]
	[ "$(bg_status)" -eq 0 ]
}

@test "provisioning lock class: the journal's lock is waited for within the call's timeout too" {
	stub_sandbox "$N" running
	: >"$SBX_STATE_DIR/$N.journal"
	chmod 600 "$SBX_STATE_DIR/$N.journal"
	# another process holds the journal exclusively, and keeps it
	python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "r+"); fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close(); time.sleep(60)' \
	    "$SBX_STATE_DIR/$N.journal" "$BATS_TEST_TMPDIR/held" &
	BG_PIDS="$BG_PIDS $!"
	until_ok test -e "$BATS_TEST_TMPDIR/held" || fail "no holder"
	local t0=$SECONDS
	run -0 --separate-stderr timeout 20 sbx-run -t 1 -s "$N" ps
	[ $((SECONDS - t0)) -le 4 ]
	[[ "$stderr" == *"journal"* ]]
	DOCKER_SANDBOX_TIMEOUT=1 run -1 --separate-stderr timeout 20 sbx-run -J 5 -s "$N"
	[ $((SECONDS - t0)) -le 7 ]
}
