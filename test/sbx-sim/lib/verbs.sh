# shellcheck shell=bash
# sbx simulator, verbs: the other verbs' flags and answers (README.md,
# "Verbs"): ls, stop, rm, the port verbs' words (what they do is
# ports.sh), template, inspect, diagnose, and the top-level usage.

need_val() {	# need_val flag nargs
	(($2 >= 2)) || sbx_error "flag needs an argument: $1"
}

cmd_ls() {
	local mode=table a id d
	while [ $# -gt 0 ]; do
		case $1 in
		--json) mode=json ;;
		-q | --quiet) mode=quiet ;;
		-h | --help) echo "Usage: sbx ls [--json] [-q]"; return 0 ;;
		--) ;;
		--*) sbx_error "unknown flag: ${1%%=*}" ;;
		-*) sbx_error "unknown shorthand flag: '${1:1:1}' in $1" ;;
		*) sbx_error "unknown command \"$1\" for \"sbx ls\"" ;;
		esac
		shift
	done
	local ids
	# a sandbox being removed shows as "removing" until it is gone
	mapfile -t ids < <(all_sandboxes removing)
	case $mode in
	quiet)
		for id in "${ids[@]}"; do
			slurp n "$ROOT/s/$id/name" && printf '%s\n' "$n"
		done
		;;
	json)
		# as Go's json.MarshalIndent writes it (BAT-TS 0.43.0, #201)
		local out='' first=1 w wf n ag lu wl uuid
		for id in "${ids[@]}"; do
			d=$ROOT/s/$id
			# (one being removed may vanish meanwhile)
			if ! { slurp n "$d/name" && slurp ag "$d/agent" &&
			    slurp lu "$d/last_used" && slurp wl "$d/workspaces"; }; then
				continue
			fi
			slurp uuid "$d/uuid"
			((first)) || out+=$',\n'
			first=0
			out+=$'    {\n'
			out+="      \"name\": $(json_str "$n"),"$'\n'
			out+="      \"id\": \"$uuid\","$'\n'
			out+="      \"agent\": $(json_str "$ag"),"$'\n'
			out+="      \"status\": \"$(status_of "$d")\","$'\n'
			out+="      \"last_used_at\": \"$(stamp "$lu" "$id")\","$'\n'
			out+='      "workspaces": ['
			wf=1
			while IFS= read -r w; do
				[ -n "$w" ] || continue
				((wf)) && out+=$'\n' || out+=$',\n'
				wf=0
				out+="        $(json_str "$w")"
			done <<<"$wl"
			((wf)) || out+=$'\n      '
			out+=$']\n    }'
		done
		if ((first)) && fault_on ls-null; then
			printf '{\n  "sandboxes": null\n}\n'
		elif ((first)); then
			printf '{\n  "sandboxes": []\n}\n'
		else
			printf '{\n  "sandboxes": [\n%s\n  ]\n}\n' "$out"
		fi
		if fault_on ls-warn; then
			printf 'WARN: mcp gateway teardown: context deadline exceeded\n'
		fi
		;;
	table)
		if ((${#ids[@]} == 0)); then
			printf 'No sandboxes found.\nLaunch one: sbx run claude\n'
			return 0
		fi
		local rows=() n ag st pt ws wn=7 an=5 sn=6 pn=5
		for id in "${ids[@]}"; do
			d=$ROOT/s/$id
			if ! { slurp n "$d/name" && slurp ag "$d/agent" &&
			    slurp ws "$d/workspaces"; }; then
				continue
			fi
			ws=${ws//$'\n'/,}
			st=$(status_of "$d") pt=$(ports_text "$d")
			rows+=("$n" "$ag" "$st" "$pt" "$ws")
			((${#n} > wn)) && wn=${#n}
			((${#ag} > an)) && an=${#ag}
			((${#st} > sn)) && sn=${#st}
			((${#pt} > pn)) && pn=${#pt}
		done
		printf '%-*s   %-*s   %-*s   %-*s   %s\n' "$wn" SANDBOX "$an" AGENT "$sn" STATUS "$pn" PORTS WORKSPACE
		for ((a = 0; a < ${#rows[@]}; a += 5)); do
			printf '%-*s   %-*s   %-*s   %-*s   %s\n' "$wn" "${rows[a]}" "$an" "${rows[a + 1]}" \
			    "$sn" "${rows[a + 2]}" "$pn" "${rows[a + 3]}" "${rows[a + 4]}"
		done
		;;
	esac
}

stamp() {	# stamp seconds id: RFC 3339 with a fraction, as Go prints it
	local f t
	printf -v f '%05d' $((16#${2:0:4} % 100000))
	while [[ $f == *0 ]]; do f=${f%0}; done
	[ -n "$f" ] && f=.$f
	[[ $1 =~ ^[0-9]+$ ]] || { echo "sbx-sim: not a time: $1" >&2; return 1; }
	TZ=UTC0 printf -v t '%(%Y-%m-%dT%H:%M:%S)T' "$1"
	printf '%s%sZ\n' "$t" "$f"
}

cmd_stop() {
	local names=() n d
	while [ $# -gt 0 ]; do
		case $1 in
		-h | --help) echo "Usage: sbx stop SANDBOX [SANDBOX...]"; return 0 ;;
		--) shift; names+=("$@"); break ;;
		--*) sbx_error "unknown flag: ${1%%=*}" ;;
		-*) sbx_error "unknown shorthand flag: '${1:1:1}' in $1" ;;
		*) names+=("$1") ;;
		esac
		shift
	done
	((${#names[@]})) || sbx_error "requires at least 1 arg(s), only received 0"
	for n in "${names[@]}"; do
		find_sandbox "$n" || no_such "$n" stop
	done
	local pids=()
	for n in "${names[@]}"; do
		find_sandbox "$n" || continue
		d=$D
		(
			lock "$d/lock"
			stop_sandbox "$d"
		) &
		pids+=("$!")
	done
	for n in "${pids[@]}"; do wait "$n"; done
	return 0
}

cmd_rm() {
	local force=0 all=0 names=() n
	while [ $# -gt 0 ]; do
		case $1 in
		-f | --force) force=1 ;;
		--all) all=1 ;;
		-h | --help) echo "Usage: sbx rm [SANDBOX...] [--all] [-f|--force]"; return 0 ;;
		--) shift; names+=("$@"); break ;;
		--*) sbx_error "unknown flag: ${1%%=*}" ;;
		-*) sbx_error "unknown shorthand flag: '${1:1:1}' in $1" ;;
		*) names+=("$1") ;;
		esac
		shift
	done
	if ((all)); then
		mapfile -t names < <(for n in $(all_sandboxes); do cat "$ROOT/s/$n/name" 2>/dev/null; done)
	elif ((${#names[@]} == 0)); then
		sbx_error "requires at least 1 arg(s), only received 0"
	fi
	for n in "${names[@]}"; do
		find_sandbox "$n" || no_such "$n" rm
	done
	if ((!force)) && ((${#names[@]})); then
		[ -t 0 ] || sbx_error "stdin is not a terminal"
		printf 'Remove %s? (y/N) ' "${names[*]}" >&2
		read -r n || n=
		[[ $n == [yY]* ]] || { echo "Aborted." >&2; exit 1; }
	fi
	local dirs=() pids=() d
	for n in "${names[@]}"; do
		find_sandbox "$n" && dirs+=("$D")
	done
	for d in "${dirs[@]}"; do
		(
			lock "$d/lock"
			remove_sandbox "$d"
		) &
		pids+=("$!")
	done
	for n in "${pids[@]}"; do wait "$n"; done
	return 0
}

cmd_ports() {
	if dialect_has alias; then
		cmd_port "$@"
		return
	fi
	dialect_has ports || no_verb ports
	local fmt=table name='' pubs=() unpubs=() a
	while [ $# -gt 0 ]; do
		a=$1
		case $a in
		--json) fmt=json ;;
		--publish) need_val "$a" $#; pubs+=("$2"); shift ;;
		--publish=*) pubs+=("${a#*=}") ;;
		--unpublish) need_val "$a" $#; unpubs+=("$2"); shift ;;
		--unpublish=*) unpubs+=("${a#*=}") ;;
		-h | --help) echo "Usage: sbx ports SANDBOX [--json] [--publish SPEC]... [--unpublish SPEC]..."; return 0 ;;
		--*) sbx_error "unknown flag: ${a%%=*}" ;;
		-?*) sbx_error "unknown shorthand flag: '${a:1:1}' in $a" ;;
		*)
			[ -z "$name" ] || sbx_error "accepts 1 arg(s), received 2"
			name=$a
			;;
		esac
		shift
	done
	[ -n "$name" ] || sbx_error "accepts 1 arg(s), received 0"
	UNPUB_HOST=1 ports_apply "$name" "$fmt" "${pubs[@]}" -- "${unpubs[@]}"
}

cmd_port() {
	dialect_has port || no_verb port
	local sub=${1:-} fmt=table args=() a
	case $sub in
	ls | list | publish | unpublish) shift ;;
	-h | --help | "") echo "Usage: sbx port COMMAND (ls, publish, unpublish)"; return 0 ;;
	-*) sbx_error "unknown flag: ${sub%%=*}" ;;
	*) sbx_error "unknown command \"$sub\" for \"sbx port\"" ;;
	esac
	while [ $# -gt 0 ]; do
		a=$1
		case $a in
		--json) fmt=json ;;
		--format) need_val "$a" $#; fmt=$2; shift ;;
		--format=*) fmt=${a#*=} ;;
		-h | --help) echo "Usage: sbx port $sub SANDBOX [SPEC...] [--format table|json|yaml]"; return 0 ;;
		--) shift; args+=("$@"); break ;;
		--*) sbx_error "unknown flag: ${a%%=*}" ;;
		*) args+=("$a") ;;
		esac
		shift
	done
	case $fmt in
	table | json | yaml) ;;
	*) sbx_error "invalid format \"$fmt\": want table, json or yaml" ;;
	esac
	case $sub in
	ls | list)
		((${#args[@]} == 1)) || sbx_error "accepts 1 arg(s), received ${#args[@]}"
		ports_apply "${args[0]}" "$fmt" --
		;;
	publish)
		((${#args[@]} >= 2)) || sbx_error "requires at least 2 arg(s), only received ${#args[@]}"
		ports_apply "${args[0]}" "$fmt" "${args[@]:1}" --
		;;
	unpublish)
		((${#args[@]} >= 2)) || sbx_error "requires at least 2 arg(s), only received ${#args[@]}"
		UNPUB_HOST=0 ports_apply "${args[0]}" "$fmt" -- "${args[@]:1}"
		;;
	esac
}

tpl_key() { printf '%s' "$1" | sha256sum | cut -c1-16; }

cmd_template() {
	local sub=${1:-} json=0 args=() a
	[ $# -gt 0 ] && shift
	for a in "$@"; do
		case $a in
		--json) json=1 ;;
		--*) sbx_error "unknown flag: ${a%%=*}" ;;
		*) args+=("$a") ;;
		esac
	done
	mkdir -p "$ROOT/templates"
	case $sub in
	save)
		((${#args[@]} == 2)) || sbx_error "accepts 2 arg(s), received ${#args[@]}"
		find_sandbox "${args[0]}" || no_such "${args[0]}"
		local tag=${args[1]} k
		[[ $tag =~ ^[A-Za-z0-9][A-Za-z0-9._/:-]*$ ]] || sbx_error "invalid reference format: \"$tag\""
		[[ $tag == *:* ]] || tag=$tag:latest
		k=$(tpl_key "$tag")
		tar -C "$D/home" -cf "$ROOT/templates/$k.tar" . || sbx_error "failed to save template"
		printf '%s\n' "$tag" >"$ROOT/templates/$k.tag"
		printf 'Saved template %s\n' "$tag"
		;;
	ls | list)
		local f t id out='{"images":[' first=1 rows=()
		for f in "$ROOT"/templates/*.tag; do
			t=$(cat "$f")
			id=$(sha256sum "${f%.tag}.tar" | cut -c1-12)
			((first)) || out+=','
			first=0
			out+="{\"repository\":$(json_str "${t%:*}"),\"tag\":$(json_str "${t##*:}"),\"id\":\"$id\"}"
			rows+=("$(printf '%-40s%-12s%s' "${t%:*}" "${t##*:}" "$id")")
		done
		if ((json)); then
			printf '%s]}\n' "$out"
		else
			printf '%-40s%-12s%s\n' REPOSITORY TAG "IMAGE ID"
			((${#rows[@]})) && printf '%s\n' "${rows[@]}"
		fi
		;;
	rm)
		((${#args[@]} >= 1)) || sbx_error "requires at least 1 arg(s), only received 0"
		for t in "${args[@]}"; do
			[[ $t == *:* ]] || t=$t:latest
			local k
			k=$(tpl_key "$t")
			[ -e "$ROOT/templates/$k.tag" ] || sbx_error "template $t not found"
			rm -f "$ROOT/templates/$k.tag" "$ROOT/templates/$k.tar"
			printf 'Removed template %s\n' "$t"
		done
		;;
	*) sbx_error "unknown command \"$sub\" for \"sbx template\"" ;;
	esac
}

cmd_inspect() {	# inspect NAME [--json]: what ls --json says of one (D-inspect)
	local name='' a
	for a in "$@"; do
		case $a in
		--json) ;;
		-h | --help) echo "Usage: sbx inspect SANDBOX [--json]"; return 0 ;;
		--*) sbx_error "unknown flag: ${a%%=*}" ;;
		*)
			[ -z "$name" ] || sbx_error "accepts 1 arg(s), received 2"
			name=$a
			;;
		esac
	done
	[ -n "$name" ] || sbx_error "accepts 1 arg(s), received 0"
	find_sandbox "$name" || no_such "$name" inspect
	printf '{"name":%s,"id":"%s","agent":%s,"status":"%s"}\n' "$(json_str "$name")" \
	    "$(cat "$D/uuid" 2>/dev/null)" "$(json_str "$(cat "$D/agent")")" "$(status_of "$D")"
}

cmd_diagnose() {
	local ok=pass
	command -v dockerd >/dev/null || ok=fail
	printf '{"version":"1.0","checks":[{"name":"Daemon","status":"%s","message":"sbx simulator","detail":"","hint":""}]}\n' "$ok"
}

usage_top() {
	cat <<'EOF'
Docker Sandboxes (simulated)

Usage:
  sbx [command]

Available Commands:
  create      Create a sandbox
  diagnose    Run diagnostics
  exec        Run a command in a sandbox
  inspect     Show a sandbox
  ls          List sandboxes
  policy      Manage network policies
  port        Manage published ports
  ports       Manage published ports (to 0.47; an alias of port on 0.55)
  rm          Remove sandboxes
  secret      Manage registry secrets
  stop        Stop sandboxes
  template    Manage templates
  version     Show the version

Simulator only:
  sim-check   List what this SBX_SIM_ROOT left on the host (exit 1 if anything)
  sim-cleanup Remove every sandbox of SBX_SIM_ROOT, check, delete the root
  sim-reset   Restart the fault counters
EOF
}
