# shellcheck shell=bash
# sbx simulator, state: the root (SBX_SIM_ROOT) and what it holds, the
# sandboxes of it and their status, the calls log (README.md, "State
# layout", "Calls log"), and the small helpers every part uses: locks,
# processes, JSON strings, names.

LOCKFD=
LOGGED=0

die() {	# die status message...
	local rc=$1
	shift
	printf '%s\n' "$@" >&2
	exit "$rc"
}

# Most of the simulator's time goes to starting processes: the helpers
# below read files, clocks and /proc with builtins, and nap() pauses
# without one.

give() {	# give value [var]: into var, or printed without one
	if [ $# -gt 1 ]; then printf -v "$2" '%s' "$1"; else printf '%s' "$1"; fi
}

now_ms() {	# now_ms [var]: seconds.milliseconds, printed or into var
	local now_ms_t=$EPOCHREALTIME now_ms_f
	now_ms_f=${now_ms_t#*.}
	give "${now_ms_t%.*}.${now_ms_f:0:3}" "$@"
}

line_of() {	# line_of var file: its first line into var; 1 if none
	local -n line_of_v=$1
	line_of_v=
	{ IFS= read -r line_of_v <"$2"; } 2>/dev/null || [ -n "$line_of_v" ]
}

slurp() {	# slurp var file: the whole file less its last newlines, as $(cat)
	local -n slurp_v=$1
	local slurp_fd
	slurp_v=
	{ exec {slurp_fd}<"$2"; } 2>/dev/null || return 1
	IFS= read -r -d '' -u "$slurp_fd" slurp_v
	exec {slurp_fd}<&-
	while [[ $slurp_v == *$'\n' ]]; do slurp_v=${slurp_v%$'\n'}; done
	return 0
}

count_up() {	# count_up var file: file's number plus one, into both (under a lock)
	local -n count_up_v=$1
	line_of count_up_v "$2" || count_up_v=0
	count_up_v=$((count_up_v + 1))
	echo "$count_up_v" >"$2"
}

# A pipe nobody writes to: a read on it that times out is a pause.  Each
# process opens its own the first time (close_fds forgets it).
NAP_FD=
nap() {	# nap seconds
	if [ -z "$NAP_FD" ] || [ ! -e "/proc/$BASHPID/fd/$NAP_FD" ]; then
		exec {NAP_FD}<> <(:)
	fi
	read -r -t "$1" -u "$NAP_FD" _
	return 0
}

log_start() {	# one line per call as it begins (README.md, "Calls log")
	[ -n "${ROOT:-}" ] && [ -d "$ROOT" ] || return 0
	local t
	now_ms t
	printf '%s %s %s\n' "$t" "$$" "${*@Q}" >>"$ROOT/starts.log"
}

log_call() {	# log_call status: one line per call, appended at the end
	local rc=$1 line w t q
	((LOGGED)) && return 0
	LOGGED=1
	[ -n "${ROOT:-}" ] && [ -d "$ROOT" ] || return 0
	[ ! -e "$ROOT/pending.$$" ] || rm -f "$ROOT/pending.$$"
	now_ms t
	line="$t $rc"
	# --no-input goes to its own log (README.md, "Calls log")
	for w in "${ARGV[@]}"; do
		[ "$w" = --no-input ] && continue
		printf -v q '%q' "$w"
		line+=" $q"
	done
	printf '%s\n' "$line" >>"$ROOT/calls.log"
	if ((NO_INPUT)); then
		printf '%s %s\n' "$t" "${VERB:-?}" >>"$ROOT/no-input.log"
	fi
}

touch_used() {	# touch_used dir: its last use is now, whole to a concurrent ls
	local t=$1/last_used.$BASHPID
	printf '%s\n' "${EPOCHREALTIME%.*}" >"$t" && mv -f "$t" "$1/last_used"
}

json_str() {	# a JSON string; callers reject control characters earlier
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	printf '"%s"' "$s"
}

has_ctl() {
	case $1 in
	*[[:cntrl:]]*) return 0 ;;
	esac
	return 1
}

# sbx's name rule (SK-LC, Y-create): at most 63 characters of letters,
# digits, '-' and '.', starting and ending with a letter or digit;
# "default" is reserved
valid_name() {
	[[ $1 =~ ^[A-Za-z0-9][A-Za-z0-9.-]{0,61}[A-Za-z0-9]$ ]] && [ "$1" != default ]
}

rand_hex() {	# rand_hex bytes
	od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'
}

lock() {	# lock file: take an exclusive lock for the rest of the call
	exec {LOCKFD}>>"$1"
	flock "$LOCKFD"
}

unlock() {
	if [ -n "$LOCKFD" ]; then
		exec {LOCKFD}>&-
		LOCKFD=
	fi
}

close_fds() {	# close every descriptor above 2 (bats watches fd 3)
	local f n
	for f in /proc/"$BASHPID"/fd/*; do
		n=${f##*/}
		if ((n > 2)); then
			eval "exec $n>&-" 2>/dev/null
		fi
	done
	NAP_FD=
}

alive() {	# alive pid: a live process (a zombie is not: PID 1 may reap late)
	local st
	[[ $1 =~ ^[0-9]+$ ]] || return 1
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
	# the state follows the last ") ": a name may hold one
	st=${st##*) }
	st=${st:0:1}
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

cmdline_of() {	# cmdline_of var pid: its command line, words apart by spaces
	local -n cmdline_of_v=$1
	local cmdline_of_a IFS=" "
	cmdline_of_v=
	{ mapfile -d '' -t cmdline_of_a <"/proc/$2/cmdline"; } 2>/dev/null || return 1
	# shellcheck disable=SC2034 # a name reference: the caller's variable
	cmdline_of_v=${cmdline_of_a[*]}
}

cmdline_has() {	# cmdline_has pid text: does its command line hold text?
	local c
	cmdline_of c "$1" && [[ $c == *"$2"* ]]
}

host_docker() {	# the simulator's own docker CLI calls, never the caller's config
	local d=$1
	shift
	env -u DOCKER_HOST -u DOCKER_CONTEXT -u DOCKER_TLS_VERIFY \
	    -u DOCKER_CERT_PATH DOCKER_CONFIG="$ROOT/hostcfg" \
	    "$DOCKER_CLI" -H "unix://$d/d.sock" "$@"
}

init_root() {
	ROOT=${SBX_SIM_ROOT:-}
	[ -n "$ROOT" ] || die 1 "sbx-sim: SBX_SIM_ROOT is not set"
	case $ROOT in
	/*) ;;
	*) die 1 "sbx-sim: SBX_SIM_ROOT must be an absolute path" ;;
	esac
	ROOT=${ROOT%/}
	# unix sockets live at $ROOT/s/<id>/x/containerd/containerd.sock.ttrpc
	((${#ROOT} <= 48)) || die 1 "sbx-sim: SBX_SIM_ROOT is too long (at most 48 bytes)"
	[[ $ROOT =~ ^[A-Za-z0-9/._-]+$ ]] ||
	    die 1 "sbx-sim: SBX_SIM_ROOT may hold only [A-Za-z0-9/._-]"
	if [ ! -d "$ROOT" ]; then
		mkdir -p "$ROOT" || die 1 "sbx-sim: cannot create $ROOT"
		chmod 0700 "$ROOT"
	fi
	if [ ! -s "$ROOT/tag" ]; then
		# the first call wins; a concurrent first call reads the winner's
		rand_hex 3 >"$ROOT/tag.$$"
		ln "$ROOT/tag.$$" "$ROOT/tag" 2>/dev/null
		rm -f "$ROOT/tag.$$"
	fi
	line_of TAG "$ROOT/tag"
	if [ ! -d "$ROOT/s" ] || [ ! -d "$ROOT/faults" ] || [ ! -d "$ROOT/hostcfg" ]; then
		mkdir -p "$ROOT/s" "$ROOT/faults" "$ROOT/hostcfg"
	fi
	policy_root
	CG=
	if [ -f /sys/fs/cgroup/unified/cgroup.procs ]; then
		CG=/sys/fs/cgroup/unified/sbxsim-$TAG
	elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
		CG=/sys/fs/cgroup/sbxsim-$TAG
	fi
	if [ -x /usr/local/bin/docker ]; then
		DOCKER_CLI=/usr/local/bin/docker
	else
		DOCKER_CLI=/usr/bin/docker
	fi
}

# A sandbox another call removes may vanish between the glob and the
# read: it is then not there, and says nothing.
find_sandbox() {	# find_sandbox name: sets D, SBID; 1 if absent
	local f n
	D='' SBID=''
	for f in "$ROOT"/s/*/name; do
		n=
		{ read -r n <"$f"; } 2>/dev/null
		if [ "$n" = "$1" ] && [ ! -e "${f%/name}/removing" ]; then
			D=${f%/name}
			SBID=${D##*/}
			return 0
		fi
	done
	return 1
}

all_sandboxes() {	# all_sandboxes [removing]: ids in creation order
	local f n byseq=()
	for f in "$ROOT"/s/*/seq; do
		[ -e "${f%/seq}/removing" ] && [ "${1:-}" != removing ] && continue
		n=
		{ read -r n <"$f"; } 2>/dev/null || continue
		[[ $n =~ ^[0-9]{1,9}$ ]] || continue
		f=${f%/seq}
		byseq[10#$n]=${f##*/}
	done
	# an indexed array lists its elements by index, ascending
	((${#byseq[@]} == 0)) || printf '%s\n' "${byseq[@]}"
}

netns_of() { printf 'sbxsim-%s-%s' "$TAG" "$1"; }

# pidfile_alive file word [var]: is the process the file names alive, and
# still the one started (its command line holds word)?  Its pid into var.
pidfile_alive() {
	local pidfile_alive_p
	line_of pidfile_alive_p "$1" && alive "$pidfile_alive_p" &&
	    cmdline_has "$pidfile_alive_p" "$2" || return 1
	[ $# -lt 3 ] || printf -v "$3" '%s' "$pidfile_alive_p"
}

daemon_pid() {	# daemon_pid dir: the live dockerd pid, or nothing
	local p
	pidfile_alive "$1/dockerd.pid" dockerd p && printf '%s' "$p"
	return 0
}

daemon_up() {	# daemon_up dir: is its dockerd alive?  (no subshell)
	pidfile_alive "$1/dockerd.pid" dockerd
}

status_of() {
	if [ -e "$1/removing" ]; then
		echo removing
	elif [ -n "$(daemon_pid "$1")" ]; then
		echo running
	else
		echo stopped
	fi
}

# A SIGKILL skips the EXIT trap, and SIGKILL is what ends a local exec:
# a watcher in a session of its own writes the line of an exec killed
# so, with status 137 (README.md, "Calls log").
killed_logger() {
	local w line='' q
	for w in "${ARGV[@]}"; do
		[ "$w" = --no-input ] && continue
		printf -v q '%q' "$w"
		line+=" $q"
	done
	printf '%s\n' "${line# }" >"$ROOT/pending.$$"
	# a small sh of its own: one per exec, for as long as the exec runs
	# shellcheck disable=SC2016 # expanded by that sh
	spawn_detached /dev/null /bin/sh -c 'tail -s 0.1 --pid="$2" -f /dev/null
f=$1/pending.$2
[ -s "$f" ] || exit 0
printf "%s 137 %s\n" "$(date +%s.%3N)" "$(cat "$f")" >>"$1/calls.log"
rm -f "$f"' sbxsim-killlog "$ROOT" "$$"
}
