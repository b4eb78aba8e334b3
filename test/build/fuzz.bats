#!/usr/bin/env bats
# The fuzz targets of test/fuzz/, built as "make fuzz" builds them (with
# clang: libFuzzer, ASan and UBSan; without it: gcc, ASan and UBSan and
# the replay main), each run over its committed corpus.  Any crash, leak
# or failed invariant fails the test.  Fuzzing itself is "make fuzz".

load ../helpers/helper

FUZZ=$TOP/test/fuzz

setup_file() {
	export FUZZOUT="$BATS_FILE_TMPDIR/fuzz"
	sh "$TOP/test/fuzz/build" "$FUZZOUT" >"$BATS_FILE_TMPDIR/build.log" 2>&1 ||
	    { cat "$BATS_FILE_TMPDIR/build.log" >&2; return 1; }
}

targets() {
	local f
	for f in "$FUZZ"/*.c; do
		f=${f##*/}
		[ "$f" = replay.c ] || echo "${f%.c}"
	done
}

replay() {	# target
	local files=("$FUZZ/corpus/$1"/*)
	[ -e "${files[0]}" ] || fail "no corpus for $1"
	run "$FUZZOUT/fuzz-$1" "${files[@]}"
	[ "$status" -eq 0 ] || fail "fuzz-$1 failed ($status): ${output: -2000}"
}

@test "fuzz: every target has a committed corpus, and every corpus a target" {
	local t d n=0
	for t in $(targets); do
		[ -d "$FUZZ/corpus/$t" ] || fail "no corpus for $t"
		[ -x "$FUZZOUT/fuzz-$t" ] || fail "fuzz-$t was not built"
		n=$((n + 1))
	done
	for d in "$FUZZ"/corpus/*/; do
		d=${d%/}
		[ -f "$FUZZ/${d##*/}.c" ] || fail "corpus ${d##*/} has no target"
	done
	[ "$n" -ge 10 ]
	# and each its line of sources in test/fuzz/targets, once
	for t in $(targets); do
		[ "$(grep -c "^$t[[:space:]]" "$FUZZ/targets")" -eq 1 ] ||
		    fail "$t: not once in test/fuzz/targets"
	done
	for t in $(awk '!/^#/ && NF { print $1 }' "$FUZZ/targets"); do
		[ -f "$FUZZ/$t.c" ] || fail "test/fuzz/targets: $t has no target"
	done
}

@test "fuzz: a target links what its line names, and only that" {
	# the port parser of sbx-ports, which is not in lib/, is fuzzed
	[ -f "$FUZZOUT/obj/sbx-ports/dockerps.o" ]
	[ -f "$FUZZOUT/obj/lib/rfc3339.o" ]
	# nothing unnamed is compiled: rfc3339's target is its one source
	run nm "$FUZZOUT/fuzz-rfc3339"
	[[ "$output" == *" T sbx_rfc3339_parse"* ]]
	[[ "$output" != *sbx_json_parse* ]]
	# a target without a line is refused, saying so
	mkdir -p "$BATS_TEST_TMPDIR/tree/test/fuzz"
	cp "$FUZZ/build" "$FUZZ/targets" "$FUZZ/replay.c" \
	    "$BATS_TEST_TMPDIR/tree/test/fuzz/"
	cp "$FUZZ/num.c" "$BATS_TEST_TMPDIR/tree/test/fuzz/lineless.c"
	run sh "$BATS_TEST_TMPDIR/tree/test/fuzz/build" "$BATS_TEST_TMPDIR/out" \
	    lineless
	[ "$status" -ne 0 ]
	[[ "$output" == *"lineless: no line in test/fuzz/targets"* ]]
}

@test "fuzz: a target that breaks its invariant fails the replay" {
	local cc=clang san=-fsanitize=fuzzer,address,undefined drv=
	command -v clang >/dev/null || { cc=gcc san=-fsanitize=address,undefined drv=$FUZZ/replay.c; }
	cat >"$BATS_TEST_TMPDIR/bad.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
int LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	if (n >= 3 && memcmp(d, "bad", 3) == 0)
		abort();
	return 0;
}
C
	$cc $san -I"$TOP/lib" -o "$BATS_TEST_TMPDIR/bad" "$BATS_TEST_TMPDIR/bad.c" \
	    $drv "$FUZZOUT"/obj/lib/io.o
	printf good >"$BATS_TEST_TMPDIR/1"
	printf bad >"$BATS_TEST_TMPDIR/2"
	run "$BATS_TEST_TMPDIR/bad" "$BATS_TEST_TMPDIR/1"
	[ "$status" -eq 0 ]
	run "$BATS_TEST_TMPDIR/bad" "$BATS_TEST_TMPDIR/1" "$BATS_TEST_TMPDIR/2"
	[ "$status" -ne 0 ]
}

@test "fuzz: json replays its corpus" { replay json; }
@test "fuzz: sbxls replays its corpus" { replay sbxls; }
@test "fuzz: ports replays its corpus" { replay ports; }
@test "fuzz: name replays its corpus" { replay name; }
@test "fuzz: env replays its corpus" { replay env; }
@test "fuzz: num replays its corpus" { replay num; }
@test "fuzz: marker replays its corpus" { replay marker; }
@test "fuzz: rfc3339 replays its corpus" { replay rfc3339; }
@test "fuzz: notfound replays its corpus" { replay notfound; }
@test "fuzz: shown replays its corpus" { replay shown; }
@test "fuzz: imgcheck replays its corpus" { replay imgcheck; }
@test "fuzz: egress replays its corpus" { replay egress; }
@test "fuzz: policylog replays its corpus" { replay policylog; }
