#!/usr/bin/env bats
# A teardown nothing in the sandbox can hold up (issue 24 item 4): the
# save before the rm has a fixed bound that no setting and no answer of
# the sandbox extends, and no exec goes into a VM that may have stopped
# (an exec starts it again after its session ended).  Against the
# recording stand-in (a fake docker behind its execs), then the simulator.

load ../helpers/helper
load ../helpers/sim-setup
load ../helpers/lifecycle
load ../helpers/fakedocker

N=pi-sbx-4242-bound001
SAVE_MAX=30	# sbx-watch(8): the save's bound, in seconds

setup() {
	lifecycle_setup
	export DOCKER_SANDBOX_IMAGE_CACHE=10g
	fake_docker_setup
}

teardown() {
	lifecycle_teardown
	sim_test_teardown
	return 0
}

# ours NAME STATUS: a sandbox sbx-run made for $WS, and a call of its
# session that just ended (its journal)
ours() {
	stub_sandbox "$1" "$2"
	printf 'created=%s\nstate=ready\nby=1\nworkspace=%s\nmode=rw\n' \
	    "$(date +%s)" "$WS" >"$SBX_STATE_DIR/$1.created"
	echo '{"status":0}' >"$SBX_STATE_DIR/$1.journal"
}

@test "bounded teardown class: a save that never ends, DOCKER_SANDBOX_TIMEOUT=0, holds the rm at most the save's bound" {
	export DOCKER_SANDBOX_TIMEOUT=0
	ours "$N" running
	touch "$SBX_STUB_DIR/hang.exec"
	t=$(date +%s)
	run timeout $((SAVE_MAX + 40)) sbx-watch -n "$N"
	el=$(($(date +%s) - t))
	[ "$status" -eq 0 ] || fail "status $status after $el s: $output"
	((el <= SAVE_MAX + 10)) || fail "the rm came after $el s"
	[ "$(stub_count rm)" -eq 1 ]
	for p in $(cat "$SBX_STUB_DIR/hung.pids"); do
		until_ok dead "$p" || fail "the hung save $p outlived the teardown"
	done
}

@test "bounded teardown class: a VM the listing shows stopped gets no exec at its teardown, only the rm" {
	ours "$N" stopped
	sbx-watch -n "$N"
	[ "$(stub_count exec)" -eq 0 ] || fail "calls: $(cat "$SBX_STUB_DIR/calls.log")"
	[ "$(stub_count rm)" -eq 1 ]
	# the listing is the only other call
	[ "$(stub_count)" -eq 2 ] || fail "calls: $(cat "$SBX_STUB_DIR/calls.log")"
}

@test "bounded teardown class: a running VM whose last call ended long ago may stop under the save: no exec" {
	ours "$N" running
	touch -d '-1 minute' "$SBX_STATE_DIR/$N.journal"
	sbx-watch -n "$N"
	[ "$(stub_count exec)" -eq 0 ] || fail "calls: $(cat "$SBX_STUB_DIR/calls.log")"
	[ "$(stub_count rm)" -eq 1 ]
	# a call that just ended: the VM is surely up, and the save is made
	ours "$N" running
	sbx-watch -n "$N"
	[ "$(stub_count exec)" -eq 2 ] || fail "calls: $(cat "$SBX_STUB_DIR/calls.log")"
}

@test "bounded teardown class: a listing that fails or does not list the VM as running means no exec" {
	local kind
	for kind in fails garbage absent; do
		rm -f "$SBX_STUB_DIR"/rc.ls "$SBX_STUB_DIR"/out.ls "$SBX_STUB_DIR"/rcused.ls
		ours "$N" running
		case $kind in
		fails) echo 1 >"$SBX_STUB_DIR/rc.ls" ;;
		garbage) printf '{"sandboxes":[{"name":"%s","status":"running"' "$N" >"$SBX_STUB_DIR/out.ls" ;;
		absent) echo '{"sandboxes":[]}' >"$SBX_STUB_DIR/out.ls" ;;
		esac
		sbx-watch -n "$N"
		[ "$(stub_count exec)" -eq 0 ] || fail "$kind: calls: $(cat "$SBX_STUB_DIR/calls.log")"
	done
}

# ---------------------------------------------------------------- simulator

# dockerd_of NAME: the pid of the simulated sandbox's dockerd
dockerd_of() {
	local d
	for d in "$SBX_SIM_ROOT"/s/*/; do
		[ "$(cat "$d/name" 2>/dev/null)" = "$1" ] && cat "$d/dockerd.pid" && return 0
	done
	return 1
}

sim_status() {
	sim_look ls --json | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sandboxes"]:
    if s["name"] == sys.argv[1]:
        print(s["status"])' "$1"
}

@test "sim: a VM idle-stopped before the session's end is not started again: no exec after the end, and it is removed" {
	export SBX_SIM_IDLE_STOP=3
	sim_sandbox idle || return
	session
	sbx-watch -p "$SESSION" "$SIM_SB"
	# a call of the session, then the VM idles out before its end
	sbx-run -s "$SIM_SB" ps >/dev/null
	for _ in $(seq 300); do
		[ "$(sim_status "$SIM_SB")" = stopped ] && break
		sleep 0.1
	done
	[ "$(sim_status "$SIM_SB")" = stopped ] || fail "the VM did not idle-stop"
	c0=$(sim_ncalls)
	wp=$(watcher_pid "$SIM_SB")
	kill -9 "$SESSION"
	until_ok dead "$wp" || fail "the watcher did not finish"
	after=$(sim_calls_after "$c0")
	! grep -q ' exec ' <<<"$after" || fail "an exec after the end: $after"
	grep -q " rm --force $SIM_SB" <<<"$after" || fail "no rm: $after"
	[ -z "$(sim_status "$SIM_SB")" ] || fail "still there"
	sed -i "/^$SIM_SB\$/d" "$BATS_TEST_TMPDIR/sim-used"
}

@test "sim: the agent stops its own dockerd (SIGSTOP); with DOCKER_SANDBOX_TIMEOUT=0 the rm comes within the save's bound" {
	sim_sandbox stopd || return
	export DOCKER_SANDBOX_TIMEOUT=0
	sbx-run -s "$SIM_SB" ps >/dev/null
	pid=$(dockerd_of "$SIM_SB") || fail "no dockerd of $SIM_SB"
	kill -STOP "$pid"
	c0=$(sim_ncalls)
	t=$(date +%s)
	run timeout $((SAVE_MAX + 60)) sbx-watch -n "$SIM_SB"
	el=$(($(date +%s) - t))
	kill -CONT "$pid" 2>/dev/null || true
	[ "$status" -eq 0 ] || fail "status $status after $el s: $output"
	((el <= SAVE_MAX + 20)) || fail "the rm came after $el s"
	sim_calls_after "$c0" | grep -q ' rm ' || fail "no rm"
	[ -z "$(sim_status "$SIM_SB")" ] || fail "still there"
	sed -i "/^$SIM_SB\$/d" "$BATS_TEST_TMPDIR/sim-used"
}
