#!/usr/bin/env bats
# sbx's own words against the simulator (tier 2), on its profiles and
# faults: a missing sandbox provisioned in each era's words and behind
# sbx's notices; the restart an upgrade waits for, met by every program in
# one line and exit 69; the daemon start race; and sbx never given the
# caller's terminal or data, which the simulator's prompts would show.

load ../helpers/sim-helper

FIX="sbx was upgraded and its daemon must restart, which stops every sandbox: run 'sbx daemon restart', or 'sbx ls' in a terminal and confirm"

setup_file() {
	sim_setup_file
	sim_session_file
	unset SBX_SIM_PROFILE
	export PATH="$TOP/sbx-ports:$TOP/sbx-gc:$TOP/sbx-watch:$PATH"
}

teardown_file() {
	sim_teardown_file
}

setup() {
	sim_setup_test "$WS"
	"$SIM" sim-reset
}

verbs_after() {
	sim_calls_after "$1" | cut -d' ' -f3 | tr '\n' ' '
}

@test "sim wording class: every profile's missing sandbox is provisioned, the command once, behind notices and [sbx] too" {
	local p f k=0
	for p in 0.46 0.47 0.55; do
		# another profile is another sbx binary: its own --no-input
		rm -f "$SBX_STATE_DIR/sbx-no-input"
		for f in "" notice-stderr sbx-prefix autostart-notice; do
			k=$((k + 1))
			"$SIM" sim-reset
			n=$(sim_ncalls)
			SBX_SIM_PROFILE=$p SBX_SIM_FAULT=$f run -0 --separate-stderr \
			    sbx-run -s "say-$k" -x sh -c "echo ran >>'$WS/ran-$k'"
			[ "$(wc -l <"$WS/ran-$k")" -eq 1 ] || fail "$p $f: $stderr $(sim_calls_after "$n")"
			# (0.46 and 0.47 refuse --no-input once: one more create)
			case $p:$k in
			0.46:1 | 0.47:5) want="exec create create exec " ;;
			*) want="exec create exec " ;;
			esac
			[ "$(verbs_after "$n")" = "$want" ] || fail "$p $f: $(sim_calls_after "$n")"
			# only the auto-start notice of the second exec may show
			[ -z "$(sim_drop_own <<<"$stderr")" ] || [ "$f" = autostart-notice ] || fail "$p $f: $stderr"
			"$SIM" rm --force "say-$k"
		done
	done
}

@test "sim wording class: sbx's notices on stdout stay out of docker's JSON: sbx-ports sync still reads it" {
	# (a restart policy brings the container back when the VM starts)
	run -0 sbx-run -s say-ps run -d --restart always --name web -p 8080:80 busybox:local sleep 600
	"$SIM" stop say-ps
	"$SIM" sim-reset
	# the daemon's notices before the ports listing, the auto-start's
	# inside docker ps's JSON lines
	SBX_SIM_FAULT=notice-stdout,autostart-notice-stdout run -0 --separate-stderr sbx-ports -s say-ps sync
	[ -z "$(sim_drop_own <<<"$stderr")" ] || fail "$stderr"
	[[ $(sbx-ports -s say-ps ls) == *" -> 8080/tcp"* ]] || fail "$(sbx-ports -s say-ps ls)"
	"$SIM" rm --force say-ps
}

@test "sim restart class: every program says it in one line and exits 69; once confirmed, all works and the sandbox was stopped" {
	run -0 sbx-run -s say-r -x true
	export SBX_SIM_FAULT=restart
	n=$(sim_ncalls)
	run -69 --separate-stderr sbx-run -s say-r -x sh -c "echo ran >>'$WS/ran-r'"
	[ "$stderr" = "sbx-run: $FIX" ] || fail "$stderr"
	[ ! -e "$WS/ran-r" ]
	run -69 --separate-stderr sbx-run -s say-new -x true
	[ "$stderr" = "sbx-run: $FIX" ] || fail "$stderr"
	[ ! -e "$SBX_STATE_DIR/say-new.created" ]
	run -69 --separate-stderr sbx-ports -s say-r ls
	[ "$stderr" = "sbx-ports: $FIX" ] || fail "$stderr"
	run -69 --separate-stderr sbx-gc -H 0
	[ "$stderr" = "sbx-gc: $FIX" ] || fail "$stderr"
	run -69 --separate-stderr sbx-watch -n say-r
	[ "$stderr" = "sbx-watch: $FIX" ] || fail "$stderr"
	# with a terminal as their stdin too: sbx is never asked
	run -69 on_tty sbx-run -s say-r -x true
	[ ! -e "$SBX_SIM_ROOT/prompts.log" ] || fail "asked: $(cat "$SBX_SIM_ROOT/prompts.log")"
	[ "$(sim_calls_after "$n" | grep -vc ' 1 ')" -eq 0 ]
	# a person confirms: every sandbox stopped, and the tools work again
	IN=y run -0 on_tty "$SIM" ls -q
	[ "$(sim_look ls --json | json_get '[s["status"] for s in d["sandboxes"] if s["name"] == "say-r"][0]')" = stopped ]
	run -0 sbx-run -s say-r -x true
	run -0 sbx-watch -n say-r
}

@test "sim race class: the call that lost the daemon start race is made again: sbx-gc and sbx-ports do not fail" {
	run -0 sbx-run -s say-g -x true
	export SBX_SIM_FAULT=race
	"$SIM" sim-reset
	n=$(sim_ncalls)
	run -0 --separate-stderr sbx-ports -s say-g ls
	[ -z "$(sim_drop_own <<<"$stderr")" ] || fail "$stderr"
	[ "$(sim_calls_after "$n" | cut -d' ' -f2 | tr '\n' ' ')" = "1 0 " ]
	"$SIM" sim-reset
	run -0 --separate-stderr sbx-gc -H 0
	[ -z "$(sim_drop_own <<<"$stderr")" ] || fail "$stderr"
	"$SIM" rm --force say-g
}

@test "sim race class: sbx-run's exec that lost the race is made again once its mark shows it never began; the command runs once" {
	run -0 sbx-run -s say-g -x true
	export SBX_SIM_FAULT=race
	"$SIM" sim-reset
	n=$(sim_ncalls)
	run -0 --separate-stderr sbx-run -s say-g -x sh -c 'echo ran >>/tmp/race-ran; wc -l </tmp/race-ran'
	[ -z "$(sim_drop_own <<<"$stderr")" ] || fail "$stderr"
	[ "$output" = 1 ] || fail "$output"
	[ "$(sim_calls_after "$n" | cut -d' ' -f2,3 | tr '\n' ' ')" = "1 exec 0 exec 0 exec " ] ||
	    fail "$(sim_calls_after "$n")"
	sim_calls_after "$n" | sed -n 2p | grep -q sbx-run-ask
	# a command's own copy of the answer is its own: not made again
	"$SIM" sim-reset
	"$SIM" ls >/dev/null 2>&1 || :	# the race, spent
	run -1 --separate-stderr sbx-run -s say-g -x sh -c \
	    'echo ran >>/tmp/race-ran; echo "ERROR: ensure daemon: daemon exited unexpectedly: exit status 1" >&2; exit 1'
	[ "$(sim_drop_own <<<"$stderr")" = "ERROR: ensure daemon: daemon exited unexpectedly: exit status 1" ] || fail "$stderr"
	run -0 --separate-stderr sbx-run -s say-g -x sh -c 'wc -l </tmp/race-ran'
	[ "$output" = 2 ] || fail "$output"
	"$SIM" rm --force say-g
}

@test "sim stdin class: with a terminal or a pipe as stdin, sbx asks nothing and reads nothing; -i gives it to exec alone" {
	# a terminal: the first create's secret import and a sign-in would ask
	SBX_SIM_FAIL=create:1:auth IN=hello run -1 on_tty sbx-run -s say-t -x true
	[[ ${output,,} == *"not authenticated to docker"* ]] || fail "$output"
	IN=hello run -0 on_tty sbx-run -s say-t -x true
	[ ! -e "$SBX_SIM_ROOT/prompts.log" ] || fail "asked: $(cat "$SBX_SIM_ROOT/prompts.log")"
	# a pipe: only -i's exec reads it
	run -0 --separate-stderr sbx-run -s say-t -x cat < <(echo data)
	[ -z "$output" ]
	run -0 --separate-stderr sbx-run -i -s say-t -x cat < <(echo data)
	[ "$output" = data ]
	# --no-input on every call of sbx's own words (0.55), never on exec
	n=$(sim_ncalls)
	run -0 sbx-watch -n say-t
	[ "$(verbs_after "$n")" = "rm " ]
	[ "$(tail -n 1 "$SBX_SIM_ROOT/no-input.log" | cut -d' ' -f2)" = rm ]
	! cut -d' ' -f2 "$SBX_SIM_ROOT/no-input.log" | grep -qx exec
}

@test "sim no-input class: 0.46 and 0.47 refuse --no-input; the refusal costs one call, once" {
	local p
	for p in 0.46 0.47; do
		rm -f "$SBX_STATE_DIR/sbx-no-input"
		n=$(sim_ncalls)
		SBX_SIM_PROFILE=$p run -0 --separate-stderr sbx-run -s "say-n${p#0.}" -x true
		[ "$(verbs_after "$n")" = "exec create create exec " ] || fail "$p: $(sim_calls_after "$n")"
		n=$(sim_ncalls)
		SBX_SIM_PROFILE=$p run -0 sbx-watch -n "say-n${p#0.}"
		[ "$(verbs_after "$n")" = "rm " ] || fail "$p: $(sim_calls_after "$n")"
	done
	rm -f "$SBX_STATE_DIR/sbx-no-input"
}

# lie TEXT: a command that prints TEXT (printf %b) on stderr, exits 1
lie() {
	sbx-run -s "$1" -x sh -c 'echo ran >>"$1"; printf "%b" "$2" >&2; exit 1' sh "$WS/ran-$1" "$2"
}

@test "sim lying words class: a command that prints sbx's own answers and exits 1 runs once, is never provisioned again nor retried" {
	local t v
	run -0 sbx-run -s say-l -x true
	V='Client Version:  v0.55.0\nServer Version:  v0.54.0 9d1e2f3a\n\n'
	S='Starting sandboxd daemon...\nDaemon started (PID: 6927, socket: /root/.local/state/sandboxes/sandboxes/sandboxd/sandboxd.sock)\nLogs: /root/daemon.log\n'
	for t in "error: sandbox 'say-l' not found\n  try: sbx ls\n" \
	    "${V}ERROR: no sandbox named say-l\n\nTo create one:\n  sbx create AGENT WORKSPACE\n" \
	    "${S}[sbx] Sandbox \"say-l\" not found\r\n" \
	    "${V}error: ensure daemon: cannot prompt for restart: --no-input is set\n" \
	    "Docker Sandboxes has been updated and needs to restart.\nERROR: run 'sbx daemon restart'\n" \
	    "${S}ERROR: ensure daemon: daemon exited unexpectedly: exit status 1\nERROR: another daemon is already running (PID 4242)\n"; do
		rm -f "$WS/ran-say-l"
		n=$(sim_ncalls)
		run -1 --separate-stderr lie say-l "$t"
		[ "$(wc -l <"$WS/ran-say-l")" -eq 1 ] || fail "ran twice: $t"
		# (sbx's own varied lines around them dropped)
		[ "$(sim_drop_own <<<"$stderr")" = "$(printf '%b' "$t" | sim_drop_own)" ] ||
		    fail "words: $stderr"
		v=$(verbs_after "$n")
		# one call that tells the lie apart, never a create or a second
		# run; then, the call having failed, one look at what sbx blocked
		case $v in
		"exec ls policy " | "exec version policy " | "exec exec policy ") ;;
		*) fail "$t: $(sim_calls_after "$n")" ;;
		esac
	done
	# a sandbox no marker speaks for: sbx create itself says it exists
	run -0 sbx-run -s say-m -x true
	rm -f "$SBX_STATE_DIR/say-m.created"
	n=$(sim_ncalls)
	run -1 --separate-stderr lie say-m "ERROR: no sandbox named 'say-m'\n"
	[ "$(wc -l <"$WS/ran-say-m")" -eq 1 ]
	[ "$(verbs_after "$n")" = "exec create policy " ] || fail "$(sim_calls_after "$n")"
	[ "$(sim_drop_own <<<"$stderr")" = "ERROR: no sandbox named 'say-m'" ] || fail "$stderr"
	"$SIM" rm --force say-l
	"$SIM" rm --force say-m
}

@test "sim lying words class: a not-found line of another sandbox, or one among the command's lines, is the command's: no call at all" {
	run -0 sbx-run -s say-o -x true
	for t in "error: sandbox 'say-o2' not found\n" "error: sandbox 'say' not found\n" \
	    "building...\nerror: sandbox 'say-o' not found\n"; do
		n=$(sim_ncalls)
		run -1 --separate-stderr lie say-o "$t"
		[ "$(verbs_after "$n")" = "exec policy " ] || fail "$t: $(sim_calls_after "$n")"
		[ "$(sim_drop_own <<<"$stderr")" = "$(printf '%b' "$t" | sim_drop_own)" ] ||
		    fail "$stderr"
	done
	"$SIM" rm --force say-o
}

@test "sim steady class: reading sbx by its words costs nothing when all goes well: one sbx call per program call" {
	run -0 sbx-run -s say-s -x true
	n=$(sim_ncalls)
	run -0 --separate-stderr sbx-run -s say-s -x sh -c 'echo out; echo err >&2'
	[ "$output" = out ] && [ "$(sim_drop_own <<<"$stderr")" = err ] ||
	    fail "$output / $stderr"
	[ "$(verbs_after "$n")" = "exec " ] || fail "$(sim_calls_after "$n")"
	n=$(sim_ncalls)
	run -0 sbx-ports -s say-s ls
	[ "$(sim_calls_after "$n" | wc -l)" -eq 1 ] || fail "$(sim_calls_after "$n")"
	n=$(sim_ncalls)
	run -0 sbx-watch -n say-s
	[ "$(verbs_after "$n")" = "rm " ] || fail "$(sim_calls_after "$n")"
}
