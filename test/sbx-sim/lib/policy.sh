# shellcheck shell=bash
# sbx simulator, policy: sbx's network rules (README.md, "Network
# policy"): their state under $ROOT/policy, the grammar of an entry, the
# matcher and `policy check`, the rules a stop drops.  The other verbs
# are policyverbs.sh, `policy log` policylog.sh.
#
# The matcher, which `sbx policy check` and the sandbox's proxy share:
#
#	policy_match TARGET SANDBOX
#
# TARGET is a host, host:port, an IPv4 or IPv6 address, [IPv6]:port, or
# a URL; a bare host or address is port 443.  SANDBOX is the sandbox's
# name, or empty for the global context.  It prints one line
# DECISION<TAB>RULE: DECISION `allow` or `deny`, RULE the deciding
# rule's ID or, when no rule matched, the engine's raw verdict
# `no applicable policies for op=(action:net:connect:tcp,
# resource=net:domain:HOST:PORT)` (`net:ip:` for an address); status 0
# allow, 1 deny, 2 a target it cannot read (nothing printed).  Deny
# beats allow; the sandbox's rules and the global ones count, inactive
# ones never; with no match the global preset decides (allow-all
# allows, anything else denies).  SBX_SIM_FAULT=policy-org leaves local
# allow rules out, policy-at-start the rules newer than the sandbox's
# last start.  It needs ROOT (init_root) and the other parts; it reads
# the rules without the lock (a rewrite is a rename, so a reader sees
# one whole version).  From outside: `sbx __policy-match TARGET SANDBOX`.
#
# $ROOT/policy: `rules` (ID SCOPE APPLIES_TO DECISION RESOURCE ORIGIN
# STATUS, tab-separated, one entry a line; rewritten under `lock` and
# replaced by rename), `times` (ID and the epoch ms it was added,
# appended), `global` (the preset; absent: not initialised), `log`
# (appended by the proxy; policyverbs.sh reads it).

policy_root() {	# the root's policy state at its making: deny-all, no rule
	local t=$ROOT/policy.$$
	[ -d "$ROOT/policy" ] && return 0
	mkdir "$t" || return 0
	: >"$t/lock"
	: >"$t/rules"
	printf 'deny-all\n' >"$t/global"
	# the lock file keeps it non-empty: the loser of a race cannot rename
	mv -T "$t" "$ROOT/policy" 2>/dev/null || rm -rf "$t"
}

# policy_apply CMD...: the rules through CMD become the new rules, under
# the lock, replaced by rename so that a reader sees one whole version
policy_apply() {
	local p=$ROOT/policy t
	[ -d "$p" ] || return 0
	(
		flock 9 || exit 1
		t=$p/rules.$BASHPID	# expanded here, not in a command's child
		if "$@" <"$p/rules" >"$t"; then
			mv -f "$t" "$p/rules"
		else
			rm -f "$t"
			exit 1
		fi
	) 9>>"$p/lock"
}

policy_keep() {	# policy_keep AWK-CONDITION: the rules for which it holds
	awk -F'\t' -v OFS='\t' "$1"
}

# sbx loses a sandbox's own rules when it stops; SBX_SIM_POLICY_KEEP=1
# keeps them over a stop, never over a removal (fast).  Called by
# stop_sandbox, so the idle stop drops them too.
policy_drop() {	# policy_drop DIR [fast]
	local n
	[ "${2:-}" != fast ] && [ "${SBX_SIM_POLICY_KEEP:-}" = 1 ] && return 0
	line_of n "$1/name" || return 0
	[ -s "$ROOT/policy/rules" ] || return 0
	# shellcheck disable=SC2016 # an awk program
	PN=$n policy_apply policy_keep '!($2 == "sandbox" && $3 == ENVIRON["PN"])'
}

# Organisation governance (SBX_SIM_FAULT=policy-org): local allow rules
# are inactive, deny rules still count.  Each policy call under the
# fault marks them so in the file, for the proxy's sake.
policy_org_sync() {
	fault_on policy-org || return 0
	grep -q "	allow	[^	]*	local	active$" "$ROOT/policy/rules" 2>/dev/null || return 0
	# shellcheck disable=SC2016 # an awk program
	policy_apply policy_keep '$4 == "allow" && $6 == "local" { $7 = "inactive" } { print }'
}

# ---------------------------------------------------------------- entries

policy_v4() {	# policy_v4 ADDR: the IPv4 address as a number, or 1
	local o
	[[ $1 =~ ^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]] || return 1
	for o in "${BASH_REMATCH[@]:1}"; do ((10#$o <= 255)) || return 1; done
	printf '%s' "$(((10#${BASH_REMATCH[1]} << 24) + (10#${BASH_REMATCH[2]} << 16) +
	    (10#${BASH_REMATCH[3]} << 8) + 10#${BASH_REMATCH[4]}))"
}

policy_v6() {	# policy_v6 ADDR: the IPv6 address as 32 hex digits, or 1
	local a=${1,,} h=() t=() g out='' i
	[[ $a =~ ^[0-9a-f:]{2,39}$ ]] || return 1
	case $a in *::*::*) return 1 ;; esac
	if [[ $a == *::* ]]; then
		[ -n "${a%%::*}" ] && IFS=: read -r -a h <<<"${a%%::*}"
		[ -n "${a#*::}" ] && IFS=: read -r -a t <<<"${a#*::}"
		((${#h[@]} + ${#t[@]} <= 7)) || return 1
		for ((i = ${#h[@]} + ${#t[@]}; i < 8; i++)); do h+=(0); done
	else
		IFS=: read -r -a h <<<"$a"
		[[ $a != *: ]] && ((${#h[@]} == 8)) || return 1
	fi
	for g in "${h[@]}" "${t[@]}"; do
		[[ $g =~ ^[0-9a-f]{1,4}$ ]] || return 1
		out+=$(printf '%04x' "$((16#$g))")
	done
	printf '%s' "$out"
}

# A domain: labels of letters, digits, '_' and '-' (not at either end),
# at most 253 bytes, one trailing dot allowed; all digits is no name.
policy_domain() {
	((${#1} <= 254)) &&
	    [[ $1 =~ ^([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.)*[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?\.?$ ]] &&
	    [[ ! $1 =~ ^[0-9.]+$ ]]
}

# policy_parse ENTRY: one entry of a rule (host, host:port, *.x, **.x,
# * or **, an address or prefix, [IPv6]:port).  Sets PH (the host part,
# lower case, one trailing dot dropped), PP (the port or empty), PK
# (dom, one, any, many, v4, v6), PV (an address's value), PL (a prefix's
# length or empty); status 1 if it is no entry.
policy_parse() {
	local e=$1 r
	PH='' PP='' PK='' PV='' PL=''
	((${#e} <= 300)) || return 1
	case $e in
	\[*)
		PH=${e#\[}
		r=${PH#*\]}
		[ "$r" != "$PH" ] || return 1
		PH=${PH%%\]*}
		case $r in
		'') ;;
		:?*) PP=${r#:} ;;
		*) return 1 ;;
		esac
		[[ $PH == *:* ]] || return 1
		;;
	*:*:*) PH=$e ;;
	*:*) PH=${e%:*} PP=${e##*:} ;;
	*) PH=$e ;;
	esac
	if [ -n "$PP" ]; then
		[[ $PP =~ ^[0-9]{1,5}$ ]] && ((10#$PP >= 1 && 10#$PP <= 65535)) || return 1
		PP=$((10#$PP))
	fi
	if [[ $PH == */* ]]; then
		PL=${PH#*/} PH=${PH%%/*}
		[[ $PL =~ ^[0-9]{1,3}$ ]] || return 1
		PL=$((10#$PL))
	fi
	PH=${PH,,}
	case $PH in
	\* | \*\*) PK=any ;;
	\*\*.*) PK=many PH=${PH#\*\*.} ;;
	\*.*) PK=one PH=${PH#\*.} ;;
	*:*) PK=v6 ;;
	*) PK=dom ;;
	esac
	case $PK in
	v6) PV=$(policy_v6 "$PH") || return 1 ;;
	*)
		if [[ $PH =~ ^[0-9.]+$ ]] && PV=$(policy_v4 "$PH"); then
			[ "$PK" = dom ] || return 1
			PK=v4
		elif [ "$PK" != any ]; then
			policy_domain "$PH" || return 1
			PH=${PH%.}
		fi
		;;
	esac
	case $PK/$PL in
	*/ | v4/[0-9] | v4/[12][0-9] | v4/3[0-2]) ;;
	v6/*) ((PL <= 128)) || return 1 ;;
	*) return 1 ;;
	esac
	return 0
}

# policy_target TARGET: what a check or a connection names, as TH (the
# host, lower case), TP (the port), TK (dom, v4, v6), TV (an address's
# value) and TN (host:port, [IPv6]:port); status 1 if it is none.
policy_target() {
	local tg=$1 port=443
	has_ctl "$tg" && return 1
	case ${tg,,} in
	http://*) port=80 ;;
	https://*) ;;
	*://*) port= ;;
	esac
	if [[ $tg == *://* ]]; then
		tg=${tg#*://}
		tg=${tg%%[/?#]*}
		tg=${tg##*@}
	fi
	policy_parse "$tg" || return 1
	case $PK in dom | v4 | v6) ;; *) return 1 ;; esac
	[ -z "$PL" ] || return 1
	TH=$PH TK=$PK TV=$PV TP=${PP:-$port}
	[ -n "$TP" ] || return 1
	if [ "$TK" = v6 ]; then TN="[$TH]:$TP"; else TN="$TH:$TP"; fi
}

policy_hit() {	# policy_hit ENTRY: does it match the target read last?
	local n
	policy_parse "$1" || return 1
	[ -z "$PP" ] || [ "$PP" = "$TP" ] || return 1
	case $PK in
	any) return 0 ;;
	dom) [ "$TK" = dom ] && [ "$PH" = "$TH" ] ;;
	one) [ "$TK" = dom ] && [[ $TH == ?*".$PH" ]] && [[ ${TH%".$PH"} != *.* ]] ;;
	many) [ "$TK" = dom ] && [[ $TH == ?*".$PH" ]] ;;
	v4)
		[ "$TK" = v4 ] || return 1
		n=${PL:-32}
		((n == 0 || (PV >> (32 - n)) == (TV >> (32 - n))))
		;;
	v6)
		[ "$TK" = v6 ] || return 1
		n=${PL:-128}
		[ "${PV:0:n/4}" = "${TV:0:n/4}" ] || return 1
		((n % 4 == 0)) && return 0
		(((16#${PV:n/4:1} >> (4 - n % 4)) == (16#${TV:n/4:1} >> (4 - n % 4))))
		;;
	*) return 1 ;;
	esac
}

policy_started() {	# policy_started NAME: the epoch ms of its last start, or 1
	local t
	find_sandbox "$1" && [ -e "$D/started" ] || return 1
	t=$(stat -c %.3Y "$D/started" 2>/dev/null) || return 1
	printf '%s' "${t/./}"
}

# policy_decide SANDBOX: the decision for the target read last (policy_
# target), as M_DEC (allow, deny), M_RULE (the rule's ID or the raw
# verdict), M_RES (the rule's entry), M_ORIGIN, and M_WHY: rule, preset,
# org (nothing matched under governance) or none (no preset).
policy_decide() {
	local sb=$1 id sc ap dec res or st t0='' al='' ar='' ao='' g
	local -A at=()
	M_DEC=deny M_RULE='' M_RES='' M_ORIGIN='' M_WHY=rule
	if [ -n "$sb" ] && fault_on policy-at-start && t0=$(policy_started "$sb"); then
		[ -f "$ROOT/policy/times" ] &&
		    while IFS=$'\t' read -r id g; do at[$id]=$g; done <"$ROOT/policy/times"
	fi
	[ -f "$ROOT/policy/rules" ] && while IFS=$'\t' read -r id sc ap dec res or st; do
		[ "$st" = active ] || continue
		case $sc in
		global) ;;
		sandbox) [ "$ap" = "${sb:-/}" ] || continue ;;
		*) continue ;;
		esac
		[ "$dec/$or" = allow/local ] && fault_on policy-org && continue
		if [ -n "$t0" ] && [[ ${at[$id]:-} =~ ^[0-9]+$ ]] && ((at[$id] > t0)); then
			continue
		fi
		policy_hit "$res" || continue
		if [ "$dec" = deny ]; then
			M_RULE=$id M_RES=$res M_ORIGIN=$or
			return 0
		fi
		[ "$dec" = allow ] && [ -z "$al" ] && al=$id ar=$res ao=$or
	done <"$ROOT/policy/rules"
	if [ -n "$al" ]; then
		M_DEC=allow M_RULE=$al M_RES=$ar M_ORIGIN=$ao
		return 0
	fi
	g=$(cat "$ROOT/policy/global" 2>/dev/null) || g=
	case $g in
	allow-all) M_DEC=allow M_WHY=preset ;;
	'') M_WHY=none ;;
	*) M_WHY=preset ;;
	esac
	fault_on policy-org && M_WHY=org
	g=domain
	[ "$TK" = dom ] || g=ip
	M_RULE="no applicable policies for op=(action:net:connect:tcp, resource=net:$g:$TH:$TP)"
}

policy_match() {	# policy_match TARGET SANDBOX (see the head of this file)
	policy_target "$1" || return 2
	policy_decide "${2:-}"
	printf '%s\t%s\n' "$M_DEC" "$M_RULE"
	[ "$M_DEC" = allow ]
}

# policy_check network [--sandbox NAME] [--json] TARGET: Allowed or
# Denied and a Reason; a denial exits SBX_SIM_POLICY_CHECK_RC (1 by
# default, as the manual says; 0 as one client saw), drawn from the seed
# under vary words when it is unset
policy_check() {
	local sb='' json=0 ops=() a rc=${SBX_SIM_POLICY_CHECK_RC:-} ctx=0 raw=0 why
	policy_network check "${1:-}"
	shift
	while [ $# -gt 0 ]; do
		a=$1
		case $a in
		--json) json=1 ;;
		--verbose) ;;
		--sandbox) need_val "$a" $#; sb=$2; shift ;;
		--sandbox=*) sb=${a#*=} ;;
		--protocol) need_val "$a" $#; [ "$2" = tcp ] || sbx_error "unsupported protocol \"$2\""; shift ;;
		-h | --help) echo "Usage: sbx policy check network [--sandbox SANDBOX] TARGET [flags]"; return 0 ;;
		--) shift; ops+=("$@"); break ;;
		-?*) policy_flagerr "$a" ;;
		*) ops+=("$a") ;;
		esac
		shift
	done
	((${#ops[@]} == 1)) || sbx_error "accepts 1 arg(s), received ${#ops[@]}"
	case $rc in
	0 | 1) ;;
	'') rc=1 ;;
	*) die 1 "sbx-sim: SBX_SIM_POLICY_CHECK_RC must be 0 or 1, not $rc" ;;
	esac
	if [ "$WORDS" = vary ]; then
		w_rand 2
		[ -n "${SBX_SIM_POLICY_CHECK_RC:-}" ] || rc=$W_R
		w_rand 3; ctx=$W_R
		w_rand 2; raw=$W_R
	fi
	policy_target "${ops[0]}" || sbx_error "invalid target $(policy_q "${ops[0]}")"
	if [ -n "$sb" ]; then
		find_sandbox "$sb" || no_such "$sb" policy
	fi
	policy_initialised
	policy_decide "$sb"
	case $M_DEC/$M_WHY in
	*/rule) why="${M_DEC}ed by rule $M_RULE ($M_RES)" ;;
	allow/*) why='allowed by the default policy (allow-all)' ;;
	*/org) why='approval required by policy' ;;
	*) why='no matching allow rule (default deny)' ;;
	esac
	[ "$M_WHY/$raw" = preset/1 ] && why=$M_RULE
	why=${why/denyed/denied}
	if ((json)); then
		printf '{"allowed":%s,"target":%s,"type":"network","action":"net:connect:tcp","resource_type":"net:%s","resource_value":%s,"context":%s,"reason":%s,"rule":%s,"origin":%s}\n' \
		    "$([ "$M_DEC" = allow ] && echo true || echo false)" "$(json_str "${ops[0]}")" \
		    "$([ "$TK" = dom ] && echo domain || echo ip)" "$(json_str "$TN")" \
		    "$(json_str "${sb:+sandbox:}${sb:-global}")" "$(json_str "$why")" \
		    "$(json_str "$([ "$M_WHY" = rule ] && printf '%s' "$M_RULE")")" "$(json_str "$M_ORIGIN")"
	else
		if [ "$M_DEC" = allow ]; then a=Allowed; else a=Denied; fi
		((ctx == 2)) && printf 'Context: %s\n' "${sb:+sandbox:}${sb:-global}"
		printf '%s: %s\nReason: %s\n' "$a" "${ops[0]}" "$why"
		((ctx == 1)) && printf 'Governance: %s\nContext: %s\n' \
		    "$(fault_on policy-org && echo active || echo inactive)" "${sb:+sandbox:}${sb:-global}"
	fi
	[ "$M_DEC" = allow ] || exit "$rc"
	return 0
}
