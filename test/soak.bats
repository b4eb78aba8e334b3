#!/usr/bin/env bats
# The soak, short (make soak runs the long one): sessions, SIGKILLs and
# sweeps at once against the simulator; then every lifecycle promise is
# checked from the outside.  Two controls break a promise on purpose and
# show that the soak's checks see it.

load sim-helper

setup() {
	SIM_MISSING=$(sim_missing)
	sim_require
	for p in sbx-run sbx-watch sbx-gc; do
		[ -x "$TOP/$p/$p" ] || fail "$p/$p is not built (make)"
	done
}

@test "soak class: 4 sessions, SIGKILLs of sessions, sbx-run and sbx create, sbx-gc -H 0 every 2 s: every promise holds" {
	run bash "$TOP/test/soak.sh" 25 4
	printf '%s\n' "$output" | grep '^soak:' >&3
	[ "$status" -eq 0 ] || fail "$output"
	[[ "$output" == *"soak: everything held"* ]] || fail "$output"
	[[ "$output" =~ \(([0-9]+)\ ok\) ]] || fail "no count: $output"
	[ "${BASH_REMATCH[1]}" -gt 0 ] || fail "no call succeeded: $output"
}

@test "soak control: a sweeper that removes live sessions' sandboxes is caught" {
	cat >"$BATS_TEST_TMPDIR/rogue" <<-'EOS'
	#!/bin/sh
	# removes every sandbox listed, live sessions' and pinned ones too
	"$DOCKER_SANDBOX_SBX" ls --json | python3 -c '
	import json, sys
	d = json.load(sys.stdin)
	for s in d["sandboxes"] if isinstance(d, dict) else d:
	    print(s["name"])' | while read -r n; do
		"$DOCKER_SANDBOX_SBX" rm --force "$n" >/dev/null 2>&1
	done
	EOS
	chmod +x "$BATS_TEST_TMPDIR/rogue"
	SOAK_CHAOS=0 SOAK_GC="$BATS_TEST_TMPDIR/rogue" run bash "$TOP/test/soak.sh" 15 2
	[ "$status" -eq 1 ] || fail "$output"
	[[ "$output" == *"was removed while its session"* ]] || fail "$output"
}

@test "soak control: sessions with no teardown and no sweep leave sandboxes, and that is caught" {
	SOAK_CHAOS=0 SOAK_WATCH="-m none" SOAK_GC=true run bash "$TOP/test/soak.sh" 15 2
	[ "$status" -eq 1 ] || fail "$output"
	[[ "$output" == *"of a dead session is left"* ]] || fail "$output"
}
