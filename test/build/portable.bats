#!/usr/bin/env bats
# The fallbacks of platforms that cannot run here (macOS binaries are only
# cross-built; OpenBSD and others have neither /proc nor a sysctl branch),
# run on Linux: a copy of the tree built with -DSBX_PORTABLE_ONLY knows no
# process start time (kill(2) alone) and waits by polling (no pidfd).  An
# owner whose start time is unknown is alive while its pid is: sbx-gc may
# keep a sandbox too long (a reused pid), never remove a live one's.

load ../helpers/helper
load ../helpers/lifecycle

N=pi-sbx-4242-abcd1234

# One portable build for the file, beside the main one.
setup_file() {
	local dir="$BATS_FILE_TMPDIR/src"
	mkdir -p "$dir"
	(cd "$TOP" && tar --exclude=.git --exclude=node_modules \
	    --exclude='*.o' --exclude='*.a' -cf - .) | tar xf - -C "$dir"
	make -C "$dir" -s clean >/dev/null 2>&1
	make -C "$dir" CC="${CC:-cc} -DSBX_PORTABLE_ONLY" all \
	    >"$BATS_FILE_TMPDIR/build.log" 2>&1
	echo $? >"$BATS_FILE_TMPDIR/build.status"
}

setup() {
	lifecycle_setup
	P="$BATS_FILE_TMPDIR/src"
	[ "$(cat "$BATS_FILE_TMPDIR/build.status")" -eq 0 ] ||
	    fail "portable build failed: $(cat "$BATS_FILE_TMPDIR/build.log")"
}

teardown() {
	lifecycle_teardown
	return 0
}

# Sandbox NAME with STATUS, created by sbx-run two days ago.
made() {
	stub_sandbox "$1" "$2"
	printf 'created=%s\nworkspace=%s\nmode=rw\n' \
	    "$(($(date +%s) - 48 * 3600))" "$WS" >"$SBX_STATE_DIR/$1.created"
}

# Sandbox NAME, stopped, owned by PID with START.
owned() {
	made "$1" stopped
	printf 'pid=%s\nstart=%s\nwatcher=1\n' "$2" "$3" \
	    >"$SBX_STATE_DIR/$1.owner"
}

# A session that this shell reaps (kill(2) sees a zombie as alive, and
# here nobody reaps orphans), its pid in $SESSION; ended by ended.
own_session() {
	sleep 1000 </dev/null >/dev/null 2>&1 3>&- &
	SESSION=$!
	BG_PIDS="$BG_PIDS $SESSION"
}

ended() {
	kill -9 "$SESSION"
	wait "$SESSION" 2>/dev/null || true
}

# What sbx-gc -v said about NAME.
verdict() {
	printf '%s\n' "$output" | sed -n "s/^\([a-z ]*\) $1: /\1: /p"
}

@test "portable class: the build is warning-free and has neither /proc nor pidfd in it" {
	run grep -i 'warning' "$BATS_FILE_TMPDIR/build.log"
	[ "$status" -eq 1 ] || fail "warned: $output"
	# the main build reads /proc and opens pidfds; the portable one not
	nm -u "$TOP/lib/proc.o" | grep -qw fopen
	nm -u "$TOP/sbx-watch/pidwait.o" | grep -qw syscall
	run -0 nm -u "$P/lib/proc.o"
	[[ "$output" != *fopen* ]] || fail "proc.o reads /proc: $output"
	[[ "$output" == *kill* ]] || fail "proc.o has no kill(2): $output"
	run -0 nm -u "$P/sbx-watch/pidwait.o"
	[[ "$output" != *syscall* ]] || fail "pidwait.o opens a pidfd: $output"
}

@test "portable class: sbx-watch records start=0 and sees a kill -9 by polling, once" {
	made "$N" running
	own_session
	run -0 --separate-stderr "$P/sbx-watch/sbx-watch" -p "$SESSION" "$N"
	[ -z "$output" ] && [ -z "$stderr" ]
	grep -qx "pid=$SESSION" "$SBX_STATE_DIR/$N.owner"
	grep -qx "start=0" "$SBX_STATE_DIR/$N.owner"
	wp=$(watcher_pid "$N")
	[ -z "$(ls -l "/proc/$wp/fd" | grep 'anon_inode:\[pidfd\]')" ]
	sleep 0.2
	! dead "$wp"
	[ "$(stub_count)" -eq 0 ]
	ended
	until_ok dead "$wp" || fail "watcher $wp still running"
	[ "$(stub_count)" -eq 1 ]
	[ "$(stub_argv 1 | tr '\n' ' ')" = "rm --force $N " ]
	[ ! -e "$SBX_STATE_DIR/$N.owner" ]
}

@test "portable class: sbx-watch refuses a dead pid with status 1" {
	sleep 0 & p=$!
	wait "$p"
	run -1 --separate-stderr "$P/sbx-watch/sbx-watch" -p "$p" "$N"
	[ "$stderr" = "sbx-watch: pid $p: no such process" ]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
}

@test "portable class: sbx-gc never calls a live owner dead when start times are unknown" {
	sleep 0 & gone=$!
	wait "$gone"
	# generated names (whose own pid is long gone): the owner marker judges
	owned "pi-sbx-$gone-liveunkn" $$ 0
	owned "pi-sbx-$gone-liverec0" $$ "$(start_of $$)"
	# the Linux build removes this one as a reused pid; here it is kept
	owned "pi-sbx-$gone-livemis0" $$ 1
	owned "pi-sbx-$gone-deadunkn" "$gone" 0
	owned "pi-sbx-$gone-deadrec0" "$gone" 12345
	run -0 --separate-stderr "$P/sbx-gc/sbx-gc" -v -H 0
	[ -z "$stderr" ]
	for k in liveunkn liverec0 livemis0; do
		[ "$(verdict "pi-sbx-$gone-$k")" = "kept: owner pid $$ alive" ] ||
		    fail "pi-sbx-$gone-$k: $(verdict "pi-sbx-$gone-$k")"
		[ -e "$SBX_STATE_DIR/pi-sbx-$gone-$k.owner" ]
	done
	for k in deadunkn deadrec0; do
		[[ "$(verdict "pi-sbx-$gone-$k")" == "removed: stopped, no live owner"* ]] ||
		    fail "pi-sbx-$gone-$k: $(verdict "pi-sbx-$gone-$k")"
	done
	[ "$(stub_count rm)" -eq 2 ]
}

@test "portable class: a start=0 owner marker keeps its sandbox under both builds while the session lives" {
	made "$N" stopped
	own_session
	"$P/sbx-watch/sbx-watch" -m none -p "$SESSION" "$N"
	grep -qx "start=0" "$SBX_STATE_DIR/$N.owner"
	# the watcher gone (its lock released), only the owner marker speaks
	wp=$(watcher_pid "$N")
	kill -9 "$wp"
	until_ok dead "$wp"
	for g in "$P/sbx-gc/sbx-gc" "$TOP/sbx-gc/sbx-gc"; do
		run -0 "$g" -v -n -H 0
		[ "$(verdict "$N")" = "kept: owner pid $SESSION alive" ] ||
		    fail "$g: $output"
	done
	ended
	for g in "$P/sbx-gc/sbx-gc" "$TOP/sbx-gc/sbx-gc"; do
		run -0 "$g" -v -n -H 0
		[[ "$(verdict "$N")" == "would remove: stopped, no live owner"* ]] ||
		    fail "$g: $output"
	done
	[ "$(stub_count rm)" -eq 0 ]
}
