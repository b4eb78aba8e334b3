#!/usr/bin/env bats
# Provisioning before the first call (issue 19, part 1) against the sbx
# simulator (tier 2), its create made slow (SBX_SIM_CREATE_DELAY) and its
# idle stop on: the first call after a prewarm costs one exec, waits for
# a prewarm in flight rather than provisioning again, and a session that
# ends meanwhile is torn down as any other.

load ../helpers/sim-helper

setup_file() {
	sim_setup_file
	sim_session_file
	export PATH="$TOP/sbx-watch:$PATH:/usr/sbin:/sbin"
}

teardown_file() {
	sim_teardown_file
}

setup() {
	sim_setup_test "$WS" || return 1
	unset SBX_SIM_CREATE_DELAY DOCKER_SANDBOX_KEEPALIVE SBX_WATCH_PREWARM_HOLD_SECONDS
	export SBX_WATCH_BACKOFF_MS=10
	mkdir -m 700 -p "$SBX_STATE_DIR"
}

teardown() {
	local f p
	for f in "$SBX_STATE_DIR"/*.owner; do
		p=$(sed -n 's/^watcher=//p' "$f" 2>/dev/null)
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	for p in $(cat "$BATS_TEST_TMPDIR/pids" 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
	return 0
}

verbs_after() {
	sim_calls_after "$1" | cut -d' ' -f3 | tr '\n' ' '
}

# A session process (its pid in SESSION) and its watcher for name.
armed() {
	SESSION=$(sleep 1000 </dev/null >/dev/null 2>&1 3>&- & echo $!)
	echo "$SESSION" >>"$BATS_TEST_TMPDIR/pids"
	sbx-watch -p "$SESSION" "$1"
}

# sbx-run -P NAME in the background; returns once it holds the lock
# (EOF on its stdout).  Its pid in PW, its status in $BATS_TEST_TMPDIR/pw.rc.
prewarm_bg() {
	local fifo=$BATS_TEST_TMPDIR/pw.fifo
	rm -f "$fifo" && mkfifo "$fifo"
	(rc=0; sbx-run -P -s "$1" >"$fifo" 2>"$BATS_TEST_TMPDIR/pw.err" || rc=$?
	    echo "$rc" >"$BATS_TEST_TMPDIR/pw.rc") 3>&- &
	PW=$!
	echo "$PW" >>"$BATS_TEST_TMPDIR/pids"
	cat "$fifo" >/dev/null
}

status_of() {
	sim_look ls --json | python3 -c 'import json,sys
for s in json.load(sys.stdin)["sandboxes"]:
    if s["name"] == sys.argv[1]: print(s["status"])' "$1"
}

@test "sim: SBX_SIM_CREATE_DELAY: the create takes that long, the name is taken but no sandbox meanwhile; a bad value is refused" {
	start=$(date +%s%N)
	SBX_SIM_CREATE_DELAY=2 "$SIM" create --quiet --name pw-delay shell "$WS" &
	c=$!
	sleep 0.5
	run -1 --separate-stderr "$SIM" exec pw-delay -- true
	[[ "$stderr" == *"pw-delay"* ]]
	[ -z "$(status_of pw-delay)" ]
	run -1 --separate-stderr "$SIM" create --quiet --name pw-delay shell "$WS"
	[[ "$stderr" == *"already exists"* ]]
	wait "$c"
	ms=$((($(date +%s%N) - start) / 1000000))
	((ms >= 2000)) || fail "the create took $ms ms"
	[ "$(status_of pw-delay)" = running ]
	SBX_SIM_CREATE_DELAY=2s run -2 --separate-stderr "$SIM" create --quiet --name pw-delay2 shell "$WS"
	[[ "$stderr" == *"SBX_SIM_CREATE_DELAY"* ]]
	"$SIM" rm --force pw-delay >/dev/null
}

@test "prewarm: a call made while -P creates waits for it and costs one exec, no second create" {
	export SBX_SIM_CREATE_DELAY=2
	n=$(sim_ncalls)
	prewarm_bg pw-flight
	run -0 --separate-stderr sbx-run -s pw-flight -x echo answered
	[ "$output" = answered ]
	wait "$PW"
	[ "$(cat "$BATS_TEST_TMPDIR/pw.rc")" = 0 ]
	[ "$(verbs_after "$n")" = "create exec " ] || fail "$(sim_calls_after "$n")"
	"$SIM" rm --force pw-flight >/dev/null
}

@test "prewarm: a -P that fails in flight is reported by the waiting call with sbx's words; nothing is created twice" {
	# (an answer no reader places: the version is shown, once per sbx)
	rm -f "$SBX_STATE_DIR/sbx-unplaced"
	n=$(sim_ncalls)
	# the create fails at once; the listing that confirms it hangs 2 s
	SBX_SIM_FAIL=create:1 SBX_SIM_HANG=ls:1 SBX_SIM_HANG_SECONDS=2 prewarm_bg pw-fails
	run -1 --separate-stderr sbx-run -s pw-fails -x true
	[[ "$stderr" == *"provisioning it ahead of this call (sbx-run -P) failed, exit 1"* ]]
	[[ ${stderr,,} == *"failed to create sandbox: failed to run sandbox container"* ]]
	wait "$PW" || true
	[ "$(verbs_after "$n")" = "create version ls " ] || fail "$(sim_calls_after "$n")"
	# once: the next call provisions (the intent the failed listing left
	# is confirmed gone first)
	run -0 sbx-run -s pw-fails -x true
	[ "$(verbs_after "$n")" = "create version ls exec ls create exec " ] || fail "$(sim_calls_after "$n")"
	"$SIM" rm --force pw-fails >/dev/null
}

@test "prewarm: a session that ends while -P creates is torn down as any other" {
	export SBX_SIM_CREATE_DELAY=2
	armed pw-ends
	prewarm_bg pw-ends
	kill "$SESSION"
	wait "$PW" || true
	# nothing left but the session's record, kept (test/sbx-run/record.bats)
	for _ in $(seq 100); do
		[ -z "$(status_of pw-ends)" ] && ! ls "$SBX_STATE_DIR" | grep -v '^pw-ends\.past-' | grep -q '^pw-ends\.' && break
		sleep 0.1
	done
	[ -z "$(status_of pw-ends)" ] || fail "left: $(status_of pw-ends)"
	run ls "$SBX_STATE_DIR"
	[[ "$(grep -v '^pw-ends\.past-' <<<"$output")" != *pw-ends.* ]] || fail "markers left: $output"
}

@test "prewarm hold: after a prewarm the watcher holds the VM up past the idle stop for its hold, then lets it go; the first call is one exec" {
	export SBX_SIM_IDLE_STOP=2 SBX_WATCH_PREWARM_HOLD_SECONDS=6
	armed pw-hold
	run -0 sbx-run -P -s pw-hold
	sleep 4	# twice the idle stop
	[ "$(status_of pw-hold)" = running ] || fail "$(status_of pw-hold) after 4 s"
	n=$(sim_ncalls)
	run -0 sbx-run -s pw-hold -x true
	[ "$(verbs_after "$n")" = "exec " ] || fail "$(sim_calls_after "$n")"
	# past the hold the held exec ends and the idle stop comes
	for _ in $(seq 100); do
		[ "$(status_of pw-hold)" = stopped ] && break
		sleep 0.1
	done
	[ "$(status_of pw-hold)" = stopped ] || fail "still $(status_of pw-hold) past the hold"
	kill "$SESSION"
}

@test "prewarm hold: none with SBX_WATCH_PREWARM_HOLD_SECONDS=0 or DOCKER_SANDBOX_KEEPALIVE=0, nor after a sandbox the first call made" {
	export SBX_SIM_IDLE_STOP=2
	for how in hold0 keepalive0 nowarm; do
		unset SBX_WATCH_PREWARM_HOLD_SECONDS DOCKER_SANDBOX_KEEPALIVE
		case $how in
		hold0) export SBX_WATCH_PREWARM_HOLD_SECONDS=0 ;;
		keepalive0) export DOCKER_SANDBOX_KEEPALIVE=0 ;;
		esac
		armed "pw-$how"
		if [ "$how" = nowarm ]; then
			run -0 sbx-run -s "pw-$how" -x true
		else
			run -0 sbx-run -P -s "pw-$how"
		fi
		sleep 4
		[ "$(status_of "pw-$how")" = stopped ] || fail "$how: $(status_of "pw-$how")"
		kill "$SESSION"
	done
}
