# shellcheck shell=bash
# sbx simulator, faults: what a test asks to go wrong (README.md,
# "Configuration", "sbx's own words", "Test-only faults"):
# SBX_SIM_FAIL and SBX_SIM_HANG counted in the root, SBX_SIM_FAULT words
# and the daemon's start they shape (restart, race, notices), the
# prompts, SBX_SIM_LEAK.

HANG_SECONDS=${SBX_SIM_HANG_SECONDS:-3600}

# SBX_SIM_FAIL=VERB[:COUNT[:KIND]][,...] and SBX_SIM_HANG=VERB[:COUNT][,...].
# Counters restart whenever the variable's value changes between calls.
fault_take() {	# fault_take fail|hang verb: prints KIND and consumes one, or 1
	local kind=$1 verb=$2 spec tok v c k used n st
	if [ "$kind" = fail ]; then spec=${SBX_SIM_FAIL:-}; else spec=${SBX_SIM_HANG:-}; fi
	st=$ROOT/faults/$kind
	# no fault asked for, none asked for before: nothing to take or reset
	[ -z "$spec" ] && [ ! -s "$st.spec" ] && return 1
	(
		flock 9
		local was
		slurp was "$st.spec"
		if [ "$was" != "$spec" ]; then
			rm -f "$st".n.*
			printf '%s' "$spec" >"$st.spec"
		fi
		[ -n "$spec" ] || exit 1
		n=0
		IFS=, read -r -a toks <<<"$spec"
		for tok in "${toks[@]}"; do
			n=$((n + 1))
			IFS=: read -r v c k <<<"$tok"
			[ "$v" = "$verb" ] || [ "$v" = all ] || continue
			c=${c:-*}
			line_of used "$st.n.$n" || used=0
			if [ "$c" != "*" ]; then
				[[ $c =~ ^[0-9]+$ ]] || continue
				((used < c)) || continue
			fi
			echo $((used + 1)) >"$st.n.$n"
			printf '%s\n' "${k:-}"
			exit 0
		done
		exit 1
	) 9>>"$ROOT/faults/lock"
}

fail_text() {	# fail_text verb kind
	case $2 in
	auth) echo "Not authenticated to Docker" ;;
	policy) echo "global network policy has not been initialized" ;;
	daemon) echo "ensure daemon: previous sandboxd (PID 4242) did not exit within 10s" ;;
	start) echo "failed to start sandbox: start runtime: request failed: 500 Internal Server Error" ;;
	dockerd) echo "docker daemon failed to start inside the sandbox" ;;
	conflict) echo "failed to start sandbox: start runtime: request failed: 409 Conflict: port is already allocated" ;;
	endpoint) echo "publish port: failed to resolve endpoint: no container endpoint with IP address found" ;;
	*)
		case $1 in
		exec) fail_text "$1" start ;;
		create) echo "failed to create sandbox: failed to run sandbox container" ;;
		ports | port) fail_text "$1" endpoint ;;
		rm) echo "failed to remove sandbox: request failed: 500 Internal Server Error" ;;
		stop) echo "failed to stop sandbox: request failed: 500 Internal Server Error" ;;
		*) fail_text "$1" daemon ;;
		esac
		;;
	esac
}

fault_on() {	# fault_on WORD: is it in SBX_SIM_FAULT?
	case ",${SBX_SIM_FAULT:-}," in
	*",$1,"*) return 0 ;;
	esac
	return 1
}

once() {	# once WORD: true the first time after sim-reset (O_EXCL: atomic)
	(set -C; : >"$ROOT/faults/once.$1") 2>/dev/null
}

may_prompt() {	# sbx asks only on a terminal, and never under --no-input
	[ -t 0 ] && ((!NO_INPUT))
}

prompted() {	# prompted kind: record that sbx asked the caller's terminal
	printf '%s %s %s\n' "$(now_ms)" "$VERB" "$1" >>"$ROOT/prompts.log"
}

# Every call needs the daemon: the restart an upgrade asks for, the race
# of two first calls, the notices of the one that starts it.
ensure_daemon() {
	local a fd first=0
	if fault_on restart && [ ! -e "$ROOT/faults/restarted" ]; then
		if ! may_prompt; then
			restart_refused
		fi
		prompted restart
		# the interactive restart's words (#381, 0.37.1)
		restart_versions
		printf 'Docker Sandboxes has been updated and needs to restart. All running sandboxes will be stopped.\n' >&2
		if [ "$WORDS" = vary ] && ((W_PROMPT)); then
			printf 'Restart now? [y/N] ' >&2
		else
			printf 'Restart now? (y/N): ' >&2
		fi
		read -r a || a=
		[[ $a == [yY]* ]] || sbx_error "ensure daemon: restart not confirmed"
		stop_all
		: >"$ROOT/faults/restarted"
	fi
	if fault_on race && once race; then
		once daemon
		sbx_say "ensure daemon: daemon exited unexpectedly: exit status 1"
		if [ "$WORDS" = vary ] && ((W_RACEP)); then
			printf '%s%s\n' "$(w_prefix)" "$(w_case "another daemon is already running (PID $W_PID)")" >&2
		elif [ "$WORDS" = vary ]; then
			printf 'another daemon is already running (PID %d)\n' "$W_PID" >&2
		else
			printf 'another daemon is already running (PID %d)\n' "$((PPID + 1))" >&2
		fi
		exit 1
	fi
	once daemon && first=1
	# the fault words choose the stream, whatever the words
	if ((first)) && fault_on notice-stdout; then
		fd=1
	elif ((first)) && fault_on notice-stderr; then
		fd=2
	else
		[ "$WORDS" = vary ] && w_pre "$first"
		return 0
	fi
	# the form with its socket: every release captured since 0.33
	if [ "$WORDS" = vary ]; then w_notices "$fd" "$W_NOTE"; else w_notices "$fd" 0; fi
}

# The version lines an interactive restart prints first (#381); whether
# sbx prints them before the refusal too is not known: 0.55 does here.
restart_versions() {
	if [ "$WORDS" = vary ]; then
		case $W_VERS in
		0) w_versions 2 ;;
		1) w_versions 1 ;;
		esac
		W_SAID=1
	elif profile_ge 0.55; then
		w_versions 2
		W_SAID=1
	fi
}

restart_refused() {	# sbx's restart without a terminal: exit 1
	local why='stdin is not a terminal'
	((NO_INPUT)) && why='--no-input is set'
	restart_versions
	if [ "$WORDS" = exact ]; then
		sbx_error "ensure daemon: cannot prompt for restart: $why; run the command in an interactive terminal to confirm the restart"
	fi
	case $W_RESTART in
	0) sbx_error "ensure daemon: cannot prompt for restart: $why; run the command in an interactive terminal to confirm the restart" ;;
	1) sbx_error "cannot prompt for restart: $why; run 'sbx daemon restart' to restart the daemon (this stops all running sandboxes)" ;;
	*)
		printf 'Docker Sandboxes has been updated and needs to restart. All running sandboxes will be stopped.\n' >&2
		sbx_error "$why: run 'sbx daemon restart' to restart now"
		;;
	esac
}

stop_all() {	# the daemon's restart: every running sandbox stops
	local id d pids=() p
	for id in $(all_sandboxes); do
		d=$ROOT/s/$id
		[ -n "$(daemon_pid "$d")" ] || continue
		(
			lock "$d/lock"
			stop_sandbox "$d"
		) &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do wait "$p"; done
	return 0
}

check_faults() {	# check_faults verb: hang or fail as the test asked
	local k a
	if k=$(fault_take hang "$1"); then
		# A tree of sleepers in the caller's process group: only a
		# process-group kill removes all of it.
		(exec -a "sbxsim-hang-$TAG" sleep "$HANG_SECONDS") &
		(exec -a "sbxsim-hang-$TAG" sleep "$HANG_SECONDS") &
		# (a SIGTERM an exec ignores interrupts wait: wait again)
		until wait; do :; done
		# a hung exec outlives its sleepers: only SIGKILL ends it
		while [ "$1" = exec ]; do
			(exec -a "sbxsim-hang-$TAG" sleep "$HANG_SECONDS") &
			wait "$!"
		done
		exit 1
	fi
	if k=$(fault_take fail "$1"); then
		if [ "$k" = auth ] && may_prompt; then
			# a needed sign-in starts the device-code flow (#406)
			prompted sign-in
			printf 'Your one-time device code is: WDJB-MJHT\nOpen https://login.docker.com/activate to sign in, then press Enter. ' >&2
			read -r a || a=
			return 0
		fi
		[ "$k" = auth ] && sbx_error "$(fail_text "$1" "$k")" "sbx login"
		sbx_error "$(fail_text "$1" "$k")"
	fi
}

leak() {	# leak mode: is it in SBX_SIM_LEAK?
	case ",${SBX_SIM_LEAK:-}," in
	*",$1,"*) return 0 ;;
	esac
	return 1
}

# The mcp-gateway leak (README.md, "Leak modes"): an MCP endpoint of the
# host's, reachable for one exec at the gateway's address in the
# sandbox's network namespace, which the VM and its containers route to.
LEAK_GW_ADDR=10.254.0.1
LEAK_MCP_PORT=8811
MCP_LEAK_PID=

mcp_gateway_up() {	# mcp_gateway_up dir
	local ns i
	ns=$(netns_of "${1##*/}")
	ip -n "$ns" -4 addr show dev lo 2>/dev/null | grep -q " $LEAK_GW_ADDR/" ||
	    ip -n "$ns" addr add "$LEAK_GW_ADDR/32" dev lo
	(
		close_fds
		exec -a "sbxsim-$TAG-mcp-gateway" nsenter --net="/run/netns/$ns" \
		    socat "TCP4-LISTEN:$LEAK_MCP_PORT,bind=$LEAK_GW_ADDR,fork,reuseaddr" \
		    "EXEC:$SIMDIR/mcp-gateway"
	) </dev/null >/dev/null 2>&1 &
	MCP_LEAK_PID=$!
	for ((i = 1; i <= 40; i++)); do
		ip netns exec "$ns" ss -Hltn 2>/dev/null |
		    grep -q " $LEAK_GW_ADDR:$LEAK_MCP_PORT " && return 0
		nap 0.05
	done
	return 0
}

mcp_gateway_down() {
	[ -n "$MCP_LEAK_PID" ] || return 0
	kill "$MCP_LEAK_PID" 2>/dev/null
	wait "$MCP_LEAK_PID" 2>/dev/null
	MCP_LEAK_PID=
	return 0
}
