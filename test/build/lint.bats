#!/usr/bin/env bats
# make lint is part of make check: man pages, usage = SYNOPSIS, shellcheck,
# cppcheck and clang-tidy, all clean.

load ../helpers/helper

@test "lint: make lint is clean" {
	for tool in mandoc shellcheck cppcheck clang-tidy col; do
		command -v "$tool" >/dev/null || fail "$tool is not installed"
	done
	run sh "$TOP/test/lint"
	[ "$status" -eq 0 ] || fail "$output"
	[ -z "$output" ] || fail "lint printed: $output"
}

# a copy of the commented sources, where a test plants what lint refuses
comments_copy() {
	C="$BATS_TEST_TMPDIR/src"
	mkdir -p "$C"
	(cd "$TOP" && tar cf - lib/*.[ch] sbx-*/*.[ch] pi/src) | (cd "$C" && tar xf -)
}

@test "lint: comments: a clean copy passes; words in code are not comments" {
	comments_copy
	echo 'static const char *lint_s = "DESIGN #381 issue 19 TET // D-port";' >>"$C/lib/io.c"
	run sh "$TOP/test/lint" comments "$C"
	[ "$status" -eq 0 ] || fail "$output"
	[ -z "$output" ]
}

@test "lint: comments: a citation outside the tree fails, by file, line and text" {
	comments_copy
	cp "$C/lib/io.c" "$C/io.c.orig"
	cp "$C/pi/src/text.ts" "$C/text.ts.orig"
	n=$(($(wc -l <"$C/lib/io.c") + 1))
	t=$(($(wc -l <"$C/pi/src/text.ts") + 1))
	for words in "as DESIGN section 3 says" "see sbx-today.md" "sbx-now.md (b)" \
	    "sbx-cli.md 1.7" "reference/peers.md" "fixed in issue 19" \
	    "as the prior extension did" "since round 2" "(#381, 0.37.1)" \
	    "(TET 0.42.1)" "(D-trbl)" "(REL-0.42.0)" "(HURA)"; do
		cp "$C/io.c.orig" "$C/lib/io.c"
		printf '/* %s */\n' "$words" >>"$C/lib/io.c"
		run sh "$TOP/test/lint" comments "$C"
		[ "$status" -eq 1 ] || fail "$words: lint passed"
		[ "$output" = "lint: lib/io.c:$n: $words " ] || fail "$words: $output"
	done
	cp "$C/io.c.orig" "$C/lib/io.c"
	printf '\t// %s\n' "as the prior extension did" >>"$C/pi/src/text.ts"
	run sh "$TOP/test/lint" comments "$C"
	[ "$status" -eq 1 ]
	[ "$output" = "lint: pi/src/text.ts:$t: as the prior extension did" ] || fail "$output"
}

@test "lint: comments: a file head of more than 8 lines fails" {
	comments_copy
	head8='/*\n * one\n * two\n * three\n * four\n * five\n * six\n */\n'
	printf "$head8"'#include <stdio.h>\n' >"$C/lib/zz.c"
	run sh "$TOP/test/lint" comments "$C"
	[ "$status" -eq 0 ] || fail "an 8-line head: $output"
	printf "$head8"'/* and a ninth */\n#include <stdio.h>\n' >"$C/lib/zz.c"
	run sh "$TOP/test/lint" comments "$C"
	[ "$status" -eq 1 ]
	[ "$output" = "lint: lib/zz.c:1: file head of 9 comment lines (at most 8)" ] || fail "$output"
}

@test "lint: prefix: the tree passes; a function not named for its file fails" {
	comments_copy
	run sh "$TOP/test/lint" prefix "$C"
	[ "$status" -eq 0 ] || fail "$output"
	[ -z "$output" ] || fail "$output"
	# static, main, and the file's own prefix (with sbx_ or sbx_x) pass
	printf 'static int\nstray(void)\n{\n\treturn 0;\n}\n' >>"$C/lib/portspec.c"
	printf 'int\nsbx_xportspec_ok(void)\n{\n\treturn 0;\n}\n' >>"$C/lib/portspec.c"
	printf 'int\nmain(void)\n{\n\treturn 0;\n}\n' >>"$C/sbx-gc/markers.c"
	run sh "$TOP/test/lint" prefix "$C"
	[ "$status" -eq 0 ] || fail "$output"
	printf 'int\nsbx_port_stray(void)\n{\n\treturn 0;\n}\n' >>"$C/lib/portspec.c"
	printf 'void\ngc_stray2(void)\n{\n}\n' >>"$C/sbx-gc/markers.c"
	run sh "$TOP/test/lint" prefix "$C"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "lint: lib/portspec.c: sbx_port_stray: prefix does not name the file" ] || fail "$output"
	[ "${lines[1]}" = "lint: sbx-gc/markers.c: gc_stray2: prefix does not name the file" ] || fail "$output"
	[ "${#lines[@]}" -eq 2 ] || fail "$output"
}
