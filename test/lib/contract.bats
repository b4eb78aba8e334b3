#!/usr/bin/env bats
# The contract every program shares (sbx-tools(7), Conventions): one
# exit-status table, written the same in README.md, sbx-tools(7) and
# lib/sbx.h, and one answer, in words and status, when there is no sbx to
# run.

load ../helpers/helper

N=pi-sbx-4242-abcd1234

setup() {
	common_setup
	# what the programs say after "sbx-NAME: " when no sbx can be found
	NOTFOUND="sbx: not found on PATH, in /opt/homebrew/bin, /usr/local/bin or $HOME/.docker/sbx/bin (set DOCKER_SANDBOX_SBX)"
	mkdir -m 700 -p "$SBX_STATE_DIR"
	EMPTY="$BATS_TEST_TMPDIR/empty"
	mkdir -p "$EMPTY"
	unset DOCKER_SANDBOX_TEARDOWN DOCKER_SANDBOX_KEEPALIVE
	# a stand-in session for sbx-watch, so a watcher that did arm would
	# not outlive the test
	sleep 60 3>&- &
	SESSION=$!
}

teardown() {
	kill "$SESSION" 2>/dev/null || true
	return 0
}

# Each program that runs sbx, with the arguments that reach its search.
progs() {
	printf '%s\n' "sbx-run/sbx-run -s $N ps" "sbx-ports/sbx-ports -s $N ls" \
	    "sbx-verify/sbx-verify -s $N" "sbx-watch/sbx-watch -p $SESSION $N" \
	    "sbx-gc/sbx-gc"
}

# The fallbacks lib/sbxcli.c tries after PATH must be absent here, or
# "no sbx to be found" cannot be arranged.
no_fallbacks() {
	local f
	for f in /opt/homebrew/bin/sbx /usr/local/bin/sbx \
	    "$(getent passwd "$(id -u)" | cut -d: -f6)/.docker/sbx/bin/sbx"; do
		[ ! -e "$f" ] || fail "$f exists: this host always has an sbx"
	done
}

@test "sbx not found class: every program says the one message and exits 127" {
	local p prog
	no_fallbacks
	while read -r p; do
		prog=${p%% *}
		prog=${prog#*/}
		# shellcheck disable=SC2086 # p is a command line of plain words
		run -127 --separate-stderr env -u DOCKER_SANDBOX_SBX \
		    PATH="$EMPTY" "$TOP"/$p
		[ "$stderr" = "$prog: $NOTFOUND" ] ||
		    fail "$prog: got '$stderr'"
		[ -z "$output" ]
	done < <(progs)
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
}

@test "sbx not found class: an empty DOCKER_SANDBOX_SBX and an sbx on PATH that cannot run count as none" {
	local p prog
	no_fallbacks
	# not executable, and a directory: neither is an sbx to run
	: >"$EMPTY/sbx"
	chmod 644 "$EMPTY/sbx"
	mkdir -p "$BATS_TEST_TMPDIR/dir/sbx"
	while read -r p; do
		prog=${p%% *}
		prog=${prog#*/}
		# shellcheck disable=SC2086
		run -127 --separate-stderr env DOCKER_SANDBOX_SBX= \
		    PATH="$EMPTY:$BATS_TEST_TMPDIR/dir" "$TOP"/$p
		[ "$stderr" = "$prog: $NOTFOUND" ] ||
		    fail "$prog: got '$stderr'"
	done < <(progs)
}

@test "sbx not found class: a DOCKER_SANDBOX_SBX naming nothing is 127, a file or directory that cannot run 126, a relative one 64, in every program" {
	local p prog
	: >"$BATS_TEST_TMPDIR/sbx"
	chmod 644 "$BATS_TEST_TMPDIR/sbx"
	while read -r p; do
		prog=${p%% *}
		prog=${prog#*/}
		# shellcheck disable=SC2086
		DOCKER_SANDBOX_SBX=/nonexistent/sbx run -127 --separate-stderr \
		    "$TOP"/$p
		[ "$stderr" = "$prog: /nonexistent/sbx: No such file or directory" ] ||
		    fail "$prog: got '$stderr'"
		# shellcheck disable=SC2086
		DOCKER_SANDBOX_SBX="$BATS_TEST_TMPDIR/sbx" run -126 \
		    --separate-stderr "$TOP"/$p
		[ "$stderr" = "$prog: $BATS_TEST_TMPDIR/sbx: Permission denied" ] ||
		    fail "$prog: got '$stderr'"
		# shellcheck disable=SC2086
		DOCKER_SANDBOX_SBX="$BATS_TEST_TMPDIR" run -126 \
		    --separate-stderr "$TOP"/$p
		[ "$stderr" = "$prog: $BATS_TEST_TMPDIR: Permission denied" ] ||
		    fail "$prog: got '$stderr'"
		# shellcheck disable=SC2086
		DOCKER_SANDBOX_SBX=test/bin/sbx run -64 --separate-stderr \
		    "$TOP"/$p
		[ "$stderr" = "$prog: DOCKER_SANDBOX_SBX: not an absolute path" ] ||
		    fail "$prog: got '$stderr'"
	done < <(progs)
	[ "$(stub_count)" -eq 0 ]
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
}

# The statuses of the table: README.md's "Exit statuses" section.
readme_statuses() {
	awk '/^## /{ on = ($0 == "## Exit statuses") ; next }
	    on && /^\| *[0-9]+ *\|/ { gsub(/[| ]/, "", $2); print $2 }' \
	    FS='|' "$TOP/README.md" | sort -n
}

# sbx-tools(7): the list under "Conventions".
man7_statuses() {
	awk '/^\.S[sh] /{ on = ($0 == ".Ss Conventions"); next }
	    on && /^\.It [0-9]+$/ { print $2 }' "$TOP/man/sbx-tools.7" |
	    sort -n
}

# lib/sbx.h: the SBX_EX_* constants.
header_statuses() {
	awk '$1 == "#define" && $2 ~ /^SBX_EX_/ { print $3 }' \
	    "$TOP/lib/sbx.h" | sort -n
}

# Every status the EXIT STATUS section of a program's man page lists.
man_statuses() {
	awk '/^\.Sh /{ on = ($0 == ".Sh EXIT STATUS"); next }
	    on && /^\.It [0-9]+$/ { print $2 }' "$TOP"/man/*.[18] | sort -nu
}

@test "exit-status table: README, sbx-tools(7) and lib/sbx.h list the same statuses, every one a program's page gives" {
	local readme man7 header s
	readme=$(readme_statuses)
	man7=$(man7_statuses)
	header=$(header_statuses)
	# the parse found the table, with the statuses every program uses
	for s in 0 1 64 124 125 126 127; do
		grep -qx "$s" <<<"$readme" || fail "README lacks $s"
	done
	[ "$readme" = "$man7" ] ||
	    fail "README: ${readme//$'\n'/ } sbx-tools(7): ${man7//$'\n'/ }"
	[ "$readme" = "$header" ] ||
	    fail "README: ${readme//$'\n'/ } lib/sbx.h: ${header//$'\n'/ }"
	# sbx-verify's 2 (no audit) and sbx-gc's 75 (busy) among them
	for s in $(man_statuses); do
		grep -qx "$s" <<<"$readme" ||
		    fail "a man page gives $s, the table does not"
	done
}

@test "exit-status table: no program exits with a bare number or defines a status of its own" {
	run -1 grep -nE '\b(errx?|exit|_exit)\([0-9]|define [A-Z_]*EX_[A-Z]+[[:space:]]+[0-9]' \
	    "$TOP"/sbx-*/*.c "$TOP"/sbx-*/*.h "$TOP"/lib/*.c
	[ -z "$output" ]
}

@test "exit-status table: every program that runs sbx lists 127 in its EXIT STATUS" {
	local f
	for f in sbx-run.1 sbx-ports.1 sbx-verify.1 sbx-watch.8 sbx-gc.8; do
		awk '/^\.Sh /{ on = ($0 == ".Sh EXIT STATUS"); next }
		    on && $0 == ".It 127" { found = 1 }
		    END { exit !found }' "$TOP/man/$f" ||
		    fail "$f: no 127 in EXIT STATUS"
	done
}

@test "timeout class: sbx-ports and sbx-gc exit 124 when an sbx call of theirs times out" {
	stub_sandbox "$N" stopped
	export DOCKER_SANDBOX_TIMEOUT=1
	: >"$SBX_STUB_DIR/hang.ports"
	: >"$SBX_STUB_DIR/hang.port"
	run -124 --separate-stderr "$TOP/sbx-ports/sbx-ports" -s "$N" ls
	[[ "$stderr" == *"timed out after 1 s"* ]]
	run -124 --separate-stderr "$TOP/sbx-ports/sbx-ports" -s "$N" publish 18470 80
	rm "$SBX_STUB_DIR/hang.ports" "$SBX_STUB_DIR/hang.port"
	# sync: its docker ps, through sbx-run, timed out
	: >"$SBX_STUB_DIR/hang.exec"
	PATH="$TOP/sbx-run:$PATH" run -124 --separate-stderr \
	    "$TOP/sbx-ports/sbx-ports" -s "$N" sync
	rm "$SBX_STUB_DIR/hang.exec"
	# sbx-gc: the listing, then a removal
	: >"$SBX_STUB_DIR/hang.ls"
	run -124 --separate-stderr "$TOP/sbx-gc/sbx-gc"
	[[ "$stderr" == *"sbx ls --json: timed out after 1 s"* ]]
	rm "$SBX_STUB_DIR/hang.ls"
	stub_sandbox pi-sbx-999999-deadbeef stopped
	: >"$SBX_STUB_DIR/hang.rm"
	run -124 --separate-stderr "$TOP/sbx-gc/sbx-gc" -H 0
	[[ "$stderr" == *"sandbox pi-sbx-999999-deadbeef: sbx rm --force: timed out after 1 s"* ]]
}

@test "timeout class: sbx-run, sbx-ports and sbx-gc list 124 in their EXIT STATUS" {
	local f
	for f in sbx-run.1 sbx-ports.1 sbx-gc.8; do
		awk '/^\.Sh /{ on = ($0 == ".Sh EXIT STATUS"); next }
		    on && $0 == ".It 124" { found = 1 }
		    END { exit !found }' "$TOP/man/$f" ||
		    fail "$f: no 124 in EXIT STATUS"
	done
}
