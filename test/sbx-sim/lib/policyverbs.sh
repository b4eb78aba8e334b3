# shellcheck shell=bash
# sbx simulator, policy verbs: `sbx policy allow|deny|rm|ls|check|log|
# init|reset` (README.md, "Network policy"): their flags in the spelling
# of the release imitated, their answers, and the log's envelopes.  The
# rules, the grammar of an entry and the matcher are policy.sh.

POLICY_PRESETS='allow-all|balanced|deny-all'

# Which spelling `policy allow|deny|rm network` takes: 0.46 the
# positional SANDBOX of the generated reference, 0.47 and 0.55 the
# --sandbox flag of the manual; SBX_SIM_POLICY_SPELL=flag|positional|both.
policy_spell() {	# policy_spell flag|positional
	local s=${SBX_SIM_POLICY_SPELL:-}
	case $s in
	'') if profile_ge 0.47; then s=flag; else s=positional; fi ;;
	flag | positional | both) ;;
	*) die 1 "sbx-sim: SBX_SIM_POLICY_SPELL must be flag, positional or both, not $s" ;;
	esac
	[ "$s" = both ] || [ "$s" = "$1" ]
}

policy_q() {	# policy_q S: S quoted as Go's %q would, for an error line
	local s=$1 c out='' i
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	s=${s//$'\t'/\\t}
	if has_ctl "$s"; then
		for ((i = 0; i < ${#s}; i++)); do
			c=${s:i:1}
			if has_ctl "$c"; then
				out+=$(printf '\\x%02x' "'$c")
			else
				out+=$c
			fi
		done
		s=$out
	fi
	printf '"%s"' "$s"
}

policy_flagerr() {	# policy_flagerr ARG: cobra's answer to a flag it does not know
	case $1 in
	--*) sbx_error "unknown flag: ${1%%=*}" ;;
	*) sbx_error "unknown shorthand flag: '${1:1:1}' in $1" ;;
	esac
}

policy_initialised() {	# the global preset must exist before rules do
	[ -s "$ROOT/policy/global" ] ||
	    sbx_error "global network policy has not been initialized" "sbx policy init <$POLICY_PRESETS>"
}

policy_network() {	# policy_network VERB WORD: the type every rule verb names
	case $2 in
	network) return 0 ;;
	'' | -h | --help | help)
		printf 'Usage: sbx policy %s network ...\n\nAvailable Commands:\n  network\n' "$1"
		exit 0
		;;
	-*) policy_flagerr "$2" ;;
	*) sbx_error "unknown command \"$2\" for \"sbx policy $1\"" ;;
	esac
}

# policy_scope SANDBOX GLOBAL WANT OPERAND...: the scope the spelling of
# this release reads from --sandbox, -g and the operands, and the WANT
# operands left; sets PSB (the sandbox, empty: global) and POPS.
policy_scope() {
	local sb=$1 g=$2 want=$3 n
	shift 3
	n=$#
	PSB='' POPS=()
	if [ -n "$sb" ] && ((g)); then
		sbx_error "if any flags in the group [global sandbox] are set none of the others can be; [global sandbox] were all set"
	fi
	if [ -n "$sb" ] || ! policy_spell positional; then
		# the flag spelling counts `network` among its arguments
		((n == want)) || sbx_error "accepts $((want + 1)) arg(s), received $((n + 1))"
		PSB=$sb
	elif ((n == want + 1)); then
		((g)) && sbx_error "-g and a sandbox name cannot be used together"
		PSB=$1
		shift
	elif ((n != want)); then
		sbx_error "accepts between $want and $((want + 1)) arg(s), received $n"
	fi
	POPS=("$@")
}

policy_entries() {	# policy_entries LIST: PENT, its entries, each one checked
	local s=$1, e
	PENT=()
	while [ -n "$s" ]; do
		PENT+=("${s%%,*}")
		s=${s#*,}
	done
	for e in "${PENT[@]}"; do
		if has_ctl "$e" || ! policy_parse "$e"; then
			sbx_error "invalid network resource $(policy_q "$e")"
		fi
	done
}

policy_args() {	# the flags every rule verb shares, into PA_* and PA_OPS
	local a
	PA_SB='' PA_G=0 PA_RES='' PA_ID='' PA_F=0 PA_SET='' PA_OPS=()
	while [ $# -gt 0 ]; do
		a=$1
		case $a in
		--sandbox | --resource | --id)
			[ "$a" = --sandbox ] && ! policy_spell flag && policy_flagerr "$a"
			[[ $PA_FLAGS == *" $a "* ]] || policy_flagerr "$a"
			need_val "$a" $#
			policy_set "${a#--}" "$2"
			shift
			;;
		--sandbox=* | --resource=* | --id=*)
			[[ $a == --sandbox=* ]] && ! policy_spell flag && policy_flagerr "$a"
			[[ $PA_FLAGS == *" ${a%%=*} "* ]] || policy_flagerr "$a"
			a=${a#--}
			policy_set "${a%%=*}" "${a#*=}"
			;;
		-g | --global) PA_G=1 ;;
		-f | --force) [[ $PA_FLAGS == *" -f "* ]] || policy_flagerr "$a"; PA_F=1 ;;
		-h | --help) printf 'Usage: sbx policy %s\n' "$PA_USAGE"; exit 0 ;;
		--) shift; PA_OPS+=("$@"); break ;;
		-?*) policy_flagerr "$a" ;;
		*) PA_OPS+=("$a") ;;
		esac
		shift
	done
}

policy_set() {	# policy_set NAME VALUE: one flag's value
	case $1 in
	sandbox) PA_SB=$2 ;;
	resource) PA_RES=$2 ;;
	id) PA_ID=$2 ;;
	esac
	PA_SET+=" $1"
}

policy_add() {	# policy_add allow|deny network [flags] [SANDBOX] RESOURCES
	local dec=$1 id st=active lines='' e
	shift
	policy_network "$dec" "${1:-}"
	shift
	PA_FLAGS=' --sandbox ' PA_USAGE="$dec network [--sandbox SANDBOX | -g] RESOURCES"
	policy_spell flag || PA_USAGE="$dec network [-g | SANDBOX] RESOURCES"
	policy_args "$@"
	policy_scope "$PA_SB" "$PA_G" 1 "${PA_OPS[@]}"
	policy_entries "${POPS[0]}"
	policy_initialised
	if [ -n "$PSB" ]; then
		find_sandbox "$PSB" || no_such "$PSB" policy
	fi
	[ "$dec" = allow ] && fault_on policy-org && st=inactive
	id=$(policy_newid)
	for e in "${PENT[@]}"; do
		if [ -n "$PSB" ]; then
			lines+="$id	sandbox	$PSB	$dec	$e	local	$st"$'\n'
		else
			lines+="$id	global	*	$dec	$e	local	$st"$'\n'
		fi
	done
	# the time first: a rule is never seen without it
	printf '%s\t%s\n' "$id" "$(ms_now)" >>"$ROOT/policy/times"
	PL_ADD=$lines policy_apply policy_append || sbx_error "failed to add policy"
	e=$(printf '%s, ' "${PENT[@]}")
	printf 'Policy added: %s (%s)\n' "$id" "${e%, }"
}

policy_append() { cat; printf '%s' "$PL_ADD"; }

policy_newid() {	# a rule ID no rule has: r- and 8 hex digits
	local id
	while :; do
		id=r-$(rand_hex 4)
		grep -q "^$id	" "$ROOT/policy/rules" 2>/dev/null || break
	done
	printf '%s' "$id"
}

policy_rm() {	# policy_rm network [flags] [SANDBOX] (--resource R | --id ID) [-f]
	local scope sel a n
	policy_network rm "${1:-}"
	shift
	PA_FLAGS=' --sandbox --resource --id -f ' PA_USAGE='rm network [--sandbox SANDBOX | -g] (--resource RESOURCES | --id ID) [-f]'
	policy_spell flag || PA_USAGE='rm network [-g | SANDBOX] (--resource RESOURCES | --id ID) [-f]'
	policy_args "$@"
	policy_scope "$PA_SB" "$PA_G" 0 "${PA_OPS[@]}"
	case $PA_SET in
	*resource*id* | *id*resource*)
		sbx_error "if any flags in the group [resource id] are set none of the others can be; [id resource] were all set" ;;
	*resource* | *id*) ;;
	*) sbx_error "at least one of the flags in the group [resource id] is required" ;;
	esac
	if [[ $PA_SET == *resource* ]]; then
		policy_entries "$PA_RES"
		sel="resource=$PA_RES"
	else
		has_ctl "$PA_ID" && sbx_error "no network rule with ID $(policy_q "$PA_ID")"
		sel="id=$PA_ID"
	fi
	# what goes: local rules of the scope (any scope for an ID alone)
	export PL_SB=$PSB PL_ANY=0 PL_ID=$PA_ID PL_RES=
	[ -z "$PSB" ] && ((!PA_G)) && [[ $PA_SET == *id* ]] && PL_ANY=1
	[[ $PA_SET == *resource* ]] && PL_RES=$(printf ',%s' "${PENT[@]}"),
	scope=global
	[ -n "$PSB" ] && scope=sandbox:$PSB
	n=$(policy_rmfilter 1 <"$ROOT/policy/rules" | wc -l)
	((n > 0)) || sbx_error "no network rules match $sel in $scope"
	if ((!PA_F)); then
		may_prompt || sbx_error "$( ((NO_INPUT)) && echo '--no-input is set' || echo 'stdin is not a terminal')"
		prompted policy-rm
		printf 'Remove network rules from %s (%s)? (y/N) ' "$scope" "$sel" >&2
		read -r a || a=
		[[ $a == [yY]* ]] || { echo "Aborted." >&2; exit 1; }
	fi
	a=$(policy_rmfilter 1 <"$ROOT/policy/rules" | cut -f1,5)
	policy_apply policy_rmfilter 0 || sbx_error "failed to remove policy"
	while IFS=$'\t' read -r n sel; do
		printf 'Policy removed: %s (%s)\n' "$n" "$sel"
	done <<<"$a"
}

policy_rmfilter() {	# policy_rmfilter 1|0: the rules policy_rm removes, or the others
	# shellcheck disable=SC2016 # an awk program
	policy_keep '{
		hit = $6 == "local" && (ENVIRON["PL_ANY"] == 1 ||
		    (ENVIRON["PL_SB"] == "" && $2 == "global") ||
		    ($2 == "sandbox" && $3 == ENVIRON["PL_SB"])) &&
		    (ENVIRON["PL_RES"] == "" ? $1 == ENVIRON["PL_ID"] : index(ENVIRON["PL_RES"], "," $5 ",") > 0)
		if (hit == '"$1"') print
	}'
}

# policy_ls [NAME] [--json]: the rules, one row (one object) per rule
# ID, its entries together; NAME: those that apply to that sandbox
policy_ls() {
	local name='' json=0 src='' a id sc ap dec res or st ids=() r
	local -A f=() rs=()
	local LC_ALL=C
	while [ $# -gt 0 ]; do
		a=$1
		case $a in
		--json) json=1 ;;
		--wide | --include-inactive) ;;
		--type) need_val "$a" $#; shift ;;
		--type=*) ;;
		--source) need_val "$a" $#; src=$2; shift ;;
		--source=*) src=${a#*=} ;;
		-h | --help) echo "Usage: sbx policy ls [SANDBOX] [--json] [--wide] [--source local|org|kit] [--include-inactive]"; return 0 ;;
		-?*) policy_flagerr "$a" ;;
		*)
			[ -z "$name" ] || sbx_error "accepts at most 1 arg(s), received 2"
			name=$a
			;;
		esac
		shift
	done
	if [ -n "$name" ]; then
		find_sandbox "$name" || no_such "$name" policy
	fi
	while IFS=$'\t' read -r id sc ap dec res or st; do
		# printable ASCII only: a test may have written the line
		case $id$sc$ap$dec$res$or$st in *[!\ -~]*) continue ;; esac
		[ -n "$st" ] || continue
		[ -z "$name" ] || [ "$sc" = global ] || [ "$ap" = "$name" ] || continue
		[ -z "$src" ] || [ "$or" = "$src" ] || continue
		[ "$dec/$or" = allow/local ] && fault_on policy-org && st=inactive
		if [ -z "${f[$id]:-}" ]; then
			ids+=("$id")
			f[$id]="$sc	$ap	$dec	$or	$st"
		fi
		rs[$id]+="$res	"
	done <"$ROOT/policy/rules"
	if ((json)); then
		local out='' first=1 e ef
		for id in "${ids[@]}"; do
			IFS=$'\t' read -r sc ap dec or st <<<"${f[$id]}"
			[ "$sc" = global ] && ap=all
			ef=''
			IFS=$'\t' read -r -a r <<<"${rs[$id]}"
			for e in "${r[@]}"; do ef+=",$(json_str "$e")"; done
			((first)) || out+=','
			first=0
			out+="{\"id\":$(json_str "$id"),\"scope\":$(json_str "$sc"),\"applies_to\":$(json_str "$ap"),"
			out+="\"resource_type\":\"network\",\"decision\":$(json_str "$dec"),\"resources\":[${ef#,}],"
			out+="\"origin\":$(json_str "$or"),\"status\":$(json_str "$st"),\"editable\":$([ "$or" = local ] && echo true || echo false)}"
		done
		printf '{"rules":[%s]}\n' "$out"
		return 0
	fi
	if ((${#ids[@]} == 0)); then
		echo "No policies found."
		return 0
	fi
	local rows=() w1=4 w3=6 o o2
	for id in "${ids[@]}"; do
		IFS=$'\t' read -r sc ap dec or st <<<"${f[$id]}"
		case $or/$sc in
		org/*) o=remote ;;
		*/sandbox) o=sandbox:$ap ;;
		*) o=$or ;;
		esac
		o2=${rs[$id]%	}
		rows+=("$id" "$o" "$dec" "$st" "${o2//	/, }")
		((${#id} > w1)) && w1=${#id}
		((${#o} > w3)) && w3=${#o}
	done
	printf '%-*s   %-7s   %-*s   %-8s   %-8s   %s\n' "$w1" NAME TYPE "$w3" ORIGIN DECISION STATUS RESOURCES
	for ((a = 0; a < ${#rows[@]}; a += 5)); do
		printf '%-*s   %-7s   %-*s   %-8s   %-8s   %s\n' "$w1" "${rows[a]}" network "$w3" "${rows[a + 1]}" \
		    "${rows[a + 2]}" "${rows[a + 3]}" "${rows[a + 4]}"
	done
}

policy_init() {	# policy_init allow-all|balanced|deny-all
	local a ops=() g
	for a in "$@"; do
		case $a in
		-h | --help) echo "Usage: sbx policy init <$POLICY_PRESETS>"; return 0 ;;
		-?*) policy_flagerr "$a" ;;
		*) ops+=("$a") ;;
		esac
	done
	((${#ops[@]} == 1)) || sbx_error "accepts 1 arg(s), received ${#ops[@]}"
	case ${ops[0]} in
	allow-all | balanced | deny-all) ;;
	*) sbx_error "invalid policy $(policy_q "${ops[0]}"): must be one of allow-all, balanced, deny-all" ;;
	esac
	g=$(cat "$ROOT/policy/global" 2>/dev/null) || g=
	if [ "$g" = "${ops[0]}" ]; then
		printf 'Default network policy is already %s\n' "$g"
		return 0
	elif [ -n "$g" ]; then
		sbx_error "default network policy is already set to $g" "sbx policy reset"
	fi
	printf '%s\n' "${ops[0]}" >"$ROOT/policy/global.$$"
	mv -f "$ROOT/policy/global.$$" "$ROOT/policy/global"
	printf 'Default network policy set to %s\n' "${ops[0]}"
}

# policy reset: every running sandbox stops (the manual's warning), the
# local rules go and the preset with them, until the next init
policy_reset() {
	local a
	for a in "$@"; do
		case $a in
		-f | --force) ;;
		-h | --help) echo "Usage: sbx policy reset"; return 0 ;;
		-?*) policy_flagerr "$a" ;;
		*) sbx_error "unknown command \"$a\" for \"sbx policy reset\"" ;;
		esac
	done
	stop_all
	# shellcheck disable=SC2016 # an awk program
	policy_apply policy_keep '$6 != "local"' || sbx_error "failed to reset policies"
	rm -f "$ROOT/policy/global"
	echo "Policies reset to defaults; every running sandbox was stopped."
	echo "Choose a default network policy: sbx policy init <$POLICY_PRESETS>"
}

cmd_policy() {
	local sub=${1:-}
	[ $# -gt 0 ] && shift
	policy_org_sync
	case $sub in
	'' | -h | --help | help) policy_usage; return 0 ;;
	allow | deny) policy_add "$sub" "$@" ;;
	rm) policy_rm "$@" ;;
	ls) policy_ls "$@" ;;
	check) policy_check "$@" ;;
	log) policylog "$@" ;;
	init | set-default) policy_init "$@" ;;
	reset) policy_reset "$@" ;;
	-*) policy_flagerr "$sub" ;;
	*) sbx_error "unknown command \"$sub\" for \"sbx policy\"" ;;
	esac
}

policy_usage() {
	cat <<EOF
Manage sandbox policies (simulated)

Usage:
  sbx policy [command]

Available Commands:
  allow       Add an allow policy for sandboxes
  check       Check whether policy allows an access request
  deny        Add a deny policy for sandboxes
  init        Set the default network policy (<$POLICY_PRESETS>)
  log         Show sandbox policy logs
  ls          List sandbox policies
  reset       Reset policies to defaults (stops every running sandbox)
  rm          Remove a policy
EOF
}
