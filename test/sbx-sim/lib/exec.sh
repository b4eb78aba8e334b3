# shellcheck shell=bash
# sbx simulator, exec: `sbx exec` (README.md, "Verbs", "Guest
# commands", "Inside a sandbox"): the sandbox's environment, the
# fresh root the command runs in (__inside), the guest's session and its
# streams (__guest), and the leaks that act at an exec.

# Runs the command of `sbx exec` in a private mount + UTS namespace, already
# inside the sandbox's network namespace.  The environment was prepared by
# the caller; here only the file system view is built: a fresh root with the
# host's /usr /etc /bin /lib* read-only, the sandbox's own /tmp and
# /home/agent, the daemon at /var/run/docker.sock, and the workspaces at
# their host paths.  Everything else of the host (its HOME, /run, /work,
# /mnt, ...) is out of sight.
internal_inside() {
	local d=$1 workdir=$2 user=$3 detach=$4 name=$5 callerhome=$6 leaks=$7
	shift 7
	[ "$1" = -- ] && shift
	local r=$d/r p ws ro target links=() dirs=() wss=() i j
	MNT_UTAB=$d/utab
	mnt -t tmpfs -o mode=0755,size=64m sbxsim-root "$r" || exit 125
	for p in /bin /sbin /lib /lib32 /lib64 /libx32 /usr /etc; do
		if [ -L "$p" ]; then
			links+=("$p")
		elif [ -d "$p" ]; then
			dirs+=("$p")
		fi
	done
	# the links as they are (cp -P), the folders bound read-only
	((${#links[@]} == 0)) || cp -P "${links[@]}" "$r/"
	for p in "${dirs[@]}"; do
		mkdir "$r$p"
		mnt --bind -o ro "$p" "$r$p"
	done
	# the gateway's name (README.md, "Network")
	if [ -e "$r/etc/hosts" ]; then
		mnt --bind -o ro "$d/etc-hosts" "$r/etc/hosts"
	fi
	mkdir -p "$r/dev" "$r/proc" "$r/sys" "$r/tmp" "$r/run" "$r/root" \
	    "$r/home/agent" "$r/var/tmp" "$r/var/lib" "$r/var/cache" "$r/var/log"
	chmod 0700 "$r/root"
	chmod 1777 "$r/var/tmp"
	ln -s /run "$r/var/run"
	mnt --rbind /dev "$r/dev"
	mnt -t proc proc "$r/proc"
	mnt --rbind /sys "$r/sys"
	case ",$leaks," in
	*,no-cgroup,*) mnt -t tmpfs -o ro,size=4k sbxsim-nocg "$r/sys/fs/cgroup" ;;
	esac
	mnt --bind "$d/tmp" "$r/tmp"
	mnt --bind "$d/home" "$r/home/agent"
	: >"$r/run/docker.sock"
	mnt --bind "$d/d.sock" "$r/run/docker.sock"
	case ",$leaks," in
	*,socket,*)
		mkdir -p "$r/run/user/0"
		: >"$r/run/user/0/docker.sock"
		: >"$r/run/docker.sock.host"
		mnt --bind "$ROOT/host/docker.sock" "$r/run/user/0/docker.sock"
		mnt --bind "$ROOT/host/docker.sock" "$r/run/docker.sock.host"
		;;
	esac
	# sbx's forwarded agent: a socket at the path SSH_AUTH_SOCK names
	case ",$leaks," in
	*,ssh-agent,*)
		if [ -S "$ROOT/host/ssh-agent.sock" ]; then
			: >"$r/run/ssh-agent.sock"
			mnt --bind "$ROOT/host/ssh-agent.sock" "$r/run/ssh-agent.sock"
		fi
		;;
	esac
	case ",$leaks," in
	*,unpinned,*)
		mkdir -p "$r/run/sbxsim"
		: >"$r/run/sbxsim/docker"
		if [ -x /usr/local/bin/docker ]; then
			mnt --bind /usr/local/bin/docker "$r/run/sbxsim/docker"
		else
			mnt --bind /usr/bin/docker "$r/run/sbxsim/docker"
		fi
		for p in /usr/local/bin/docker /usr/bin/docker; do
			[ -e "$r$p" ] && mnt --bind "$SIMDIR/docker-unpinned" "$r$p"
		done
		;;
	esac
	case ",$leaks," in
	*,home,*)
		if [ -n "$callerhome" ] && [ -d "$callerhome" ] && [ "$callerhome" != / ]; then
			mkdir -p "$r$callerhome"
			mnt --rbind "$callerhome" "$r$callerhome"
		fi
		;;
	esac
	# workspaces, shortest path first so a nested one lands on top (an
	# insertion sort: it keeps the order of paths of one length)
	while IFS= read -r ws; do wss+=("$ws"); done <"$d/workspaces"
	for ((i = 1; i < ${#wss[@]}; i++)); do
		ws=${wss[i]}
		for ((j = i - 1; j >= 0 && ${#wss[j]} > ${#ws}; j--)); do
			wss[j + 1]=${wss[j]}
		done
		wss[j + 1]=$ws
	done
	for ws in "${wss[@]}"; do
		ro=0
		case $ws in
		*:ro) ro=1 ws=${ws%:ro} ;;
		esac
		target=$r$ws
		if [ -d "$ws" ]; then
			mkdir -p "$target"
		else
			mkdir -p "${target%/*}"
			: >"$target"
		fi
		if ((ro)); then
			mnt --bind -o ro "$ws" "$target"
		else
			mnt --bind "$ws" "$target"
		fi
	done
	mkdir "$r/.old"
	cd "$r" || exit 125
	pivot_root . .old || exit 125
	cd / || exit 125
	umnt -l /.old
	rmdir /.old
	hostname "$name" 2>/dev/null
	if ! cd "$workdir" 2>/dev/null; then
		printf '%s: chdir to %s: no such file or directory\n' "$(err_word)" "$workdir" >&2
		exit 126
	fi
	if [ $# -eq 0 ]; then
		set -- bash
	fi
	case $1 in
	*/*) p=$1 ;;
	*) p=$(PATH=$BASE_PATH:$PATH type -P -- "$1") ;;
	esac
	if [ -z "$p" ] || [ ! -e "$p" ]; then
		printf '%s: exec: "%s": executable file not found in %s\n' "$(err_word)" "$1" "\$PATH" >&2
		exit 127
	fi
	if [ -d "$p" ] || [ ! -x "$p" ]; then
		printf '%s: exec: "%s": permission denied\n' "$(err_word)" "$1" >&2
		exit 126
	fi
	local pre=()
	if [ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] && [ "$user" != 0:0 ]; then
		local u=${user%%:*} g=''
		[ "$u" != "$user" ] && g=${user#*:}
		if [[ ! $u =~ ^[0-9]+$ ]]; then
			if ! u=$(id -u -- "$u" 2>/dev/null); then
				printf '%s: unable to find user %s: no matching entries in passwd file\n' "$(err_word)" "${user%%:*}" >&2
				exit 126
			fi
			[ -n "$g" ] || g=$(id -g -- "${user%%:*}")
		fi
		[ -n "$g" ] || g=$u
		pre=(setpriv --reuid="$u" --regid="$g" --clear-groups)
	fi
	if [ "$detach" = 1 ]; then
		(
			setsid "${pre[@]}" env -u PWD -u SHLVL -u OLDPWD -u _ -- "$@" </dev/null >/dev/null 2>&1 &
		)
		exit 0
	fi
	exec "${pre[@]}" env -u PWD -u SHLVL -u OLDPWD -u _ -- "$@"
}

cmd_exec() {
	local inter=0 tty=0 detach=0 user='' workdir='' envs=() a
	while [ $# -gt 0 ]; do
		a=$1
		case $a in
		--) shift; break ;;
		-i | --interactive) inter=1 ;;
		-t | --tty) tty=1 ;;
		-it | -ti) inter=1 tty=1 ;;
		# refused since 0.45 (SK-LC, D-local2): every profile
		-d | --detach) sbx_error "--detach is not supported for exec; omit -d to run the command in the foreground" ;;
		--privileged) ;;
		-u | --user) need_val "$a" $#; user=$2; shift ;;
		--user=*) user=${a#*=} ;;
		-w | --workdir) need_val "$a" $#; workdir=$2; shift ;;
		--workdir=*) workdir=${a#*=} ;;
		-e | --env) need_val "$a" $#; envs+=("$2"); shift ;;
		--env=*) envs+=("${a#*=}") ;;
		--env-file | --detach-keys) need_val "$a" $#; shift ;;
		--env-file=* | --detach-keys=*) ;;
		-h | --help) echo "Usage: sbx exec [flags] SANDBOX COMMAND [ARG...]"; return 0 ;;
		--*) sbx_error "unknown flag: ${a%%=*}" ;;
		-?*) sbx_error "unknown shorthand flag: '${a:1:1}' in $a" ;;
		*) break ;;
		esac
		shift
	done
	[ $# -ge 1 ] || sbx_error "requires at least 2 arg(s), only received 0"
	local name=$1
	shift
	[ "${1:-}" = -- ] && shift
	[ $# -ge 1 ] || sbx_error "requires at least 2 arg(s), only received 1"
	find_sandbox "$name" || no_such "$name"
	local d=$D id=$SBID v
	for v in "${envs[@]}"; do
		[[ ${v%%=*} =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || sbx_error "invalid environment variable: $v"
	done
	if [ -n "$workdir" ]; then
		case $workdir in
		/*) ;;
		*) sbx_error "the working directory '$workdir' is invalid, it needs to be an absolute path" ;;
		esac
	else
		local w
		while IFS= read -r w; do
			case $w in *:ro) ;; *) workdir=$w; break ;; esac
		done <"$d/workspaces"
		[ -n "$workdir" ] || workdir=/home/agent/workspace
	fi

	local was
	was=$(daemon_pid "$d")
	# open from here until this process ends (the reaper checks under
	# the same lock, so it cannot stop the sandbox in between)
	(
		lock "$d/lock"
		start_sandbox "$d"
		: >"$d/active/$$"
		mark_used "$d"
	) || exit 1
	if [ -z "$was" ]; then
		if fault_on autostart-notice-stdout; then
			printf 'Sandbox %s started successfully\n' "$name"
		elif fault_on autostart-notice || fault_on autostart-notice-stderr; then
			printf 'Sandbox %s started successfully\n' "$name" >&2
		elif [ "$WORDS" = vary ] && ((W_AUTO)); then
			printf 'Sandbox %s started successfully\n' "$name" >&2
		fi
	fi

	local leaks=${SBX_SIM_LEAK:-}
	# test-only (README, "Test-only faults"): no cgroup for the guest
	if fault_on no-cgroup; then leaks+=,no-cgroup; fi
	if leak host-exec; then
		# the transport runs on the host: the caller's environment,
		# PATH and file system, no sandbox at all
		local rc=0
		(
			close_fds
			cd "$workdir" 2>/dev/null || cd / || exit 125
			export PATH=$CALLER_PATH
			if ((inter)); then exec "$@"; else exec "$@" </dev/null; fi
		) || rc=$?
		mark_used "$d"
		rm -f "$d/active/$$"
		return "$rc"
	fi
	if leak socket; then host_socket; fi
	docker_context "$d"

	# The sandbox environment: a fixed base, the create-time -e values,
	# then this call's -e values.  Nothing else of the caller's (unless
	# the env leak is on).
	local callerhome=${HOME:-} nameval=() e k
	if leak env; then
		while IFS= read -r -d '' e; do
			k=${e%%=*}
			case $k in
			PATH | HOME | SBX_SIM_*) ;;
			*) [[ $k =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] && nameval+=("$e") ;;
			esac
		done < <(env -0)
	fi
	nameval+=("PATH=$BASE_PATH" "HOME=/home/agent" "HOSTNAME=$name" "LANG=C.UTF-8")
	while IFS= read -r e; do nameval+=("$e"); done < <(proxy_env)
	((tty)) && nameval+=("TERM=${TERM:-xterm}")
	while IFS= read -r -d '' e; do nameval+=("$e"); done <"$d/env"
	for v in "${envs[@]}"; do
		if [[ $v == *=* ]]; then
			nameval+=("$v")
		elif [ -n "${!v+x}" ]; then
			nameval+=("$v=${!v}")
		fi
	done
	# the host channels' leaks: the variables sbx sets inside
	leak ssh-agent && nameval+=("SSH_AUTH_SOCK=/run/ssh-agent.sock")
	if leak mcp-gateway; then
		nameval+=("MCP_GATEWAY_URL=http://$LEAK_GW_ADDR:$LEAK_MCP_PORT/mcp")
		mcp_gateway_up "$d"
	fi
	local rc
	if ((inter)); then
		run_inside "$d" "$id" "$name" "$workdir" "$user" "$detach" "$callerhome" "$leaks" "$@"
	else
		run_inside "$d" "$id" "$name" "$workdir" "$user" "$detach" "$callerhome" "$leaks" "$@" </dev/null
	fi
	rc=$?
	mcp_gateway_down
	mark_used "$d"
	rm -f "$d/active/$$"
	return "$rc"
}

# The guest command runs in a session of its own, outside this process's
# group, as on a real VM: killing `sbx exec` (TERM, KILL, its whole
# group) ends only the connection, never the command, which ends at its
# own pace or at stop or rm (README, "Guest commands").  Its output comes
# back through two relays: a tee in the guest's session that keeps
# reading (and drops what nobody takes once the exec is gone), and a cat
# here that dies with this process, so no pipe of the caller outlives
# the exec.
run_inside() {	# run_inside d id name workdir user detach callerhome leaks cmd...
	local d=$1 id=$2 name=$3 workdir=$4 user=$5 detach=$6 callerhome=$7 leaks=$8 k e
	local prof=${SBX_SIM_PROFILE:-0.55}
	local io=$d/io/$$ r1 r2 g rc
	shift 8
	[ -d "$d/io" ] || mkdir -p "$d/io"
	if [ -e "$io.1" ] || [ -e "$io.2" ]; then rm -f "$io.1" "$io.2"; fi
	mkfifo -m 0600 "$io.1" "$io.2" || sbx_error "exec: cannot make its streams"
	setpriv --pdeathsig KILL cat <"$io.1" &
	r1=$!
	setpriv --pdeathsig KILL cat <"$io.2" >&2 &
	r2=$!
	# opened here, so a guest killed before it writes still ends the
	# relays with an EOF (they would wait in open(2) for a writer)
	local w1 w2
	exec {w1}>"$io.1" {w2}>"$io.2"
	# test-only faults (README, "Test-only faults"), read before the
	# guest's environment is emptied: a guest in the exec's own process
	# group dies with it; one in a pid namespace of its own is out of
	# sight of every other exec
	local own=(setsid) apart=()
	if fault_on guests-die; then own=(); fi
	if fault_on guests-apart; then apart=(--pid --fork); fi
	(
		cg_join "$id" x
		if [ -e "$d/stopping" ]; then
			echo "ERROR: sandbox $name is stopping" >&2
			exit 1
		fi
		close_fds
		# drop every exported variable, then export exactly the list
		# (values never appear in any argv)
		for k in $(compgen -e); do
			unset "$k" 2>/dev/null || true
		done
		while read -r _ _ k; do
			unset -f "$k"
		done < <(declare -Fx)
		for e in "${nameval[@]}"; do
			export "${e?}"
		done
		# for __inside's own error lines; it unexports it at once
		# shellcheck disable=SC2030 # for this guest only
		export SBX_SIM_PROFILE=$prof
		exec "${own[@]}" /bin/bash "$SELF" __guest "$io" \
		    nsenter --net="/run/netns/$(netns_of "$id")" -- \
		    unshare --mount --uts "${apart[@]}" --propagation private -- \
		    /bin/bash "$SELF" __inside "$d" "$workdir" "$user" "$detach" \
		    "$name" "$callerhome" "$leaks" "$ROOT" -- "$@"
	) <&0 >&"$w1" 2>&"$w2" &
	g=$!
	# From here a TERM is ignored outright: a trapped one that interrupts
	# a wait can leave bash waiting for a child it has reaped already,
	# for as long as another child (the reaper, a daemon) lives
	trap '' TERM
	exec {w1}>&- {w2}>&-
	wait_through "$g"
	rc=$?
	wait "$r1" "$r2" 2>/dev/null
	rm -f "$io.1" "$io.2"
	return "$rc"
}

wait_through() {	# wait_through pid: its status, past signals this call ignores
	local rc
	while :; do
		wait "$1"
		rc=$?
		((rc > 128)) && alive "$1" || return "$rc"
	done
}

internal_guest() {	# internal_guest io cmd...: the guest's end of the streams
	local o e
	shift
	exec {o}>&1 {e}>&2
	exec > >(exec tee -p /dev/null 1>&"$o" 2>/dev/null) \
	    2> >(exec tee -p /dev/null 1>&"$e" 2>/dev/null)
	exec {o}>&- {e}>&-
	exec "$@"
}

host_socket() {	# the decoy "host daemon socket" of the socket leak (a stale socket)
	[ -S "$ROOT/host/docker.sock" ] && return 0
	mkdir -p "$ROOT/host"
	local i pid
	(
		close_fds
		exec socat "UNIX-LISTEN:$ROOT/host/docker.sock,unlink-close=0" /dev/null
	) </dev/null >/dev/null 2>&1 &
	pid=$!
	for ((i = 1; i <= 40; i++)); do
		[ -S "$ROOT/host/docker.sock" ] && break
		nap 0.05
	done
	# only the socket file is wanted: the listener goes at once
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

docker_context() {	# the context leak: an extra docker context in the sandbox HOME
	local d=$1 dir
	# docker names a context's folder by the SHA-256 of its name:
	# printf %s sbx-sim-leak | sha256sum
	dir=$d/home/.docker/contexts/meta/$CONTEXT_SHA
	if leak context; then
		mkdir -p "$dir"
		printf '%s\n' '{"Name":"sbx-sim-leak","Metadata":{"Description":"host daemon (sbx-sim leak)"},"Endpoints":{"docker":{"Host":"unix:///run/user/0/docker.sock","SkipTLSVerify":false}}}' >"$dir/meta.json"
	elif [ -e "$dir" ]; then
		rm -rf "$dir"
	fi
}
CONTEXT_SHA=cd0720cd70602ccdda3b0f36c4970750f17a4c8a8eca42eab1c2d9a6cb6f22dd
