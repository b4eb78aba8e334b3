# shellcheck shell=bash
# sbx simulator, proxy: one sandbox's way out (README.md, "Network"):
# the forward proxy on the host (proxy.py, on a unix socket in the
# sandbox's state), the gateway address in its network namespace with a
# socat from gateway.docker.internal:3128 to that socket, the names a
# sandbox resolves, and the proxy variables of its execs and its dockerd.

GW_ADDR=10.254.0.1
GW_NAME=gateway.docker.internal
GW_URL=http://$GW_NAME:3128
NO_PROXY_LIST=localhost,127.0.0.1,::1
PYTHON=/usr/bin/python3

# The proxy variables as real sbx sets them in the VM; the sandbox's
# dockerd pulls through the same proxy.
proxy_env() {	# one NAME=VALUE a line
	printf '%s\n' "HTTP_PROXY=$GW_URL" "HTTPS_PROXY=$GW_URL" \
	    "http_proxy=$GW_URL" "https_proxy=$GW_URL" \
	    "NO_PROXY=$NO_PROXY_LIST" "no_proxy=$NO_PROXY_LIST"
}

# SBX_SIM_HOSTS (NAME=ADDR[:PORT],...) as this call sees it: the
# proxy's stand-in for DNS, read by it at each request.  Names only:
# anything else in an entry is dropped here, so a bad value cannot
# reach daemon.json.
proxy_hosts() {	# proxy_hosts dir
	local d=$1 e n a out=''
	local IFS=,
	for e in ${SBX_SIM_HOSTS:-}; do
		n=${e%%=*} a=${e#*=}
		[[ $e == *=* && $n =~ ^[A-Za-z0-9][A-Za-z0-9.-]*$ &&
		    $a =~ ^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$ ]] || continue
		out+="$n=$a"$'\n'
	done
	printf '%s' "$out" >"$d/sim-hosts.new" && mv -f "$d/sim-hosts.new" "$d/sim-hosts"
}

# The sandbox's /etc/hosts (an exec's and its dockerd's): the gateway's
# name on its address.  SBX_SIM_HOSTS names resolve only in the proxy.
proxy_etc_hosts() {	# proxy_etc_hosts dir
	# written once: execs have it bound, a rewrite would show them a
	# half-written file
	[ -s "$1/etc-hosts" ] && return 0
	printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n%s\t%s\n' \
	    "$GW_ADDR" "$GW_NAME" >"$1/etc-hosts"
}

# daemon.json of the sandbox's dockerd: every SBX_SIM_HOSTS name is an
# insecure registry there, since a test registry speaks plain HTTP.
proxy_daemon_json() {	# proxy_daemon_json dir
	local d=$1 n a p list=''
	while IFS='=' read -r n a; do
		[ -n "$n" ] || continue
		list+="${list:+,}\"$n\""
		p=${a##*:}
		[[ $a == *:* && $p =~ ^[0-9]+$ ]] && list+=",\"$n:$p\""
	done <"$d/sim-hosts"
	printf '{"insecure-registries":[%s]}\n' "$list" >"$d/daemon.json"
}

gw_listening() {	# gw_listening netns
	nsenter --net="/run/netns/$1" ss -Hltn 2>/dev/null |
	    awk -v a="$GW_ADDR:3128" '$4 == a { f = 1 } END { exit !f }'
}

# Started with the sandbox's daemon, before it, and again at any call
# that finds it gone; both in cgroup part g, ended at stop and rm.
proxy_start() {	# proxy_start dir
	local d=$1 id=${1##*/} ns i name
	proxy_hosts "$d"
	if pidfile_alive "$d/proxy.pid" proxy.py && pidfile_alive "$d/gw.pid" "$GW_ADDR"; then
		return 0
	fi
	ns=$(netns_of "$id")
	line_of name "$d/name"
	proxy_etc_hosts "$d"
	ip -n "$ns" -4 addr show dev lo 2>/dev/null | grep -q " $GW_ADDR/" ||
	    ip -n "$ns" addr add "$GW_ADDR/32" dev lo
	cg_make "$id" g
	if ! pidfile_alive "$d/proxy.pid" proxy.py; then
		rm -f "$d/proxy.sock"
		# an empty environment: nothing of the caller's is readable in
		# its /proc entry, which the sandbox can see
		(
			cg_join "$id" g
			close_fds
			exec setsid env -i PATH="$BASE_PATH" \
			    "$PYTHON" -I -B "$SIMDIR/proxy.py" "$ROOT" "$d" "$name"
		) </dev/null >>"$d/proxy.log" 2>&1 &
		printf '%s\n' "$!" >"$d/proxy.pid"
		# a bound for a loaded machine, not a delay
		for ((i = 1; i <= 200; i++)); do
			[ -S "$d/proxy.sock" ] && break
			nap 0.05
		done
		[ -S "$d/proxy.sock" ] ||
		    sbx_error "failed to start sandbox: the network proxy did not start"
	fi
	if ! pidfile_alive "$d/gw.pid" "$GW_ADDR"; then
		(
			cg_join "$id" g
			close_fds
			exec setsid env -i PATH="$BASE_PATH" nsenter --net="/run/netns/$ns" \
			    socat "TCP4-LISTEN:3128,bind=$GW_ADDR,fork,reuseaddr" \
			    "UNIX-CONNECT:$d/proxy.sock"
		) </dev/null >>"$d/proxy.log" 2>&1 &
		printf '%s\n' "$!" >"$d/gw.pid"
		for ((i = 1; i <= 200; i++)); do
			gw_listening "$ns" && break
			nap 0.05
		done
		gw_listening "$ns" ||
		    sbx_error "failed to start sandbox: the network gateway did not start"
	fi
}

proxy_stop() {	# proxy_stop dir: the proxy and the gateway go
	local d=$1 f p
	for f in "$d/gw.pid" "$d/proxy.pid"; do
		[ -e "$f" ] || continue
		line_of p "$f"
		if [[ $p =~ ^[0-9]+$ ]]; then
			# the gateway's children hold its open connections
			pkill -TERM -P "$p" 2>/dev/null
			kill -TERM "$p" 2>/dev/null
		fi
		rm -f "$f"
	done
	cg_kill "${d##*/}" g
	rm -f "$d/proxy.sock"
}
