# shellcheck shell=bash
# sbx simulator, ports: published ports (README.md, "Ports"): the spec,
# the forwarders on the host, publish and unpublish, the release at a
# stop and the restore at a start, and their listings.

# A port entry: file $D/ports/<protocol>_<hostip>_<hostport> holding
# "<sandbox_port> <forwarder pid>", <protocol> as listed: tcp4, tcp6, tcp
# (dual-stack), udp4, udp6, udp.  Sources (README "Ports"): a bare publish
# is tcp4 and listed so (REL-0.42.0, 0.45.1 fixture, HURA 0.47); tcp/udp
# without an address binds 127.0.0.1 and ::1 (D-port).
port_files() {	# the port files of a sandbox, by host port
	local f
	for f in "$1"/ports/*; do printf '%s\n' "${f##*/}"; done |
	    sort -t_ -k3,3n | while IFS= read -r f; do printf '%s\n' "$1/ports/$f"; done
}

ports_json() {
	local d=$1 f b proto ip hp sp first=1 out='['
	for f in $(port_files "$d"); do
		b=${f##*/}
		IFS=_ read -r proto ip hp <<<"$b"
		# a port unpublished (or its sandbox removed) meanwhile is gone: skip
		# it, rather than let set -u end the listing at the unset $sp
		sp=
		{ read -r sp _ <"$f"; } 2>/dev/null || continue
		[ -n "$sp" ] || continue
		((first)) || out+=','
		first=0
		out+="{\"host_ip\":\"$ip\",\"host_port\":$hp,\"sandbox_port\":$sp,\"protocol\":\"$proto\"}"
	done
	printf '%s]' "$out"
}

ports_text() {	# the PORTS cell of `sbx ls`
	local d=$1 f b proto ip hp sp out=''
	for f in $(port_files "$d"); do
		b=${f##*/}
		IFS=_ read -r proto ip hp <<<"$b"
		read -r sp _ <"$f"
		[ -n "$out" ] && out+=", "
		out+="$(fmt_ip "$ip"):$hp->$sp/$proto"
	done
	printf '%s' "$out"
}

fmt_ip() { case $1 in *:*) printf '[%s]' "$1" ;; *) printf '%s' "$1" ;; esac; }

# parse_spec spec need_host need_sandbox: sets SP_IP (as written, maybe
# empty), SP_HP (maybe empty), SP_SP (maybe empty unless need_sandbox),
# SP_PROTO (as written, maybe empty).
parse_spec() {
	local s=$1 proto='' rest ip='' hp='' sp=''
	has_ctl "$s" && return 1
	case $s in
	*/*) proto=${s##*/} rest=${s%/*} ;;
	*) rest=$s ;;
	esac
	case $proto in
	'' | tcp | udp | tcp4 | udp4 | tcp6 | udp6) ;;
	*) return 1 ;;
	esac
	if [[ $rest =~ ^\[([0-9A-Fa-f:.]+)\]:([0-9]*):([0-9]+)$ ]]; then
		ip=${BASH_REMATCH[1]} hp=${BASH_REMATCH[2]} sp=${BASH_REMATCH[3]}
	elif [[ $rest =~ ^([0-9.]+):([0-9]*):([0-9]+)$ ]]; then
		ip=${BASH_REMATCH[1]} hp=${BASH_REMATCH[2]} sp=${BASH_REMATCH[3]}
	elif [[ $rest =~ ^(::1):([0-9]*):([0-9]+)$ ]]; then
		ip=${BASH_REMATCH[1]} hp=${BASH_REMATCH[2]} sp=${BASH_REMATCH[3]}
	elif [[ $rest =~ ^([0-9]+):([0-9]+)$ ]]; then
		hp=${BASH_REMATCH[1]} sp=${BASH_REMATCH[2]}
	elif [[ $rest =~ ^([0-9]+)$ ]]; then
		sp=${BASH_REMATCH[1]}
	else
		return 1
	fi
	case $ip in
	'' | 127.0.0.1 | 0.0.0.0 | ::1 | ::) ;;
	*) return 1 ;;
	esac
	case $proto/$ip in
	*6/*.* | *4/*:*) return 1 ;;
	esac
	[[ $sp =~ ^[0-9]{1,5}$ ]] && ((10#$sp >= 1 && 10#$sp <= 65535)) || return 1
	sp=$((10#$sp))
	if [ -n "$hp" ]; then
		[[ $hp =~ ^[0-9]{1,5}$ ]] && ((10#$hp >= 1 && 10#$hp <= 65535)) || return 1
		hp=$((10#$hp))
	fi
	[ "$2" = 1 ] && [ -z "$hp" ] && return 1
	SP_IP=$ip SP_HP=$hp SP_SP=$sp SP_PROTO=$proto
	return 0
}

listening() {	# listening proto ip port [any]: a socket bound there (any: or on a wildcard)
	local flag=-Hltn
	[ "${1%[46]}" = udp ] && flag=-Hlun
	ss "$flag" 2>/dev/null | awk -v a="$(fmt_ip "$2"):$3" -v p="$3" -v any="${4:-0}" '
	    $4 == a { f = 1 }
	    any && ($4 == "0.0.0.0:" p || $4 == "*:" p || $4 == "[::]:" p) { f = 1 }
	    END { exit !f }'
}

taken_elsewhere() {	# another sandbox of this root has the host port (any family)
	local f
	local pid
	for f in "$ROOT"/s/*/ports/"${1%[46]}"*"_$2_$3"; do
		pid=
		read -r _ pid _ <"$f" 2>/dev/null
		# a stopped sandbox's mapping holds no host port
		[ "$pid" != - ] && return 0
	done
	return 1
}

bind_one() {	# bind_one dir proto ip hp sp [kind]: one forwarder, or 1
	local d=$1 proto=$2 ip=$3 hp=$4 sp=$5 kind=${6:-x} id=${1##*/} ns listen inner pid i
	ns=$(netns_of "$id")
	case ${proto%[46]}/$ip in
	tcp/*:*) listen="TCP6-LISTEN:$hp,bind=[$ip],ipv6only=1,fork,reuseaddr" ;;
	tcp/*) listen="TCP4-LISTEN:$hp,bind=$ip,fork,reuseaddr" ;;
	udp/*:*) listen="UDP6-LISTEN:$hp,bind=[$ip],ipv6only=1,fork,reuseaddr" ;;
	udp/*) listen="UDP4-LISTEN:$hp,bind=$ip,fork,reuseaddr" ;;
	esac
	# to the VM's address, never its loopback
	inner="TCP4:$VM_ADDR:$sp"
	[ "${proto%[46]}" = udp ] && inner="UDP4:$VM_ADDR:$sp"
	cg_make "$id" p
	(
		cg_join "$id" p
		close_fds
		exec setsid socat -T 60 "$listen" \
		    "EXEC:nsenter --net=/run/netns/$ns socat STDIO ${inner//:/\\:}"
	) </dev/null >>"$d/ports.log" 2>&1 &
	pid=$!
	for ((i = 1; i <= 60; i++)); do
		listening "$proto" "$ip" "$hp" && break
		alive "$pid" || break
		nap 0.05
	done
	if alive "$pid" && listening "$proto" "$ip" "$hp"; then
		printf '%s %s %s\n' "$sp" "$pid" "$kind" >"$d/ports/${proto}_${ip}_$hp"
		return 0
	fi
	kill "$pid" 2>/dev/null
	return 1
}

free_on() {	# free_on proto hp ip...: no mapping and no listener there
	local proto=$1 hp=$2 ip
	shift 2
	for ip in "$@"; do
		taken_elsewhere "$proto" "$ip" "$hp" && return 1
		listening "$proto" "$ip" "$hp" 1 && return 1
	done
	return 0
}

publish_one() {	# publish_one dir spec: prints the Published line(s)
	local d=$1 spec=$2 proto ips=() ip hp tries f kind=e
	parse_spec "$spec" 0 || sbx_error "publish port: invalid port spec \"$spec\""
	proto=$SP_PROTO
	[ -n "$SP_HP" ] && kind=x
	# no protocol: tcp4, or tcp6 for an IPv6 address (D-port, REL-0.42.0)
	if [ -z "$proto" ]; then
		case $SP_IP in *:*) proto=tcp6 ;; *) proto=tcp4 ;; esac
	fi
	if [ -n "$SP_IP" ]; then
		ips=("$SP_IP")
	else
		case $proto in
		*4) ips=(127.0.0.1) ;;
		*6) ips=(::1) ;;
		*) ips=(127.0.0.1 ::1) ;;	# dual-stack: both loopbacks
		esac
	fi
	if leak bind-any; then
		for f in "${!ips[@]}"; do
			case ${ips[f]} in 127.0.0.1) ips[f]=0.0.0.0 ;; ::1) ips[f]=:: ;; esac
		done
	fi
	for ((tries = 0; tries < 25; tries++)); do
		hp=$SP_HP
		[ -n "$hp" ] || hp=$((49152 + (RANDOM * 32768 + RANDOM) % 16384))
		for ip in "${ips[@]}"; do
			if [ -e "$d/ports/${proto}_${ip}_$hp" ]; then
				[ -n "$SP_HP" ] && sbx_error "publish port: port $(fmt_ip "$ip"):$hp/$proto is already published"
				continue 2
			fi
		done
		if ! free_on "$proto" "$hp" "${ips[@]}"; then
			[ -n "$SP_HP" ] && sbx_error "publish port: listen ${proto%[46]} $(fmt_ip "${ips[0]}"):$hp: bind: address already in use"
			continue
		fi
		for f in "${!ips[@]}"; do
			if ! bind_one "$d" "$proto" "${ips[f]}" "$hp" "$SP_SP" "$kind"; then
				# undo the stacks bound so far
				for ((f--; f >= 0; f--)); do unbind_file "$d/ports/${proto}_${ips[f]}_$hp"; done
				[ -n "$SP_HP" ] && sbx_error "publish port: listen ${proto%[46]} $(fmt_ip "${ips[0]}"):$hp: bind: address already in use"
				continue 2
			fi
		done
		for ip in "${ips[@]}"; do
			printf 'Published %s:%s -> %s/%s\n' "$(fmt_ip "$ip")" "$hp" "$SP_SP" "$proto"
		done
		return 0
	done
	sbx_error "publish port: no free host port"
}

# A stopped sandbox holds no host port: its mappings stay (listed, with
# no forwarder) and are published again when it starts, an explicit
# host port as it was, an ephemeral one on a new host port (PR25386).
ports_release() {	# ports_release dir
	local f sp pid kind
	for f in "$1"/ports/*; do
		read -r sp pid kind <"$f" 2>/dev/null || continue
		[ "$pid" = - ] && continue
		printf '%s - %s\n' "$sp" "${kind:-x}" >"$f"
	done
	cg_kill "${1##*/}" p
}

# What a taken explicit host port does at the start is not known (the
# docs: sbx prompts for another port or to cancel); here, with no
# terminal or under --no-input, the start fails and the sandbox stays
# stopped, its mappings kept, the unkind reading (README.md, "Ports").
ports_restore() {	# ports_restore dir: publish a started sandbox's mappings again
	local d=$1 f b sp pid kind proto ip hp new a tries
	declare -A moved=()
	for f in "$d"/ports/*; do
		read -r sp pid kind <"$f" 2>/dev/null || continue
		[ "$pid" != - ] && alive "$pid" && continue
		b=${f##*/}
		IFS=_ read -r proto ip hp <<<"$b"
		rm -f "$f"
		if [ "${kind:-x}" = e ]; then
			# both stacks of one mapping move to the same new port
			new=${moved[$proto/$hp]:-}
			for ((tries = 0; tries < 25; tries++)); do
				[ -n "$new" ] || new=$((49152 + (RANDOM * 32768 + RANDOM) % 16384))
				free_on "$proto" "$new" "$ip" && bind_one "$d" "$proto" "$ip" "$new" "$sp" e && break
				new=
			done
			[ -n "$new" ] && moved[$proto/$hp]=$new && continue
			printf '%s - e\n' "$sp" >"$f"
			stop_sandbox "$d"
			sbx_error "failed to start sandbox: publish port: no free host port"
		fi
		free_on "$proto" "$hp" "$ip" && bind_one "$d" "$proto" "$ip" "$hp" "$sp" x && continue
		if may_prompt; then
			prompted port-conflict
			printf 'Host port %s:%s (sandbox port %s/%s) is in use. Enter another host port, or nothing to cancel: ' \
			    "$(fmt_ip "$ip")" "$hp" "$sp" "$proto" >&2
			read -r a || a=
			if [[ $a =~ ^[0-9]{1,5}$ ]] && ((10#$a >= 1 && 10#$a <= 65535)) &&
			    free_on "$proto" "$((10#$a))" "$ip" && bind_one "$d" "$proto" "$ip" "$((10#$a))" "$sp" x; then
				continue
			fi
		fi
		printf '%s - x\n' "$sp" >"$f"
		stop_sandbox "$d"
		sbx_error "failed to start sandbox: publish port $(fmt_ip "$ip"):$hp -> $sp/$proto: listen ${proto%[46]} $(fmt_ip "$ip"):$hp: bind: address already in use"
	done
	return 0
}

unbind_file() {	# unbind_file portfile: end its forwarder, drop it
	local pid=
	read -r _ pid _ <"$1" 2>/dev/null
	if [[ ${pid:-} =~ ^[0-9]+$ ]]; then
		pkill -TERM -P "$pid" 2>/dev/null
		kill -TERM "$pid" 2>/dev/null
	fi
	rm -f "$1"
}

# unpublish_one dir spec need_host: the exact protocol named, or (none
# named) the default tcp4 or a dual-stack tcp mapping (D-port); every
# host port when none is given (the newest grammar, D-port).
unpublish_one() {
	local d=$1 spec=$2 f b proto ip hp sp n=0 want
	parse_spec "$spec" "$3" || sbx_error "unpublish port: invalid port spec \"$spec\"$( [ "$3" = 1 ] && echo ' (host port required)')"
	for f in $(port_files "$d"); do
		b=${f##*/}
		IFS=_ read -r proto ip hp <<<"$b"
		read -r sp _ <"$f" 2>/dev/null || continue
		if [ -n "$SP_PROTO" ]; then
			[ "$proto" = "$SP_PROTO" ] || continue
		else
			case $proto in tcp4 | tcp) ;; *) continue ;; esac
		fi
		[ -z "$SP_HP" ] || [ "$hp" = "$SP_HP" ] || continue
		if [ -n "$SP_IP" ]; then
			want=$SP_IP
			[ "$ip" = "$want" ] || continue
		else
			# only an unqualified spec may match a leaked (any-address) binding
			case $ip in 127.0.0.1 | ::1 | 0.0.0.0 | ::) ;; *) continue ;; esac
		fi
		if [ "$sp" != "$SP_SP" ]; then
			[ -n "$SP_HP" ] && sbx_error "unpublish port: port $(fmt_ip "$ip"):$hp/$proto is published to sandbox port $sp, not $SP_SP"
			continue
		fi
		unbind_file "$f"
		printf 'Unpublished %s:%s -> %s/%s\n' "$(fmt_ip "$ip")" "$hp" "$sp" "$proto"
		n=$((n + 1))
	done
	((n > 0)) || sbx_error "unpublish port: port $spec is not published"
}

list_ports() {	# list_ports dir table|json|yaml
	local d=$1 f b proto ip hp sp nrows=0
	case $2 in
	json)
		ports_json "$d"
		echo
		return 0
		;;
	yaml)
		for f in $(port_files "$d"); do
			b=${f##*/}
			IFS=_ read -r proto ip hp <<<"$b"
			read -r sp _ <"$f"
			printf -- '- host_ip: "%s"\n  host_port: %s\n  sandbox_port: %s\n  protocol: %s\n' "$ip" "$hp" "$sp" "$proto"
			nrows=$((nrows + 1))
		done
		((nrows)) || echo '[]'
		return 0
		;;
	esac
	for f in $(port_files "$d"); do
		if ((nrows == 0)); then
			printf '%-12s%-12s%-15s%s\n' "HOST IP" "HOST PORT" "SANDBOX PORT" PROTOCOL
		fi
		nrows=$((nrows + 1))
		b=${f##*/}
		IFS=_ read -r proto ip hp <<<"$b"
		read -r sp _ <"$f"
		printf '%-12s%-12s%-15s%s\n' "$ip" "$hp" "$sp" "$proto"
	done
	((nrows)) || echo "No published ports"
}

# A stopped sandbox: publishing starts it first on 0.55 (D-port) and with
# publish-starts; ports-409 refuses every other port call of a stopped
# one, as 0.42.1 refused the listing (TET).
port_stopped() {	# port_stopped dir name publishing
	local d=$1
	[ "$(status_of "$d")" = stopped ] || return 0
	if [ "$3" = 1 ] && { profile_ge 0.55 || fault_on publish-starts; }; then
		start_sandbox "$d"
		touch_used "$d"
		return 0
	fi
	fault_on ports-409 &&
	    sbx_error "request failed: 409 Conflict: sandbox $2 is not running"
	return 0
}

ports_apply() {	# ports_apply name format pubs... -- unpubs...: unpub needs host
	local name=$1 fmt=$2 pubs=() unpubs=() s
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do pubs+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	unpubs=("$@")
	find_sandbox "$name" || no_such "$name"
	local d=$D
	lock "$d/lock"
	port_stopped "$d" "$name" $((${#pubs[@]} > 0))
	# a combined call: the order is not documented; fault words choose
	if ((${#pubs[@]} > 0 && ${#unpubs[@]} > 0)); then
		fault_on combined-refused &&
		    sbx_error "--publish and --unpublish cannot be combined"
		if fault_on order-publish-first; then
			for s in "${pubs[@]}"; do publish_one "$d" "$s"; done
			pubs=()
		fi
	fi
	for s in "${unpubs[@]}"; do unpublish_one "$d" "$s" "${UNPUB_HOST:-1}"; done
	for s in "${pubs[@]}"; do publish_one "$d" "$s"; done
	unlock
	if ((${#pubs[@]} + ${#unpubs[@]} == 0)); then
		list_ports "$d" "$fmt"
	fi
}
