#!/usr/bin/env bats
# sbx-watch -n: the one teardown, now and in the foreground, against the
# recording stand-in sbx: what it leaves of NAME (nothing but the lock an
# armed watcher holds), what it costs in sbx calls, its exit statuses, and
# the provisioning lock it shares with sbx-run.

load ../helpers/helper
load ../helpers/lifecycle

N=pi-sbx-4242-abcd1234

setup() {
	lifecycle_setup
	W="$TOP/sbx-watch/sbx-watch"
}

teardown() {
	lifecycle_teardown
	return 0
}

# What the state directory holds of NAME, one file a line, but the past
# sessions' records, which outlive the sandbox (test/sbx-run/record.bats).
left_of() {
	(cd "$SBX_STATE_DIR" && ls -A | grep -F "$1." | grep -v "^$1\.past-" || true)
}

@test "teardown now: with an armed watcher, only its lock is left; one rm" {
	provisioned "$N"
	echo 'time=1' >"$SBX_STATE_DIR/$N.failed"
	session
	"$W" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	run -0 --separate-stderr "$W" -n "$N"
	[ -z "$output" ] && [ -z "$stderr" ]
	[ "$(stub_count)" -eq 1 ]
	[ "$(stub_argv 1 | tr '\n' ' ')" = "rm --force $N " ]
	[ ! -e "$SBX_STUB_DIR/sandboxes/$N" ]
	# the watcher keeps its lock and owner marker, and keeps watching
	[ "$(left_of "$N" | tr '\n' ' ')" = "$N.lock $N.owner " ]
	alive "$wp"
	# the session ends: no NAME.created, so no second sbx call
	kill -9 "$SESSION"
	until_ok dead "$wp" || fail "watcher $wp still running"
	[ "$(stub_count)" -eq 1 ]
	[ -z "$(left_of "$N")" ]
}

@test "teardown now: without a watcher nothing of NAME is left, stale owner and lock included" {
	provisioned "$N"
	printf 'pid=1\nstart=0\nwatcher=999999\n' >"$SBX_STATE_DIR/$N.owner"
	: >"$SBX_STATE_DIR/$N.lock"
	run -0 --separate-stderr "$W" -n "$N"
	[ "$(stub_count rm)" -eq 1 ]
	[ -z "$(left_of "$N")" ]
}

@test "not ours class: a sandbox the tools never created is listed, not removed, and exits 77" {
	stub_sandbox "$N" running	# sbx knows it; the tools did not make it
	run -77 --separate-stderr "$W" -n "$N"
	[ "$stderr" = "sbx-watch: $N: not made by these tools (no $N.created); not removed" ]
	# one listing, nothing that acts on it
	[ "$(stub_count)" -eq 1 ] && [ "$(stub_count ls)" -eq 1 ]
	[ "$(cat "$SBX_STUB_DIR/sandboxes/$N")" = running ]
	# the same with a watcher armed: it stays armed
	session
	"$W" -p "$SESSION" "$N"
	run -77 "$W" -n "$N"
	[ "$(stub_count rm)" -eq 0 ] && [ "$(stub_count stop)" -eq 0 ]
	[ "$(left_of "$N" | tr '\n' ' ')" = "$N.lock $N.owner " ]
	# stopped, or with -m stop: the same answer
	stub_sandbox "$N" stopped
	run -77 "$W" -n -m stop "$N"
	[ "$(stub_count stop)" -eq 0 ]
}

@test "not ours class: no marker and a name sbx does not list exits 68, a failed listing too" {
	run -68 --separate-stderr "$W" -n "$N"
	[ "$stderr" = "sbx-watch: $N: no sandbox to tear down" ]
	[ "$(stub_count rm)" -eq 0 ]
	# a listing that fails cannot tell: the old answer, no removal
	stub_sandbox "$N" running
	echo 1 >"$SBX_STUB_DIR/rc.ls"
	run -68 "$W" -n "$N"
	[ "$(stub_count rm)" -eq 0 ]
	[ -e "$SBX_STUB_DIR/sandboxes/$N" ]
}

@test "teardown now: sbx answering not found counts as gone, markers dropped, exit 68" {
	provisioned "$N"
	rm -f "$SBX_STUB_DIR/sandboxes/$N"
	echo 1 >"$SBX_STUB_DIR/rc.rm"
	echo "Error: sandbox '$N' not found" >"$SBX_STUB_DIR/err.rm"
	run -68 "$W" -n "$N"
	[ "$(stub_count rm)" -eq 1 ]
	[ -z "$(left_of "$N")" ]
}

@test "teardown now: a failing rm is tried five times, exits 1, keeps the marker" {
	provisioned "$N"
	echo 1 >"$SBX_STUB_DIR/rc.rm"
	echo "Error: daemon unreachable" >"$SBX_STUB_DIR/err.rm"
	run -1 --separate-stderr "$W" -n "$N"
	[[ "$stderr" == "sbx-watch: $N: the teardown failed; "*"/$N.failed says why" ]]
	[ "$(stub_count rm)" -eq 5 ]
	[ -e "$SBX_STATE_DIR/$N.created" ]
	grep -qx 'error=Error: daemon unreachable' "$SBX_STATE_DIR/$N.failed"
}

@test "teardown now: -m stop stops and keeps the marker and scratch dir" {
	provisioned "$N"
	run -0 "$W" -n -m stop "$N"
	[ "$(stub_argv 1 | tr '\n' ' ')" = "stop $N " ]
	[ "$(cat "$SBX_STUB_DIR/sandboxes/$N")" = stopped ]
	[ -e "$SBX_STATE_DIR/$N.created" ] && [ -d "$SBX_STATE_DIR/$N.prime" ]
	[ ! -e "$SBX_STATE_DIR/$N.failed" ]
}

@test "teardown now: -n with -k, -f, -p or -m none is a usage error, no sbx call" {
	provisioned "$N"
	for args in "-k" "-f 0" "-p $$" "-m none"; do
		# shellcheck disable=SC2086 # the words are the options
		run -64 --separate-stderr "$W" -n $args "$N"
		[[ "${stderr_lines[0]}" == "usage: sbx-watch "* ]]
	done
	[ "$(stub_count)" -eq 0 ]
	[ -e "$SBX_STATE_DIR/$N.created" ]
}

@test "teardown now: concurrency class: a removal waits for a provisioning in progress" {
	echo 1 >"$SBX_STUB_DIR/delay.create"
	sbx-run -s "$N" ps >/dev/null 2>&1 &
	prov=$!
	# sbx-run holds the provisioning lock while create sleeps
	until_ok grep -q '^create' "$SBX_STUB_DIR/calls.log" ||
	    fail "no create"
	run -0 "$W" -n "$N"
	wait "$prov" || true
	# the removal came after the creation, and took its marker with it
	c=$(grep -n '^create' "$SBX_STUB_DIR/calls.log" | cut -d: -f1)
	r=$(grep -n '^rm' "$SBX_STUB_DIR/calls.log" | cut -d: -f1)
	[ -n "$c" ] && [ -n "$r" ] && [ "$c" -lt "$r" ]
	[ "$(stub_count rm)" -eq 1 ]
	[ -z "$(left_of "$N")" ] || fail "left: $(left_of "$N")"
	[ -z "$(left_of "$N")" ]
}

@test "teardown now: concurrency class: the wait is bounded; past it, exit 75 and nothing done" {
	echo 4 >"$SBX_STUB_DIR/delay.create"
	sbx-run -s "$N" ps >/dev/null 2>&1 &
	prov=$!
	BG_PIDS="$BG_PIDS $prov"
	until_ok grep -q '^create' "$SBX_STUB_DIR/calls.log" ||
	    fail "no create"
	DOCKER_SANDBOX_TIMEOUT=1 run -75 --separate-stderr "$W" -n "$N"
	[[ "$stderr" == *"/.provision.lock: still held after 1 seconds" ]]
	[ "$(stub_count rm)" -eq 0 ]
}

@test "teardown now: concurrency class: the session-end teardown also waits for a provisioning" {
	session
	"$W" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	echo 1 >"$SBX_STUB_DIR/delay.create"
	sbx-run -s "$N" ps >/dev/null 2>&1 &
	prov=$!
	until_ok grep -q '^create' "$SBX_STUB_DIR/calls.log" ||
	    fail "no create"
	kill -9 "$SESSION"
	until_ok dead "$wp" || fail "watcher $wp still running"
	wait "$prov" || true
	# without the lock it would have found no NAME.created and left it
	[ "$(stub_count rm)" -eq 1 ]
	[ ! -e "$SBX_STUB_DIR/sandboxes/$N" ]
	[ -z "$(left_of "$N")" ]
}
