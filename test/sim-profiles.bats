#!/usr/bin/env bats
# The simulator's profiles and sbx's own words (tier 2): each release's
# version, error lines and --no-input; the restart an upgrade asks for,
# the daemon's notices, the start race, the auto-start notice, ls --json
# with a WARN: line or a null array, [sbx] errors; and the prompts sbx
# makes only on a terminal.  test/sbx-sim/README.md, "Profiles", gives
# each one's source.

load sim-helper

setup_file() {
	sim_setup_file
	# each test names the profile it is about; unset is the default
	unset SBX_SIM_PROFILE
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
		[ "$stderr" = "error: ensure daemon: cannot prompt for restart: stdin is not a terminal; run the command in an interactive terminal to confirm the restart" ] ||
		    fail "$args: $stderr"
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
	[[ $output == *"[y/N]"* ]] && [[ $output == *"restart not confirmed"* ]]
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
	want="$(printf 'Starting sandboxd daemon\\.\\.\\.\nDaemon started \\(PID [0-9]+\\)\nLogs: [^\n]+')"
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
