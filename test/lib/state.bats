#!/usr/bin/env bats
# Attacks on the state directory, against every program that uses it: a
# symlinked directory, a foreign owner, a group-writable directory, a
# marker replaced by a symlink, a marker holding garbage.  Each is refused
# with a clear message, or the marker is left alone; nothing is followed.

load ../helpers/helper
load ../helpers/state

setup() {
	state_setup
	echo secret >"$BATS_TEST_TMPDIR/outside"
}

@test "state: a symlinked state directory is refused by every program" {
	mkdir -m 700 "$BATS_TEST_TMPDIR/real"
	ln -s "$BATS_TEST_TMPDIR/real" "$SBX_STATE_DIR"
	refused_by_all "is a symbolic link, refusing it"
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/real")" ]
}

@test "state: a state directory owned by someone else is refused by every program" {
	[ "$(id -u)" -eq 0 ] || {
		if [ "${CI:-}" = true ]; then
			fail "needs root to chown"
			return 1
		fi
		skip "needs root to chown"
	}
	mkdir -m 700 "$SBX_STATE_DIR"
	chown 65534 "$SBX_STATE_DIR"
	refused_by_all "owned by uid 65534, not by us, refusing it"
}

@test "state: a group- or world-writable state directory is refused by every program" {
	for mode in 770 707 777 1777; do
		mkdir -p "$SBX_STATE_DIR"
		chmod "$mode" "$SBX_STATE_DIR"
		refused_by_all "writable by group or others (mode ${mode#1}), refusing it"
		rm -rf "$SBX_STATE_DIR"
	done
}

@test "state: a marker replaced by a symlink is never followed" {
	mkdir -m 700 "$SBX_STATE_DIR"
	for m in created owner ports failed lock; do
		ln -s "$BATS_TEST_TMPDIR/outside" "$SBX_STATE_DIR/$N.$m"
		ln -s "$BATS_TEST_TMPDIR/outside" "$SBX_STATE_DIR/pi-sbx-7-missing.$m"
	done
	ln -s "$BATS_TEST_TMPDIR" "$SBX_STATE_DIR/$N.prime"
	# sbx-run provisions over its marker: the link goes, the target stays
	run -0 sbx-run -s pi-sbx-7-missing ps
	[ -f "$SBX_STATE_DIR/pi-sbx-7-missing.created" ]
	[ ! -L "$SBX_STATE_DIR/pi-sbx-7-missing.created" ]
	run sbx-ports -s "$N" sync
	run sbx-verify -s "$N"
	run sbx-gc -H 0 -v
	run sbx-watch -m none -p $$ "$N"
	[ "$(cat "$BATS_TEST_TMPDIR/outside")" = secret ]
	[ -f "$BATS_TEST_TMPDIR/outside" ]
	[ -d "$BATS_TEST_TMPDIR" ]
}

@test "state: a marker holding garbage gives a clear message, never a crash" {
	mkdir -m 700 "$SBX_STATE_DIR"
	head -c 3000 /dev/urandom >"$SBX_STATE_DIR/$N.created"
	printf 'pid=-1\nstart=zz\n' >"$SBX_STATE_DIR/$N.owner"
	printf '\001\002 garbage 99999/tcp\n' >"$SBX_STATE_DIR/$N.ports"
	stub_sandbox "$N" stopped
	run --separate-stderr sbx-gc -H 0 -v
	[ "$status" -le 1 ]
	[[ "$output$stderr" == *"$N"* ]]
	[ -e "$SBX_STATE_DIR/$N.created" ]	# kept: its age is unknown
	[ "$(stub_count rm)" -eq 0 ]
	run --separate-stderr sbx-ports -s "$N" sync
	[ "$status" -lt 64 ] || fail "sbx-ports: $status $stderr"
	run --separate-stderr sbx-verify -s "$N"
	[ "$status" -le 2 ] || fail "sbx-verify: $status $stderr"
	# nothing printed carries the raw control bytes
	! printf '%s' "$output$stderr" | grep -q "$(printf '\001')"
}
