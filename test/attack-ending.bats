#!/usr/bin/env bats
# What a timeout, a signal or Esc ends inside the sandbox (tier 2, the
# simulator, whose guest commands outlive a killed sbx exec as real
# sbx's do): sbx-run's second exec ends exactly what its exec started,
# whatever the command did to its environment, its group or its title,
# in the sandbox and in a container, and says what it ended.

load sim-session

setup_file() {
	sim_setup_file
	sim_session_file
	[ -n "$SIM_MISSING" ] && return 0
	# from the session's workspace: sbx-run refuses an sbx inside the
	# one it would mount, and the checkout holds the simulator
	cd "$WS" || return 1
	sbx-run -s end-a -x true 3>&-
	sbx-run -s end-a run -d --name box busybox:local sleep 3600 >/dev/null 3>&-
}

# Processes of this root's sandboxes whose command line holds s.
inside() {
	local p
	for p in $(pgrep -f "$1"); do
		grep -q "sbxsim-$(sim_tag)" "/proc/$p/cgroup" 2>/dev/null && echo "$p"
	done
}

gone() {	# gone pattern: none of them within a second
	for _ in $(seq 10); do
		[ -z "$(inside "$1")" ] && return 0
		sleep 0.1
	done
	fail "still running inside: $(inside "$1" | xargs -r ps -o pid=,args= -p)"
}

@test "ending class: a timeout ends the command inside, and the message says so" {
	run -124 --separate-stderr sbx-run -t 2 -s end-a -x sh -c 'sleep 611; echo never'
	gone 'sleep 611'
	[[ $stderr == "sbx-run: sandbox end-a: timed out after 2 s; ended what it started inside ("*" processes)" ]] ||
	    fail "$stderr"
}

@test "ending class: a signal ends what env -i, a title-rewriting daemon, a TERM-ignoring child and a setsid child started" {
	sbx-run -s end-a -x sh -c 'env -i sleep 612 & exec -a nginx-master sleep 613 & setsid sleep 614 & (trap "" TERM; exec sleep 615) & sleep 616; wait' 2>"$BATS_TEST_TMPDIR/err" &
	p=$!
	for _ in $(seq 100); do [ -n "$(inside 'sleep 616')" ] && break; sleep 0.1; done
	[ -n "$(inside 'sleep 616')" ]
	kill -TERM "$p"
	st=0
	wait "$p" || st=$?
	[ "$st" -eq 143 ]
	for s in 612 613 614 615 616; do gone "sleep $s"; done
	grep -q "ended by signal 15; ended what it started inside (" "$BATS_TEST_TMPDIR/err" ||
	    fail "$(cat "$BATS_TEST_TMPDIR/err")"
}

@test "ending class: an inner docker exec is ended in its container, and the container lives on" {
	run -124 --separate-stderr sbx-run -t 2 -s end-a exec box sh -c 'env -i sleep 621 & sleep 622'
	gone 'sleep 621'
	gone 'sleep 622'
	[[ $stderr == *"; ended what it started in container box ("*" processes)" ]] || fail "$stderr"
	run -0 sbx-run -s end-a exec box echo alive
	[ "$output" = alive ]
}

