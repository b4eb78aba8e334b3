#!/usr/bin/env bats
# sbx's own words against the recording stand-in sbx: the restart an sbx
# upgrade waits for (every program says so in one line, exit 69, runs
# nothing twice; the watcher waits it out and leaves sbx-gc what it could
# not do), the daemon start race (made again, bounded), and sbx's own
# calls kept from the caller's stdin with --no-input where sbx takes it.

load ../helpers/helper
load ../helpers/lifecycle

N=pi-sbx-4242-abcd1234
RESTART="error: ensure daemon: cannot prompt for restart: stdin is not a terminal; run the command in an interactive terminal to confirm the restart"
FIX="sbx was upgraded and its daemon must restart, which stops every sandbox: run 'sbx daemon restart', or 'sbx ls' in a terminal and confirm"

setup() {
	lifecycle_setup
	W="$TOP/sbx-watch/sbx-watch"
	G="$TOP/sbx-gc/sbx-gc"
	P="$TOP/sbx-ports/sbx-ports"
	RAN="$BATS_TEST_TMPDIR/ran"
}

teardown() {
	lifecycle_teardown
	return 0
}

# Every verb of the stand-in answers with the restart text, exit 1.
upgraded() {
	local v
	for v in exec create ls rm stop ports port version; do
		echo "$RESTART" >"$SBX_STUB_DIR/err.$v"
		echo 1 >"$SBX_STUB_DIR/rc.$v"
	done
}

# ... until the restart is confirmed.
restarted() {
	rm -f "$SBX_STUB_DIR"/err.* "$SBX_STUB_DIR"/rc.*
}

# The stand-in has had at least N rm calls.
rms() {
	[ "$(stub_count rm)" -ge "$1" ]
}

ran() {
	wc -l <"$RAN" 2>/dev/null || echo 0
}

@test "restart class: every program says it in one line naming the fix, exits 69, and runs nothing" {
	provisioned "$N"
	upgraded
	run -69 --separate-stderr sbx-run -s "$N" ps
	[ "$stderr" = "sbx-run: $FIX" ] || fail "$stderr"
	[ -z "$output" ]
	run -69 --separate-stderr "$G" -H 0
	[ "$stderr" = "sbx-gc: $FIX" ] || fail "$stderr"
	run -69 --separate-stderr "$P" -s "$N" ls
	[ "$stderr" = "sbx-ports: $FIX" ] || fail "$stderr"
	run -69 --separate-stderr "$W" -n "$N"
	[ "$stderr" = "sbx-watch: $FIX" ] || fail "$stderr"
	# sbx did nothing, and nothing was asked twice of it: one call each
	# (sbx-run's version tells sbx's answer from a command's)
	[ -e "$SBX_STUB_DIR/sandboxes/$N" ]
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "exec version ls port rm " ] ||
	    fail "$(cat "$SBX_STUB_DIR/calls.log")"
	[ -e "$SBX_STATE_DIR/$N.created" ]
	# 0.46's ERROR: form too
	sed -i 's/^error:/ERROR:/' "$SBX_STUB_DIR"/err.*
	run -69 --separate-stderr "$G" -H 0
	[ "$stderr" = "sbx-gc: $FIX" ] || fail "$stderr"
}

@test "restart class: a missing sandbox is not made while sbx waits for its restart: no intent is left" {
	: >"$SBX_STUB_DIR/rc.exec"
	echo "$RESTART" >"$SBX_STUB_DIR/err.create"
	echo 1 >"$SBX_STUB_DIR/rc.create"
	run -69 --separate-stderr sbx-run -s "$N" ps
	[ "$stderr" = "sbx-run: $FIX" ] || fail "$stderr"
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "exec create " ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
}

@test "restart class: a command that prints the restart text is no restart: its status and words come back, once" {
	export SBX_STUB_EXEC_RUN=1
	stub_sandbox "$N"
	run -1 --separate-stderr sbx-run -x -s "$N" sh -c \
	    'echo ran >>"$1"; printf "%s\n" "$2" >&2; exit 1' sh "$RAN" "$RESTART"
	[ "$(ran)" -eq 1 ]
	[ "$stderr" = "$RESTART" ] || fail "$stderr"
	# the one extra call that told them apart, and the failed call's one
	# look at what sbx blocked
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "exec version policy " ]
}

@test "restart class: the watcher waits it out past five tries, then tears down once, no NAME.failed" {
	provisioned "$N"
	upgraded
	session
	"$W" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	until_ok rms 8 || fail "$(cat "$SBX_STUB_DIR/calls.log")"
	alive "$wp"
	[ ! -e "$SBX_STATE_DIR/$N.failed" ]
	[ -e "$SBX_STUB_DIR/sandboxes/$N" ]
	restarted
	until_ok dead "$wp" || fail "watcher still running"
	[ ! -e "$SBX_STUB_DIR/sandboxes/$N" ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
	[ ! -e "$SBX_STATE_DIR/$N.failed" ]
	# its pauses grew, and stayed under the cap (32 x 10 ms)
	[ "$(stub_count rm)" -lt 60 ]
}

@test "restart class: a watcher killed while it waits leaves the sandbox to sbx-gc, which removes it later" {
	provisioned "$N"
	stub_sandbox "$N" stopped	# the restart stopped every sandbox
	upgraded
	session
	"$W" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	until_ok rms 2
	kill -9 "$wp"
	until_ok dead "$wp"
	[ -e "$SBX_STATE_DIR/$N.created" ]
	# sbx-gc meanwhile: 69, nothing removed
	run -69 "$G" -H 0
	[ -e "$SBX_STUB_DIR/sandboxes/$N" ]
	restarted
	run -0 --separate-stderr "$G" -H 0
	[ -z "$stderr" ] || fail "$stderr"
	[ ! -e "$SBX_STUB_DIR/sandboxes/$N" ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
}

@test "race class: a call of sbx's own words that lost the daemon start race is made again, a bounded few times" {
	stub_sandbox "$N" stopped
	created() {
		printf 'created=1\nworkspace=%s\nmode=rw\n' "$WS" >"$SBX_STATE_DIR/$N.created"
	}
	created
	echo 2 >"$SBX_STUB_DIR/race"
	run -0 --separate-stderr "$G" -H 0
	[ -z "$stderr" ] || fail "$stderr"
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "ls ls ls rm " ]
	# provisioning: the create that lost the race is made again
	: >"$SBX_STUB_DIR/calls.log"
	export SBX_STUB_EXEC_RUN=1
	rm -f "$SBX_STATE_DIR/$N.created" "$SBX_STUB_DIR/sandboxes/$N"
	echo 1 >"$SBX_STUB_DIR/race.create"
	run -0 --separate-stderr sbx-run -x -s "$N" sh -c "echo ran >>$RAN"
	[ "$(ran)" -eq 1 ] || fail "$stderr"
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "exec create create exec " ] ||
	    fail "$(cat "$SBX_STUB_DIR/calls.log")"
	[ -z "$stderr" ] || fail "$stderr"
	# bounded: five tries, then sbx's answer
	: >"$SBX_STUB_DIR/calls.log"
	echo 99 >"$SBX_STUB_DIR/race"
	run -1 --separate-stderr "$G" -H 0
	[ "$(stub_count ls)" -eq 5 ]
	[[ $stderr == *"daemon exited unexpectedly"* ]] || fail "$stderr"
}

RACE_TEXT='error: ensure daemon: daemon exited unexpectedly: exit status 1
another daemon is already running (PID 4242)'

# The verbs of the calls so far, an exec's query ("ask") told apart.
exec_calls() {
	local i=1 f
	for f in "$SBX_STUB_DIR"/calls/*.argv; do
		if tr '\0' '\n' <"$f" | grep -qx sbx-run-ask; then
			printf 'ask '
		else
			printf '%s ' "$(stub_argv "$i" | head -n 1)"
		fi
		i=$((i + 1))
	done
}

@test "race class: an exec that lost the daemon start race is asked about and made again; its command runs once" {
	stub_sandbox "$N" running
	export SBX_STUB_EXEC_RUN=1
	echo 1 >"$SBX_STUB_DIR/race.exec"
	run -0 --separate-stderr sbx-run -x -s "$N" sh -c "echo ran >>$RAN"
	[ -z "$stderr" ] || fail "$stderr"
	[ "$(ran)" -eq 1 ]
	[ "$(exec_calls)" = "exec ask exec " ] || fail "$(exec_calls)"
	# each try has a mark of its own
	m1=$(stub_argv 1 | grep -A1 -x sbx-run | tail -n 1)
	m3=$(stub_argv 3 | grep -A1 -x sbx-run | tail -n 1)
	[ "$(stub_argv 2 | tail -n 1)" = "$m1" ] || fail "asked of $(stub_argv 2 | tail -n 1)"
	[ -n "$m1" ] && [ "$m1" != "$m3" ] || fail "$m1 $m3"
	# prewarm's exec, too
	: >"$SBX_STUB_DIR/calls.log"
	echo 1 >"$SBX_STUB_DIR/race.exec"
	run -0 --separate-stderr sbx-run -P -s "$N"
	[ -z "$stderr" ] || fail "$stderr"
}

@test "race class: a command that prints the race answer itself and exits 1 runs once; its words are its own" {
	stub_sandbox "$N" running
	export SBX_STUB_EXEC_RUN=1
	run -1 --separate-stderr sbx-run -x -s "$N" sh -c \
	    "echo ran >>$RAN; printf '%s\n' '$RACE_TEXT' >&2; exit 1"
	[ "$(ran)" -eq 1 ]
	[ "$stderr" = "$RACE_TEXT" ] || fail "$stderr"
	# one query, which found its mark
	[ "$(exec_calls)" = "exec ask policy " ] || fail "$(exec_calls)"
	# a query that says the command began, or cannot tell, or fails
	for a in began unknown "" ; do
		rm -rf "$SBX_STUB_DIR/calls" "$SBX_STUB_DIR/seq" "$SBX_STUB_DIR/rcused.ask"
		unset SBX_STUB_EXEC_RUN
		echo 1 >"$SBX_STUB_DIR/race.exec"
		printf '%s' "${a:+$a
}" >"$SBX_STUB_DIR/out.ask"
		[ -n "$a" ] || printf '1\n' >"$SBX_STUB_DIR/rc.ask"
		run -1 --separate-stderr sbx-run -x -s "$N" true
		[ "$stderr" = "$RACE_TEXT" ] || fail "$a: $stderr"
		[ "$(exec_calls)" = "exec ask policy " ] || fail "$a: $(exec_calls)"
	done
}

@test "race class: the race words after a command's other output are not held or asked about" {
	stub_sandbox "$N" running
	export SBX_STUB_EXEC_RUN=1
	run -1 --separate-stderr sbx-run -x -s "$N" sh -c \
	    "echo ran >>$RAN; echo building >&2; printf '%s\n' '$RACE_TEXT' >&2; exit 1"
	[ "$(ran)" -eq 1 ]
	[ "$stderr" = "building
$RACE_TEXT" ] || fail "$stderr"
	[ "$(exec_calls)" = "exec policy " ] || fail "$(exec_calls)"
	# the words go out as they come: the command still runs
	sbx-run -x -s "$N" sh -c "printf 'another daemon\n' >&2; echo x >&2; sleep 30" \
	    2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	for _ in $(seq 50); do
		[ -s "$BATS_TEST_TMPDIR/err" ] && break
		sleep 0.1
	done
	kill "$pid"
	wait "$pid" || :
	grep -qx x "$BATS_TEST_TMPDIR/err" || fail "held: $(cat "$BATS_TEST_TMPDIR/err")"
}

@test "race class: an exec's race retry is bounded: five tries, then sbx's answer" {
	stub_sandbox "$N" running
	echo 99 >"$SBX_STUB_DIR/race.exec"
	run -1 --separate-stderr sbx-run -x -s "$N" true
	[ "$stderr" = "$RACE_TEXT" ] || fail "$stderr"
	[ "$(exec_calls)" = "exec ask exec ask exec ask exec ask exec policy " ] ||
	    fail "$(exec_calls)"
}

@test "stdin class: sbx's own calls get /dev/null and --no-input, an exec never --no-input; -i gives stdin to exec alone" {
	mkfifo "$BATS_TEST_TMPDIR/in"
	export SBX_STUB_EXEC_RUN=1
	(exec 5<>"$BATS_TEST_TMPDIR/in"; echo data >&5; sleep 3) &
	run -0 sbx-run -i -x -s "$N" sh -c 'read -r l; echo "got $l"' <"$BATS_TEST_TMPDIR/in"
	[ "$output" = "got data" ] || fail "$output"
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "exec create exec " ]
	for i in 1 2 3; do
		v=$(stub_argv "$i" | head -n 1)
		s=$(cat "$SBX_STUB_DIR/calls/000$i.stdin")
		case $v in
		exec)
			[ "$s" != /dev/null ] || fail "exec $i: $s"
			! stub_rawargv "$i" | grep -qx -- --no-input || fail "exec $i got --no-input"
			;;
		*)
			[ "$s" = /dev/null ] || fail "$v: $s"
			[ "$(stub_rawargv "$i" | sed -n 2p)" = --no-input ] || fail "$v: $(stub_rawargv "$i")"
			;;
		esac
	done
	wait
	# the teardown, the sweep and the ports: the same
	: >"$SBX_STUB_DIR/calls.log"
	"$TOP/sbx-ports/sbx-ports" -s "$N" ls < <(echo data) >/dev/null
	run -0 "$W" -n "$N" < <(echo data)
	for f in "$SBX_STUB_DIR"/calls/*.stdin; do
		n=${f##*/}
		n=${n%.stdin}
		[ "$(sed -n 1p "${f%.stdin}.argv" | tr '\0' '\n' | head -n 1)" = exec ] && continue
		[ "$(cat "$f")" = /dev/null ] || fail "call $n: $(cat "$f")"
	done
}

@test "no-input class: an sbx that refuses --no-input costs one more call, once, until it is replaced" {
	export SBX_STUB_PROFILE=0.47 SBX_STUB_EXEC_RUN=1
	run -0 --separate-stderr sbx-run -x -s "$N" true
	[ -z "$stderr" ] || fail "$stderr"
	# exec, create refused, create, exec
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "exec create create exec " ]
	[ "$(stub_rawargv 2 | sed -n 2p)" = --no-input ]
	[ "$(stub_rawargv 3 | sed -n 2p)" = --quiet ]
	[ -s "$SBX_STATE_DIR/sbx-no-input" ]
	# remembered: the next call of sbx's own words goes without it
	: >"$SBX_STUB_DIR/calls.log"
	run -0 "$W" -n "$N"
	[ "$(cat "$SBX_STUB_DIR/calls.log")" = "rm --force $N" ]
	# another sbx (an upgrade): asked again
	cp "$TOP/test/bin/sbx" "$BATS_TEST_TMPDIR/sbx"
	export DOCKER_SANDBOX_SBX="$BATS_TEST_TMPDIR/sbx"
	unset SBX_STUB_PROFILE
	provisioned "$N"
	n=$(stub_count)
	run -0 "$W" -n "$N"
	[ "$(stub_count)" -eq $((n + 1)) ]
	[ "$(stub_rawargv "$((n + 1))" | sed -n 2p)" = --no-input ]
}

# ---------------------------------------------------------------- the readers

# says WHAT [ARG]: the reader's word for the text of $1 (printf %b)
says() {
	local text=$1
	shift
	printf '%b' "$text" | "$TOP/test/tools/sbxsays" "$@"
}

# Every prefix sbx has printed or may print, and the words around.
PREFIXES=("ERROR: " "error: " "Error: " "[sbx] " "[sbx] ERROR: " "[sbx] error: " "" "Error: ensure daemon: ")
NOTICE_OLD='Starting sandboxd daemon...\nDaemon started (PID 4242)\nLogs: /home/u/.local/state/sandboxes/sandboxes/sandboxd/daemon.log\n'
NOTICE_NEW='Starting sandboxd daemon...\nDaemon started (PID: 6927, socket: /home/u/.local/state/sandboxes/sandboxes/sandboxd/sandboxd.sock)\nLogs: /home/u/.local/state/sandboxes/sandboxes/sandboxd/daemon.log\n'
VERSIONS='Client Version:  v0.37.1 9d1e2f3a\nServer Version:  v0.37.0 4b5c6d7e\n\n'
STOPPED='Stopping daemon at /home/u/.local/state/sandboxes/sandboxes/sandboxd/sandboxd.sock\n\xe2\x9c\x93 Daemon stopped successfully\n'
HINTS=('' '  try: sbx ls\n' '\nTo create one:\n  sbx create AGENT WORKSPACE\n' 'WARN: mcp gateway teardown: context deadline exceeded\n')

@test "words class: a missing sandbox is known by its words in every prefix, case and quote, with sbx's lines around it in either order" {
	local p w a h k=0 t
	for p in "${PREFIXES[@]}"; do
		for w in "sandbox 'box' not found" 'sandbox "box" not found' \
		    "no sandbox named 'box'" "no sandbox named box" "sandbox box not found" \
		    "SANDBOX \`box\` NOT FOUND" "No Sandbox Named \"box\"" \
		    "get sandbox: not found: box" "sandbox box: not found"; do
			for a in '' "$NOTICE_OLD" "$NOTICE_NEW" "$VERSIONS" "$STOPPED" '\n'; do
				h=${HINTS[k % ${#HINTS[@]}]}
				k=$((k + 1))
				t="$a$p$w\n$h"
				[ "$(says "$t" notfound-line box)" = line ] || fail "not held whole: $t"
				[ "$(says "$t" notfound box)" = yes ] || fail "not read: $t"
				# in the other order, and with CRLF
				t="$h$p$w\n$a"
				[ "$(says "$t" notfound-line box)" = line ] || fail "not held whole: $t"
				t=$(printf '%b' "$a$p$w\n$h" | sed 's/$/\r/')
				[ "$(says "$t\n" notfound-line box)" = line ] || fail "CRLF: $t"
			done
		done
	done
}

@test "words class: another sandbox's name, a longer or shorter name, the words alone: not this sandbox missing" {
	local t
	for t in "error: sandbox 'box2' not found" "error: sandbox 'bo' not found" \
	    "error: sandbox 'my-box' not found" "error: no sandbox named box.old" \
	    "error: no sandbox named 'box_2'" "error: sandbox not found" \
	    "error: sandbox 'other' not found (box)" "error: \\xc2\\x9b box not found" \
	    "[sbx] Sandbox other started successfully\nerror: sandbox 'box2' not found" \
	    "error: no sandbox named\nbox"; do
		[ "$(says "$t\n" notfound-line box)" = no ] || fail "held: $t"
		[ "$(says "$t\n" notfound box)" = no ] || fail "read: $t"
	done
	# a name that is a prefix of another, both ways
	[ "$(says "error: sandbox 'pi-a-1' not found\n" notfound pi-a-12)" = no ]
	[ "$(says "error: sandbox 'pi-a-12' not found\n" notfound pi-a-1)" = no ]
	[ "$(says "error: sandbox 'pi-a-12' not found\n" notfound pi-a-12)" = yes ]
	# the name ends a sentence; a name with a dot in it
	[ "$(says "error: no sandbox named box.\n" notfound box)" = yes ]
	[ "$(says "error: no sandbox named 'a.b'\n" notfound a.b)" = yes ]
	[ "$(says "error: no sandbox named 'a.b'\n" notfound a)" = no ]
	# a name longer than any sandbox's, none at all
	long=$(printf 'b%.0s' $(seq 64))
	[ "$(says "error: no sandbox named $long\n" notfound "$long")" = no ]
	[ "$(says "error: no sandbox named box\n" notfound-line "$long")" = no ]
	[ "$(says "error: no sandbox named box\n" notfound)" = no ]
}

@test "words class: a command's line among sbx's, a control byte, a huge line, too many lines: never sbx's whole answer" {
	local t
	A="error: sandbox 'box' not found\n"
	for t in "hello\n$A" "$A""hello\n" "$A""error: something else\n" \
	    "$A""\x1b[31m\n" "\x00$A" "$A""  \x9b2J\n" "$A""  \xc2\x9b2J\n" "$A""WARN: \xff\n" "Daemon \x07 started\n$A" \
	    "$A""Building: step 1\n{\"a\":1}\n" "$A""ls: cannot access\n"; do
		[ "$(says "$t" notfound-line box)" = no ] || fail "held: $t"
	done
	# a line longer than sbx's
	big=$(printf 'x%.0s' $(seq 600))
	[ "$(says "WARN: $big\n$A" notfound-line box)" = no ]
	[ "$(says "error: sandbox 'box' not found $big\n" notfound-line box)" = no ]
	# more lines than an answer holds
	t=$(printf 'WARN: x\\n%.0s' $(seq 30))
	[ "$(says "$t$A" notfound-line box)" = no ]
	t=$(printf 'WARN: x\\n%.0s' $(seq 20))
	[ "$(says "$t$A" notfound-line box)" = line ]
	# noise alone is no answer yet: held, never read as one
	[ "$(says "$NOTICE_NEW$VERSIONS" notfound-line box)" = prefix ]
	[ "$(says "" notfound-line box)" = prefix ]
}

@test "words class: a prompt without a newline goes out at once; an unfinished line of sbx's is waited for" {
	# each prefix's answer: the last line unfinished is let go unless
	# it opens as sbx's lines do
	run -0 bash -c "printf 'Password: ' | '$TOP/test/tools/sbxsays' -p notfound-line box | sort -u | tr '\n' ' '"
	[ "$output" = "no prefix " ] || fail "$output"
	[ "$(says 'Password: ' notfound-line box)" = no ]
	[ "$(says "$NOTICE_NEW"'Continue? [y/N] ' notfound-line box)" = no ]
	[ "$(says 'Restart now? (y/N): ' restart-line)" = no ]
	for t in 'E' 'err' 'ERROR: no sandbox na' '[sb' '[sbx] error: sandbox' 'WARN: mcp'; do
		[ "$(says "$NOTICE_OLD$t" notfound-line box)" = prefix ] || fail "let go: $t"
	done
	# never taken back: once a complete line lets it go, every longer text is let go
	t="WARN: x\nhello\nerror: sandbox 'box' not found\n"
	run -0 bash -c "printf '%b' \"$t\" | '$TOP/test/tools/sbxsays' -p notfound-line box | uniq | tr '\n' ' '"
	[ "$output" = "prefix no " ] || fail "$output"
}

@test "words class: the restart and the race in every prefix and case, after versions and notices; each only as itself" {
	local p r
	for p in "${PREFIXES[@]}"; do
		for r in "ensure daemon: cannot prompt for restart: stdin is not a terminal; run the command in an interactive terminal to confirm the restart" \
		    "Cannot prompt for restart: --no-input is set; run 'sbx daemon restart'" \
		    "Docker Sandboxes has been updated and needs to restart. All running sandboxes will be stopped.\n${p}--no-input is set: run 'sbx daemon restart' to restart now"; do
			for a in '' "$VERSIONS" "$NOTICE_NEW" '\n'; do
				[ "$(says "$a$p$r\n" restart-line)" = line ] || fail "$a$p$r"
				[ "$(says "$a$p$r\n" restart)" = yes ] || fail "$a$p$r"
				[ "$(says "$a$p$r\n" race-line)" = no ] || fail "race: $a$p$r"
				[ "$(says "$a$p$r\n" notfound-line box)" = no ] || fail "missing: $a$p$r"
			done
		done
		for r in "ensure daemon: daemon exited unexpectedly: exit status 1\n${p}another daemon is already running (PID 4242)" \
		    "ANOTHER DAEMON IS ALREADY RUNNING (PID 1)" "Daemon exited unexpectedly: exit status 1"; do
			for a in '' "$NOTICE_OLD" "WARN: x\n"; do
				[ "$(says "$a$p$r\n" race-line)" = line ] || fail "$a$p$r"
				[ "$(says "$a$p$r\n" race)" = yes ] || fail "$a$p$r"
				[ "$(says "$a$p$r\n" restart-line)" = no ] || fail "restart: $a$p$r"
			done
		done
	done
	# a command's line with it: not sbx's whole answer
	[ "$(says "make: *** [all] Error 1\nerror: ensure daemon: daemon exited unexpectedly\n" race-line)" = no ]
	[ "$(says "cannot prompt for restart\nsegfault\n" restart-line)" = no ]
	[ "$(says "all fine\n" restart)" = no ]
	[ "$(says "all fine\n" race)" = no ]
}

@test "words class: cobra's refusals, the taken name and sbx's notices, in any case and prefix" {
	for p in "${PREFIXES[@]}"; do
		[ "$(says "${p}unknown command \"ports\" for \"sbx\"\nRun 'sbx --help' for usage.\n" verb ports)" = yes ] || fail "$p"
		[ "$(says "${p}Unknown Command \"PORTS\" for \"sbx\"\n" verb ports)" = yes ] || fail "$p"
		[ "$(says "${p}unknown command \"port\" for \"sbx\"\n" verb ports)" = no ] || fail "$p"
		[ "$(says "${p}unknown flag: --no-input\n" flag --no-input)" = yes ] || fail "$p"
		[ "$(says "${p}UNKNOWN FLAG: --no-input\r\n" flag --no-input)" = yes ] || fail "$p"
		[ "$(says "${p}unknown flag: --no-input-x\n" flag --no-input)" = no ] || fail "$p"
		[ "$(says "$NOTICE_NEW${p}request failed: 409 Conflict: sandbox \"x\" Already Exists\n" exists)" = yes ] || fail "$p"
	done
	for t in 'Starting sandboxd daemon...' 'Daemon started (PID: 6927, socket: /run/x.sock)' \
	    'Daemon started (PID 4)' 'Logs: /x/daemon.log' 'Stopping daemon at /x' \
	    '\xe2\x9c\x93 Daemon stopped successfully' "Sandbox 'box' started successfully" \
	    '[sbx] anything' 'WARN: mcp gateway' 'Client Version:  v0.55.0'; do
		[ "$(says "$t" notice)" = yes ] || fail "$t"
	done
	for t in '{"ID":"abc","Names":"web"}' '' '  indented' 'error: no such thing' 'plain words'; do
		[ "$(says "$t" notice)" = no ] || fail "$t"
	done
}

@test "unplaced class: a create answer no reader places fails 1 and shows sbx's first lines, escaped and bounded; the version and sbx-verify -S once per sbx" {
	echo 1 >"$SBX_STUB_DIR/rc.create"
	printf 'error: the moon \033[2J is \302\233 wrong\nsecond\n\nfourth\nfifth\nsixth\n' >"$SBX_STUB_DIR/err.create"
	printf 'Client Version:  v0.99.0 \033]0;x\007\n' >"$SBX_STUB_DIR/out.version"
	run -1 --separate-stderr sbx-run -s "$N" ps
	[ "${stderr_lines[0]}" = "sbx-run: sbx create: sbx answered (exit 1) in words sbx-tools cannot place:" ] || fail "$stderr"
	[ "${stderr_lines[1]}" = '  error: the moon \033[2J is \302\233 wrong' ] || fail "$stderr"
	[ "${stderr_lines[6]}" = "  ..." ] || fail "$stderr"
	[[ ${stderr_lines[7]} == "sbx-run: sbx Client Version:  v0.99.0 \\033]0;x\\007: run 'sbx-verify -S'"* ]] || fail "$stderr"
	[ "${stderr_lines[8]}" = "sbx-run: sandbox $N: sbx create failed (exit 1)" ] || fail "$stderr"
	# no byte of a control reaches the terminal
	! printf '%s' "$stderr" | LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')"
	! printf '%s' "$stderr" | LC_ALL=C grep -q "$(printf '\302\233')"
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
	# once per sbx: the next failure shows the lines, not the version
	n=$(stub_count version)
	run -1 --separate-stderr sbx-run -s "$N" ps
	[[ $stderr != *"sbx-verify -S"* ]] || fail "$stderr"
	[ "$(stub_count version)" -eq "$n" ]
	# another sbx binary: once more
	cp "$TOP/test/bin/sbx" "$BATS_TEST_TMPDIR/sbx"
	DOCKER_SANDBOX_SBX="$BATS_TEST_TMPDIR/sbx" run -1 --separate-stderr sbx-run -s "$N" ps
	[[ $stderr == *"sbx-verify -S"* ]] || fail "$stderr"
	# a line longer than shown is cut, and says so
	printf 'error: %0500d\n' 0 >"$SBX_STUB_DIR/err.create"
	run -1 --separate-stderr sbx-run -s "$N" ps
	[ "${#stderr_lines[1]}" -le 210 ] && [[ ${stderr_lines[1]} == *" ..." ]] || fail "$stderr"
}

@test "race class: the race retried when every line of sbx's answer carries its prefix, after notices; the command runs once" {
	local t
	stub_sandbox "$N" running
	export SBX_STUB_EXEC_RUN=1
	for t in 'ERROR: ensure daemon: daemon exited unexpectedly: exit status 1\nERROR: another daemon is already running (PID 4242)\n' \
	    'error: ensure daemon: daemon exited unexpectedly: exit status 1\nerror: another daemon is already running (PID 4242)\n' \
	    'Starting sandboxd daemon...\nDaemon started (PID: 6927, socket: /home/u/.local/state/sandboxes/sandboxd.sock)\n[sbx] Error: Another daemon is already running (PID 4242)\r\nWARN: x\n'; do
		rm -rf "$SBX_STUB_DIR/calls" "$SBX_STUB_DIR/seq" "$RAN"
		printf '%b' "$t" >"$SBX_STUB_DIR/race.text"
		echo 1 >"$SBX_STUB_DIR/race.exec"
		run -0 --separate-stderr sbx-run -x -s "$N" sh -c "echo ran >>$RAN"
		[ -z "$stderr" ] || fail "$t: $stderr"
		[ "$(ran)" -eq 1 ] || fail "$t"
		[ "$(exec_calls)" = "exec ask exec " ] || fail "$t: $(exec_calls)"
	done
	# the same words from the command itself: asked about, not run again
	rm -rf "$SBX_STUB_DIR/calls" "$SBX_STUB_DIR/seq" "$RAN"
	run -1 --separate-stderr sbx-run -x -s "$N" sh -c \
	    "echo ran >>$RAN; printf 'ERROR: daemon exited unexpectedly\nERROR: another daemon is already running\n' >&2; exit 1"
	[ "$(ran)" -eq 1 ]
	[ "$(exec_calls)" = "exec ask policy " ] || fail "$(exec_calls)"
	[[ $stderr == "ERROR: daemon exited unexpectedly"* ]] || fail "$stderr"
}

@test "policy class: nothing to remove and no rule matched, in any case and prefix; the near misses are no" {
	for p in "${PREFIXES[@]}"; do
		[ "$(says "${p}no network rules match resource=web.test in sandbox:x\n" nomatch)" = yes ] || fail "$p"
		[ "$(says "${p}No Matching Rule for web.test\n" nomatch)" = yes ] || fail "$p"
		[ "$(says "${p}no such rule: r-12\n" nomatch)" = yes ] || fail "$p"
		[ "$(says "${p}no applicable policies for op=(action:net:connect:tcp, resource=net:domain:a:443)\n" norule)" = yes ] || fail "$p"
		[ "$(says "${p}No matching allow rule (default deny)\n" norule)" = yes ] || fail "$p"
	done
	for t in 'policy removed: r-1 (web.test)' 'error: permission denied' 'sandbox rules matched' ''; do
		[ "$(says "$t" nomatch)" = no ] || fail "$t"
	done
	for t in 'deny rule r-1' 'denied by network policy' ''; do
		[ "$(says "$t" norule)" = no ] || fail "$t"
	done
}
