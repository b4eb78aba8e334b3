#!/usr/bin/env bats
# The soak, short (make soak runs the long one): sessions, SIGKILLs and
# sweeps at once against the simulator, one session hostile (port ranges,
# planted files, a docker_curl flood, parallel docker_run, a daemon then
# Esc, a stalled save at its end, a tampered image cache entry); then
# every lifecycle promise is
# checked from the outside.  Controls break promises on purpose and show
# that the soak's checks see it.

load ../helpers/sim-helper

setup() {
	SIM_MISSING=$(sim_missing)
	sim_require
	for p in sbx-run sbx-watch sbx-gc sbx-ports sbx-env; do
		[ -x "$TOP/$p/$p" ] || fail "$p/$p is not built (make)"
	done
}

# the hostile session runs pi through its loader
hostile_require() {
	command -v node >/dev/null && [ -d "$TOP/pi/node_modules/@mariozechner/pi-coding-agent" ] && return 0
	[ -z "${CI:-}" ] || fail "node and pi's packages are needed (npm ci in pi/)"
	skip "node and pi's packages are needed (npm ci in pi/)"
}

@test "soak class: 4 sessions and a hostile one, SIGKILLs of sessions, sbx-run and sbx create, sbx-gc -H 0 every 2 s: every promise holds" {
	hostile_require
	run bash "$TOP/test/soak.sh" 25 4
	printf '%s\n' "$output" | grep '^soak:' >&3
	[ "$status" -eq 0 ] || fail "$output"
	[[ "$output" == *"soak: everything held"* ]] || fail "$output"
	[[ "$output" =~ \(([0-9]+)\ ok\) ]] || fail "no count: $output"
	[ "${BASH_REMATCH[1]}" -gt 0 ] || fail "no call succeeded: $output"
	# the hostile session did its work: calls made, ports held, files planted
	[[ "$output" =~ soak:\ hostile:\ ([0-9]+)\ docker_curl.*held\ at\ most\ ([0-9]+)\ host\ ports.*\ ([0-9]+)\ files\ planted,\ none\ ran ]] ||
	    fail "no hostile summary: $output"
	[ "${BASH_REMATCH[1]}" -ge 2 ] && [ "${BASH_REMATCH[2]}" -ge 32 ] &&
	    [ "${BASH_REMATCH[3]}" -ge 20 ] || fail "$output"
	# and its end's attacks were made: parallel runs, a daemon, a stalled save
	[[ "$output" == *"soak: hostile: 3 of 3 runs, held "* ]] || fail "no parallel docker_run: $output"
	[[ "$output" == *"soak: hostile: daemon: started yes, after Esc "* ]] || fail "no daemon: $output"
	[[ "$output" == *"soak: hostile: its docker stopped at the end, removed "* ]] || fail "no stalled save: $output"
	[[ "$output" == *"soak: hostile: a tampered image cache entry: refused with its reason "* ]] || fail "no tampered entry: $output"
}

# A build of this checkout with three promises broken: pi's docker_curl
# without its deadline or its size cap, pi's program lookup that takes the
# workspace's directories on PATH, and the hostile session's programs given
# DOCKER_SANDBOX_PORTS_MAX=1024.
weakened_build() {
	local b=$BATS_TEST_TMPDIR/build p
	mkdir -p "$b"
	for p in sbx-run sbx-env sbx-watch sbx-gc sbx-ports sbx-verify; do
		ln -s "$TOP/$p" "$b/$p"
	done
	(cd "$TOP" && git ls-files pi | grep -v '^pi/compat/' | tar -cf - -T -) |
	    tar -xf - -C "$b" || fail "copy of pi/"
	ln -s "$(readlink -f "$TOP/pi/node_modules")" "$b/pi/node_modules"
	sed -i 's/Math.max(0, q.deadline - Date.now())/2 ** 31 - 1/; s/if (size < BODY_CAP) return;/return;/' \
	    "$b/pi/src/tools/curl.ts"
	sed -i 's/if (workspaceOf(real) === undefined) return real;/return real;/' "$b/pi/src/config.ts"
	sed -i 's/isAbsolute(d) \&\& workspaceOf(d) === undefined)/isAbsolute(d))/' "$b/pi/src/trust.ts"
	# each change took, or this control tests nothing
	if grep -q 'q.deadline - Date.now()' "$b/pi/src/tools/curl.ts" ||
	    grep -q 'size < BODY_CAP) return' "$b/pi/src/tools/curl.ts" ||
	    grep -q 'workspaceOf(real) === undefined' "$b/pi/src/config.ts" ||
	    grep -q 'workspaceOf(d) === undefined' "$b/pi/src/trust.ts"; then
		fail "the weakening no longer applies: pi/src changed"
	fi
	printf '%s\n' "$b"
}

@test "soak control: a build with docker_curl unbounded, the workspace's programs taken and 1024 ports allowed is caught on each" {
	hostile_require
	local b
	b=$(weakened_build)
	SOAK_BUILD=$b SOAK_HOSTILE_PORTS_MAX=1024 SOAK_CURL_TIMEOUT=4 SOAK_CHAOS=0 SOAK_STALL=0 \
	    run bash "$TOP/test/soak.sh" 10 1
	printf '%s\n' "$output" | grep '^soak:' >&3
	[ "$status" -eq 1 ] || fail "$output"
	[[ "$output" == *"host ports at once (the bound is 64)"* ]] || fail "$output"
	# the parallel docker_run's check sees it too
	[[ "$output" == *"parallel docker_run left "* ]] || fail "$output"
	[[ "$output" == *"planted files ran on the host"* ]] || fail "$output"
	[[ "$output" == *"outlived timeoutSec 4"* ]] || fail "$output"
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
	# the hostile session left out: this control is about the sweeper
	SOAK_HOSTILE=0 SOAK_CHAOS=0 SOAK_GC="$BATS_TEST_TMPDIR/rogue" run bash "$TOP/test/soak.sh" 15 2
	[ "$status" -eq 1 ] || fail "$output"
	[[ "$output" == *"was removed while its session"* ]] || fail "$output"
}

@test "soak control: sessions with no teardown and no sweep leave sandboxes, and that is caught" {
	# the hostile session left out: this control is about teardown
	SOAK_HOSTILE=0 SOAK_CHAOS=0 SOAK_WATCH="-m none" SOAK_GC=true run bash "$TOP/test/soak.sh" 15 2
	[ "$status" -eq 1 ] || fail "$output"
	[[ "$output" == *"of a dead session is left"* ]] || fail "$output"
}
