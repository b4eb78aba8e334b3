# shellcheck shell=bash
# sbx simulator, create: `sbx create` (README.md, "Verbs"): its flags,
# workspaces and name rule, the first-run secret prompt, the delay of
# SBX_SIM_CREATE_DELAY, and the new sandbox's state.

creating() {	# creating name: a create of name is in its delay (its pid lives)
	local p
	line_of p "$ROOT/creating/$1" && alive "$p"
}

# SBX_SIM_CREATE_DELAY=SECONDS: a create as slow as a real one.  Called
# under create.lock; the name is reserved meanwhile (a second create of
# it says it exists) but not yet a sandbox: ls does not list it and exec
# says there is none, the least a caller may count on.
create_delay() {	# create_delay name
	local t=${SBX_SIM_CREATE_DELAY:-0}
	[[ $t =~ ^[0-9]+(\.[0-9]+)?$ ]] || die 2 "SBX_SIM_CREATE_DELAY: seconds, not \"$t\""
	[[ $t =~ ^0*(\.0*)?$ ]] && return 0
	mkdir -p "$ROOT/creating"
	printf '%s\n' "$$" >"$ROOT/creating/$1"
	unlock
	sleep "$t"
	lock "$ROOT/create.lock"
	rm -f "$ROOT/creating/$1"
}

cmd_create() {
	local quiet=0 name='' cpus=0 memory='' template='' agent='' pos=() envs=() pubs=() a v
	while [ $# -gt 0 ]; do
		a=$1
		case $a in
		--) shift; pos+=("$@"); break ;;
		-q | --quiet) quiet=1 ;;
		--name) need_val "$a" $#; name=$2; shift ;;
		--name=*) name=${a#*=} ;;
		--cpus) need_val "$a" $#; cpus=$2; shift ;;
		--cpus=*) cpus=${a#*=} ;;
		-m | --memory) need_val "$a" $#; memory=$2; shift ;;
		--memory=*) memory=${a#*=} ;;
		-m?*) memory=${a#-m} ;;
		-t | --template) need_val "$a" $#; template=$2; shift ;;
		--template=*) template=${a#*=} ;;
		-e | --env) need_val "$a" $#; envs+=("$2"); shift ;;
		--env=*) envs+=("${a#*=}") ;;
		-p | --publish) need_val "$a" $#; pubs+=("$2"); shift ;;
		--publish=*) pubs+=("${a#*=}") ;;
		-h | --help) echo "Usage: sbx create [flags] AGENT [PATH...]"; return 0 ;;
		--*) sbx_error "unknown flag: ${a%%=*}" ;;
		-?*) sbx_error "unknown shorthand flag: '${a:1:1}' in $a" ;;
		*) pos+=("$a") ;;
		esac
		shift
	done
	((${#pos[@]} >= 1)) || sbx_error "requires at least 1 arg(s), only received 0"
	agent=${pos[0]}
	case $agent in
	shell | claude | codex | copilot | cursor | devin | docker-agent | droid | gemini | kiro | opencode) ;;
	*) sbx_error "unknown agent \"$agent\"" ;;
	esac
	[[ $cpus =~ ^[0-9]+$ ]] || sbx_error "invalid argument \"$cpus\" for \"--cpus\" flag: strconv.ParseInt: parsing \"$cpus\": invalid syntax"
	[ -z "$memory" ] || [[ $memory =~ ^[0-9]+[bkmgBKMG]?$ ]] || sbx_error "invalid memory value \"$memory\""
	for v in "${envs[@]}"; do
		[[ ${v%%=*} =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || sbx_error "invalid environment variable: $v"
	done

	if once secrets && may_prompt; then
		# the implicit first-run secret import (#471, 0.39)
		prompted secret-import
		printf 'Import API keys from your environment as sandbox secrets? [y/N] ' >&2
		read -r v || v=
	fi
	# workspaces: absolute, existing, the primary read-write
	local wss=() w path mode i
	for ((i = 1; i < ${#pos[@]}; i++)); do
		w=${pos[i]}
		mode=
		case $w in
		*:ro) mode=:ro w=${w%:ro} ;;
		*:rw) w=${w%:rw} ;;
		esac
		has_ctl "$w" && sbx_error "invalid workspace path"
		if [ ! -e "$w" ]; then
			printf 'The selected workspace does not exist. Would you like to create it? (y/N) ' >&2
			if [ -t 0 ] && read -r v && [[ $v == [yY]* ]]; then
				mkdir -p -- "$w" || sbx_error "failed to create workspace $w"
			else
				printf '\n' >&2
				sbx_error "workspace $w does not exist"
			fi
		fi
		path=$(readlink -f -- "$w") || sbx_error "invalid workspace path $w"
		[ "$path" != / ] || sbx_error "workspace cannot be /"
		if [ ! -d "$path" ] && [ -z "$mode" ]; then
			sbx_error "workspace $w is not a directory (only a :ro workspace may be a file)"
		fi
		wss+=("$path$mode")
	done
	if [ -z "$name" ]; then
		if ((${#wss[@]})); then
			w=${wss[0]%:ro}
			name=$agent-${w##*/}
		else
			name=$agent
		fi
	fi
	[[ $name =~ ^[A-Za-z0-9.-]{2,63}$ ]] && ! [[ $name =~ [A-Za-z0-9]$ ]] &&
	    sbx_error "invalid sandbox name \"$name\": must end with an alphanumeric character"
	valid_name "$name" || sbx_error "invalid sandbox name \"$name\": names must be 2 to 63 characters, start and end with a letter or number and contain only letters, numbers, hyphens and periods; \"default\" is reserved"

	lock "$ROOT/create.lock"
	if ! find_sandbox "$name" && ! creating "$name"; then
		create_delay "$name"
	fi
	if find_sandbox "$name" || creating "$name"; then
		if ((${#wss[@]})); then
			sbx_error "sandbox '$name' already exists and can't be given new workspaces"
		fi
		sbx_error "sandbox '$name' already exists"
	fi
	local id d seq
	id=$(rand_hex 6)
	d=$ROOT/s/$id
	mkdir -p "$d/home" "$d/tmp" "$d/ports" "$d/active" "$d/r" || sbx_error "failed to create sandbox: cannot create state"
	chmod 1777 "$d/tmp"
	# held until the sandbox is ready: an exec that finds the name waits
	local sblock
	exec {sblock}>>"$d/lock"
	flock "$sblock"
	count_up seq "$ROOT/seq"
	printf '%s\n' "$agent" >"$d/agent"
	printf '%s\n' "$cpus" >"$d/cpus"
	printf '%s\n' "$memory" >"$d/memory"
	printf '%s\n' "$template" >"$d/template"
	: >"$d/workspaces"
	for w in "${wss[@]}"; do printf '%s\n' "$w" >>"$d/workspaces"; done
	: >"$d/env"
	for v in "${envs[@]}"; do
		if [[ $v == *=* ]]; then
			printf '%s\0' "$v" >>"$d/env"
		elif [ -n "${!v+x}" ]; then
			printf '%s=%s\0' "$v" "${!v}" >>"$d/env"
		fi
	done
	date +%s >"$d/created"
	touch_used "$d"
	cat /proc/sys/kernel/random/uuid >"$d/uuid"
	mkdir -p "$d/home/.docker/cli-plugins" "$d/home/workspace"
	install -m 0755 "$SIMDIR/docker-compose" "$d/home/.docker/cli-plugins/docker-compose"
	if [ -n "$template" ] && [ -s "$ROOT/templates/$(tpl_key "$template").tar" ]; then
		tar -C "$d/home" -xf "$ROOT/templates/$(tpl_key "$template").tar"
	fi
	echo "$seq" >"$d/seq"
	# the name last and whole: ls lists a sandbox once its name reads
	printf '%s\n' "$name" >"$d/name.new" && mv -f "$d/name.new" "$d/name"
	unlock
	# (start imports busybox:local the first time)
	if ! (start_sandbox "$d"); then
		remove_sandbox "$d"
		exit 1
	fi
	exec {sblock}>&-
	for v in "${pubs[@]}"; do
		(publish_one "$d" "$v" >/dev/null) || { remove_sandbox "$d"; exit 1; }
	done
	((quiet)) || printf '\342\234\223 Created sandbox %s\n' "$name"
}
