#!/usr/bin/env bats
# sbx-run's provisioning under attack: a command that prints sbx's own
# "no such sandbox" is never run twice, every sbx call is bounded by -t
# and DOCKER_SANDBOX_TIMEOUT, intent is recorded before sbx create, and
# stderr is held back only while it can still be sbx's line.

load ../helpers/helper
load ../helpers/lifecycle

N=pi-sbx-4242-abcd1234
PIN="-H unix:///var/run/docker.sock"
NF="ERROR: no sandbox named '$N'"

setup() {
	lifecycle_setup
	RAN="$BATS_TEST_TMPDIR/ran"
}

# Kill what the stand-in's hung calls left, before its record goes.
kill_hung() {
	local p
	for p in $(cat "$SBX_STUB_DIR/hung.pids" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null || true
	done
	return 0
}

# A fresh stand-in and no markers of $N.
fresh() {
	kill_hung
	rm -rf "$SBX_STUB_DIR" "$SBX_STATE_DIR/$N".*
	mkdir -p "$SBX_STUB_DIR"
}

teardown() {
	kill_hung
	lifecycle_teardown
	return 0
}

hung_started() {
	until_ok test -s "$SBX_STUB_DIR/hung.pids" ||
	    fail "the hung call never started"
}

# How many times the command ran.
ran() {
	wc -l <"$RAN" 2>/dev/null || echo 0
}

# A command that runs (once, it hopes), prints $1 on stderr and exits 1.
liar() {
	printf 'echo ran >>%s; printf "%%s\\n" "%s" >&2; exit 1' "$RAN" "$1"
}

@test "retry class: a -x command printing sbx's not-found text runs once; status and stderr come back" {
	export SBX_STUB_EXEC_RUN=1
	stub_sandbox "$N"
	for text in "$NF" "Error: sandbox '$N' not found" \
	    "no sandbox named '$N'" "$NF
  
To create one:
  sbx create AGENT WORKSPACE"; do
		rm -f "$RAN" "$SBX_STUB_DIR/calls.log"
		run -1 --separate-stderr sbx-run -x -s "$N" sh -c "$(liar "$text")"
		[ "$(ran)" -eq 1 ] || fail "ran $(ran) times: $text"
		[ "$stderr" = "$text" ] || fail "stderr: $stderr"
		# sbx create, which refused ("already exists"), was the proof
		[ "$(stub_count exec)" -eq 1 ] || fail "$(cat "$SBX_STUB_DIR/calls.log")"
		[ ! -e "$SBX_STATE_DIR/$N.created" ] || fail "marker left"
	done
}

# Every answer sbx has given for a missing $N (sbxsays.c has the sources).
wordings() {
	printf '%s\0' "$NF

To create one:
  sbx create AGENT WORKSPACE" \
	    "Error: sandbox '$N' not found" \
	    "error: sandbox '$N' not found
  try: sbx ls" \
	    "ERROR: sandbox '$N' not found" \
	    "ERROR: NO SANDBOX NAMED '$N'" \
	    "error: sandbox \"$N\" not found" \
	    "[sbx] ERROR: no sandbox named '$N'" \
	    "Starting sandboxd daemon...
Daemon started (PID 4242)
Logs: /home/u/.local/state/sandboxes/sandboxd/daemon.log
error: sandbox '$N' not found
  try: sbx ls" \
	    "[sbx] daemon is starting
$NF

To create one:
  sbx create AGENT WORKSPACE"
}

@test "wording class: a missing sandbox in every wording sbx has used is provisioned, the command once" {
	export SBX_STUB_EXEC_RUN=1
	local text
	while IFS= read -r -d '' text; do
		fresh
		printf '%s\n' "$text" >"$SBX_STUB_DIR/missing"
		rm -f "$RAN"
		run -0 --separate-stderr sbx-run -x -s "$N" sh -c "echo ran >>$RAN"
		[ "$(ran)" -eq 1 ] || fail "ran $(ran) times: $text: $stderr"
		[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "exec create exec " ] ||
		    fail "$text: $(cat "$SBX_STUB_DIR/calls.log")"
		# sbx's words were its answer, and are not shown
		[ -z "$stderr" ] || fail "$text: shown: $stderr"
	done < <(wordings)
	# the stand-in's own answers: 0.47 and later, and 0.46
	for p in 0.55 0.46; do
		fresh
		rm -f "$RAN"
		SBX_STUB_PROFILE=$p run -0 --separate-stderr sbx-run -x -s "$N" sh -c "echo ran >>$RAN"
		[ "$(ran)" -eq 1 ] && [ -z "$stderr" ] || fail "$p: $stderr"
	done
}

@test "retry class: a command printing any wording of sbx's, notices first included, runs once" {
	export SBX_STUB_EXEC_RUN=1
	stub_sandbox "$N"
	local text
	while IFS= read -r -d '' text; do
		rm -f "$RAN" "$SBX_STUB_DIR/calls.log"
		run -1 --separate-stderr sbx-run -x -s "$N" sh -c \
		    'echo ran >>"$1"; printf "%s\n" "$2" >&2; exit 1' sh "$RAN" "$text"
		[ "$(ran)" -eq 1 ] || fail "ran $(ran) times: $text"
		[ "$stderr" = "$text" ] || fail "stderr: $stderr"
		[ "$(stub_count exec)" -eq 1 ] || fail "$(cat "$SBX_STUB_DIR/calls.log")"
	done < <(wordings)
}

@test "retry class: with a marker of our own, the listing confirms and the command runs once" {
	export SBX_STUB_EXEC_RUN=1
	run -0 sbx-run -x -s "$N" true	# provisioned by sbx-run: a marker
	before=$(cat "$SBX_STATE_DIR/$N.created")
	: >"$SBX_STUB_DIR/calls.log"
	run -1 --separate-stderr sbx-run -x -s "$N" sh -c "$(liar "$NF")"
	[ "$(ran)" -eq 1 ]
	[ "$stderr" = "$NF" ]
	[ "$(cat "$SBX_STUB_DIR/calls.log" | cut -d' ' -f1 | tr '\n' ' ')" = "exec ls policy " ]
	[ "$(cat "$SBX_STATE_DIR/$N.created")" = "$before" ]
	# read-only mode: its scratch primary, in use, is left alone
	rm -f "$RAN"
	mkdir "$SBX_STATE_DIR/$N.prime"
	touch "$SBX_STATE_DIR/$N.prime/in-use"
	DOCKER_SANDBOX_WORKSPACE_RO=1 run -1 sbx-run -x -s "$N" sh -c "$(liar "$NF")"
	[ "$(ran)" -eq 1 ]
	[ -e "$SBX_STATE_DIR/$N.prime/in-use" ]
}

@test "listing class: the confirming sbx ls --json is read as sbx prints it, notices, [sbx], WARN: and all" {
	export SBX_STUB_EXEC_RUN=1
	run -0 sbx-run -x -s "$N" true	# provisioned by sbx-run: a marker
	cat >"$SBX_STUB_DIR/out.ls" <<-EOF
	Starting sandboxd daemon...
	[sbx] daemon ready
	{
	  "sandboxes": [
	    {
	      "name": "$N",
	      "id": "3f2b8c1e-9d4a-4e6f-8a1b-2c3d4e5f6a7b",
	      "status": "running",
	      "last_used_at": "2026-09-18T08:55:17.75025Z",
	      "workspaces": []
	    }
	  ]
	}
	WARN: mcp gateway teardown: context deadline exceeded
	EOF
	: >"$SBX_STUB_DIR/calls.log"
	run -1 --separate-stderr sbx-run -x -s "$N" sh -c "$(liar "$NF")"
	[ "$(ran)" -eq 1 ]
	[ "$stderr" = "$NF" ] || fail "$stderr"
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "exec ls policy " ]
	# listed as none (null): it is gone, and made again
	printf '{\n  "sandboxes": null\n}\n' >"$SBX_STUB_DIR/out.ls"
	rm "$SBX_STUB_DIR/sandboxes/$N" "$RAN"
	run -0 --separate-stderr sbx-run -x -s "$N" sh -c "echo ran >>$RAN"
	[ "$(ran)" -eq 1 ] || fail "$stderr"
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tail -n 4 | tr '\n' ' ')" = "exec ls create exec " ]
}

@test "retry class: a container printing the not-found text through plain sbx-run runs once" {
	export SBX_STUB_EXEC_RUN=1
	stub_sandbox "$N"
	mkdir "$BATS_TEST_TMPDIR/bin"
	# the docker the stand-in execs: a container that says sbx's words
	cat >"$BATS_TEST_TMPDIR/bin/docker" <<-DOCKER
	#!/bin/sh
	echo "\$*" >>"$RAN"
	echo "$NF" >&2
	exit 1
	DOCKER
	chmod +x "$BATS_TEST_TMPDIR/bin/docker"
	export PATH="$BATS_TEST_TMPDIR/bin:$PATH"
	run -1 --separate-stderr sbx-run -s "$N" run --rm busybox:local sh -c 'echo x'
	[ "$(ran)" -eq 1 ]
	[ "$(cat "$RAN")" = "$PIN run --rm busybox:local sh -c echo x" ]
	[ "$stderr" = "$NF" ]
}

@test "retry class: a real missing sandbox: exec, create, exec, and the command runs once" {
	export SBX_STUB_EXEC_RUN=1
	run -0 --separate-stderr sbx-run -x -s "$N" sh -c "echo ran >>$RAN"
	[ "$(ran)" -eq 1 ]
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "exec create exec " ]
	[ -z "$stderr" ]
	# steady state: one call each
	run -0 sbx-run -x -s "$N" true
	[ "$(stub_count)" -eq 4 ]
}

@test "retry class: two concurrent first calls: one create, no listing, each command once" {
	export SBX_STUB_EXEC_RUN=1
	echo 1 >"$SBX_STUB_DIR/delay.create"
	for i in 1 2 3; do
		sbx-run -x -s "$N" sh -c "echo $i >>$RAN" \
		    >"$BATS_TEST_TMPDIR/out$i" 2>&1 3>&- &
		eval "p$i=\$!"
	done
	# shellcheck disable=SC2154
	for p in "$p1" "$p2" "$p3"; do wait "$p" || fail "$(cat "$BATS_TEST_TMPDIR"/out*)"; done
	[ "$(stub_count create)" -eq 1 ]
	[ "$(stub_count ls)" -eq 0 ]
	[ "$(sort "$RAN" | tr '\n' ' ')" = "1 2 3 " ]
	! grep -q "no sandbox named" "$BATS_TEST_TMPDIR"/out*
	[ "$(stub_count)" -le 7 ]
}

# What the background command printed on stderr so far is exactly $1.
err_is() {
	[ "$(cat "$BATS_TEST_TMPDIR/err")" = "$1" ]
}

# A command that prints $1 on stderr and waits: $1 is shown while it runs.
shown_at_once() {
	local p shown=0

	sbx-run -x -s "$N" sh -c 'printf "%s" "$1" >&2; sleep 5' sh "$1" \
	    2>"$BATS_TEST_TMPDIR/err" 3>&- &
	p=$!
	until_ok err_is "$1" && shown=1
	kill "$p" 2>/dev/null || true
	wait "$p" || true
	[ "$shown" -eq 1 ] || fail "hidden: $1"
}

@test "hold class: stderr without a newline shows before the command ends, with -i and without" {
	export SBX_STUB_EXEC_RUN=1
	stub_sandbox "$N"
	mkfifo "$BATS_TEST_TMPDIR/in"
	sbx-run -i -x -s "$N" sh -c 'printf "Password: " >&2; read -r x; echo "got $x"' \
	    <"$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out" \
	    2>"$BATS_TEST_TMPDIR/err" 3>&- &
	p=$!
	exec 5>"$BATS_TEST_TMPDIR/in"
	shown=0
	until_ok grep -q "Password: " "$BATS_TEST_TMPDIR/err" && shown=1
	echo secret >&5
	exec 5>&-
	wait "$p"
	[ "$shown" -eq 1 ] || fail "the prompt stayed hidden while the command waited"
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = "got secret" ]
	# without -i; and text that begins like sbx's line, then parts from it
	for text in "Password: " "ERROR: disk full" "Error: sandbox 'other' " \
	    "ERROR: no sandbox named '$N'x"; do
		shown_at_once "$text"
	done
	# sbx's notices hold stderr only while sbx's answer can follow:
	# another line, a tenth notice, an overlong one, or anything after
	# the answer but its hints lets go at once
	long=$(printf 'Logs: %0600d' 0)
	nine=$(printf '[sbx] x\n%.0s' 1 2 3 4 5 6 7 8 9)
	for text in "Starting sandboxd daemon...
hello" "Daemon started (PID 12x" "$nine" "$long" \
	    "error: sandbox '$N' not found
  try: sbx ls
Pulling layer" "$NF
To create one:
  sbx create
  a
  b
  c
  d
  e"; do
		shown_at_once "$text"
	done
	# what could still be sbx's line is held, and comes out at the end
	run -0 --separate-stderr sbx-run -x -s "$N" sh -c "printf '%s' \"ERROR: no sandbox\" >&2"
	[ "$stderr" = "ERROR: no sandbox" ]
}

@test "timeout class: -t and DOCKER_SANDBOX_TIMEOUT bound a hung sbx ls: 124" {
	run -0 sbx-run -s "$N" ps	# a marker, so the listing confirms
	rm "$SBX_STUB_DIR/sandboxes/$N"
	touch "$SBX_STUB_DIR/hang.ls"
	for how in -t DOCKER_SANDBOX_TIMEOUT; do
		start=$(date +%s)
		if [ "$how" = -t ]; then
			run -124 --separate-stderr timeout -s KILL 20 sbx-run -t 1 -s "$N" ps
		else
			DOCKER_SANDBOX_TIMEOUT=1 run -124 --separate-stderr \
			    timeout -s KILL 20 sbx-run -s "$N" ps
		fi
		[ "$stderr" = "sbx-run: sandbox $N: sbx ls timed out after 1 s" ] ||
		    fail "$how: $stderr"
		[ $(( $(date +%s) - start )) -lt 8 ]
	done
	# AUTOCREATE off confirms with a listing too
	DOCKER_SANDBOX_AUTOCREATE=0 run -124 timeout -s KILL 20 sbx-run -t 1 -s "$N" ps
}

@test "timeout class: -t and DOCKER_SANDBOX_TIMEOUT bound a hung sbx create: 124, intent kept" {
	touch "$SBX_STUB_DIR/hang.create"
	start=$(date +%s)
	run -124 --separate-stderr timeout -s KILL 20 sbx-run -t 1 -s "$N" ps
	[ "$stderr" = "sbx-run: sandbox $N: sbx create timed out after 1 s" ]
	[ $(( $(date +%s) - start )) -lt 8 ]
	grep -q '^state=creating$' "$SBX_STATE_DIR/$N.created"
	DOCKER_SANDBOX_TIMEOUT=1 run -124 timeout -s KILL 20 sbx-run -s "$N" ps
	# and a long docker command no longer gets 600 s when a bound is set
	rm "$SBX_STUB_DIR/hang.create"
	stub_sandbox "$N"
	touch "$SBX_STUB_DIR/hang.exec"
	DOCKER_SANDBOX_TIMEOUT=1 run -124 timeout -s KILL 20 sbx-run -s "$N" pull busybox
}

@test "signal class: a signal during sbx create exits 128+n and keeps the intent" {
	for sig in TERM INT HUP; do
		fresh
		touch "$SBX_STUB_DIR/hang.create"
		sbx-run -s "$N" ps 2>/dev/null 3>&- &
		p=$!
		hung_started
		kill "-$sig" "$p"
		status=0
		wait "$p" || status=$?
		[ "$status" -eq $((128 + $(kill -l "$sig"))) ] || fail "$sig: $status"
		grep -q '^state=creating$' "$SBX_STATE_DIR/$N.created" || fail "$sig: no intent"
	done
}

# A watched session; sbx-run killed (kill -9) while sbx create hangs,
# after sbx registered the sandbox.
killed_in_create() {
	session
	"$TOP/sbx-watch/sbx-watch" -p "$SESSION" "$N"
	touch "$SBX_STUB_DIR/hang.create"
	sbx-run "$@" -s "$N" ps 2>/dev/null 3>&- &
	p=$!
	hung_started
	stub_sandbox "$N" stopped	# what sbx made before it hung
	kill -9 "$p"
	wait "$p" || true
}

@test "intent class: sbx-run killed during create: the watcher still removes the sandbox" {
	killed_in_create
	grep -q '^state=creating$' "$SBX_STATE_DIR/$N.created"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	until_ok dead "$wp" || fail "watcher still running"
	grep -q "^rm --force $N\$" "$SBX_STUB_DIR/calls.log"
	[ ! -e "$SBX_STUB_DIR/sandboxes/$N" ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
}

@test "intent class: a create cut short leaves markers sbx-gc sweeps with the sandbox" {
	# with its owner marker gone, sbx-gc asks whether the pid in the name
	# lives: one above any pid_max (2^22) never does, where 4242 may
	local N=pi-sbx-4999999-abcd1234
	# read-only mode: the scratch primary is swept too
	DOCKER_SANDBOX_WORKSPACE_RO=1 killed_in_create
	kill -9 "$SESSION" "$(watcher_pid "$N")"
	until_ok dead "$SESSION"
	rm "$SBX_STATE_DIR/$N.owner"
	sleep 1
	run -0 "$TOP/sbx-gc/sbx-gc" -H 0
	grep -q "^rm --force $N\$" "$SBX_STUB_DIR/calls.log" || fail "$output"
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
	[ ! -e "$SBX_STATE_DIR/$N.prime" ]
	# a create that never got as far as registering it: orphan markers
	fresh
	touch "$SBX_STUB_DIR/hang.create"
	DOCKER_SANDBOX_WORKSPACE_RO=1 sbx-run -s "$N" ps 2>/dev/null 3>&- &
	p=$!
	hung_started
	kill -9 "$p"
	wait "$p" || true
	[ -d "$SBX_STATE_DIR/$N.prime" ]
	sleep 1
	run -0 "$TOP/sbx-gc/sbx-gc"
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
	[ ! -e "$SBX_STATE_DIR/$N.prime" ]
}

@test "intent class: a session that never provisioned costs no sbx call at teardown" {
	stub_sandbox "$N"	# pinned, made elsewhere: no marker
	session
	"$TOP/sbx-watch/sbx-watch" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	run -0 sbx-run -s "$N" ps
	kill -9 "$SESSION"
	until_ok dead "$wp" || fail "watcher still running"
	[ "$(stub_count)" -eq 1 ]
	[ -e "$SBX_STUB_DIR/sandboxes/$N" ]
}
