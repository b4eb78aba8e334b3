#!/usr/bin/env bats
# test/run-suites, the runner make check and .ci/run use: its parts
# record their counts, the closing line adds them up, and nothing that
# did not run to its end, nor a skip under CI=true, passes as a pass.

load ../helpers/helper

# the runner as make runs it: none of this bats run's own variables
runner() {	# CI-value args...
	local ci=$1 path
	shift
	# bats puts its inner commands first on PATH; the runner wants bats
	path=$(printf '%s\n' "$PATH" | tr : '\n' | grep -v bats-core | paste -sd :)
	env -i PATH="$path" HOME="$HOME" TMPDIR="${TMPDIR:-/tmp}" CI="$ci" \
	    SBX_SANITIZE="${SBX_SANITIZE:-1}" SBX_TEST_LOG="$SBX_TEST_LOG" \
	    SBX_TEST_COUNTS="$SBX_TEST_COUNTS" SBX_TEST_TIMES="$SBX_TEST_TIMES" \
	    SBX_TEST_SEED="$BATS_TEST_TMPDIR/seed" \
	    ${SBX_TEST_JOBS:+SBX_TEST_JOBS="$SBX_TEST_JOBS"} sh "${RUNNER:-$R}" "$@"
}

setup() {
	export SBX_TEST_LOG="$BATS_TEST_TMPDIR/log.tap"
	export SBX_TEST_COUNTS="$BATS_TEST_TMPDIR/counts"
	export SBX_TEST_TIMES="$BATS_TEST_TMPDIR/times"
	R="$TOP/test/run-suites"
	# (written so, since bats would take a test line here for its own)
	local t=@test
	printf '%s "passes" { true; }\n%s "skips" { skip "not here"; }\n' \
	    "$t" "$t" >"$BATS_TEST_TMPDIR/two.bats"
	printf '%s "fails" { false; }\n' "$t" >"$BATS_TEST_TMPDIR/bad.bats"
}

@test "runner: a named suite runs alone; a skip is a skip, under CI=true a failure" {
	run runner "" "$BATS_TEST_TMPDIR/two.bats"
	[ "$status" -eq 0 ] || fail "$output"
	[ "${lines[-1]}" = "1 passed, 0 failed, 1 skipped" ]
	run runner true "$BATS_TEST_TMPDIR/two.bats"
	[ "$status" -ne 0 ]
	[ "${lines[-1]}" = "1 passed, 1 failed" ]
	run runner "" "$BATS_TEST_TMPDIR/two.bats" "$BATS_TEST_TMPDIR/bad.bats"
	[ "$status" -ne 0 ]
	[ "${lines[-1]}" = "1 passed, 1 failed, 1 skipped" ]
	grep -q '^not ok 1 fails' "$SBX_TEST_LOG"
}

@test "runner: total adds the parts up, and a part missing or cut short is a failure" {
	runner "" reset
	[ ! -s "$SBX_TEST_COUNTS" ]
	printf '%s\n' 'begin bats' 'end bats 5 0 1' 'begin pi' 'end pi 3 2 0' \
	    >"$SBX_TEST_COUNTS"
	run runner "" total bats pi
	[ "$status" -ne 0 ]
	[ "$output" = "8 passed, 2 failed, 1 skipped" ]
	printf '%s\n' 'begin bats' 'end bats 5 0 0' >"$SBX_TEST_COUNTS"
	run runner "" total bats
	[ "$status" -eq 0 ]
	[ "$output" = "5 passed, 0 failed" ]
	# the sanitized part never ran, then began and never ended
	run runner "" total bats sanitized
	[ "$status" -ne 0 ]
	[ "$output" = "5 passed, 1 failed" ]
	echo 'begin sanitized' >>"$SBX_TEST_COUNTS"
	run runner "" total bats sanitized
	[ "$status" -ne 0 ]
	[ "$output" = "5 passed, 1 failed" ]
	# nothing recorded at all
	rm -f "$SBX_TEST_COUNTS"
	run runner "" total bats
	[ "$status" -ne 0 ]
	[ "$output" = "0 passed, 1 failed" ]
}

@test "runner: a part records what it counted; SBX_SANITIZE=0 runs no sanitized suite" {
	runner "" reset
	SBX_SANITIZE=0 SBX_TEST_JOBS=3 run runner "" sanitized
	[ "$status" -eq 0 ]
	# the seed of the run's varied words first, the seed reset wrote
	[ "${lines[0]}" = "# sim words: vary, seed $(cat "$BATS_TEST_TMPDIR/seed") (replay: SBX_SIM_WORDS=vary SBX_SIM_SEED=$(cat "$BATS_TEST_TMPDIR/seed") test/run-suites test/DIR/NAME.bats)" ] ||
	    fail "$output"
	[ "${lines[1]}" = "sanitized: 0 passed, 0 failed" ]
	[ "${lines[2]}" = "# sanitized: 0m00s wall, 0m00s in its suites" ]
	[ "${lines[3]}" = "# 0 suites: 0m00s wall, 0m00s in the suites added up, 3 at once" ] ||
	    [[ ${lines[3]} == "# 0 suites: 0m01s wall, "* ]]
	# then how busy the CPUs were, unless no tick of them passed
	[ "${#lines[@]}" -eq 4 ] || { [ "${#lines[@]}" -eq 5 ] &&
	    [[ ${lines[4]} =~ ^#\ cpu:\ [0-9]+%\ busy\ over\ the\ run,\ [0-9]+\ cores$ ]]; } ||
	    fail "$output"
	grep -qx 'begin sanitized' "$SBX_TEST_COUNTS"
	grep -qx 'end sanitized 0 0 0' "$SBX_TEST_COUNTS"
	run runner "" total sanitized
	[ "$status" -eq 0 ]
	[ "$output" = "0 passed, 0 failed" ]
}

@test "runner: make check runs the runner once, which runs the three parts side by side; each part also runs alone" {
	run make -s -n -C "$TOP" check
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep 'run-suites')" = "MAKEFLAGS= MAKELEVEL= MFLAGS= sh test/run-suites" ]
	for p in bats sanitized pi; do
		run make -s -n -C "$TOP" "check-$p"
		[ "$(printf '%s\n' "$output" | grep 'run-suites')" = "MAKEFLAGS= MAKELEVEL= MFLAGS= sh test/run-suites $p" ] ||
		    fail "check-$p: $output"
	done
	# the runner with no argument, in a tree of its own: a bats suite, the
	# e2e suite (twice: once more on sbx 0.46), the agent loop (twice),
	# the pi 1.x tier in its parts; each says where it ran
	local t=$BATS_TEST_TMPDIR/tree at=@test l
	mkdir -p "$t/test/lib" "$t/test/e2e" "$t/pi/test"
	cp "$R" "$t/test/run-suites"
	printf '%s "a" { true; }\n' "$at" >"$t/test/lib/a.bats"
	printf '%s "e2e" { echo "e2e ${SBX_SIM_PROFILE:-newest}" >>"%s/ran"; }\n' \
	    "$at" "$t" >"$t/test/e2e/deploy.bats"
	printf 'import test from "node:test";\nimport { appendFileSync } from "node:fs";\n' |
	    tee "$t/pi/test/agentloop.test.mjs" >"$t/pi/test/pi-1x.test.mjs"
	printf 'appendFileSync("%s/ran", `loop ${process.env.SBX_SIM_PROFILE ?? "newest"}\\n`);\ntest("one", () => {});\ntest("two", () => {});\n' \
	    "$t" >>"$t/pi/test/agentloop.test.mjs"
	printf 'appendFileSync("%s/ran", `1x ${process.env.SBX_PI_1X_SHARD}\\n`);\ntest("1x", () => {});\n' \
	    "$t" >>"$t/pi/test/pi-1x.test.mjs"
	command -v node >/dev/null || skip_unless_ci "node is needed"
	SBX_SANITIZE=0 RUNNER="$t/test/run-suites" run runner ""
	[ "$status" -eq 0 ] || fail "$output"
	[ "$(printf '%s\n' "$output" | grep -v '^# ')" = "bats: 3 passed, 0 failed
sanitized: 0 passed, 0 failed
pi: 10 passed, 0 failed
13 passed, 0 failed" ] || fail "$output"
	[ "$(sort "$t/ran" | tr '\n' ,)" = "1x 0/6,1x 1/6,1x 2/6,1x 3/6,1x 4/6,1x 5/6,e2e 0.46,e2e newest,loop 0.46,loop newest," ] ||
	    fail "$(cat "$t/ran")"
	for p in bats sanitized pi; do
		printf '%s\n' "$output" | grep -q "^# $p: [0-9]*m[0-9][0-9]s wall, " || fail "no wall time of $p: $output"
	done
	# each suite labelled by its folder under test/
	for l in 'lib/a.bats' 'e2e/deploy.bats' 'e2e/deploy.bats on sbx 0.46'; do
		printf '%s\n' "$output" | grep -qx "# $l: 1 passed, 0 failed, 0 skipped" ||
		    fail "no line of $l: $output"
	done
	[[ ${lines[-3]} == "# 11 suites: "*" wall, "*" at once" ]] || fail "$output"
	[[ ${lines[-2]} =~ ^#\ cpu:\ [0-9]+%\ busy\ over\ the\ run,\ [0-9]+\ cores$ ]] || fail "$output"
	printf '%s\n' 'begin bats' 'begin sanitized' 'begin pi' 'end bats 3 0 0' \
	    'end sanitized 0 0 0' 'end pi 10 0 0' | cmp - "$SBX_TEST_COUNTS"
}

# Suites in $BATS_TEST_TMPDIR/s1.bats ...: each writes "+ NAME" when it
# begins and "- NAME" when it ends into ev, having waited (10 s at most) until $1 had
# begun: it passes if they had.
barrier_suites() {	# how-many-begin-together suites...
	local want=$1 s at=@test
	shift
	: >"$BATS_TEST_TMPDIR/ev"
	for s in "$@"; do
		cat >"$BATS_TEST_TMPDIR/$s.bats" <<-EOF
		$at "$s" {
			echo "+ $s" >>"$BATS_TEST_TMPDIR/ev"
			for _ in \$(seq 100); do
				[ "\$(grep -c + "$BATS_TEST_TMPDIR/ev")" -ge $want ] && break
				sleep 0.1
			done
			echo "- $s" >>"$BATS_TEST_TMPDIR/ev"
			[ "\$(grep -c + "$BATS_TEST_TMPDIR/ev")" -ge $want ]
		}
		EOF
	done
}

# The most suites that ran at once, from ev.
most_at_once() {
	awk '$1 == "+" { n++; if (n > m) m = n } $1 == "-" { n-- } END { print m }' \
	    "$BATS_TEST_TMPDIR/ev"
}

@test "runner: SBX_TEST_JOBS suites at once, never more; reported in the order named; each suite's seconds in the times file" {
	barrier_suites 2 s1 s2 s3 s4
	SBX_TEST_JOBS=2 run runner "" "$BATS_TEST_TMPDIR"/s[1-4].bats
	[ "$status" -eq 0 ] || fail "$output"
	[ "$(most_at_once)" -eq 2 ] || fail "$(cat "$BATS_TEST_TMPDIR/ev")"
	[ "$(printf '%s\n' "$output" | grep '^# s[0-9]' | cut -d: -f1 | tr '\n' ' ')" = "# s1.bats # s2.bats # s3.bats # s4.bats " ] ||
	    fail "$output"
	[ "${lines[-1]}" = "4 passed, 0 failed" ]
	[ "$(cut -f2- "$SBX_TEST_TIMES" | sort | tr '\t\n' ': ')" = "suites:s1.bats suites:s2.bats suites:s3.bats suites:s4.bats " ] ||
	    fail "$(cat "$SBX_TEST_TIMES")"
	! cut -f1 "$SBX_TEST_TIMES" | grep -v '^[0-9][0-9]*$'
	# three together cannot begin two at a time: the first two wait 10 s
	# and fail
	barrier_suites 3 s1 s2 s3
	SBX_TEST_JOBS=2 run runner "" "$BATS_TEST_TMPDIR"/s[1-3].bats
	[ "$status" -ne 0 ]
	[ "$(most_at_once)" -eq 2 ] || fail "$(cat "$BATS_TEST_TMPDIR/ev")"
}

@test "runner: two runs of one suite file never run at once, whatever the lanes" {
	local at=@test
	printf '%s "alone" {\n\tmkdir "%s/held"\n\tsleep 0.5\n\trmdir "%s/held"\n}\n' \
	    "$at" "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/one.bats"
	SBX_TEST_JOBS=3 run runner "" "$BATS_TEST_TMPDIR/one.bats" \
	    "$BATS_TEST_TMPDIR/one.bats" "$BATS_TEST_TMPDIR/one.bats"
	[ "$status" -eq 0 ] || fail "$output"
	[ "${lines[-1]}" = "3 passed, 0 failed" ]
}

@test "runner: the longest suite of the last run starts first; a first run goes by test/suite-times" {
	barrier_suites 1 s1 s2 s3
	printf '1\tsuites\ts1.bats\n100\tsuites\ts3.bats\n50\tsuites\ts2.bats\n' >"$SBX_TEST_TIMES"
	SBX_TEST_JOBS=1 run runner "" "$BATS_TEST_TMPDIR"/s[1-3].bats
	[ "$status" -eq 0 ] || fail "$output"
	[ "$(grep '^+' "$BATS_TEST_TMPDIR/ev" | cut -d' ' -f2 | tr '\n' ' ')" = "s3 s2 s1 " ] ||
	    fail "$(cat "$BATS_TEST_TMPDIR/ev")"
	# reported in the order named all the same
	[ "$(printf '%s\n' "$output" | grep '^# s[0-9]' | cut -d: -f1 | tr '\n' ' ')" = "# s1.bats # s2.bats # s3.bats " ]
	# no times of its own: the tree's, in a tree of its own
	local t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t/test"
	cp "$R" "$t/test/run-suites"
	printf '1\tsuites\ts1.bats\n50\tsuites\ts2.bats\n100\tsuites\ts3.bats\n' >"$t/test/suite-times"
	rm "$SBX_TEST_TIMES"
	barrier_suites 1 s1 s2 s3
	SBX_TEST_JOBS=1 RUNNER="$t/test/run-suites" run runner "" "$BATS_TEST_TMPDIR"/s[1-3].bats
	[ "$status" -eq 0 ] || fail "$output"
	[ "$(grep '^+' "$BATS_TEST_TMPDIR/ev" | cut -d' ' -f2 | tr '\n' ' ')" = "s3 s2 s1 " ] ||
	    fail "$(cat "$BATS_TEST_TMPDIR/ev")"
	# and this run's times are kept, not the tree's changed
	[ "$(cut -f3 "$SBX_TEST_TIMES" | sort | tr '\n' ' ')" = "s1.bats s2.bats s3.bats " ]
	[ "$(cut -f1 "$t/test/suite-times" | tr '\n' ' ')" = "1 50 100 " ]
}
