# Shared by the tier-2 suites that drive the sbx simulator themselves
# (sim/, e2e/): a private SBX_SIM_ROOT per suite file, the
# dependency check, free host ports, and the assertion that a torn-down
# root left nothing on the host.
#
# Dependencies: root, docker.io (dockerd + a docker CLI), busybox-static,
# socat, curl, iproute2 (ip, ss), util-linux (nsenter, unshare,
# pivot_root, flock, setsid), docker-compose.  When one is missing the
# tests skip with a message, except under CI=true, where they fail.
bats_require_minimum_version 1.5.0
# the tree's top, from this file's place, whatever the suite's folder
TOP=$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd)
. "$TOP/test/helpers/locks.bash"
SIM="$TOP/test/sbx-sim/sbx"
export DK="docker -H unix:///var/run/docker.sock"

# What the simulator needs and this machine lacks, as one line.
sim_missing() {
	local c m=''
	[ "$(id -u)" -eq 0 ] || m="root"
	for c in dockerd socat curl ip ss nsenter unshare pivot_root flock \
	    setsid docker-compose python3; do
		PATH="$PATH:/usr/sbin:/sbin" command -v "$c" >/dev/null 2>&1 ||
		    m="$m $c"
	done
	[ -x /usr/local/bin/docker ] || [ -x /usr/bin/docker ] || m="$m docker"
	if [ ! -x /bin/busybox ] ||
	    ! ldd /bin/busybox 2>&1 | grep -q 'not a dynamic executable'; then
		m="$m busybox-static"
	fi
	printf '%s' "${m# }"
}

# The word the simulated sbx starts an error line with (README.md,
# "Profiles"): "error" from 0.47, "ERROR" before.
sim_errword() {
	case ${SBX_SIM_PROFILE:-0.55} in
	0.46) printf ERROR ;;
	*) printf error ;;
	esac
}

# Run "$@" with a terminal (script(1)'s pty) as stdin, typing $IN (a
# line) into it; the status is the command's.
on_tty() {
	local cmd
	cmd=$(printf '%q ' "$@")
	printf '%s\n' "${IN:-}" | script -qec "$cmd" /dev/null
}

# Does the simulated sbx take the global --no-input (0.55)?
sim_noinput() {
	[ "${SBX_SIM_PROFILE:-0.55}" = 0.55 ]
}

# The lines of stdin but sbx's own that SBX_SIM_WORDS=vary prints
# around an answer (test/sbx-sim/README.md, "Words"): the daemon's
# notices, WARN: lines, version lines, the auto-start notice and blank
# lines, which a program passes on with a command's standard error as
# real sbx's.  Under the exact words it drops nothing.
sim_drop_own() {
	if [ "${SBX_SIM_WORDS:-exact}" != vary ]; then
		cat
		return 0
	fi
	grep -v -e '^Starting sandboxd daemon\.\.\.$' -e '^Daemon started (PID' \
	    -e '^Logs: .*/daemon\.log$' -e '^WARN: ' -e '^Client Version:  ' \
	    -e '^Server Version:  ' -e '^Sandbox .* started successfully$' -e '^$' || :
}

# A test's own look at the simulator's state, in its exact words: only
# the programs' calls meet the varied ones (README.md, "Words").
sim_look() {
	SBX_SIM_WORDS=exact "$SIM" "$@"
}

# What the simulated sbx says of a missing sandbox NAME to VERB.
sim_missing_text() {	# name verb
	case ${SBX_SIM_PROFILE:-0.55}:$2 in
	0.46:rm | 0.46:stop) printf "Error: sandbox '%s' not found" "$1" ;;
	0.46:*) printf "ERROR: no sandbox named '%s'\n\nTo create one:\n  sbx create AGENT WORKSPACE" "$1" ;;
	*) printf "error: sandbox '%s' not found\n  try: sbx ls" "$1" ;;
	esac
}

# In setup(): skip, or fail under CI=true, when something is missing.
sim_require() {
	if [ -n "${SIM_MISSING:-}" ]; then
		if [ "${CI:-}" = true ]; then
			printf 'missing (CI=true forbids skipping): %s\n' "$SIM_MISSING" >&2
			return 1
		fi
		skip "tier 2 needs: $SIM_MISSING"
	fi
}

# In setup(): the requirements, then dir (the suite's workspace) as the
# working directory.  The caller's faults were cleared by sim_setup_file.
sim_setup_test() {	# sim_setup_test dir
	sim_require || return 1
	cd "$1" || return 1
}

# In setup_file(): the private root (short: unix socket paths live in it).
sim_setup_file() {
	SIM_MISSING=$(sim_missing)
	export SIM_MISSING
	SBX_SIM_ROOT=$(mktemp -d /tmp/sbxsim.XXXXXX)
	export SBX_SIM_ROOT
	# no fault or leak of the caller's shell reaches the suite
	unset SBX_SIM_FAIL SBX_SIM_HANG SBX_SIM_LEAK SBX_SIM_IDLE_STOP SBX_SIM_FAULT SBX_SIM_CREATE_DELAY \
	    SBX_SIM_DIALECT DOCKER_HOST DOCKER_CONTEXT DOCKER_CONFIG
}

# In setup_file() of a suite that runs sbx-run against the simulator: a
# private HOME, state directory and workspace $WS, the simulator as sbx,
# and none of the caller's DOCKER_SANDBOX* settings.
sim_session_file() {
	export HOME="$BATS_FILE_TMPDIR/home"
	export SBX_STATE_DIR="$BATS_FILE_TMPDIR/state"
	export DOCKER_SANDBOX_SBX="$SIM"
	export WS="$BATS_FILE_TMPDIR/ws"
	export PATH="$TOP/sbx-run:$PATH"
	unset DOCKER_SANDBOX DOCKER_SANDBOX_ENV_ALLOWLIST DOCKER_SANDBOX_ENV_PASSTHROUGH \
	    DOCKER_SANDBOX_WORKSPACE_RO DOCKER_SANDBOX_AUTOCREATE DOCKER_SANDBOX_TEMPLATE \
	    DOCKER_SANDBOX_CPUS DOCKER_SANDBOX_MEMORY DOCKER_SANDBOX_TIMEOUT XDG_STATE_HOME \
	    DOCKER_SANDBOX_EGRESS_ALLOW DOCKER_SANDBOX_EGRESS_DENY DOCKER_SANDBOX_REGISTRY_AUTH
	# the image cache adds execs to every teardown and create: off here,
	# on in test/lib/imgcache.bats, which counts them
	export DOCKER_SANDBOX_IMAGE_CACHE=0 XDG_CACHE_HOME="$HOME/.cache"
	mkdir -p "$HOME" "$WS"
	# from here, not the checkout: sbx-run would mount it, and refuses to
	# run the simulator from inside what it mounts
	cd "$WS" || return 1
}

# The root's tag names its network namespaces and cgroups.
sim_tag() {
	cat "$SBX_SIM_ROOT/tag" 2>/dev/null
}

# Everything a root with this tag may leave behind, checked from the
# outside (not by asking the simulator).  Prints what it finds.
sim_leftovers() {	# sim_leftovers root tag
	local root=$1 tag=$2 p c found=1
	# a root that never made a sandbox has no tag: match its path only
	[ -n "$tag" ] || tag="-none-$$"
	for p in /proc/[0-9]*; do
		c=$(tr '\0' ' ' 2>/dev/null <"$p/cmdline") || continue
		case $c in
		'') ;;
		*"$root/"* | *"sbxsim-$tag"*)
			echo "process ${p#/proc/}: $c"
			found=0
			;;
		esac
	done
	if [ -n "$tag" ] && ip netns list 2>/dev/null | grep -q "^sbxsim-$tag-"; then
		ip netns list | grep "^sbxsim-$tag-" | sed 's/^/netns /'
		found=0
	fi
	if grep -qF " $root/" /proc/self/mountinfo; then
		grep -F " $root/" /proc/self/mountinfo | sed 's/^/mount /'
		found=0
	fi
	for c in /sys/fs/cgroup/*/sbxsim-"$tag"* /sys/fs/cgroup/sbxsim-"$tag"*; do
		if [ -z "$tag" ] || [ ! -e "$c" ]; then continue; fi
		echo "cgroup $c"
		found=0
	done
	return "$found"
}

# Tear the root down and assert nothing is left: no process, network
# namespace, mount or cgroup of it, and no root directory.
sim_teardown_assert() {
	local tag out
	[ -n "${SBX_SIM_ROOT:-}" ] || return 0
	[ -d "$SBX_SIM_ROOT" ] || return 0
	tag=$(sim_tag)
	"$SIM" sim-cleanup || {
		echo "sim-cleanup failed" >&2
		return 1
	}
	if out=$(sim_leftovers "$SBX_SIM_ROOT" "$tag"); then
		printf 'left behind by %s:\n%s\n' "$SBX_SIM_ROOT" "$out" >&2
		return 1
	fi
	if [ -e "$SBX_SIM_ROOT" ]; then
		echo "$SBX_SIM_ROOT still exists" >&2
		return 1
	fi
	return 0
}

# In teardown_file(): the safety net (tests assert the teardown themselves).
sim_teardown_file() {
	local tag
	if [ -n "${SBX_SIM_ROOT:-}" ] && [ -d "$SBX_SIM_ROOT" ]; then
		tag=$(sim_tag)
		[ -n "$tag" ] && pkill -KILL -f "^sbxsim-hang-$tag" 2>/dev/null
		sim_teardown_assert
	fi
}

# A free host port (tcp or udp) in SIM_PORT; random, so that suites
# running side by side do not collide.  The host ports of the suites,
# which make check runs side by side: 18000-20999 are the numbers the
# stand-in suites expect sbx-ports to find free (no suite binds them),
# 17000-17999 sbx-ports/verbs.bats's range, 21000-31999 drawn here and for the
# registry (registry.bash) and the soak's ranges.
sim_free_port() {
	local p flag=-Hltn
	[ "${1:-tcp}" = udp ] && flag=-Hlun
	for _ in $(seq 200); do
		p=$((21000 + RANDOM % 11000))
		if ! ss "$flag" | awk '{ print $4 }' | grep -q ":$p\$"; then
			export SIM_PORT=$p
			return 0
		fi
	done
	return 1
}

# A live process (a zombie is not: PID 1 may reap orphans late).
sim_alive() {
	local st
	st=$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# Unpublish every port of a sandbox (a failed test may leave some).
sim_unpublish_all() {
	local spec
	for spec in $("$SIM" port ls "$1" --json | json_get '" ".join("%s:%s:%s/%s" % ("[::1]" if p["host_ip"] == "::1" else p["host_ip"], p["host_port"], p["sandbox_port"], p["protocol"]) for p in d)'); do
		"$SIM" port unpublish "$1" "$spec" >/dev/null
	done
}

# Number of sbx calls so far, and the calls after the first N.
sim_ncalls() {
	if [ -f "$SBX_SIM_ROOT/calls.log" ]; then
		wc -l <"$SBX_SIM_ROOT/calls.log"
	else
		echo 0
	fi
}

sim_calls_after() {
	tail -n +"$(($1 + 1))" "$SBX_SIM_ROOT/calls.log"
}

# The argv part of a calls-log line, without the marks sbx-run puts
# before the command of an exec (sh -c PROLOGUE sbx-run MARK, each word
# as printf %q wrote it): the docker argv, as a test compares it.
sim_argv_of() {
	cut -d' ' -f3- |
	    sed 's/ sh -c m=\\\$1\\;shift\([^ \\]\|\\.\)* sbx-run [0-9a-f]\{16\}//g'
}

# curl the page at a host port, a few tries while a forwarder starts.
sim_fetch() {	# sim_fetch url
	local _
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		curl -fsS --max-time 3 "$1" && return 0
		sleep 0.2
	done
	return 1
}

# JSON field access without jq: python3 comes with docker-compose.
json_get() {	# json_get 'expression over d' < json
	python3 -c 'import json, sys; d = json.load(sys.stdin); r = eval(sys.argv[1]); print(r if not isinstance(r, (dict, list)) else json.dumps(r))' "$1"
}

fail() {
	printf '%s\n' "$*" >&2
	return 1
}

# sim_port publish|unpublish NAME SPEC...: the simulated release's port
# verbs (README.md, "Ports"): the port group from 0.55, ports before.
sim_port() {
	local verb=$1 name=$2 s args=()
	shift 2
	case ${SBX_SIM_PROFILE:-0.55} in
	0.46 | 0.47)
		for s in "$@"; do args+=("--$verb" "$s"); done
		"$SIM" ports "$name" "${args[@]}"
		;;
	*) "$SIM" port "$verb" "$name" "$@" ;;
	esac
}
