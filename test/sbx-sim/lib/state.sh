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

now_ms() {
	local t=$EPOCHREALTIME
	printf '%s.%s' "${t%.*}" "$(printf '%.3s' "${t#*.}")"
}

log_start() {	# one line per call as it begins (README.md, "Calls log")
	[ -n "${ROOT:-}" ] && [ -d "$ROOT" ] || return 0
	printf '%s %s %s\n' "$(now_ms)" "$$" "${*@Q}" >>"$ROOT/starts.log"
}

log_call() {	# log_call status: one line per call, appended at the end
	local rc=$1 line w t
	((LOGGED)) && return 0
	LOGGED=1
	[ -n "${ROOT:-}" ] && [ -d "$ROOT" ] || return 0
	rm -f "$ROOT/pending.$$"
	t=$(now_ms)
	line="$t $rc"
	# --no-input goes to its own log (README.md, "Calls log")
	for w in "${ARGV[@]}"; do
		[ "$w" = --no-input ] && continue
		line+=" $(printf '%q' "$w")"
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
}

alive() {	# alive pid: a live process (a zombie is not: PID 1 may reap late)
	local st
	[ -n "$1" ] && st=$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null) &&
	    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
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
	TAG=$(cat "$ROOT/tag")
	mkdir -p "$ROOT/s" "$ROOT/faults" "$ROOT/hostcfg"
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
	local f n
	for f in "$ROOT"/s/*/seq; do
		[ -e "${f%/seq}/removing" ] && [ "${1:-}" != removing ] && continue
		n=
		{ read -r n <"$f"; } 2>/dev/null || continue
		printf '%s %s\n' "$n" "$(basename "${f%/seq}")"
	done | sort -n | while read -r _ id; do printf '%s\n' "$id"; done
}

netns_of() { printf 'sbxsim-%s-%s' "$TAG" "$1"; }

daemon_pid() {	# daemon_pid dir: the live dockerd pid, or nothing
	local p
	p=$(cat "$1/dockerd.pid" 2>/dev/null) || return 0
	if alive "$p" && grep -qa dockerd "/proc/$p/cmdline" 2>/dev/null; then
		printf '%s' "$p"
	fi
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
	local w line=''
	for w in "${ARGV[@]}"; do
		[ "$w" = --no-input ] && continue
		line+=" $(printf '%q' "$w")"
	done
	printf '%s\n' "${line# }" >"$ROOT/pending.$$"
	spawn_detached /dev/null /bin/bash "$SELF" __killlog "$ROOT" "$$"
}

internal_killlog() {	# internal_killlog root pid
	local f=$1/pending.$2
	tail -s 0.1 --pid="$2" -f /dev/null
	[ -s "$f" ] || exit 0
	printf '%s 137 %s\n' "$(now_ms)" "$(cat "$f")" >>"$1/calls.log"
	rm -f "$f"
}
