#!/usr/bin/env bats
# Which sbx runs (issue 18 finding 1, the programs' half; issue 17 item
# 7).  A session's workspace is writable from inside its sandbox, so no
# sbx that lies there (by identity: through PATH, a symlink, '.', another
# spelling) is ever run by sbx-run, sbx-watch or sbx-gc; and sbx is found
# where its installers put it, from cron's and systemd's short PATH too.

load ../helpers/helper
load ../helpers/lifecycle

N=pi-sbx-4242-abcd1234

setup() {
	lifecycle_setup
	unset DOCKER_SANDBOX_SBX
	# the real sbx (the stand-in), reached through PATH
	SYS="$BATS_TEST_TMPDIR/sysbin"
	mkdir -p "$SYS"
	ln -s "$TOP/test/bin/sbx" "$SYS/sbx"
	# what the sandbox planted in its workspace
	RAN="$BATS_TEST_TMPDIR/planted-ran"
	mkdir -p "$WS/bin"
	plant "$WS/bin/sbx"
	BASEPATH="$TOP/sbx-run:$TOP/sbx-watch:$TOP/sbx-gc:/usr/bin:/bin"
	stub_sandbox "$N" running
}

teardown() {
	lifecycle_teardown
}

# An sbx that says it ran, and answers as the stand-in would.
plant() {
	mkdir -p "${1%/*}"
	printf '#!/bin/sh\necho "$0 $*" >>"%s"\nexit 0\n' "$RAN" >"$1"
	chmod +x "$1"
}

planted_ran() {
	[ -e "$RAN" ]
}

# NAME.created as sbx-run writes it, for workspace $1.
created_for() {
	printf 'created=%s\nstate=ready\nby=1\nworkspace=%s\nmode=rw\n' \
	    "$(date +%s)" "$1" >"$SBX_STATE_DIR/$N.created"
}

@test "sbx from the workspace: sbx-run skips a PATH entry inside the workspace" {
	export PATH="$WS/bin:$SYS:$BASEPATH"
	run -0 sbx-run -s "$N" ps
	! planted_ran
	[ "$(stub_count exec)" -eq 1 ]
}

@test "sbx from the workspace: sbx-run skips the entry when it is spelled with dots, a trailing slash or a link" {
	ln -s "$WS/bin" "$BATS_TEST_TMPDIR/wslink"
	ln -s "$WS" "$BATS_TEST_TMPDIR/wsroot"
	local e
	for e in "$WS/./bin" "$WS/bin/" "$WS/bin/../bin" "$BATS_TEST_TMPDIR/wslink" \
	    "$BATS_TEST_TMPDIR/wsroot/bin"; do
		PATH="$e:$SYS:$BASEPATH" run -0 sbx-run -s "$N" ps
		! planted_ran || fail "ran the planted sbx through $e"
	done
	[ "$(stub_count exec)" -eq 5 ]
}

@test "sbx from the workspace: a relative PATH entry, '.' or empty, never reaches the workspace" {
	local e
	for e in . bin "" ./bin; do
		PATH="$e:$SYS:$BASEPATH" run -0 sbx-run -s "$N" ps
		! planted_ran || fail "ran the planted sbx through '$e'"
	done
	# and from the workspace's bin itself
	cd "$WS/bin"
	PATH=".:$SYS:$BASEPATH" run -0 sbx-run -s "$N" -w "$WS" ps
	! planted_ran
}

@test "sbx from the workspace: an sbx outside that is a link into the workspace is skipped" {
	local o="$BATS_TEST_TMPDIR/outside"
	mkdir -p "$o"
	ln -s "$WS/bin/sbx" "$o/sbx"
	PATH="$o:$SYS:$BASEPATH" run -0 sbx-run -s "$N" ps
	! planted_ran
	[ "$(stub_count exec)" -eq 1 ]
}

@test "sbx from the workspace: DOCKER_SANDBOX_SBX inside it is refused (126), also through a link" {
	export PATH="$SYS:$BASEPATH"
	ln -s "$WS/bin/sbx" "$BATS_TEST_TMPDIR/sbxlink"
	ln -s "$WS/bin" "$BATS_TEST_TMPDIR/binlink"
	local v
	for v in "$WS/bin/sbx" "$WS/./bin/sbx" "$BATS_TEST_TMPDIR/sbxlink" \
	    "$BATS_TEST_TMPDIR/binlink/sbx"; do
		DOCKER_SANDBOX_SBX=$v run -126 --separate-stderr sbx-run -s "$N" ps
		[[ "$stderr" == "sbx-run: DOCKER_SANDBOX_SBX: $WS/bin/sbx lies in the session workspace "*"; refusing to run it" ]] ||
		    fail "$v: $stderr"
	done
	DOCKER_SANDBOX_SBX=./bin/sbx run -64 sbx-run -s "$N" ps
	! planted_ran
	[ "$(stub_count)" -eq 0 ]
}

@test "sbx from the workspace: sbx-run knows the workspace by -w and by NAME.created, from any directory" {
	export PATH="$WS/bin:$SYS:$BASEPATH"
	cd "$BATS_TEST_TMPDIR/tmp"
	run -0 sbx-run -s "$N" -w "$WS" ps
	! planted_ran
	created_for "$WS"
	run -0 sbx-run -s "$N" ps
	! planted_ran
	[ "$(stub_count exec)" -eq 2 ]
}

@test "sbx from the workspace: a nested workspace directory and a bind-like second name are the same workspace" {
	# the workspace is the planted sbx's grandparent; cwd is a subdirectory
	mkdir -p "$WS/src/deep"
	cd "$WS/src/deep"
	PATH="$WS/bin:$SYS:$BASEPATH" run -0 sbx-run -s "$N" -w "$WS" ps
	! planted_ran
	# the planted sbx is the only one: not found, and the message says why
	PATH="$WS/bin:$BASEPATH" run -127 --separate-stderr sbx-run -s "$N" -w "$WS" ps
	[[ "$stderr" == *"sbx-run: $WS/bin/sbx lies in the session workspace $WS; not running it"* ]]
	! planted_ran
}

@test "sbx from the workspace: the fallbacks are skipped when the workspace holds them" {
	# ~/.docker is a workspace here (not a home, not above one)
	plant "$HOME/.docker/sbx/bin/sbx"
	cd "$HOME/.docker"
	PATH="$BASEPATH" run -127 --separate-stderr sbx-run -s "$N" ps
	! planted_ran
	[[ "$stderr" == *"lies in the session workspace $HOME/.docker; not running it"* ]]
}

@test "sbx from the workspace: sbx-watch -n finds the workspace in NAME.created" {
	created_for "$WS"
	cd /
	PATH="$WS/bin:$SYS:$BASEPATH" run -0 sbx-watch -n "$N"
	! planted_ran
	[ "$(stub_count rm)" -eq 1 ]
}

@test "sbx from the workspace: the detached watcher checks again at teardown, once NAME.created exists" {
	session
	cd /
	PATH="$WS/bin:$SYS:$BASEPATH" sbx-watch -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	created_for "$WS"	# provisioned after the watcher was armed
	kill -9 "$SESSION"
	until_ok dead "$wp" || fail "watcher still running"
	! planted_ran
	[ "$(stub_count rm)" -eq 1 ]
	[ ! -e "$SBX_STUB_DIR/sandboxes/$N" ]
}

@test "sbx from the workspace: a teardown with only the planted sbx fails and says why" {
	created_for "$WS"
	# known before any work: no sbx to run at all
	PATH="$WS/bin:$BASEPATH" run -127 --separate-stderr sbx-watch -n "$N"
	[[ "$stderr" == *"$WS/bin/sbx lies in the session workspace $WS; not running it"* ]]
	! planted_ran
	# an armed watcher whose only sbx is planted later records why
	rm "$SBX_STATE_DIR/$N.created"
	session
	PATH="$WS/bin:$SYS:$BASEPATH" sbx-watch -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	created_for "$WS"
	rm "$SYS/sbx"
	kill -9 "$SESSION"
	until_ok dead "$wp" || fail "watcher still running"
	! planted_ran
	grep -q 'outside the session workspace' "$SBX_STATE_DIR/$N.failed"
}

@test "sbx from the workspace: sbx-gc skips every workspace its state directory records" {
	created_for "$WS"
	cd /
	PATH="$WS/bin:$SYS:$BASEPATH" run -0 sbx-gc
	! planted_ran
	[ "$(stub_count ls)" -eq 1 ]
	DOCKER_SANDBOX_SBX=$WS/bin/sbx PATH=$BASEPATH run -126 sbx-gc
	! planted_ran
}

# Issue 17 item 7: where the installers put sbx.

@test "sbx lookup: ~/.docker/sbx/bin/sbx is found under cron's and systemd's PATH (sbx-gc, sbx-run)" {
	[ ! -e /usr/local/bin/sbx ] && [ ! -e /opt/homebrew/bin/sbx ] ||
	    skip_unless_ci "a real sbx is installed in a fallback place"
	mkdir -p "$HOME/.docker/sbx/bin"
	ln -s "$TOP/test/bin/sbx" "$HOME/.docker/sbx/bin/sbx"
	run -0 env -i HOME="$HOME" PATH=/usr/local/bin:/usr/bin \
	    SBX_STATE_DIR="$SBX_STATE_DIR" SBX_STUB_DIR="$SBX_STUB_DIR" \
	    "$TOP/sbx-gc/sbx-gc"
	[ "$(stub_count ls)" -eq 1 ]
	run -0 env -i HOME="$HOME" PATH=/usr/bin:/bin \
	    SBX_STATE_DIR="$SBX_STATE_DIR" SBX_STUB_DIR="$SBX_STUB_DIR" \
	    "$TOP/sbx-run/sbx-run" -s "$N" ps
	[ "$(stub_count exec)" -eq 1 ]
}

@test "sbx lookup: PATH comes before ~/.docker/sbx/bin" {
	plant "$HOME/.docker/sbx/bin/sbx"
	PATH="$SYS:$BASEPATH" run -0 sbx-run -s "$N" ps
	! planted_ran
	[ "$(stub_count exec)" -eq 1 ]
}

@test "sbx lookup: not found names every place looked, the home included; the account's home without HOME" {
	[ ! -e /usr/local/bin/sbx ] && [ ! -e /opt/homebrew/bin/sbx ] ||
	    skip_unless_ci "a real sbx is installed in a fallback place"
	PATH="$BASEPATH" run -127 --separate-stderr sbx-gc
	[ "$stderr" = "sbx-gc: sbx: not found on PATH, in /opt/homebrew/bin, /usr/local/bin or $HOME/.docker/sbx/bin (set DOCKER_SANDBOX_SBX)" ]
	local pw
	pw=$(getent passwd "$(id -u)" | cut -d: -f6)
	[ -n "$pw" ] || skip_unless_ci "no passwd entry"
	[ -e "$pw/.docker/sbx/bin/sbx" ] && skip_unless_ci "the account has a real sbx"
	run -127 --separate-stderr env -u HOME PATH="$BASEPATH" \
	    SBX_STATE_DIR="$SBX_STATE_DIR" "$TOP/sbx-gc/sbx-gc"
	[[ "$stderr" == *" or $pw/.docker/sbx/bin (set DOCKER_SANDBOX_SBX)" ]]
}

@test "sbx lookup: a relative HOME is no home" {
	mkdir -p "$WS/rel/.docker/sbx/bin"
	plant "$WS/rel/.docker/sbx/bin/sbx"
	cd "$BATS_TEST_TMPDIR"
	HOME=ws/rel PATH="$BASEPATH" run -127 sbx-gc
	! planted_ran
}

@test "sbx lookup: sbx-gc(8) and the units name the places" {
	grep -q 'docker/sbx/bin' "$TOP/man/sbx-gc.8"
	grep -q 'docker/sbx/bin' "$TOP/man/sbx-tools.7"
}

@test "sbx from the workspace: sbx-ports and sbx-verify know it from NAME.created, for sbx and for the sbx-run they run" {
	created_for "$WS"
	printf '[]\n' >"$SBX_STUB_DIR/out.ports"
	# a planted sbx-run beside the planted sbx
	plant "$WS/bin/sbx-run"
	cd /
	PATH="$WS/bin:$SYS:$TOP/sbx-ports:$BASEPATH" run -0 sbx-ports -s "$N" ls
	! planted_ran
	# sync runs sbx-run, found on PATH when sbx-ports was
	printf '' >"$SBX_STUB_DIR/out.exec"
	PATH="$WS/bin:$SYS:$TOP/sbx-ports:$BASEPATH" run -0 sbx-ports -s "$N" sync
	! planted_ran
	[ "$(stub_count exec)" -ge 1 ]
	PATH="$WS/bin:$SYS:$TOP/sbx-verify:$BASEPATH" run sbx-verify -s "$N"
	! planted_ran
	DOCKER_SANDBOX_SBX=$WS/bin/sbx PATH="$SYS:$TOP/sbx-ports:$BASEPATH" \
	    run -126 sbx-ports -s "$N" ls
}
