# Shared by the sbx-watch and sbx-gc suites: background processes the
# tests start, the watchers they arm, and waiting for either to end.

BG_PIDS=

# In setup(): common_setup, the state directory made, watchers that retry
# after 10 ms, and none of the caller's teardown or keepalive settings.
# The keepalive is off (0): these suites are about the teardown, and
# provisioned() writes a ports marker, which the default keepalive would
# hold the VM for, adding its exec to every count; the keepalive tests
# set it themselves (sbx-watch/keepalive.bats, sbx-watch/teardown.bats).
lifecycle_setup() {
	common_setup
	export SBX_WATCH_BACKOFF_MS=10
	unset DOCKER_SANDBOX_TEARDOWN SBX_WATCH_KEEPALIVE_SECONDS SBX_WATCH_PREWARM_HOLD_SECONDS
	export DOCKER_SANDBOX_KEEPALIVE=0
	mkdir -m 700 -p "$SBX_STATE_DIR"
}

# Kill every watcher of the state directory, then what the test started.
lifecycle_teardown() {
	local f p
	for f in "$SBX_STATE_DIR"/*.owner; do
		p=$(sed -n 's/^watcher=//p' "$f" 2>/dev/null)
		[ -n "$p" ] && kill -9 "$p" 2>/dev/null
	done
	for p in $BG_PIDS; do kill -9 "$p" 2>/dev/null; done
	BG_PIDS=
	return 0
}

# A session process in the background, its pid in $SESSION.  Started
# from a subshell, so it is nobody's job (no "Killed" notice) and not a
# child of the test's shell.
session() {
	SESSION=$(sleep 1000 </dev/null >/dev/null 2>&1 3>&- & echo $!)
	BG_PIDS="$BG_PIDS $SESSION"
}

# The pid of the watcher of NAME, from its owner marker.
watcher_pid() {
	sed -n 's/^watcher=//p' "$SBX_STATE_DIR/$1.owner"
}

# The processes whose command line matches the pgrep pattern and whose
# environment names this test's state directory: not another suite's,
# which may run beside this one under the same sandbox name.
of_this_test() {	# pattern
	local p
	for p in $(pgrep -f "$1"); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null |
		    grep -qxF "SBX_STATE_DIR=$SBX_STATE_DIR" && echo "$p"
	done
	return 0
}

# The start time of a process, as sbx-watch records it (Linux).
start_of() {
	sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20
}

# Not running any more (a zombie counts as gone).
dead() {
	[ ! -e "/proc/$1" ] || grep -q ') [ZX] ' "/proc/$1/stat" 2>/dev/null
}

# Wait up to 10 s for a command to succeed.
until_ok() {
	local i
	for i in $(seq 200); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

# The SYNOPSIS of man page PROG.8 as mandoc renders it, on one line.
synopsis() {
	mandoc -Tascii "$TOP/man/$1.8" | col -b |
	    sed -n '/^SYNOPSIS/,/^[A-Z]/p' | sed '1d;$d' | tr -s ' \n' '  ' |
	    sed 's/^ //;s/ $//'
}

# A sandbox sbx-run provisioned: the stand-in knows it, and its markers.
provisioned() {
	stub_sandbox "$1" running
	printf 'created=%s\nworkspace=%s\nmode=ro\n' "$(date +%s)" "$WS" \
	    >"$SBX_STATE_DIR/$1.created"
	mkdir -p "$SBX_STATE_DIR/$1.prime/sub"
	echo scratch >"$SBX_STATE_DIR/$1.prime/sub/file"
	echo '80/tcp 8080' >"$SBX_STATE_DIR/$1.ports"
}
