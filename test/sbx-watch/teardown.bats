#!/usr/bin/env bats
# sbx-watch against the recording stand-in sbx: arming, the three ways a
# session ends, exactly one teardown, retries, modes, keepalive, refusals.

load ../helpers/helper
load ../helpers/sim-setup
load ../helpers/lifecycle

N=pi-sbx-4242-abcd1234
USAGE="usage: sbx-watch [-k | -n] [-m remove|stop|none] [-f fd | -p pid] name"

setup() {
	lifecycle_setup
	W="$TOP/sbx-watch/sbx-watch"
}

teardown() {
	lifecycle_teardown
	sim_test_teardown
	return 0
}

# The portable fallback (kill(2) polling), built for one test; a
# sanitizer build of libsbx.a needs the sanitizers at link time.
build_poll_only() {
	local san
	for san in "" "-fsanitize=address,undefined"; do
		cc -D_POSIX_C_SOURCE=200809L -DSBX_WATCH_POLL_ONLY -std=c99 \
		    -O2 -Wall -Wextra -Werror $san -I"$TOP/lib" \
		    -o "$BATS_TEST_TMPDIR/sbx-watch-poll" \
		    "$TOP"/sbx-watch/*.c "$TOP/lib/libsbx.a" 2>/dev/null &&
		    return 0
	done
	return 1
}

# Watch a fresh session of $N (with these options), kill -9 it, and wait
# for the watcher to finish its teardown.
watched_session_killed() {
	session
	"$W" "$@" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	finished "$wp"
}

# The stand-in saw at least N calls of a verb.
calls_at_least() {
	local c
	c=$(stub_count "$1")
	[ "${c:-0}" -ge "$2" ]
}

# The watcher has finished: its process is gone.
finished() {
	until_ok dead "$1" || fail "watcher $1 still running"
}

@test "sbx-watch: a bad option prints only the usage line, a bad argument names what is wrong; both exit 64" {
	run -64 --separate-stderr "$W" -Z "$N"
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "$USAGE" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -64 --separate-stderr "$W"
	[ "${stderr_lines[0]}" = "$USAGE" ]
	run -64 --separate-stderr "$W" -f 0 -p 1 "$N"
	[ "${stderr_lines[0]}" = "$USAGE" ]
	# as sbx-run names a bad -t
	run -64 --separate-stderr "$W" -m destroy "$N"
	[ "$stderr" = "sbx-watch: -m destroy: expected remove, stop or none" ]
	run -64 --separate-stderr "$W" -m "$(printf 'x\033[2J')" "$N"
	[ "$stderr" = "sbx-watch: -m x\\033[2J: expected remove, stop or none" ]
	run -64 --separate-stderr "$W" -p 12x "$N"
	[ "$stderr" = "sbx-watch: -p: pid is invalid" ]
	run -64 --separate-stderr "$W" -p 0 "$N"
	[ "$stderr" = "sbx-watch: -p: pid is too small" ]
	run -64 --separate-stderr "$W" -p 2147483648 "$N"
	[ "$stderr" = "sbx-watch: -p: pid is too large" ]
	run -64 --separate-stderr "$W" -f x "$N"
	[ "$stderr" = "sbx-watch: -f: descriptor is invalid" ]
	run -64 --separate-stderr "$W" -f -1 "$N"
	[ "$stderr" = "sbx-watch: -f: descriptor is too small" ]
	run -64 --separate-stderr "$W" "$N" extra
	[ "${stderr_lines[0]}" = "$USAGE" ]
	[ "$(stub_count)" -eq 0 ]
}

@test "sbx-watch: the usage line is the man page's SYNOPSIS, and the page is clean" {
	run -64 --separate-stderr "$W" -Z
	[ "$stderr" = "usage: $(synopsis sbx-watch)" ]
	run -0 mandoc -Tlint -Wwarning "$TOP/man/sbx-watch.8"
	[ -z "$output" ]
}

@test "sbx-watch: invalid names and settings are usage errors, named" {
	run -64 --separate-stderr "$W" -- -rf
	[ "$stderr" = "sbx-watch: -rf: invalid sandbox name" ]
	run -64 --separate-stderr "$W" default
	[ "$stderr" = "sbx-watch: default: invalid sandbox name" ]
	DOCKER_SANDBOX_TEARDOWN=destroy run -64 --separate-stderr "$W" "$N"
	[[ "$stderr" == "sbx-watch: DOCKER_SANDBOX_TEARDOWN: "* ]]
	DOCKER_SANDBOX_KEEPALIVE=maybe run -64 --separate-stderr "$W" "$N"
	[[ "$stderr" == "sbx-watch: DOCKER_SANDBOX_KEEPALIVE: "* ]]
	DOCKER_SANDBOX_TIMEOUT=86401 run -64 --separate-stderr "$W" "$N"
	[ "$stderr" = "sbx-watch: DOCKER_SANDBOX_TIMEOUT: number is too large (0 to 86400)" ]
	DOCKER_SANDBOX_SBX=relative/sbx run -64 --separate-stderr "$W" "$N"
	[ "$stderr" = "sbx-watch: DOCKER_SANDBOX_SBX: not an absolute path" ]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
}

@test "sbx-watch: a symlinked state directory is refused before detaching" {
	mkdir -m 700 "$BATS_TEST_TMPDIR/real"
	rmdir "$SBX_STATE_DIR"
	ln -s "$BATS_TEST_TMPDIR/real" "$SBX_STATE_DIR"
	session
	run -1 --separate-stderr "$W" -p "$SESSION" "$N"
	[[ "$stderr" == "sbx-watch: state directory $SBX_STATE_DIR: is a symbolic link"* ]]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/real")" ]
	! pgrep -f "sbx-watch -p $SESSION" >/dev/null
}

@test "sbx-watch: a foreign-owned or group-writable state directory is refused" {
	session
	chown 65534 "$SBX_STATE_DIR"
	run -1 --separate-stderr "$W" -p "$SESSION" "$N"
	[[ "$stderr" == "sbx-watch: state directory $SBX_STATE_DIR: owned by uid 65534, not by us"* ]]
	chown "$(id -u)" "$SBX_STATE_DIR"
	chmod 770 "$SBX_STATE_DIR"
	run -1 --separate-stderr "$W" -p "$SESSION" "$N"
	[[ "$stderr" == "sbx-watch: state directory $SBX_STATE_DIR: writable by group or others"* ]]
	chmod 707 "$SBX_STATE_DIR"
	run -1 --separate-stderr "$W" -p "$SESSION" "$N"
	[[ "$stderr" == *"writable by group or others"* ]]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
	[ "$(stub_count)" -eq 0 ]
}

@test "sbx-watch: a dead pid or a closed descriptor is refused with status 1" {
	sleep 0 & p=$!
	wait "$p"
	run -1 --separate-stderr "$W" -p "$p" "$N"
	[ "$stderr" = "sbx-watch: pid $p: no such process" ]
	run -1 --separate-stderr "$W" -f 7 "$N"
	[ "$stderr" = "sbx-watch: descriptor 7: not open" ]
	run -1 --separate-stderr "$W" -f 7 "$N" 7>/dev/null
	[ "$stderr" = "sbx-watch: descriptor 7: not open for reading" ]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
}

@test "sbx-watch: it returns armed: lock held, owner marker with pid and start time" {
	provisioned "$N"
	session
	run -0 --separate-stderr "$W" -p "$SESSION" "$N"
	[ -z "$output" ] && [ -z "$stderr" ]
	grep -qx "pid=$SESSION" "$SBX_STATE_DIR/$N.owner"
	start=$(sed 's/.*) //' "/proc/$SESSION/stat" | cut -d' ' -f20)
	grep -qx "start=$start" "$SBX_STATE_DIR/$N.owner"
	wp=$(watcher_pid "$N")
	[ "$(stat -c %a "$SBX_STATE_DIR/$N.owner")" = 600 ]
	# detached: its own session, no terminal, cwd /
	[ "$(ps -o sid= -p "$wp" | tr -d ' ')" != "$(ps -o sid= -p $$ | tr -d ' ')" ]
	[ "$(readlink "/proc/$wp/cwd")" = / ]
	[ "$(readlink "/proc/$wp/fd/0")" = /dev/null ]
	[ "$(readlink "/proc/$wp/fd/2")" = /dev/null ]
	[ "$(stub_count)" -eq 0 ]
}

@test "sbx-watch: kill -9 of the watched process leads to exactly one teardown" {
	provisioned "$N"
	watched_session_killed
	[ "$(stub_count)" -eq 1 ]
	[ "$(stub_argv 1 | tr '\n' ' ')" = "rm --force $N " ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
	[ ! -e "$SBX_STATE_DIR/$N.owner" ]
	[ ! -e "$SBX_STATE_DIR/$N.prime" ]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
	[ ! -e "$SBX_STATE_DIR/$N.failed" ]
	[ ! -e "$SBX_STATE_DIR/$N.ports" ]
	[ ! -e "$SBX_STUB_DIR/sandboxes/$N" ]
}

@test "sbx-watch: the portable build (kill(2) polling) also sees a kill -9, once" {
	build_poll_only
	provisioned "$N"
	session
	"$BATS_TEST_TMPDIR/sbx-watch-poll" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	[ -z "$(ls -l "/proc/$wp/fd" | grep 'anon_inode:\[pidfd\]')" ]
	sleep 0.2
	! dead "$wp"
	kill -9 "$SESSION"
	finished "$wp"
	[ "$(stub_count)" -eq 1 ]
	[ "$(stub_argv 1 | tr '\n' ' ')" = "rm --force $N " ]
}

@test "sbx-watch: the Linux build waits on a pidfd, not by polling" {
	provisioned "$N"
	session
	"$W" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	ls -l "/proc/$wp/fd" | grep -q 'anon_inode:\[pidfd\]'
}

@test "sbx-watch: kill -9 of the session's whole process group: one teardown, the watcher survives it" {
	provisioned "$N"
	setsid sh -c "'$W' -p \$\$ $N && exec sleep 1000" 3>&- &
	pg=$!
	BG_PIDS="$BG_PIDS $pg"
	until_ok test -f "$SBX_STATE_DIR/$N.owner"
	until_ok grep -q "^pid=$pg\$" "$SBX_STATE_DIR/$N.owner"
	wp=$(watcher_pid "$N")
	until_ok grep -q 'sleep' "/proc/$pg/cmdline"
	kill -9 -- "-$pg"
	finished "$wp"
	[ "$(stub_count)" -eq 1 ]
	[ "$(stub_argv 1 | tr '\n' ' ')" = "rm --force $N " ]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
}

@test "sbx-watch: closing the lifeline leads to exactly one teardown" {
	provisioned "$N"
	mkfifo "$BATS_TEST_TMPDIR/life"
	"$W" -f 4 "$N" 4<"$BATS_TEST_TMPDIR/life" 3>&- &
	exec 5>"$BATS_TEST_TMPDIR/life"
	wait $!
	wp=$(watcher_pid "$N")
	grep -qx "pid=$$" "$SBX_STATE_DIR/$N.owner"
	sleep 0.2
	[ "$(stub_count)" -eq 0 ]
	echo "data on the lifeline is not an end" >&5
	sleep 0.2
	! dead "$wp"
	exec 5>&-
	finished "$wp"
	[ "$(stub_count)" -eq 1 ]
	[ "$(stub_argv 1 | tr '\n' ' ')" = "rm --force $N " ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
}

@test "sbx-watch: a lifeline on stdin works too (-f 0)" {
	provisioned "$N"
	sleep 1000 3>&- > >("$W" -f 0 "$N" 3>&-) &
	holder=$!
	BG_PIDS="$BG_PIDS $holder"
	until_ok test -f "$SBX_STATE_DIR/$N.owner"
	wp=$(watcher_pid "$N")
	kill -9 "$holder"
	finished "$wp"
	[ "$(stub_count)" -eq 1 ]
}

@test "sbx-watch: the first two rm calls fail, the third succeeds" {
	provisioned "$N"
	printf '1\n1\n0\n' >"$SBX_STUB_DIR/rc.rm"
	watched_session_killed
	[ "$(stub_count rm)" -eq 3 ]
	[ "$(stub_count)" -eq 3 ]
	[ ! -e "$SBX_STATE_DIR/$N.failed" ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
	[ ! -e "$SBX_STATE_DIR/$N.prime" ]
}

@test "sbx-watch: five failures: it gives up and records why" {
	provisioned "$N"
	echo 1 >"$SBX_STUB_DIR/rc.rm"
	echo "ERROR: daemon unreachable" >"$SBX_STUB_DIR/err.rm"
	watched_session_killed
	[ "$(stub_count rm)" -eq 5 ]
	f="$SBX_STATE_DIR/$N.failed"
	[ -f "$f" ]
	grep -qx 'action=rm' "$f"
	grep -qx 'tries=5' "$f"
	grep -qx 'status=1' "$f"
	grep -qx 'error=ERROR: daemon unreachable' "$f"
	grep -q '^time=[0-9][0-9]*$' "$f"
	# the sandbox is still there: its marker and scratch dir stay for gc
	[ -f "$SBX_STATE_DIR/$N.created" ]
	[ -d "$SBX_STATE_DIR/$N.prime" ]
	[ ! -e "$SBX_STATE_DIR/$N.owner" ]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
}

@test "sbx-watch: an rm that says the sandbox is gone, and the listing agrees, is not retried" {
	provisioned "$N"
	rm -f "$SBX_STUB_DIR/sandboxes/$N"
	echo 1 >"$SBX_STUB_DIR/rc.rm"
	echo "Error: sandbox '$N' not found" >"$SBX_STUB_DIR/err.rm"
	watched_session_killed
	# the words, then the listing that confirms them
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "rm ls " ] ||
	    fail "$(cat "$SBX_STUB_DIR/calls.log")"
	[ ! -e "$SBX_STATE_DIR/$N.failed" ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
}

@test "lying words class: an rm that says gone while sbx lists the sandbox, or names another, is no removal: tried again, marker kept" {
	local w
	for w in "Error: sandbox '$N' not found" "[sbx] Sandbox '$N-old' not found" \
	    "error: sandbox 'other' not found"; do
		provisioned "$N"
		rm -f "$SBX_STATE_DIR/$N.failed"
		: >"$SBX_STUB_DIR/calls.log"
		echo 1 >"$SBX_STUB_DIR/rc.rm"
		echo "$w" >"$SBX_STUB_DIR/err.rm"
		run -1 "$W" -n "$N"
		[ -e "$SBX_STUB_DIR/sandboxes/$N" ]
		[ -f "$SBX_STATE_DIR/$N.created" ] || fail "$w: marker dropped"
		grep -qx 'tries=5' "$SBX_STATE_DIR/$N.failed" || fail "$w: $(cat "$SBX_STATE_DIR/$N.failed")"
		[ "$(grep -c '^rm ' "$SBX_STUB_DIR/calls.log")" -eq 5 ] || fail "$w: $(cat "$SBX_STUB_DIR/calls.log")"
	done
}

@test "sbx-watch: a never-created sandbox gets no sbx call at all, even with -k" {
	export SBX_WATCH_KEEPALIVE_SECONDS=1
	mkdir "$SBX_STATE_DIR/$N.prime"
	session
	"$W" -k -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	sleep 2.3
	kill -9 "$SESSION"
	finished "$wp"
	[ ! -e "$SBX_STUB_DIR/calls.log" ]
	[ ! -e "$SBX_STATE_DIR/$N.owner" ]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
	[ ! -e "$SBX_STATE_DIR/$N.prime" ]
}

@test "sbx-watch: -m stop stops once and keeps the sandbox's marker and scratch dir" {
	provisioned "$N"
	watched_session_killed -m stop
	[ "$(stub_count)" -eq 1 ]
	[ "$(stub_argv 1 | tr '\n' ' ')" = "stop $N " ]
	[ "$(cat "$SBX_STUB_DIR/sandboxes/$N")" = stopped ]
	[ -f "$SBX_STATE_DIR/$N.created" ]
	[ -d "$SBX_STATE_DIR/$N.prime" ]
	[ ! -e "$SBX_STATE_DIR/$N.owner" ]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
}

@test "sbx-watch: -m none makes no sbx call and keeps the sandbox" {
	provisioned "$N"
	watched_session_killed -m none
	[ ! -e "$SBX_STUB_DIR/calls.log" ]
	[ -f "$SBX_STATE_DIR/$N.created" ]
	[ -d "$SBX_STATE_DIR/$N.prime" ]
	[ ! -e "$SBX_STATE_DIR/$N.owner" ]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
}

@test "sbx-watch: DOCKER_SANDBOX_TEARDOWN picks the mode; a pinned name defaults to none" {
	provisioned "$N"
	session
	DOCKER_SANDBOX_TEARDOWN=stop "$W" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	finished "$wp"
	[ "$(stub_argv 1 | tr '\n' ' ')" = "stop $N " ]
	session
	DOCKER_SANDBOX="$N" "$W" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	finished "$wp"
	[ "$(stub_count)" -eq 1 ]
	session
	DOCKER_SANDBOX="$N" "$W" -m remove -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	finished "$wp"
	[ "$(stub_count)" -eq 2 ]
	[ "$(stub_argv 2 | tr '\n' ' ')" = "rm --force $N " ]
}

@test "sbx-watch: keepalive calls are seen while the session lives" {
	export SBX_WATCH_KEEPALIVE_SECONDS=1
	provisioned "$N"
	session
	"$W" -k -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	until_ok calls_at_least exec 2
	[ "$(stub_argv 1 | tr '\n' ' ')" = "exec $N -- sleep 3600 " ]
	kill -9 "$SESSION"
	finished "$wp"
	[ "$(stub_count rm)" -eq 1 ]
	[ "$(tail -n 1 "$SBX_STUB_DIR/calls.log")" = "rm --force $N" ]
}

@test "sbx-watch: DOCKER_SANDBOX_KEEPALIVE=1 turns keepalive on" {
	export SBX_WATCH_KEEPALIVE_SECONDS=1 DOCKER_SANDBOX_KEEPALIVE=yes
	provisioned "$N"
	session
	"$W" -p "$SESSION" "$N"
	until_ok calls_at_least exec 1
}

@test "sbx-watch: a hung keepalive does not delay the teardown" {
	export SBX_WATCH_KEEPALIVE_SECONDS=1
	provisioned "$N"
	touch "$SBX_STUB_DIR/hang.exec"
	session
	"$W" -k -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	until_ok calls_at_least exec 1
	rm -f "$SBX_STUB_DIR/hang.exec"
	kill -9 "$SESSION"
	until_ok calls_at_least rm 1
	finished "$wp"
	[ "$(stub_count rm)" -eq 1 ]
	for p in $(cat "$SBX_STUB_DIR/hung.pids"); do
		until_ok dead "$p"
	done
}

@test "sbx-watch: a second watcher for the same sandbox exits 0 quietly" {
	provisioned "$N"
	session
	"$W" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	run -0 --separate-stderr "$W" -p "$SESSION" "$N"
	[ -z "$output" ] && [ -z "$stderr" ]
	run -0 --separate-stderr "$W" -m stop -p $$ "$N"
	[ -z "$output" ] && [ -z "$stderr" ]
	[ "$(watcher_pid "$N")" = "$wp" ]
	[ "$(of_this_test "sbx-watch.* $N\$" | wc -l)" -eq 1 ]
	kill -9 "$SESSION"
	finished "$wp"
	[ "$(stub_count)" -eq 1 ]
}

@test "sbx-watch: SIGHUP is survived; SIGTERM to the watcher tears down once" {
	provisioned "$N"
	session
	"$W" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -HUP "$wp"
	sleep 0.2
	! dead "$wp"
	[ "$(stub_count)" -eq 0 ]
	kill -TERM "$wp"
	finished "$wp"
	[ "$(stub_count)" -eq 1 ]
	[ "$(stub_argv 1 | tr '\n' ' ')" = "rm --force $N " ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
}

@test "sbx-watch: killing an unrelated process has no effect" {
	provisioned "$N"
	session
	"$W" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	sleep 1000 3>&- & other=$!
	disown
	kill -9 "$other"
	sleep 0.3
	! dead "$wp"
	[ "$(stub_count)" -eq 0 ]
}

@test "sbx-watch: the sbx call gets the strict environment, the name after the flags" {
	provisioned "$N"
	session
	DOCKER_HOST=tcp://evil:2375 DOCKER_CONTEXT=evil SECRET_TOKEN=s3 \
	    COMPOSE_FILE=x DOCKER_SANDBOXES_PROXY=p \
	    "$W" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	finished "$wp"
	env1=$(stub_env 1)
	[[ "$env1" != *DOCKER_HOST* ]]
	[[ "$env1" != *DOCKER_CONTEXT* ]]
	[[ "$env1" != *SECRET_TOKEN* ]]
	[[ "$env1" != *COMPOSE_FILE* ]]
	[[ "$env1" == *DOCKER_SANDBOXES_PROXY=p* ]]
	[[ "$env1" == *"HOME=$HOME"* ]]
}

@test "sbx-watch: a missing sbx is refused before detaching" {
	session
	DOCKER_SANDBOX_SBX=/nonexistent/sbx run -127 --separate-stderr \
	    "$W" -p "$SESSION" "$N"
	[ "$stderr" = "sbx-watch: /nonexistent/sbx: No such file or directory" ]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
	# nothing to tear down and no keepalive: no watcher, no sbx needed
	DOCKER_SANDBOX_KEEPALIVE=0 DOCKER_SANDBOX_SBX=/nonexistent/sbx \
	    run -0 "$W" -m none -p "$SESSION" "$N"
	# the default keepalive (while ports are published) needs it
	unset DOCKER_SANDBOX_KEEPALIVE
	DOCKER_SANDBOX_SBX=/nonexistent/sbx run -127 "$W" -m none -p "$SESSION" "$N"
}

@test "sbx-watch: by default the keepalive holds while NAME.ports exists, never without it; 0 never" {
	unset DOCKER_SANDBOX_KEEPALIVE
	export SBX_WATCH_KEEPALIVE_SECONDS=1
	provisioned "$N"
	rm "$SBX_STATE_DIR/$N.ports"
	: >"$SBX_STUB_DIR/calls.log"
	session
	"$W" -m none -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	sleep 1.5
	[ "$(stub_count exec)" -eq 0 ]
	echo '80/tcp 8080' >"$SBX_STATE_DIR/$N.ports"
	until_ok calls_at_least exec 1
	[ "$(stub_argv 1 | tr '\n' ' ')" = "exec $N -- sleep 3600 " ]
	kill -9 "$SESSION"
	finished "$wp"
	# the stand-in's exec ends at once: restarts are a period apart, and more
	[ "$(stub_count exec)" -le 3 ]
	: >"$SBX_STUB_DIR/calls.log"
	session
	DOCKER_SANDBOX_KEEPALIVE=0 "$W" -m none -p "$SESSION" "$N" || true
	sleep 1.5
	[ "$(stub_count exec)" -eq 0 ]
}

@test "sbx-watch: a planted symlink for a marker is never followed" {
	provisioned "$N"
	echo precious >"$BATS_TEST_TMPDIR/target"
	ln -s "$BATS_TEST_TMPDIR/target" "$SBX_STATE_DIR/$N.owner"
	session
	run -0 "$W" -p "$SESSION" "$N"
	[ "$(cat "$BATS_TEST_TMPDIR/target")" = precious ]
	[ -f "$SBX_STATE_DIR/$N.owner" ] && [ ! -L "$SBX_STATE_DIR/$N.owner" ]
	wp=$(watcher_pid "$N")
	kill -9 "$wp"
	finished "$wp"
	rm -f "$SBX_STATE_DIR/$N.owner" "$SBX_STATE_DIR/$N.lock"
	ln -s "$BATS_TEST_TMPDIR/target" "$SBX_STATE_DIR/$N.lock"
	run -1 --separate-stderr "$W" -p "$SESSION" "$N"
	[ "$stderr" = "sbx-watch: $SBX_STATE_DIR/$N.lock: Too many levels of symbolic links" ]
	[ "$(cat "$BATS_TEST_TMPDIR/target")" = precious ]
	rm "$SBX_STATE_DIR/$N.lock"
	mkfifo "$SBX_STATE_DIR/$N.lock"
	run -1 --separate-stderr "$W" -p "$SESSION" "$N"
	[ "$stderr" = "sbx-watch: $SBX_STATE_DIR/$N.lock: not a lock file of ours" ]
}

@test "sbx-watch: a scratch dir planted as a symlink is removed, never followed" {
	provisioned "$N"
	rm -rf "$SBX_STATE_DIR/$N.prime"
	mkdir "$BATS_TEST_TMPDIR/precious"
	echo keep >"$BATS_TEST_TMPDIR/precious/file"
	ln -s "$BATS_TEST_TMPDIR/precious" "$SBX_STATE_DIR/$N.prime"
	watched_session_killed
	[ ! -e "$SBX_STATE_DIR/$N.prime" ] && [ ! -L "$SBX_STATE_DIR/$N.prime" ]
	[ "$(cat "$BATS_TEST_TMPDIR/precious/file")" = keep ]
}

# ---------------------------------------------------------------- tier 2

@test "sim: a real sandbox is removed once when its session is killed -9" {
	sim_sandbox watch1 || return
	[ -f "$SBX_STATE_DIR/$SIM_SB.created" ]
	c0=$(sim_calls)
	session
	"$W" -p "$SESSION" "$SIM_SB"
	wp=$(watcher_pid "$SIM_SB")
	kill -9 "$SESSION"
	finished "$wp"
	! "$SIM_SBX" ls -q | grep -qx "$SIM_SB"
	[ "$(sim_calls_since "$c0" | grep -c " rm --force $SIM_SB\$")" -eq 1 ]
	[ "$(sim_calls_since "$c0" | wc -l)" -eq 2 ]	# rm, and our ls -q
	# nothing left but the session's record, closed and kept
	[ -z "$(ls -A "$SBX_STATE_DIR" | grep "$SIM_SB" | grep -v "^$SIM_SB\.past-[0-9]")" ]
	tail -n 1 "$SBX_STATE_DIR/$SIM_SB".past-* | grep -q '"event":"end","by":"sbx-watch","teardown":"rm","ok":true}$'
	# gone: nothing for the per-test cleanup to empty
	sed -i "/^$SIM_SB\$/d" "$BATS_TEST_TMPDIR/sim-used"
}

@test "sim: keepalive holds off the idle stop that otherwise comes" {
	sim_sandbox watch2 || return
	# a keepalive every second against an idle stop after four: three
	# seconds of slack for a keepalive slowed by sanitizers or a busy host
	export SBX_SIM_IDLE_STOP=4 SBX_WATCH_KEEPALIVE_SECONDS=1
	status_of() {
		SBX_SIM_WORDS=exact "$SIM_SBX" ls --json |
		    json_get "[s['status'] for s in d['sandboxes'] if s['name'] == '$SIM_SB'][0]"
	}
	SBX_SIM_IDLE_STOP= "$SIM_SBX" exec "$SIM_SB" -- true
	session
	"$W" -k -m none -p "$SESSION" "$SIM_SB"
	wp=$(watcher_pid "$SIM_SB")
	sleep 7
	[ "$(status_of)" = running ]
	kill -9 "$SESSION"
	finished "$wp"
	sleep 5
	[ "$(status_of)" = stopped ]
	[ -f "$SBX_STATE_DIR/$SIM_SB.created" ]
}
