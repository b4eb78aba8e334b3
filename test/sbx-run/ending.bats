#!/usr/bin/env bats
# What a timeout, a signal or Esc ends inside the sandbox (tier 2, the
# simulator, whose guest commands outlive a killed sbx exec as real
# sbx's do): sbx-run's second exec ends exactly what its exec started,
# whatever the command did to its environment, its group, its title or
# its ancestry (the exec's cgroup), in the sandbox and in a container,
# and says what it ended and what it could not look for.

load ../helpers/sim-session

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
	[[ $(sim_drop_own <<<"$stderr") == "sbx-run: sandbox end-a: timed out after 2 s; ended what it started inside ("*" processes)" ]] ||
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
	# sbx's local exec ignores TERM: the grace's KILL ends it (sbx-run(1))
	[ "$st" -eq 137 ]
	for s in 612 613 614 615 616; do gone "sleep $s"; done
	grep -q "ended by signal 15; ended what it started inside (" "$BATS_TEST_TMPDIR/err" ||
	    fail "$(cat "$BATS_TEST_TMPDIR/err")"
}

@test "ending class: an inner docker exec is ended in its container, and the container lives on" {
	run -124 --separate-stderr sbx-run -t 2 -s end-a exec box sh -c 'env -i sleep 621 & sleep 622'
	gone 'sleep 621'
	gone 'sleep 622'
	[[ $stderr == *"; ended what it started in container box in its process tree ("*" processes); no cgroup could be made for it there, so what left that tree (a daemon) was not looked for" ]] ||
	    fail "$stderr"
	run -0 --separate-stderr sbx-run -s end-a exec box echo alive
	[ "$output" = alive ]
}


@test "ending class: what left the process tree (setsid, then the parent exits) is ended by the exec's cgroup on a timeout" {
	run -124 --separate-stderr sbx-run -t 2 -s end-a -x sh -c 'setsid sh -c "env -i sleep 631 &"; sleep 632'
	gone 'sleep 631'
	gone 'sleep 632'
	[[ $(sim_drop_own <<<"$stderr") == "sbx-run: sandbox end-a: timed out after 2 s; ended what it started inside ("*" processes)" ]] ||
	    fail "$stderr"
}

@test "ending class: a daemonizing process, a double fork and a TERM-ignoring daemon, then Esc (SIGINT, SIGTERM)" {
	local sig
	for sig in INT TERM; do
		sbx-run -s end-a -x sh -c 'nohup sh -c "sleep 633" >/dev/null 2>&1 & ( (env -i sleep 634 &) & ) ; setsid sh -c "trap \"\" TERM; env -i sleep 635 & exec sleep 636" & sleep 637; wait' 2>"$BATS_TEST_TMPDIR/err" &
		p=$!
		for _ in $(seq 100); do [ -n "$(inside 'sleep 637')" ] && [ -n "$(inside 'sleep 634')" ] && break; sleep 0.1; done
		[ -n "$(inside 'sleep 634')" ]
		kill -"$sig" "$p"
		st=0
		wait "$p" || st=$?
		# the status of sbx: INT ends it, TERM it ignores until the
		# grace's KILL (sbx-run(1))
		want=$((128 + $(kill -l "$sig")))
		[ "$sig" = TERM ] && want=137
		[ "$st" -eq "$want" ] || fail "$sig: exit $st"
		for s in 633 634 635 636 637; do gone "sleep $s"; done
		grep -q "ended by signal $(kill -l "$sig"); ended what it started inside (" "$BATS_TEST_TMPDIR/err" ||
		    fail "$sig: $(cat "$BATS_TEST_TMPDIR/err")"
	done
	# nothing of those execs' cgroups is left behind
	[ -z "$(find /sys/fs/cgroup/unified/sbxsim-"$(sim_tag)" /sys/fs/cgroup/sbxsim-"$(sim_tag)" -name 'sbx-run-*' 2>/dev/null | while read -r c; do [ -s "$c/cgroup.procs" ] && echo "$c"; done)" ]
}

@test "ending class: a container the command started with docker run -d is not ended, as sbx-run(1) says" {
	run -124 --separate-stderr sbx-run -t 3 -s end-a -x sh -c 'docker -H unix:///var/run/docker.sock run -d --name dd1 busybox:local sleep 638 >/dev/null; sleep 639'
	gone 'sleep 639'
	[[ $stderr == *"; ended what it started inside ("* ]] || fail "$stderr"
	run -0 --separate-stderr sbx-run -s end-a inspect -f '{{.State.Running}}' dd1
	[ "$output" = true ]
	grep -q "daemon start is not ended" "$TOP/man/sbx-run.1"
	sbx-run -s end-a rm -f dd1 >/dev/null
}

@test "ending class: in a container, where no cgroup can be made, the answer says what was not looked for, and it is true" {
	run -124 --separate-stderr sbx-run -t 2 -s end-a exec box sh -c 'setsid sh -c "sleep 641 &"; sleep 642'
	gone 'sleep 642'
	[[ $stderr == *"; ended what it started in container box in its process tree ("*" process"*"); no cgroup could be made for it there, so what left that tree (a daemon) was not looked for" ]] ||
	    fail "$stderr"
	# not claimed, and indeed not ended: the daemon runs on in the container
	[ -n "$(inside 'sleep 641')" ]
	kill $(inside 'sleep 641')
}

@test "ending class: a VM exec that can make no cgroup (an agent user without one) falls back to its process tree and says so truthfully" {
	export SBX_SIM_FAULT=no-cgroup
	run -124 --separate-stderr sbx-run -t 2 -s end-a -x sh -c 'setsid sh -c "env -i sleep 651 &"; sleep 652'
	gone 'sleep 652'
	[[ $(sim_drop_own <<<"$stderr") == "sbx-run: sandbox end-a: timed out after 2 s; ended what it started inside in its process tree ("*" process"*"); no cgroup could be made for it there, so what left that tree (a daemon) was not looked for" ]] ||
	    fail "$stderr"
	# what it did not claim indeed runs on
	[ -n "$(inside 'sleep 651')" ]
	unset SBX_SIM_FAULT
	kill $(inside 'sleep 651')
}

@test "ending class: a daemon left in an exec's cgroup ends at the sandbox's stop, and no cgroup of it is left" {
	run -0 sbx-run -s end-a -x sh -c 'setsid sh -c "env -i sleep 661 </dev/null >/dev/null 2>&1 &"'
	for _ in $(seq 50); do [ -n "$(inside 'sleep 661')" ] && break; sleep 0.1; done
	[ -n "$(inside 'sleep 661')" ]
	grep -q '/sbx-run-[0-9a-f]*$' "/proc/$(inside 'sleep 661' | head -n 1)/cgroup"
	"$SIM" stop end-a >/dev/null
	gone 'sleep 661'
	[ -z "$(find /sys/fs/cgroup/unified/sbxsim-"$(sim_tag)" /sys/fs/cgroup/sbxsim-"$(sim_tag)" -name 'sbx-run-*' 2>/dev/null | while read -r c; do [ -n "$(cat "$c/cgroup.procs")" ] && echo "$c"; done)" ]
}

@test "ending class: an exec's prologue leaves a newer empty cgroup beside its own alone (another exec's, not yet moved in), and sweeps one a minute old" {
	local own parent r
	# the exec's own cgroup, as the prologue made it
	own=$(sbx-run -s end-a -x sh -c 'sed -n "s/^0:://p" /proc/$$/cgroup' 3>&-)
	[[ $own == */sbx-run-* ]] || fail "no cgroup of its own: $own"
	for r in /sys/fs/cgroup/unified /sys/fs/cgroup; do
		[ -d "$r${own%/*}" ] && { parent=$r${own%/*}; break; }
	done
	[ -n "$parent" ] || fail "no parent of $own"
	mkdir "$parent/sbx-run-fresh0000" "$parent/sbx-run-stale0000"
	touch -d '-2 minutes' "$parent/sbx-run-stale0000" ||
	    fail "cgroupfs refused an older time"
	run -0 sbx-run -s end-a -x true 3>&-
	[ -d "$parent/sbx-run-fresh0000" ] || fail "another exec's new cgroup was removed"
	[ ! -d "$parent/sbx-run-stale0000" ] || fail "an old empty one was kept"
	rmdir "$parent/sbx-run-fresh0000"
}
