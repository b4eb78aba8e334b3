#!/usr/bin/env bats
# Provisioning under attack against the sbx simulator (tier 2), where a
# sandbox is a real private dockerd: a command or a container that prints
# sbx's "no such sandbox" runs once, two first calls create once, and a
# hung create is bounded by -t with its intent recorded.

load sim-helper

setup_file() {
	sim_setup_file
	sim_session_file
}

teardown_file() {
	sim_teardown_file
}

setup() {
	sim_setup_test "$WS"
}

verbs_after() {
	sim_calls_after "$1" | cut -d' ' -f3 | tr '\n' ' '
}

@test "sim retry class: a command and a container printing sbx's not-found text run once" {
	run -0 sbx-run -s att-a -x true	# provisioned by sbx-run: a marker
	nf=$(sim_missing_text att-a exec)
	n=$(sim_ncalls)
	run -1 --separate-stderr sbx-run -s att-a -x sh -c "echo ran >>'$WS/ran-x'; echo \"$nf\" >&2; exit 1"
	[ "$stderr" = "$nf" ]
	[ "$(wc -l <"$WS/ran-x")" -eq 1 ]
	[ "$(verbs_after "$n")" = "exec ls " ]
	n=$(sim_ncalls)
	run -1 --separate-stderr sbx-run -s att-a run --rm -v "$WS:/w" busybox:local \
	    sh -c "echo ran >>/w/ran-c; echo \"$nf\" >&2; exit 1"
	[ "$stderr" = "$nf" ]
	[ "$(wc -l <"$WS/ran-c")" -eq 1 ]
	[ "$(verbs_after "$n")" = "exec ls " ]
}

@test "sim retry class: in a sandbox made elsewhere (no marker), sbx create's refusal proves it exists" {
	"$SIM" create --quiet --name att-b shell "$WS" >/dev/null
	nf=$(sim_missing_text att-b exec)
	n=$(sim_ncalls)
	run -1 --separate-stderr sbx-run -s att-b -x sh -c "echo ran >>'$WS/ran-b'; echo \"$nf\" >&2; exit 1"
	[ "$stderr" = "$nf" ]
	[ "$(wc -l <"$WS/ran-b")" -eq 1 ]
	[ "$(verbs_after "$n")" = "exec create " ] || fail "$(sim_calls_after "$n")"
	[ ! -e "$SBX_STATE_DIR/att-b.created" ]
}

@test "sim retry class: two concurrent first calls create once and each command runs once" {
	n=$(sim_ncalls)
	sbx-run -s att-c -x sh -c "echo 1 >>'$WS/ran-p'" >"$BATS_TEST_TMPDIR/o1" 2>&1 3>&- &
	a=$!
	sbx-run -s att-c -x sh -c "echo 2 >>'$WS/ran-p'" >"$BATS_TEST_TMPDIR/o2" 2>&1 3>&- &
	b=$!
	wait "$a" || fail "$(cat "$BATS_TEST_TMPDIR/o1")"
	wait "$b" || fail "$(cat "$BATS_TEST_TMPDIR/o2")"
	[ "$(sort "$WS/ran-p" | tr '\n' ' ')" = "1 2 " ]
	[ "$(sim_calls_after "$n" | cut -d' ' -f3 | grep -c '^create$')" -eq 1 ]
	[ "$(sim_calls_after "$n" | cut -d' ' -f3 | grep -c '^ls$')" -eq 0 ]
	! grep -q "no sandbox named" "$BATS_TEST_TMPDIR"/o1 "$BATS_TEST_TMPDIR"/o2
}

@test "sim timeout class: a hung create is bounded by -t, 124, and its intent is kept" {
	start=$(date +%s)
	SBX_SIM_HANG=create:1 run -124 --separate-stderr timeout -s KILL 30 sbx-run -t 2 -s att-d ps
	[ "$stderr" = "sbx-run: sandbox att-d: sbx create timed out after 2 s" ]
	[ $(( $(date +%s) - start )) -lt 15 ]
	grep -q '^state=creating$' "$SBX_STATE_DIR/att-d.created"
	# the next call confirms with a listing and makes it
	run -0 sbx-run -s att-d ps -q
	grep -q '^state=ready$' "$SBX_STATE_DIR/att-d.created"
}
