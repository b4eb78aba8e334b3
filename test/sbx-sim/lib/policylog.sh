# shellcheck shell=bash
# sbx simulator, policy log: `sbx policy log` (README.md, "Network
# policy"): the proxy's decisions in $ROOT/policy/log aggregated per
# sandbox, host and decision, in the envelope of the release imitated
# or, under the policy-log-array and policy-log-odd faults, another.

policylog_time() {	# policylog_time MS: RFC 3339 in the local zone, as Go writes it
	local t
	printf -v t '%(%Y-%m-%dT%H:%M:%S%z)T' "$(($1 / 1000))"
	t=${t:0:-2}:${t: -2}
	[[ $t == *+00:00 ]] && t=${t%+00:00}Z
	printf '%s' "$t"
}

# policylog [SANDBOX] [--json] [--limit N] [--type all|network] [-q]:
# the proxy's decisions, one entry per sandbox, host and decision
policylog() {
	local sb='' json=0 quiet=0 lim=0 a n=0 last first cnt s h dec rule pt
	local bl='' al='' rows=() LC_ALL=C
	while [ $# -gt 0 ]; do
		a=$1
		case $a in
		--json) json=1 ;;
		-q | --quiet) quiet=1 ;;
		--limit | --type) need_val "$a" $#; policylog_flag "$a" "$2"; shift ;;
		--limit=* | --type=*) policylog_flag "${a%%=*}" "${a#*=}" ;;
		-h | --help) echo "Usage: sbx policy log [SANDBOX] [flags]"; return 0 ;;
		-?*) policy_flagerr "$a" ;;
		*)
			[ -z "$sb" ] || sbx_error "accepts at most 1 arg(s), received 2"
			sb=$a
			;;
		esac
		shift
	done
	lim=${PLOG_LIMIT:-0}
	while IFS=$'\t' read -r last first cnt s h dec rule pt; do
		# printable ASCII only: the proxy's words may be a guest's
		case $s$h$rule$pt in *[!\ -~]*) continue ;; esac
		((lim == 0 || n < lim)) || break
		n=$((n + 1))
		if fault_on policy-log-array; then
			a="{\"host\":$(json_str "$h"),\"sandbox\":$(json_str "$s"),\"decision\":\"$([ "$dec" = allow ] && echo allowed || echo blocked)\",\"reason\":$(json_str "$rule"),\"timestamp\":\"$(policylog_time "$last")\"}"
		elif fault_on policy-log-odd; then
			a="{\"host\":$(json_str "$h"),\"vm_name\":$(json_str "$s"),\"decision\":\"$([ "$dec" = allow ] && echo allowed || echo blocked)\",\"rule\":$(json_str "$rule"),\"last_seen\":\"$(policylog_time "$last")\",\"count\":$cnt}"
		else
			a="{\"host\":$(json_str "$h"),\"vm_name\":$(json_str "$s"),\"proxy_type\":$(json_str "$pt"),\"rule\":$(json_str "$rule"),\"last_seen\":\"$(policylog_time "$last")\",\"since\":\"$(policylog_time "$first")\",\"count_since\":$cnt}"
		fi
		if [ "$dec" = allow ]; then al+=",$a"; else bl+=",$a"; fi
		rows+=("$dec" "$s" "$h" "$pt" "$rule" "$(policylog_time "$last")" "$cnt")
	done < <(PL_SB=$sb policylog_sum)
	if ((json)); then
		if fault_on policy-log-array; then
			a=${bl#,}${al:+,}${al#,}
			printf '[%s]\n' "${a#,}"
		elif fault_on policy-log-odd; then
			a=${bl#,}${al:+,}${al#,}
			printf '{"data":{"items":[%s]}}\n' "${a#,}"
		else
			printf '{"blocked_hosts":[%s],"allowed_hosts":[%s]}\n' "${bl#,}" "${al#,}"
		fi
		return 0
	fi
	if ((${#rows[@]} == 0)); then
		((quiet)) || echo "No policy log entries found."
		return 0
	fi
	for dec in deny allow; do
		policylog_rows "$dec" "$quiet" "${rows[@]}"
	done
}

policylog_flag() {	# policylog_flag FLAG VALUE
	case $1 in
	--limit)
		[[ $2 =~ ^[0-9]{1,9}$ ]] ||
		    sbx_error "invalid argument $(policy_q "$2") for \"--limit\" flag: strconv.ParseInt: parsing $(policy_q "$2"): invalid syntax"
		PLOG_LIMIT=$((10#$2))
		;;
	--type)
		case $2 in all | network) ;; *) sbx_error "invalid log type $(policy_q "$2"): must be \"all\" or \"network\"" ;; esac
		;;
	esac
}

policylog_rows() {	# policylog_rows DECISION QUIET ROWS...: one section of the text form
	local dec=$1 quiet=$2 i head=0
	shift 2
	local r=("$@")
	for ((i = 0; i < ${#r[@]}; i += 7)); do
		[ "${r[i]}" = "$dec" ] || continue
		if ((!head && !quiet)); then
			if [ "$dec" = deny ]; then echo "Blocked requests:"; else echo "Allowed requests:"; fi
			printf '%-20s  %-30s  %-10s  %-25s  %-6s  %s\n' SANDBOX HOST PROXY "LAST SEEN" COUNT REASON
		fi
		head=1
		printf '%-20s  %-30s  %-10s  %-25s  %-6s  %s\n' "${r[i + 1]}" "${r[i + 2]}" "${r[i + 3]}" \
		    "${r[i + 5]}" "${r[i + 6]}" "${r[i + 4]}"
	done
	((head && !quiet)) && echo
	return 0
}

# The log aggregated per sandbox, host and decision, the newest first:
# LAST FIRST COUNT SANDBOX HOST DECISION RULE PROXY_TYPE (the rule and
# proxy type of the newest line).  Malformed lines are passed over.
policylog_sum() {
	[ -f "$ROOT/policy/log" ] || return 0
	awk -F'\t' -v OFS='\t' '
	NF >= 6 && $1 ~ /^[0-9]+$/ && ($4 == "allow" || $4 == "deny") &&
	    (ENVIRON["PL_SB"] == "" || $2 == ENVIRON["PL_SB"]) {
		k = $2 OFS $3 OFS $4
		t = $1 + 0
		if (!(k in n)) { n[k] = 0; first[k] = t; last[k] = t; rule[k] = $5; pt[k] = $6 }
		n[k]++
		if (t >= last[k]) { last[k] = t; rule[k] = $5; pt[k] = $6 }
		if (t < first[k]) first[k] = t
	}
	END {
		for (k in n) printf "%.0f%s%.0f%s%d%s%s%s%s%s%s\n", last[k], OFS, first[k], OFS, n[k], OFS, k, OFS, rule[k], OFS, pt[k]
	}' "$ROOT/policy/log" | sort -t'	' -k1,1nr -k4,5
}
