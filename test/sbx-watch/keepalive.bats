#!/usr/bin/env bats
# The keepalive against the simulator's idle stop, at real sbx's ratio
# (a 30 s grace, scaled to 2 s here): one exec held open keeps the VM up;
# by default only while the sandbox has published ports, with -k or
# DOCKER_SANDBOX_KEEPALIVE=1 always, with 0 never.  The held exec goes
# before the teardown and never outlives the watcher.

load ../helpers/helper
load ../helpers/sim-setup
load ../helpers/lifecycle

setup() {
	lifecycle_setup
	W="$TOP/sbx-watch/sbx-watch"
	export SBX_SIM_IDLE_STOP=2
}

teardown() {
	lifecycle_teardown
	sim_test_teardown
	return 0
}

status_of() {
	SBX_SIM_WORDS=exact "$SIM_SBX" ls --json | json_get "[s[\"status\"] for s in d[\"sandboxes\"] if s[\"name\"] == \"$SIM_SB\"][0]"
}

# running at every look, twice a second, for s seconds
running_throughout() {
	local i st
	for i in $(seq $(($1 * 2))); do
		st=$(status_of)
		[ "$st" = running ] || fail "$st after $((i / 2)) s"
		sleep 0.5
	done
}

# stopped within s seconds (a stop itself takes ~2.5 s)
stopped_within() {
	local i
	for i in $(seq $(($1 * 2))); do
		[ "$(status_of)" = stopped ] && return 0
		sleep 0.5
	done
	fail "still $(status_of) after $1 s"
}

finished() {
	until_ok dead "$1" || fail "watcher $1 still running"
}

# The watcher's sbx exec processes that hold the VM (sleep as the command).
holders() {
	pgrep -f "exec $SIM_SB -- sleep" || true
}

# The hold reached the guest: its sleep runs in the sandbox's cgroup.
# Until then the client may still be on its way in, and a stop in
# between is no stop under the hold (the exec starts the VM again as
# it arrives, and nothing ends).
guest_held() {
	local f id p
	for f in "$SBX_SIM_ROOT"/s/*/name; do
		[ "$(cat "$f")" = "$SIM_SB" ] && id=${f%/name} && id=${id##*/}
	done
	[ -n "${id:-}" ] || return 1
	for p in $(pgrep -x sleep); do
		[ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep 3600 " ] &&
		    grep -q "/$id/x\$" "/proc/$p/cgroup" 2>/dev/null && return 0
	done
	return 1
}

@test "sim keepalive: -k keeps the VM running through five graces (a one-shot exec each period flapped it)" {
	sim_sandbox ka1 || return
	session
	# the real ratio: a period of twice the grace
	SBX_WATCH_KEEPALIVE_SECONDS=4 "$W" -k -m none -p "$SESSION" "$SIM_SB"
	wp=$(watcher_pid "$SIM_SB")
	running_throughout 10
	kill -9 "$SESSION"
	finished "$wp"
	[ -z "$(holders)" ] || fail "a held exec outlived the watcher: $(holders)"
	stopped_within 7
}

@test "sim keepalive: by default it holds while a port is published (one exec, several graces), releases when the last goes; the VM stops within a grace" {
	sim_sandbox ka2 || return
	sim_free_port
	sim_web ka2 web -p "$SIM_PORT:8080" 8080
	run -0 "$TOP/sbx-ports/sbx-ports" -s "$SIM_SB" sync
	[ -f "$SBX_STATE_DIR/$SIM_SB.ports" ]
	session
	c0=$(sim_calls)
	unset DOCKER_SANDBOX_KEEPALIVE	# the default
	SBX_WATCH_KEEPALIVE_SECONDS=2 "$W" -m none -p "$SESSION" "$SIM_SB"
	wp=$(watcher_pid "$SIM_SB")
	running_throughout 10
	# one held exec did it: no call per period
	[ "$(sim_calls_since "$c0" | grep -c " exec $SIM_SB -- sleep ")" -le 1 ]
	sim_fetch "http://127.0.0.1:$SIM_PORT/" >/dev/null
	sbx-run -s "$SIM_SB" rm -f web >/dev/null
	run -0 "$TOP/sbx-ports/sbx-ports" -s "$SIM_SB" sync
	[ ! -f "$SBX_STATE_DIR/$SIM_SB.ports" ]
	stopped_within 7
	[ -z "$(holders)" ] || fail "still held: $(holders)"
	kill -9 "$SESSION"
	finished "$wp"
}

@test "sim keepalive: DOCKER_SANDBOX_KEEPALIVE=0 never holds, ports or not" {
	sim_sandbox ka3 || return
	sim_free_port
	sim_web ka3 web -p "$SIM_PORT:8080" 8080
	run -0 "$TOP/sbx-ports/sbx-ports" -s "$SIM_SB" sync
	session
	c0=$(sim_calls)
	DOCKER_SANDBOX_KEEPALIVE=0 "$W" -m none -p "$SESSION" "$SIM_SB"
	wp=$(watcher_pid "$SIM_SB")
	stopped_within 7
	[ "$(sim_calls_since "$c0" | grep -c " exec ")" -eq 0 ]
	kill -9 "$SESSION"
	finished "$wp"
}

@test "sim keepalive: a VM stopped under the hold is started again, at most once a period; the held exec ends before the rm" {
	sim_sandbox ka4 || return
	session
	c0=$(sim_calls)
	SBX_WATCH_KEEPALIVE_SECONDS=3 "$W" -k -p "$SESSION" "$SIM_SB"
	wp=$(watcher_pid "$SIM_SB")
	until_ok guest_held
	"$SIM_SBX" stop "$SIM_SB"
	# back within a period (and the stop's own time)
	for _ in $(seq 20); do
		[ "$(status_of)" = running ] && [ -n "$(holders)" ] && break
		sleep 0.5
	done
	[ "$(status_of)" = running ] || fail "$(status_of); calls: $(sim_calls_since "$c0")"
	sleep 4
	# (a call is logged as it ends: the one still held is not there yet)
	n=$(sim_calls_since "$c0" | grep -c " exec $SIM_SB -- sleep " || true)
	[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "$n held execs ended: $(sim_calls_since "$c0")"
	[ -n "$(holders)" ]
	kill -9 "$SESSION"
	finished "$wp"
	[ -z "$(holders)" ] || fail "a held exec outlived the watcher: $(for h in $(holders); do ps -o pid=,ppid=,pgid=,stat=,wchan:20=,args= -p $h; p=$(ps -o ppid= -p $h); ps -o pid=,ppid=,pgid=,args= -p $p; done)"
	# the hold was ended (killed, status 143 or the like) before the rm was called
	last=$(sim_calls_since "$c0" | tail -n 2)
	[[ $(tail -n 1 <<<"$last") == *" rm --force $SIM_SB" ]] || fail "$last"
	! "$SIM_SBX" ls -q | grep -qx "$SIM_SB"
	sed -i "/^$SIM_SB\$/d" "$BATS_TEST_TMPDIR/sim-used"
}
