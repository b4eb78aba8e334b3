#!/usr/bin/env bats
# The simulator's profiles and sbx's own words (tier 2): each release's
# version, error lines and --no-input; the restart an upgrade asks for,
# the daemon's notices, the start race, the auto-start notice, ls --json
# with a WARN: line or a null array, [sbx] errors; and the prompts sbx
# makes only on a terminal.  test/sbx-sim/README.md, "Profiles", gives
# each one's source.

load ../helpers/sim-helper

setup_file() {
	sim_setup_file
	# each test names the profile it is about; unset is the default
	unset SBX_SIM_PROFILE
	# each profile's own words; the tests of SBX_SIM_WORDS=vary say so
	export SBX_SIM_WORDS=exact
	export WSP="$BATS_FILE_TMPDIR/wsp"
	mkdir -p "$WSP"
	[ -n "$SIM_MISSING" ] && return 0
	"$SIM" create --quiet --name pro-a shell "$WSP" 3>&-
}

teardown_file() {
	sim_teardown_file
}

setup() {
	sim_setup_test "$WSP"
	"$SIM" sim-reset
}

@test "profiles: each release's version and version --json; an unknown profile fails every call" {
	SBX_SIM_PROFILE=0.46 run -0 "$SIM" version
	[[ $output =~ ^sbx\ version:\ v0\.46\.0\ [0-9a-f]{40}$ ]]
	SBX_SIM_PROFILE=0.46 run -0 "$SIM" version --json
	[ "$(json_get 'sorted(d)' <<<"$output")" = '["commit", "version"]' ]
	for p in 0.47 0.55; do
		SBX_SIM_PROFILE=$p run -0 "$SIM" version
		[[ $output =~ ^sbx\ version:\ v${p/./\\.}\.0\ [0-9a-f]{40}$ ]] || fail "$p: $output"
		SBX_SIM_PROFILE=$p run -0 "$SIM" version --json
		[ "$(json_get 'd["client"]["version"]' <<<"$output")" = "v$p.0" ]
		[ "$(json_get 'd["server"]["state"]' <<<"$output")" = running ]
		[ "$(json_get 'd["server"]["version"]' <<<"$output")" = "v$p.0" ]
	done
	run -0 "$SIM" version
	[[ $output == "sbx version: v0.55.0 "* ]]
	SBX_SIM_PROFILE=0.50 run -1 --separate-stderr "$SIM" ls
	[[ $stderr == *"SBX_SIM_PROFILE must be"* ]]
}

@test "profiles: error lines are ERROR: up to 0.46, error: with try: hints after" {
	SBX_SIM_PROFILE=0.46 run -1 --separate-stderr "$SIM" ls --bogus
	[ "$stderr" = "ERROR: unknown flag: --bogus" ]
	SBX_SIM_PROFILE=0.47 run -1 --separate-stderr "$SIM" ls --bogus
	[ "$stderr" = "error: unknown flag: --bogus" ]
	SBX_SIM_FAIL=ls:1:auth run -1 --separate-stderr "$SIM" ls
	[ "$stderr" = "$(printf 'error: Not authenticated to Docker\n  try: sbx login')" ]
	# inside the sandbox's exec, too
	SBX_SIM_PROFILE=0.46 run -127 --separate-stderr "$SIM" exec pro-a -- no-such-cmd
	[[ $stderr == 'ERROR: exec: "no-such-cmd"'* ]]
	run -127 --separate-stderr "$SIM" exec pro-a -- no-such-cmd
	[[ $stderr == 'error: exec: "no-such-cmd"'* ]]
}

@test "profiles: --no-input is a global flag of 0.55 only; older ones refuse it as an unknown flag, logged" {
	run -0 "$SIM" --no-input ls -q
	[ "$output" = pro-a ]
	run -0 "$SIM" ls --no-input -q
	[ "$output" = pro-a ]
	for p in 0.46 0.47; do
		n=$(sim_calls_after 0 | wc -l)
		SBX_SIM_PROFILE=$p run -1 --separate-stderr "$SIM" ls --no-input --json
		[ "$stderr" = "$(SBX_SIM_PROFILE=$p sim_errword): unknown flag: --no-input" ] || fail "$p: $stderr"
		[ -z "$output" ]
		[ "$(sim_calls_after "$n" | cut -d' ' -f2-)" = "1 ls --json" ]
		[ "$(tail -n 1 "$SBX_SIM_ROOT/no-input.log" | cut -d' ' -f2)" = ls ]
	done
}

@test "fault restart: without a terminal every call, version too, fails with the restart text and touches nothing" {
	export SBX_SIM_FAULT=restart
	"$SIM" exec pro-a -- true 2>/dev/null && fail "exec ran"
	for args in version "ls --json" "exec pro-a -- true" "rm --force pro-a" "stop pro-a"; do
		# shellcheck disable=SC2086
		run -1 --separate-stderr "$SIM" $args </dev/null
		# 0.55: the version lines first (#381)
		[[ $stderr =~ ^Client\ Version:\ \ v0\.55\.0\ [0-9a-f]{40}$'\n'Server\ Version:\ \ v0\.54\.0\ [0-9a-f]{40}$'\n\n'"error: ensure daemon: cannot prompt for restart: stdin is not a terminal; run the command in an interactive terminal to confirm the restart"$ ]] ||
		    fail "$args: $stderr"
		[ -z "$output" ]
	done
	SBX_SIM_PROFILE=0.46 run -1 --separate-stderr "$SIM" ls </dev/null
	[[ $stderr == "ERROR: ensure daemon: cannot prompt for restart: stdin is not a terminal;"* ]]
	# a pipe is no terminal; --no-input on a terminal refuses too
	run -1 --separate-stderr "$SIM" ls -q < <(echo y)
	IN=y run -1 on_tty "$SIM" --no-input ls -q
	[[ $output == *"cannot prompt for restart: --no-input is set"* ]]
	[ ! -e "$SBX_SIM_ROOT/prompts.log" ]
	unset SBX_SIM_FAULT
	run -0 "$SIM" ls -q
	[ "$output" = pro-a ]
}

@test "fault restart: on a terminal sbx asks; n keeps failing, y stops every sandbox and calls work again" {
	run -0 "$SIM" exec pro-a -- true
	export SBX_SIM_FAULT=restart
	IN=n run -1 on_tty "$SIM" ls -q
	[[ $output == *"Client Version:  v0.55.0 "* ]]
	[[ $output == *"Docker Sandboxes has been updated and needs to restart. All running sandboxes will be stopped."$'\r\n'"Restart now? (y/N): "* ]] || fail "$output"
	[[ $output == *"restart not confirmed"* ]]
	IN=y run -0 on_tty "$SIM" ls --json
	[[ $output == *'"status": "stopped"'* ]]
	[ "$(grep -c ' ls restart$' "$SBX_SIM_ROOT/prompts.log")" -eq 2 ]
	run -0 "$SIM" ls -q </dev/null
	# sim-reset brings the fault back
	"$SIM" sim-reset
	run -1 "$SIM" ls -q </dev/null
}

@test "fault notice-stdout and notice-stderr: the daemon's notices on the first call after sim-reset only" {
	local want
	want="$(printf 'Starting sandboxd daemon\\.\\.\\.\nDaemon started \\(PID: [0-9]+, socket: [^\n]+/\\.local/state/sandboxes/sandboxes/sandboxd/sandboxd\\.sock\\)\nLogs: [^\n]+/daemon\\.log')"
	SBX_SIM_FAULT=notice-stderr run -0 --separate-stderr "$SIM" ls -q
	[ "$output" = pro-a ]
	[[ $stderr =~ ^$want$ ]] || fail "$stderr"
	SBX_SIM_FAULT=notice-stderr run -0 --separate-stderr "$SIM" ls -q
	[ -z "$stderr" ]
	"$SIM" sim-reset
	SBX_SIM_FAULT=notice-stdout run -0 --separate-stderr "$SIM" exec pro-a -- echo hi
	[ -z "$stderr" ]
	[[ $output =~ ^$want$'\n'hi$ ]] || fail "$output"
	SBX_SIM_FAULT=notice-stdout run -0 "$SIM" exec pro-a -- echo hi
	[ "$output" = hi ]
}

@test "fault race: the first call after sim-reset loses the daemon start race and does nothing; the next works" {
	export SBX_SIM_FAULT=race
	run -1 --separate-stderr "$SIM" exec pro-a -- touch /tmp/raced
	[ "$stderr" = "$(printf 'error: ensure daemon: daemon exited unexpectedly: exit status 1\nanother daemon is already running (PID %s)' "${stderr##*PID }" | sed 's/)$//')" ] ||
	    [[ $stderr =~ ^error:\ ensure\ daemon:\ daemon\ exited\ unexpectedly:\ exit\ status\ 1$'\n'another\ daemon\ is\ already\ running\ \(PID\ [0-9]+\)$ ]] ||
	    fail "$stderr"
	run -1 "$SIM" exec pro-a -- test -e /tmp/raced
	run -0 "$SIM" exec pro-a -- true
}

@test "fault autostart-notice: an exec that starts a stopped sandbox says so, on the stream asked" {
	for s in stderr stdout; do
		run -0 "$SIM" stop pro-a
		SBX_SIM_FAULT=autostart-notice-$s run -0 --separate-stderr "$SIM" exec pro-a -- echo hi
		if [ $s = stderr ]; then
			[ "$stderr" = "Sandbox pro-a started successfully" ] && [ "$output" = hi ] ||
			    fail "$s: $stderr / $output"
		else
			[ -z "$stderr" ] && [ "$output" = "$(printf 'Sandbox pro-a started successfully\nhi')" ] ||
			    fail "$s: $stderr / $output"
		fi
		# running already: nothing to say
		SBX_SIM_FAULT=autostart-notice-$s run -0 --separate-stderr "$SIM" exec pro-a -- echo hi
		[ "$output" = hi ] && [ -z "$stderr" ]
	done
	run -0 "$SIM" stop pro-a
	SBX_SIM_FAULT=autostart-notice run -0 --separate-stderr "$SIM" exec pro-a -- true
	[ "$stderr" = "Sandbox pro-a started successfully" ]
}

@test "fault ls-warn and ls-null: a WARN: line after the document; an empty list as null" {
	SBX_SIM_FAULT=ls-warn run -0 --separate-stderr "$SIM" ls --json
	[ "${lines[-1]}" = "WARN: mcp gateway teardown: context deadline exceeded" ]
	[ "${lines[-2]}" = "}" ]
	SBX_SIM_ROOT=$(mktemp -d /tmp/sbxsim.XXXXXX)
	SBX_SIM_FAULT=ls-null run -0 "$SIM" ls --json
	[ "$output" = "$(printf '{\n  "sandboxes": null\n}')" ]
	run -0 "$SIM" ls --json
	[ "$output" = "$(printf '{\n  "sandboxes": []\n}')" ]
	"$SIM" sim-cleanup
}

@test "fault sbx-prefix: exec's own failures come as [sbx] ERROR: (or error:)" {
	SBX_SIM_FAULT=sbx-prefix SBX_SIM_FAIL=exec:1:start run -1 --separate-stderr "$SIM" exec pro-a -- true
	[ "$stderr" = "[sbx] error: failed to start sandbox: start runtime: request failed: 500 Internal Server Error" ]
	SBX_SIM_PROFILE=0.46 SBX_SIM_FAULT=sbx-prefix run -1 --separate-stderr "$SIM" exec no-such -- true
	[[ $stderr == "[sbx] ERROR: no sandbox named 'no-such'"* ]]
	SBX_SIM_FAULT=sbx-prefix run -1 --separate-stderr "$SIM" ls --bogus
	[ "$stderr" = "error: unknown flag: --bogus" ]
}

@test "prompts: a terminal gets the sign-in and the first-run secret import; a pipe, /dev/null and --no-input get none" {
	# no terminal: the auth failure, and no question
	SBX_SIM_FAIL=ls:1:auth run -1 "$SIM" ls -q < <(echo)
	run -1 "$SIM" create --quiet --name pro-x shell "$BATS_TEST_TMPDIR/nope" </dev/null
	[ ! -e "$SBX_SIM_ROOT/prompts.log" ]
	# a terminal: the device-code flow waits on it, then the call goes on
	"$SIM" sim-reset
	SBX_SIM_FAIL=ls:1:auth IN= run -0 on_tty "$SIM" ls -q
	[[ $output == *"one-time device code"* ]]
	grep -q ' ls sign-in$' "$SBX_SIM_ROOT/prompts.log"
	IN=n run -1 on_tty "$SIM" create --quiet --name pro-x shell "$BATS_TEST_TMPDIR/nope"
	[[ $output == *"[y/N]"* ]]
	grep -q ' create secret-import$' "$SBX_SIM_ROOT/prompts.log"
	# --no-input on a terminal: asked nothing
	rm "$SBX_SIM_ROOT/prompts.log"
	"$SIM" sim-reset
	SBX_SIM_FAIL=ls:1:auth IN= run -1 on_tty "$SIM" --no-input ls -q
	IN=n run -1 on_tty "$SIM" create --no-input --quiet --name pro-x shell "$BATS_TEST_TMPDIR/nope"
	[ ! -e "$SBX_SIM_ROOT/prompts.log" ]
}

# SBX_SIM_WORDS=vary (README.md, "Words"): a fixed sequence of calls
# that need no sandbox, under seed $1, in the root $3 or one of its own;
# each call's status, stdout (O|) and stderr (E|) into the file $2.
words_seq() {
	local root=${3:-} args
	[ -n "$root" ] || root=$(mktemp -d /tmp/sbxsim.XXXXXX)
	(
		export SBX_SIM_ROOT=$root SBX_SIM_WORDS=vary SBX_SIM_SEED=$1
		unset SBX_SIM_FAULT
		for args in "exec nope -- true" "ls --bogus" "rm --force nope" "stop nope" \
		    "ls --json" "version" "inspect nope" "port ls nope --json" \
		    "create --name bad- shell" "exec -d nope -- true" "frob"; do
			printf '== %s\n' "$args"
			# shellcheck disable=SC2086
			rc=0
			"$SIM" $args >"$root.o" 2>"$root.e" </dev/null || rc=$?
			printf 'rc=%s\n' "$rc"
			sed 's/^/O|/' "$root.o"
			sed 's/^/E|/' "$root.e"
		done
		printf '== restart\n'
		SBX_SIM_FAULT=restart "$SIM" --no-input ls -q 2>&1 </dev/null | sed 's/^/B|/'
		"$SIM" sim-reset || exit 1
		printf '== race\n'
		SBX_SIM_FAULT=race "$SIM" ls -q 2>&1 </dev/null | sed 's/^/B|/'
	) >"$2"
	rm -f "$root.o" "$root.e"
	[ -n "${3:-}" ] || SBX_SIM_ROOT=$root "$SIM" sim-cleanup
}

@test "words vary: a seed replays its lines exactly; another seed prints others; an unknown mode or seed fails every call" {
	words_seq 7 "$BATS_TEST_TMPDIR/a"
	words_seq 7 "$BATS_TEST_TMPDIR/b"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	words_seq 8 "$BATS_TEST_TMPDIR/c"
	! cmp -s "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/c"
	# the calls came in the same order and ended the same way
	[ "$(grep -E '^(==|rc=)' "$BATS_TEST_TMPDIR/a")" = "$(grep -E '^(==|rc=)' "$BATS_TEST_TMPDIR/c")" ]
	SBX_SIM_WORDS=some run -1 --separate-stderr "$SIM" ls -q
	[[ $stderr == *"SBX_SIM_WORDS must be exact or vary"* ]]
	SBX_SIM_WORDS=vary SBX_SIM_SEED=x1 run -1 --separate-stderr "$SIM" ls -q
	[[ $stderr == *"SBX_SIM_SEED must be a number"* ]]
}

@test "words vary: across seeds every variation appears, and each answer keeps its stable words and its data" {
	local all=$BATS_TEST_TMPDIR/all f want sec root
	: >"$all"
	# one root for all (a cleanup each would cost more than the calls)
	root=$(mktemp -d /tmp/sbxsim.XXXXXX)
	for s in $(seq 1 40); do
		f=$BATS_TEST_TMPDIR/s$s
		words_seq "$s" "$f" "$root"
		cat "$f" >>"$all"
		# per call: the status and the meaning stay
		awk '/^== /{ c = substr($0, 4) } { print c "\t" $0 }' "$f" >"$f.t"
		sec() { grep -F "$1"$'\t' "$f.t" | cut -f2-; }
		[ "$(sec 'exec nope -- true' | grep -c '^rc=1$')" -eq 1 ] || fail "seed $s exec"
		sec 'exec nope -- true' | grep -qi '^E|.*\(nope.* not found\|no sandbox named.*nope\)' || fail "seed $s: $(sec 'exec nope -- true')"
		# exec's stdout is the command's: nothing of sbx's own
		! sec 'exec nope -- true' | grep -q '^O|' || fail "seed $s: exec stdout"
		for v in 'rm --force nope' 'stop nope' 'inspect nope' 'port ls nope --json'; do
			sec "$v" | grep -qi '^E|.*\(sandbox .\?nope.\? not found\|no sandbox named .\?nope\)' || fail "seed $s $v: $(sec "$v")"
		done
		sec 'ls --bogus' | grep -qi '^E|.*unknown flag: --bogus$' || fail "seed $s: $(sec 'ls --bogus')"
		sec 'frob' | grep -qi '^E|.*unknown command "frob" for "sbx"$' || fail "seed $s: $(sec frob)"
		sec 'exec -d nope -- true' | grep -qi '^E|.*--detach is not supported for exec' || fail "seed $s: $(sec 'exec -d nope -- true')"
		sec 'create --name bad- shell' | grep -qi '^E|.*must end with an alphanumeric character' || fail "seed $s: create"
		sec restart | grep -qi 'cannot prompt for restart\|needs to restart' || fail "seed $s: $(sec restart)"
		sec race | grep -qi 'daemon exited unexpectedly' && sec race | grep -qi 'another daemon is already running' ||
		    fail "seed $s: $(sec race)"
		# data stays data: the JSON document whole, the version line
		sec 'ls --json' | sed -n 's/^O|//p' | sed -n '/^{$/,/^}$/p' | json_get 'd["sandboxes"]' | grep -qx '\[\]' ||
		    fail "seed $s: $(sec 'ls --json')"
		sec version | grep -q '^O|sbx version: v0\.55\.0 [0-9a-f]\{40\}$' || fail "seed $s: $(sec version)"
	done
	for want in '^E|ERROR: ' '^E|error: ' '^E|Error: ' '^E|\[sbx\] ERROR: ' '^E|\[sbx\] error: ' '^E|\[sbx\] [a-zA-Z]' \
	    '^E|sandbox ' '^E|no sandbox named' '^E|.*Sandbox ' '^E|.*No sandbox named' '^E|.*Unknown flag' \
	    "'nope'" '"nope"' 'sandbox nope not found' 'no sandbox named nope$' \
	    '^E|  try: sbx ls$' '^E|To create one:$' '^E|  sbx create AGENT WORKSPACE$' "^E|Run 'sbx ls --help' for usage.$" \
	    '^E|$' '^O|$' '^E|Client Version:  v0\.55\.0 ' '^E|Server Version:  v0\.54\.0 ' \
	    '^O|Starting sandboxd daemon\.\.\.$' '^E|Starting sandboxd daemon\.\.\.$' \
	    '^[EO]|Daemon started (PID: [0-9]*, socket: /.*/\.local/state/sandboxes/sandboxes/sandboxd/sandboxd\.sock)$' \
	    '^[EO]|Daemon started (PID [0-9]*)$' '^[EO]|Logs: /.*/daemon\.log$' \
	    '^O|WARN: mcp gateway teardown: context deadline exceeded$' '^E|WARN: mcp gateway teardown' \
	    '^B|.*ensure daemon: cannot prompt for restart: --no-input is set; run the command' \
	    "^B|.*cannot prompt for restart: --no-input is set; run 'sbx daemon restart'" \
	    '^B|Docker Sandboxes has been updated and needs to restart' '^B|Client Version:' \
	    '^B|another daemon is already running' '^B|.*[a-z] another daemon is already running\|^B|[^a]*: another daemon'; do
		grep -q -- "$want" "$all" || fail "no seed printed: $want"
	done
	SBX_SIM_ROOT=$root "$SIM" sim-cleanup
	# the JSON listing: notices on stdout before and after it, never inside
	grep -B1 '^O|{$' "$all" | grep -q '^O|Logs: ' || fail "no notice before a listing"
}

@test "words: exec's -d is refused on every profile since 0.45, before anything runs" {
	for p in 0.46 0.47 0.55; do
		SBX_SIM_PROFILE=$p run -1 --separate-stderr "$SIM" exec -d pro-a -- touch /tmp/detached
		[ "$stderr" = "$(SBX_SIM_PROFILE=$p sim_errword): --detach is not supported for exec; omit -d to run the command in the foreground" ] ||
		    fail "$p: $stderr"
	done
	run -1 "$SIM" exec --detach pro-a -- touch /tmp/detached
	run -1 "$SIM" exec pro-a -- test -e /tmp/detached
}

exec_open() {	# exec_open pid: that sbx exec is under way
	compgen -G "$SBX_SIM_ROOT/s/*/active/$1" >/dev/null
}

@test "exec: the local sbx exec ignores SIGTERM, its command goes on; only SIGKILL ends it" {
	local pid st=0
	"$SIM" exec pro-a -- rm -f /tmp/termed
	"$SIM" exec pro-a -- sh -c 'sleep 2; touch /tmp/termed' 3>&- &
	pid=$!
	for _ in $(seq 100); do
		exec_open "$pid" && break
		sleep 0.05
	done
	exec_open "$pid"
	kill -TERM "$pid"
	# the exec waits for its command, which ends in 2 s: status 0
	wait "$pid" || st=$?
	[ "$st" -eq 0 ]
	run -0 "$SIM" exec pro-a -- test -e /tmp/termed
	"$SIM" exec pro-a -- sleep 3017 3>&- &
	pid=$!
	for _ in $(seq 100); do
		exec_open "$pid" && break
		sleep 0.05
	done
	kill -TERM "$pid"
	kill -0 "$pid"
	kill -KILL "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 137 ]
	# its calls.log line all the same, from the watcher
	for _ in $(seq 40); do
		grep -q ' 137 exec pro-a -- sleep 3017$' "$SBX_SIM_ROOT/calls.log" && break
		sleep 0.05
	done
	grep -q ' 137 exec pro-a -- sleep 3017$' "$SBX_SIM_ROOT/calls.log"
	# (the guest's sleep goes on: that is a guest command's way)
	"$SIM" exec pro-a -- pkill -f -x 'sleep 3017' || true
	# another verb still ends on SIGTERM
	SBX_SIM_HANG=ls:1 "$SIM" ls -q 3>&- &
	pid=$!
	for _ in $(seq 100); do
		[ "$(pgrep -c -P "$pid")" -ge 2 ] && break
		sleep 0.05
	done
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	pkill -f "^sbxsim-hang-$(cat "$SBX_SIM_ROOT/tag")" || true
}

@test "names: at most 63 characters, starting and ending with a letter or digit; default reserved" {
	local n63 n64
	n63=a$(printf '%061d' 0)9
	n64=${n63}x
	for n in ab- ab. -ab .ab a default "$n64" 'a_b' 'a b'; do
		run -1 --separate-stderr "$SIM" create --quiet --name "$n" shell "$WSP"
		[[ $stderr == "error: invalid sandbox name \"$n\": "* ]] || fail "$n: $stderr"
	done
	run -1 --separate-stderr "$SIM" create --quiet --name ab- shell "$WSP"
	[ "$stderr" = 'error: invalid sandbox name "ab-": must end with an alphanumeric character' ]
	run -0 "$SIM" create --quiet --name "$n63" shell "$WSP"
	run -0 "$SIM" create --quiet --name a.b-9 shell "$WSP"
	run -0 "$SIM" rm --force "$n63" a.b-9
}

publish_free() {	# publish_free port: pro-a's port on a free host port, SIM_PORT
	sim_free_port
	"$SIM" port publish pro-a "$SIM_PORT:$1" >/dev/null
}

sim_listens() {	# sim_listens port: a host listener on 127.0.0.1:port
	ss -Hltn | awk '{ print $4 }' | grep -qx "127.0.0.1:$1"
}

@test "ports: a service on 127.0.0.1 only inside the sandbox is not reached through a published port; one on every interface is" {
	local lo any
	publish_free 9100
	lo=$SIM_PORT
	publish_free 9101
	any=$SIM_PORT
	"$SIM" exec pro-a -- sh -c 'socat TCP4-LISTEN:9100,bind=127.0.0.1,reuseaddr,fork SYSTEM:"echo lo" >/dev/null 2>&1 &
	    socat TCP4-LISTEN:9101,reuseaddr,fork SYSTEM:"echo any" >/dev/null 2>&1 &'
	for _ in $(seq 50); do
		"$SIM" exec pro-a -- sh -c 'ss -Hltn | grep -q "127.0.0.1:9100 " && ss -Hltn | grep -q ":9101 "' && break
		sleep 0.1
	done
	# inside, the loopback service answers
	run -0 "$SIM" exec pro-a -- socat -T 2 - TCP4:127.0.0.1:9100
	[ "$output" = lo ]
	run -0 socat -T 2 - "TCP4:127.0.0.1:$any" </dev/null
	[ "$output" = any ]
	run socat -T 2 - "TCP4:127.0.0.1:$lo" </dev/null
	[ -z "$output" ]
	"$SIM" exec pro-a -- pkill -f 'TCP4-LISTEN:910[01]' || true
	sim_unpublish_all pro-a
}

@test "ports: a stop releases the host ports and keeps the mappings; the start publishes them again, an ephemeral one on a new port" {
	local hp eph new
	sim_unpublish_all pro-a
	publish_free 9102
	hp=$SIM_PORT
	"$SIM" port publish pro-a 9103 >/dev/null
	eph=$("$SIM" port ls pro-a --json | json_get '[p["host_port"] for p in d if p["sandbox_port"] == 9103][0]')
	sim_listens "$hp"
	sim_listens "$eph"
	"$SIM" stop pro-a
	! sim_listens "$hp"
	! sim_listens "$eph"
	run -0 "$SIM" port ls pro-a --json
	[ "$(json_get '[(p["host_port"], p["sandbox_port"]) for p in d]' <<<"$output")" = "[[$hp, 9102], [$eph, 9103]]" ] ||
	    [ "$(json_get '[(p["host_port"], p["sandbox_port"]) for p in d]' <<<"$output")" = "[[$eph, 9103], [$hp, 9102]]" ] ||
	    fail "$output"
	"$SIM" exec pro-a -- true
	sim_listens "$hp"
	new=$("$SIM" port ls pro-a --json | json_get '[p["host_port"] for p in d if p["sandbox_port"] == 9103][0]')
	[ "$new" != "$eph" ]
	sim_listens "$new"
	sim_unpublish_all pro-a
}

@test "ports: an explicit host port taken while stopped fails the start under --no-input, the sandbox stays stopped; on a terminal sbx asks for another" {
	local hp holder other
	sim_unpublish_all pro-a
	publish_free 9104
	hp=$SIM_PORT
	"$SIM" stop pro-a
	socat "TCP4-LISTEN:$hp,bind=127.0.0.1,reuseaddr,fork" /dev/null 3>&- &
	holder=$!
	for _ in $(seq 50); do sim_listens "$hp" && break; sleep 0.05; done
	run -1 --separate-stderr "$SIM" --no-input exec pro-a -- true </dev/null
	[ "$stderr" = "error: failed to start sandbox: publish port 127.0.0.1:$hp -> 9104/tcp4: listen tcp 127.0.0.1:$hp: bind: address already in use" ] ||
	    fail "$stderr"
	[ "$("$SIM" ls --json | json_get '[s["status"] for s in d["sandboxes"] if s["name"] == "pro-a"][0]')" = stopped ]
	run -1 "$SIM" exec pro-a -- true </dev/null
	[ "$("$SIM" port ls pro-a --json | json_get '[p["host_port"] for p in d]')" = "[$hp]" ]
	sim_free_port
	other=$SIM_PORT
	IN=$other run -0 on_tty "$SIM" exec pro-a -- true
	[[ $output == *"Host port 127.0.0.1:$hp (sandbox port 9104/tcp4) is in use. Enter another host port, or nothing to cancel: "* ]] || fail "$output"
	grep -q ' exec port-conflict$' "$SBX_SIM_ROOT/prompts.log"
	[ "$("$SIM" port ls pro-a --json | json_get '[p["host_port"] for p in d]')" = "[$other]" ]
	sim_listens "$other"
	kill "$holder"
	sim_unpublish_all pro-a
}
