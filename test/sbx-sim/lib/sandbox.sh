# shellcheck shell=bash
# sbx simulator, sandbox: one sandbox's life (README.md, "Inside a
# sandbox", "Idle stop", "Cleanup"): its cgroups, the busybox:local
# image, the start and stop of its dockerd, its removal, the idle
# reaper, and the dockerd itself (__daemon).

MNT_UTAB=/dev/null
IN_REAPER=0

# ---------------------------------------------------------------- cgroups

cg_make() {	# cg_make id part
	[ -n "$CG" ] || return 0
	mkdir -p "$CG/$1/$2" 2>/dev/null || true
}

cg_join() {	# cg_join id part: move this (sub)shell into it
	[ -n "$CG" ] || return 0
	[ -d "$CG/$1/$2" ] || cg_make "$1" "$2"
	echo "$BASHPID" >"$CG/$1/$2/cgroup.procs" 2>/dev/null || true
}

# An exec's command may make cgroups of its own below x (sbx-run's mark
# makes one per exec, as it can in a VM whose exec lands in a writable
# cgroup2 subtree), so these look at the whole subtree.
cg_busy() {	# cg_busy dir: does it or a cgroup below it hold a process?
	local l
	# cgroup2's own answer, for the whole subtree
	if [ -e "$1/cgroup.events" ]; then
		while read -r l; do
			[ "$l" = "populated 1" ] && return 0
		done <"$1/cgroup.events" 2>/dev/null
		return 1
	fi
	# (cgroupfs files always have size 0: read them)
	[ -n "$(find "$1" -name cgroup.procs -exec cat {} + 2>/dev/null)" ]
}

cg_kill() {	# cg_kill id part: SIGKILL everything in it and wait
	local g=$CG/$1/$2 i
	[ -n "$CG" ] && [ -d "$g" ] || return 0
	cg_busy "$g" || return 0
	echo 1 >"$g/cgroup.kill" 2>/dev/null ||
	    find "$g" -name cgroup.procs -exec cat {} + 2>/dev/null |
	    while read -r i; do kill -KILL "$i" 2>/dev/null; done
	for ((i = 1; i <= 100; i++)); do
		cg_busy "$g" || return 0
		nap 0.05
	done
}

cg_remove() {	# cg_remove id
	[ -n "$CG" ] && [ -d "$CG/$1" ] || return 0
	find "$CG/$1" -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null
	rmdir "$CG/$1" 2>/dev/null
	rmdir "$CG" 2>/dev/null
	return 0
}

# ---------------------------------------------------------------- image

image_tar() {	# the busybox:local rootfs, built once per root
	local t=$ROOT/img/busybox.tar r a
	[ -s "$t" ] && { echo "$t"; return 0; }
	mkdir -p "$ROOT/img"
	(
		flock 9
		[ -s "$t" ] && exit 0
		[ -x /bin/busybox ] || die 1 "sbx-sim: /bin/busybox is missing (apt-get install busybox-static)"
		r=$ROOT/img/rootfs
		rm -rf "$r"
		mkdir -p "$r/bin" "$r/etc" "$r/tmp" "$r/www" "$r/proc" "$r/sys" "$r/dev" "$r/root"
		chmod 1777 "$r/tmp"
		cp /bin/busybox "$r/bin/busybox"
		for a in $(/bin/busybox --list); do
			[ "$a" = busybox ] || ln -s busybox "$r/bin/$a"
		done
		printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' >"$r/etc/passwd"
		printf 'root:x:0:\nnogroup:x:65534:\n' >"$r/etc/group"
		printf '<h1>hello from busybox:local</h1>\n' >"$r/www/index.html"
		tar -C "$r" -cf "$t.tmp" . && mv -f "$t.tmp" "$t"
		rm -rf "$r"
	) 9>>"$ROOT/img.lock" || exit 1
	echo "$t"
}

# ---------------------------------------------------------------- start / stop

spawn_detached() {	# spawn_detached logfile cmd...: own session, no inherited fds
	local log=$1
	shift
	(
		close_fds
		exec setsid "$@"
	) </dev/null >>"$log" 2>&1 &
}

start_sandbox() {	# start_sandbox dir: start its dockerd unless running
	local d=$1 id=${1##*/} ns i pid
	if [ -n "$(daemon_pid "$d")" ]; then
		proxy_start "$d"
		reaper_start "$d"
		return 0
	fi
	ns=$(netns_of "$id")
	if [ ! -e "/run/netns/$ns" ]; then
		ip netns add "$ns" ||
		    sbx_error "failed to start sandbox: cannot create network namespace"
		ip -n "$ns" link set lo up
	fi
	vm_addr "$ns"
	rm -f "$d/d.sock" "$d/dockerd.pid" "$d/stopping"
	proxy_start "$d"
	# what a daemon that died left (containerd, shims) would be in the way
	kill_containers "$id"
	cg_kill "$id" d
	cg_make "$id" d
	# the daemon's environment: the proxy's variables and nothing of
	# the caller's (its /proc entry is visible inside)
	local penv=()
	mapfile -t penv < <(proxy_env)
	(
		cg_join "$id" d
		close_fds
		exec setsid env -i PATH="$BASE_PATH" "${penv[@]}" \
		    nsenter --net="/run/netns/$ns" -- \
		    unshare --mount --propagation private -- \
		    /bin/bash "$SELF" __daemon "$d" "$ns"
	) </dev/null >>"$d/dockerd.log" 2>&1 &
	for ((i = 1; i <= 600; i++)); do
		if [ -S "$d/d.sock" ] &&
		    curl -fsS --max-time 2 --unix-socket "$d/d.sock" http://sbx/_ping >/dev/null 2>&1; then
			pid=$(daemon_pid "$d")
			if [ -n "$pid" ]; then
				date +%s >"$d/started"
				seed_image "$d"
				mark_used "$d"
				ports_restore "$d"
				reaper_start "$d"
				return 0
			fi
		fi
		if ((i > 10)) && [ -z "$(daemon_pid "$d")" ] && ! alive "$!"; then
			break
		fi
		nap 0.05
	done
	tail -n 5 "$d/dockerd.log" >&2
	sbx_error "docker daemon failed to start inside the sandbox"
}

# The VM's own address, where sbx's published ports arrive: a service
# that listens on 127.0.0.1 only inside the VM is not reached through
# them (README.md, "Ports").  An address of lo stands in for the VM's
# interface.
VM_ADDR=10.254.0.2
vm_addr() {	# vm_addr netns
	ip -n "$1" -4 addr show dev lo 2>/dev/null | grep -q " $VM_ADDR/" && return 0
	ip -n "$1" addr add "$VM_ADDR/32" dev lo
}

seed_image() {	# import busybox:local once (again if a killed create missed it)
	local d=$1 tarball
	[ -e "$d/seeded" ] && return 0
	tarball=$(image_tar) || exit 1
	if ! host_docker "$d" import --change 'ENV PATH=/bin' --change 'CMD ["sh"]' \
	    "$tarball" busybox:local >/dev/null 2>>"$d/dockerd.log"; then
		sbx_error "failed to create sandbox: failed to run sandbox container"
	fi
	: >"$d/seeded"
}

stop_sandbox() {	# stop_sandbox dir [fast]: every guest process goes, files stay
	local d=$1 id=${1##*/} pid i
	# first the flag, then the kill: a guest that joins its cgroup
	# after the kill sees the flag (run_inside), one before is killed
	: >"$d/stopping"
	# its rules go first: once it shows stopped, they are gone
	policy_drop "$d" "${2:-}"
	((IN_REAPER)) || cg_kill "$id" i
	cg_kill "$id" x
	pid=$(daemon_pid "$d")
	if [ -n "$pid" ] && [ "${2:-}" = fast ] && [ -n "$CG" ]; then
		# Removal: the data goes anyway, so no graceful shutdown.  The
		# containers first (a shim's death does not end them), then the
		# daemon's whole tree; its mounts die with its mount namespace.
		kill_containers "$id"
		cg_kill "$id" d
	elif [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null
		# A VM stop is a power-off: the containers die at once.  dockerd,
		# already shutting down, neither waits for them nor restarts them
		# (restart policies apply again at the next start).
		nap 0.1
		kill_containers "$id"
		for ((i = 1; i <= 300; i++)); do
			alive "$pid" || break
			((i % 20 == 0)) && kill_containers "$id"
			nap 0.05
		done
	fi
	# Whatever outlived dockerd (containerd, shims, proxies) goes now.
	# dockerd runs in a private mount namespace, so no mount is left on
	# the host even after a SIGKILL.
	cg_kill "$id" d
	if [ -n "$pid" ] && alive "$pid"; then
		kill -KILL "$pid" 2>/dev/null
	fi
	cg_v1_remove "$id"
	ports_release "$d"
	proxy_stop "$d"
	rm -f "$d/d.sock" "$d/dockerd.pid" "$d/started"
}

kill_containers() {	# SIGKILL the init of every container (children of the shims)
	local g=$CG/$1/d p c
	[ -n "$CG" ] && [ -r "$g/cgroup.procs" ] || return 0
	while read -r p; do
		c=
		line_of c "/proc/$p/comm"
		if [ "$c" = containerd-shim ]; then
			pkill -KILL -P "$p" 2>/dev/null
		fi
	done <"$g/cgroup.procs"
	return 0
}

# The per-sandbox container cgroups dockerd made (--cgroup-parent), on
# every hierarchy.  What they still hold is killed first: a container
# whose shim died before it (one being started, or whose shim the daemon
# tree's kill reached first) is no child of a shim, so kill_containers
# missed it, and it would live on adopted by PID 1.
cg_v1_remove() {
	local c i left
	for ((i = 1; i <= 40; i++)); do
		left=0
		for c in /sys/fs/cgroup/*/"$(netns_of "$1")" /sys/fs/cgroup/"$(netns_of "$1")"; do
			[ -d "$c" ] || continue
			find "$c" -name cgroup.procs -exec cat {} + 2>/dev/null |
			    while read -r k; do kill -KILL "$k" 2>/dev/null; done
			find "$c" -depth -type d -exec rmdir {} + 2>/dev/null
			[ -d "$c" ] && left=1
		done
		((left)) || return 0
		# killed containers may take a moment to leave them
		nap 0.05
	done
	return 0
}

unforward_all() {	# kill every forwarder of a sandbox
	local d=$1 f pid
	for f in "$d"/ports/*; do
		pid=
		read -r _ pid _ <"$f" 2>/dev/null
		[[ ${pid:-} =~ ^[0-9]+$ ]] && kill -TERM "$pid" 2>/dev/null
		rm -f "$f"
	done
	cg_kill "${d##*/}" p
}

remove_sandbox() {	# remove_sandbox dir
	local d=$1 id=${1##*/}
	: >"$d/removing"
	stop_sandbox "$d" fast
	unforward_all "$d"
	ip netns del "$(netns_of "$id")" 2>/dev/null
	cg_remove "$id"
	secret_drop "$d"
	rm -rf "$d"
}

# ---------------------------------------------------------------- idle stop

# Real sbx stops a VM 30 s after its last exec or attach disconnects,
# and soon after a bare create; guest load does not count (README,
# "Idle stop").  The stop comes on its own, so each running sandbox has
# a small reaper process (cgroup part i) that makes it happen even when
# no call comes.

idle_grace() {	# the grace in seconds; 0: no idle stop
	local n=${SBX_SIM_IDLE_STOP-30}
	[[ $n =~ ^[0-9]+$ ]] || n=30
	printf '%s' "$((10#$n))"
}

ms_now() {	# ms_now [var]: milliseconds since the epoch, printed or into var
	local ms_now_t=$EPOCHREALTIME ms_now_f
	ms_now_f=${ms_now_t#*.}
	give $((${ms_now_t%.*} * 1000 + 10#${ms_now_f:0:3})) "$@"
}

mark_used() {	# mark_used dir: the idle clock starts again now
	ms_now >"$1/idle_from"
	idle_grace >"$1/grace"
	touch_used "$1"
}

open_execs() {	# open_execs dir: is an exec of it still connected?
	local a
	# test-only (README, "Test-only faults"): an open exec holds nothing
	if fault_on exec-no-hold; then return 1; fi
	for a in "$1"/active/*; do
		if alive "${a##*/}"; then return 0; fi
		rm -f "$a"
	done
	return 1
}

idle_due() {	# idle_due dir: no open exec and the grace has passed
	local d=$1 g from now
	line_of g "$d/grace" || return 1
	[[ $g =~ ^[0-9]+$ ]] && ((g > 0)) || return 1
	line_of from "$d/idle_from" || return 1
	[[ $from =~ ^[0-9]+$ ]] || return 1
	open_execs "$d" && return 1
	ms_now now
	((now - from >= g * 1000))
}

reaper_start() {	# reaper_start dir: one reaper per running sandbox
	local d=$1 id=${1##*/}
	if pidfile_alive "$d/reaper.pid" __reaper; then
		return 0
	fi
	cg_make "$id" i
	(
		cg_join "$id" i
		close_fds
		exec setsid /bin/bash "$SELF" __reaper "$d"
	) </dev/null >>"$d/reaper.log" 2>&1 &
	printf '%s\n' "$!" >"$d/reaper.pid"
}

internal_reaper() {	# the reaper's loop: ends when its sandbox stops or goes
	local d=$1
	IN_REAPER=1
	while nap 0.25; do
		[ -d "$d" ] && [ ! -e "$d/removing" ] || exit 0
		daemon_up "$d" || exit 0
		idle_due "$d" || continue
		(
			lock "$d/lock"
			# an exec may have come meanwhile: it marks under the lock
			if [ -d "$d" ] && [ ! -e "$d/removing" ] && idle_due "$d"; then
				stop_sandbox "$d"
			fi
		)
		daemon_up "$d" || exit 0
	done
}

# ---------------------------------------------------------------- the sandbox's dockerd

# mount(8) and umount(8) keep their utab under /run/mount on the host;
# point them at the sandbox's state instead.
mnt() { LIBMOUNT_UTAB=$MNT_UTAB mount "$@"; }
umnt() { LIBMOUNT_UTAB=$MNT_UTAB umount "$@"; }

# Runs as the sandbox's dockerd: in its network namespace and in a private
# mount namespace (so its mounts never show on the host).
internal_daemon() {
	local d=$1 cgp=$2
	MNT_UTAB=$d/utab
	# The sandbox's own /run (shim sockets, plugins, xtables lock) and
	# /etc/docker: nothing of the daemon's lands on the host.
	mnt -t tmpfs -o mode=0755,size=16m sbxsim-run /run || exit 1
	mkdir -p "$d/etc-docker"
	if [ -d /etc/docker ]; then
		mnt --bind "$d/etc-docker" /etc/docker
	fi
	# the gateway's name, as in an exec; the proxy and insecure
	# registries (README.md, "Network")
	[ -e /etc/hosts ] && mnt --bind "$d/etc-hosts" /etc/hosts
	proxy_daemon_json "$d"
	# its temporary files (containerd's stack dumps) go with the sandbox,
	# never into the caller's TMPDIR
	mkdir -p "$d/dtmp"
	export TMPDIR=$d/dtmp
	exec dockerd --config-file "$d/daemon.json" \
	    --data-root "$d/data" --exec-root "$d/x" \
	    --pidfile "$d/dockerd.pid" --host "unix://$d/d.sock" \
	    --cgroup-parent "/$cgp" \
	    --shutdown-timeout 1 --log-level warn
}
