#!/usr/bin/env bats
# Provisioning under attack against the sbx simulator (tier 2), where a
# sandbox is a real private dockerd: a command or a container that prints
# sbx's "no such sandbox" runs once, two first calls create once, and a
# hung create is bounded by -t with its intent recorded.

load ../helpers/sim-session

verbs_after() {
	sim_calls_after "$1" | cut -d' ' -f3 | tr '\n' ' '
}

@test "sim retry class: a command and a container printing sbx's not-found text run once" {
	run -0 sbx-run -s att-a -x true	# provisioned by sbx-run: a marker
	nf=$(sim_missing_text att-a exec)
	n=$(sim_ncalls)
	run -1 --separate-stderr sbx-run -s att-a -x sh -c "echo ran >>'$WS/ran-x'; echo \"$nf\" >&2; exit 1"
	[ "$(sim_drop_own <<<"$stderr")" = "$nf" ]
	[ "$(wc -l <"$WS/ran-x")" -eq 1 ]
	[ "$(verbs_after "$n")" = "exec ls policy " ]
	n=$(sim_ncalls)
	run -1 --separate-stderr sbx-run -s att-a run --rm -v "$WS:/w" busybox:local \
	    sh -c "echo ran >>/w/ran-c; echo \"$nf\" >&2; exit 1"
	[ "$(sim_drop_own <<<"$stderr")" = "$nf" ]
	[ "$(wc -l <"$WS/ran-c")" -eq 1 ]
	[ "$(verbs_after "$n")" = "exec ls policy " ]
}

@test "sim retry class: in a sandbox made elsewhere (no marker), sbx create's refusal proves it exists" {
	"$SIM" create --quiet --name att-b shell "$WS" >/dev/null
	nf=$(sim_missing_text att-b exec)
	n=$(sim_ncalls)
	run -1 --separate-stderr sbx-run -s att-b -x sh -c "echo ran >>'$WS/ran-b'; echo \"$nf\" >&2; exit 1"
	[ "$(sim_drop_own <<<"$stderr")" = "$nf" ]
	[ "$(wc -l <"$WS/ran-b")" -eq 1 ]
	[ "$(verbs_after "$n")" = "exec create policy " ] || fail "$(sim_calls_after "$n")"
	[ ! -e "$SBX_STATE_DIR/att-b.created" ]
}

@test "sim retry class: two concurrent first calls create once and each command runs once" {
	n=$(sim_ncalls)
	sbx-run -s att-c -x sh -c "echo 1 >>'$WS/ran-p'" >"$BATS_TEST_TMPDIR/o1" 2>&1 3>&- &
	a=$!
	sbx-run -s att-c -x sh -c "echo 2 >>'$WS/ran-p'" >"$BATS_TEST_TMPDIR/o2" 2>&1 3>&- &
	b=$!
	wait "$a" || fail "$(cat "$BATS_TEST_TMPDIR/o1")"
	wait "$b" || fail "$(cat "$BATS_TEST_TMPDIR/o2")"
	[ "$(sort "$WS/ran-p" | tr '\n' ' ')" = "1 2 " ]
	[ "$(sim_calls_after "$n" | cut -d' ' -f3 | grep -c '^create$')" -eq 1 ]
	[ "$(sim_calls_after "$n" | cut -d' ' -f3 | grep -c '^ls$')" -eq 0 ]
	! grep -q "no sandbox named" "$BATS_TEST_TMPDIR"/o1 "$BATS_TEST_TMPDIR"/o2
}

@test "sim timeout class: a hung create is bounded by -t, 124, and its intent is kept" {
	start=$(date +%s)
	SBX_SIM_HANG=create:1 run -124 --separate-stderr timeout -s KILL 30 sbx-run -t 2 -s att-d ps
	[ "$(sim_drop_own <<<"$stderr")" = "sbx-run: sandbox att-d: sbx create timed out after 2 s" ] || fail "$stderr"
	[ $(( $(date +%s) - start )) -lt 15 ]
	grep -q '^state=creating$' "$SBX_STATE_DIR/att-d.created"
	# the next call confirms with a listing and makes it
	run -0 sbx-run -s att-d ps -q
	grep -q '^state=ready$' "$SBX_STATE_DIR/att-d.created"
}

# Until an sbx create of NAME runs (10 s at most); the simulator logs a
# call only once it has ended.
create_started() {
	local i
	for i in $(seq 200); do
		pgrep -f "sbx create (--no-input )?--quiet --name $1 " >/dev/null && return 0
		sleep 0.05
	done
	return 1
}

@test "sim orphaned provisioning class: a create that outlives its session and its SIGKILLed watcher is removed" {
	local s wp r rc
	s=$(sleep 1000 </dev/null >/dev/null 2>&1 3>&- & echo $!)
	"$TOP/sbx-watch/sbx-watch" -p "$s" att-o
	wp=$(sed -n 's/^watcher=//p' "$SBX_STATE_DIR/att-o.owner")
	SBX_SIM_CREATE_DELAY=3 DOCKER_SANDBOX_TIMEOUT=0 \
	    sbx-run -s att-o -x sh -c "echo ran >>'$WS/ran-o'" \
	    >/dev/null 2>"$BATS_TEST_TMPDIR/err-o" 3>&- &
	r=$!
	create_started att-o || fail "no create"
	kill -9 "$wp" "$s"
	rc=0
	wait "$r" || rc=$?
	[ "$rc" -eq 1 ]
	grep -q "its session ended while it was being created; removed it" \
	    "$BATS_TEST_TMPDIR/err-o"
	! "$SIM" ls -q | grep -qx att-o
	[ ! -e "$WS/ran-o" ]
	[ ! -e "$SBX_STATE_DIR/att-o.created" ]
}

@test "sim orphaned provisioning class: the watcher, bound 0, waits for the create and then removes it" {
	local s wp r rc
	s=$(sleep 1000 </dev/null >/dev/null 2>&1 3>&- & echo $!)
	DOCKER_SANDBOX_TIMEOUT=0 "$TOP/sbx-watch/sbx-watch" -p "$s" att-w
	wp=$(sed -n 's/^watcher=//p' "$SBX_STATE_DIR/att-w.owner")
	SBX_SIM_CREATE_DELAY=3 DOCKER_SANDBOX_TIMEOUT=0 \
	    sbx-run -s att-w -x sh -c "echo ran >>'$WS/ran-w'" \
	    >/dev/null 2>&1 3>&- &
	r=$!
	create_started att-w || fail "no create"
	sleep 0.8
	kill -9 "$s"
	rc=0
	wait "$r" || rc=$?
	[ "$rc" -eq 1 ]
	for _ in $(seq 200); do kill -0 "$wp" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$wp" 2>/dev/null || fail "watcher $wp still running"
	! "$SIM" ls -q | grep -qx att-w
	[ ! -e "$WS/ran-w" ]
	# nothing of it but the session's record, kept as a past one
	[ -z "$(ls -A "$SBX_STATE_DIR" | grep '^att-w\.' | grep -v '^att-w\.past-[0-9]')" ] ||
	    fail "left: $(ls -A "$SBX_STATE_DIR" | grep '^att-w\.')"
	[ "$(ls -A "$SBX_STATE_DIR" | grep -c '^att-w\.past-[0-9]')" -eq 1 ]
}

@test "sim provisioning lock class: a slow create of one sandbox holds no other's first call" {
	SBX_SIM_CREATE_DELAY=8 sbx-run -s att-s1 -x true >/dev/null 2>&1 3>&- &
	local r=$! t0
	create_started att-s1 || fail "no create"
	t0=$SECONDS
	run -0 sbx-run -t 7 -s att-s2 -x true
	[ $((SECONDS - t0)) -lt 7 ]
	wait "$r"
}
