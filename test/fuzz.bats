#!/usr/bin/env bats
# The fuzz targets of test/fuzz/, built as "make fuzz" builds them (with
# clang: libFuzzer, ASan and UBSan; without it: gcc, ASan and UBSan and
# the replay main), each run over its committed corpus.  Any crash, leak
# or failed invariant fails the test.  Fuzzing itself is "make fuzz".

load helper

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
	    $drv "$FUZZOUT"/obj/io.o
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
