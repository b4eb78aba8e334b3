# shellcheck shell=bash
# sbx simulator, secret: registry credentials (README.md, "Secrets"):
# `sbx secret set|rm|ls` for the --registry kind, kept under
# $ROOT/secrets/SCOPE/HOST (line 1 the username, line 2 the password,
# mode 0600 in a 0700 directory); SCOPE is a sandbox's name or
# _host-only (never a valid name), whose credentials no proxy injects.

SECRET_HOSTONLY=_host-only

secret_dir() {	# secret_dir scope
	printf '%s/secrets/%s' "$ROOT" "$1"
}

secret_host() {	# secret_host HOST: lower case, or 1 if it is no registry host
	local h=${1,,}
	[[ $h =~ ^([a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?|\[[0-9a-f:.]+\])(:[0-9]{1,5})?$ ]] ||
	    return 1
	printf '%s' "$h"
}

secret_usage() {
	cat <<'EOF'
Usage:
  sbx secret [command]

Available Commands:
  ls          List secrets
  rm          Remove a secret
  set         Store a secret
EOF
}

cmd_secret() {
	local sub=${1:-}
	[ $# -gt 0 ] && shift
	case $sub in
	set) secret_set "$@" ;;
	rm | remove) secret_rm "$@" ;;
	ls | list) secret_ls "$@" ;;
	"" | -h | --help) secret_usage ;;
	*) sbx_error "unknown command \"$sub\" for \"sbx secret\"" ;;
	esac
}

# secret_scope_flags: the flags set, rm and ls share; sets S_SANDBOX,
# S_REGISTRY, S_FORCE, S_REST (the other words, in order)
secret_flags() {
	local a
	S_SANDBOX='' S_REGISTRY='' S_USER='' S_STDIN=0 S_FORCE=0 S_JSON=0 S_REST=()
	while [ $# -gt 0 ]; do
		a=$1
		case $a in
		--sandbox) need_val "$a" $#; S_SANDBOX=$2; shift ;;
		--sandbox=*) S_SANDBOX=${a#*=} ;;
		--registry) need_val "$a" $#; S_REGISTRY=$2; shift ;;
		--registry=*) S_REGISTRY=${a#*=} ;;
		--username) need_val "$a" $#; S_USER=$2; shift ;;
		--username=*) S_USER=${a#*=} ;;
		--password-stdin) S_STDIN=1 ;;
		-f | --force) S_FORCE=1 ;;
		--json) S_JSON=1 ;;
		--all-sandboxes | -g | --global)
			sbx_error "$a: only --sandbox and host-only registry secrets are imitated" ;;
		--) shift; S_REST+=("$@"); break ;;
		--*) sbx_error "unknown flag: ${a%%=*}" ;;
		-?*) sbx_error "unknown shorthand flag: '${a:1:1}' in $a" ;;
		*) S_REST+=("$a") ;;
		esac
		shift
	done
	has_ctl "$S_SANDBOX$S_REGISTRY$S_USER" && sbx_error "invalid argument: control character"
	return 0
}

# The scope's directory name: the sandbox named (which must exist) or
# the host-only store.
secret_scope() {
	if [ -z "$S_SANDBOX" ]; then
		printf '%s' "$SECRET_HOSTONLY"
		return 0
	fi
	find_sandbox "$S_SANDBOX" || no_such "$S_SANDBOX" secret
	printf '%s' "$S_SANDBOX"
}

secret_set() {
	local scope host pw='' dir tmp
	secret_flags "$@"
	((${#S_REST[@]} == 0)) || sbx_error "the simulator imitates registry secrets only: use --registry HOST"
	[ -n "$S_REGISTRY" ] || sbx_error "the simulator imitates registry secrets only: use --registry HOST"
	((S_STDIN)) || sbx_error "--password-stdin is required with --registry"
	host=$(secret_host "$S_REGISTRY") || sbx_error "invalid registry host \"$S_REGISTRY\""
	[[ $S_USER != *:* ]] || sbx_error "invalid username: it may not contain ':'"
	scope=$(secret_scope) || exit 1
	# the value comes from stdin only, into a variable of this shell:
	# no argv, no environment; one trailing newline (and CR) dropped
	IFS= read -r -d '' pw || true
	pw=${pw%$'\n'}
	pw=${pw%$'\r'}
	[ -n "$pw" ] || sbx_error "password is empty"
	case $pw in
	*$'\n'* | *$'\r'*) sbx_error "password must be one line" ;;
	esac
	dir=$(secret_dir "$scope")
	(umask 077 && mkdir -p "$dir") || sbx_error "cannot store the secret"
	chmod 0700 "$ROOT/secrets" "$dir"
	tmp=$dir/.new.$$
	if ! (umask 077 && printf '%s\n%s\n' "$S_USER" "$pw" >"$tmp") ||
	    ! mv -f "$tmp" "$dir/$host"; then
		rm -f "$tmp"
		sbx_error "cannot store the secret"
	fi
	pw=
}

secret_rm() {
	local scope host n=0 a
	secret_flags "$@"
	((${#S_REST[@]} == 0)) || sbx_error "the simulator imitates registry secrets only: use --registry HOST"
	[ -n "$S_REGISTRY" ] || sbx_error "the simulator imitates registry secrets only: use --registry HOST"
	host=$(secret_host "$S_REGISTRY") || sbx_error "invalid registry host \"$S_REGISTRY\""
	scope=$(secret_scope) || exit 1
	if ((!S_FORCE)); then
		may_prompt || sbx_error "stdin is not a terminal; use --force to skip confirmation"
		prompted secret-rm
		printf 'Remove the registry secret for %s? (y/N) ' "$host" >&2
		read -r a || a=
		[[ $a == [yY]* ]] || { echo "Aborted." >&2; exit 1; }
	fi
	if [ -e "$(secret_dir "$scope")/$host" ]; then
		rm -f "$(secret_dir "$scope")/$host"
		n=1
	fi
	printf 'Deleted %d secret(s)\n' "$n"
}

secret_ls() {
	local f scope host user mask rows=() first=1 out=''
	secret_flags "$@"
	((${#S_REST[@]} == 0)) || sbx_error "accepts 0 arg(s), received ${#S_REST[@]}"
	for f in "$ROOT"/secrets/*/*; do
		[ -f "$f" ] || continue
		host=${f##*/}
		scope=${f%/*}
		scope=${scope##*/}
		[ -z "$S_SANDBOX" ] || [ "$scope" = "$S_SANDBOX" ] || continue
		# the username alone: the password is never read here, but
		# under the test-only fault secret-unmasked, which shows it
		user= mask='*****'
		{ IFS= read -r user; fault_on secret-unmasked && IFS= read -r mask; } <"$f" || true
		[ "$scope" = "$SECRET_HOSTONLY" ] && scope='host-only'
		rows+=("$scope" "$host" "$user" "$mask")
	done
	if ((S_JSON)); then
		for ((f = 0; f < ${#rows[@]}; f += 4)); do
			((first)) || out+=','
			first=0
			out+="{\"scope\":$(json_str "${rows[f]}"),\"type\":\"registry\",\"name\":$(json_str "${rows[f + 1]}"),\"secret\":$(json_str "${rows[f + 3]}"),\"username\":$(json_str "${rows[f + 2]}")}"
		done
		printf '{"secrets":[%s],"custom_secrets":[],"shadowed_services":[],"env_only_count":0}\n' "$out"
		return 0
	fi
	if ((${#rows[@]} == 0)); then
		echo "No secrets found."
		return 0
	fi
	printf '%-20s%-12s%-32s%s\n' SCOPE TYPE NAME SECRET
	for ((f = 0; f < ${#rows[@]}; f += 4)); do
		user=${rows[f + 2]}
		printf '%-20s%-12s%-32s%s\n' "${rows[f]}" registry "${rows[f + 1]}" "${user:+$user/}${rows[f + 3]}"
	done
}

secret_drop() {	# secret_drop dir: `sbx rm` deletes the sandbox's secrets
	local n
	line_of n "$1/name" || return 0
	valid_name "$n" && rm -rf "$(secret_dir "$n")"
	return 0
}
