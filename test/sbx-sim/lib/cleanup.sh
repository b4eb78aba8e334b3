# shellcheck shell=bash
# sbx simulator, cleanup: the simulator's own verbs sim-check and
# sim-cleanup (README.md, "Verbs", "Cleanup"): what a root left on the
# host, and its removal.

# Everything this root left on the host: processes, network namespaces,
# mounts, cgroups.  Prints one line per leftover; status 0 if there is
# any, 1 if there is none.
sim_leftovers() {
	local found=0 p c ns
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = "$$" ] && continue
		cmdline_of c "${p#/proc/}" || continue
		[ -n "$c" ] || continue
		case $c in
		*"$ROOT/"* | *"sbxsim-$TAG"*)
			case $c in *" sim-cleanup"* | *" sim-check"*) continue ;; esac
			echo "process ${p#/proc/}: $c"
			found=1
			;;
		esac
	done
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		case $ns in
		sbxsim-"$TAG"-*) echo "netns $ns"; found=1 ;;
		esac
	done
	if grep -F -- " $ROOT/" /proc/self/mountinfo >/dev/null 2>&1; then
		grep -F -- " $ROOT/" /proc/self/mountinfo | sed 's/^/mount /'
		found=1
	fi
	for c in /sys/fs/cgroup/*/sbxsim-"$TAG"-* /sys/fs/cgroup/sbxsim-"$TAG"-*; do
		echo "cgroup $c"
		found=1
	done
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		while IFS= read -r c; do
			if [ -n "$(cat "$c" 2>/dev/null)" ]; then
				echo "cgroup ${c%/cgroup.procs}: $(tr '\n' ' ' <"$c")"
				found=1
			fi
		done < <(find "$CG" -name cgroup.procs 2>/dev/null)
	fi
	return $((!found))
}

kill_stragglers() {
	local p c
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" = "$$" ] && continue
		cmdline_of c "${p#/proc/}" || continue
		case $c in
		*" sim-cleanup"* | *" sim-check"*) ;;
		*"$ROOT/"* | *"sbxsim-$TAG-"*) kill -KILL "${p#/proc/}" 2>/dev/null ;;
		esac
	done
	return 0
}

sim_cleanup() {	# remove every sandbox of this root, in parallel, then check
	local d pids=() p ns c
	for d in "$ROOT"/s/*/; do
		d=${d%/}
		(
			stop_sandbox "$d" fast
			unforward_all "$d"
			ip netns del "$(netns_of "${d##*/}")" 2>/dev/null
			cg_remove "${d##*/}"
			rm -rf "$d"
		) &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do wait "$p"; done
	# guest processes and daemons whose state is gone already
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		while IFS= read -r c; do
			c=${c%/cgroup.procs}
			c=${c#"$CG"/}
			cg_kill "${c%%/*}" "${c#*/}"
		done < <(find "$CG" -mindepth 3 -maxdepth 3 -name cgroup.procs 2>/dev/null)
	fi
	# hung calls of this root that nobody killed, and any straggler whose
	# command line names the root
	pkill -KILL -f "^sbxsim-hang-$TAG" 2>/dev/null
	kill_stragglers
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		case $ns in sbxsim-"$TAG"-*) ip netns del "$ns" ;; esac
	done
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		find "$CG" -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null
		rmdir "$CG" 2>/dev/null
	fi
	for c in /sys/fs/cgroup/*/sbxsim-"$TAG"-* /sys/fs/cgroup/sbxsim-"$TAG"-*; do
		c=${c##*/}
		cg_v1_remove "${c#sbxsim-"$TAG"-}"
	done
	if sim_leftovers >&2; then
		echo "sbx-sim: leftovers of $ROOT (see above)" >&2
		return 1
	fi
	if [ "${1:-}" != --keep-root ]; then
		rm -rf "$ROOT"
	fi
	return 0
}
