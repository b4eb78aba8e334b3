#!/usr/bin/env bats
# The build: warning-free under gcc, clang and musl; install and uninstall
# honour PREFIX and DESTDIR with the right modes; lib exports only sbx_*.

load ../helpers/helper

# Build a clean copy of the tree with this compiler.
build_with() {
	local cc=$1 dir="$BATS_TEST_TMPDIR/src"
	command -v "$cc" >/dev/null || {
		if [ "${CI:-}" = true ]; then
			fail "$cc is missing"
			return 1
		fi
		skip "$cc is not installed"
	}
	mkdir -p "$dir"
	(cd "$TOP" && git ls-files -z | xargs -0 tar cf - 2>/dev/null) |
	    tar xf - -C "$dir"
	run make -C "$dir" CC="$cc" all
	[ "$status" -eq 0 ] || fail "make CC=$cc failed: $output"
	for p in $(make -C "$dir" -s -f - print-bin <<<"include Makefile
print-bin:
	@echo \$(BIN)"); do
		[ -x "$dir/$p" ] || fail "$cc: $p was not built"
	done
}

@test "build: warning-free with -Wall -Wextra -Werror under gcc" {
	build_with gcc
}

@test "build: warning-free under clang" {
	build_with clang
}

@test "build: links against musl (no glibc-isms)" {
	build_with musl-gcc
	file "$BATS_TEST_TMPDIR/src/sbx-run/sbx-run" | grep -q 'statically linked\|musl' ||
	    ldd "$BATS_TEST_TMPDIR/src/sbx-run/sbx-run" 2>&1 | grep -q musl
}

@test "build: libsbx.a defines only sbx_* symbols" {
	[ -f "$TOP/lib/libsbx.a" ]
	run -0 sh -c "nm -g --defined-only '$TOP/lib/libsbx.a' | awk 'NF == 3 { print \$3 }' | grep -v '^sbx_' || true"
	[ -z "$output" ] || fail "not sbx_: $output"
	[ "$(nm -g --defined-only "$TOP/lib/libsbx.a" | grep -c ' T sbx_')" -gt 30 ]
}

@test "install: DESTDIR and PREFIX, modes 0755 and 0644; uninstall removes it all" {
	dest="$BATS_TEST_TMPDIR/dest"
	run -0 make -C "$TOP" -s DESTDIR="$dest" PREFIX=/usr install
	[ -z "$(find "$dest" -mindepth 1 -maxdepth 1 ! -name usr)" ]
	for p in sbx-env sbx-run; do
		[ "$(stat -c %a "$dest/usr/bin/$p")" = 755 ]
	done
	[ "$(stat -c %a "$dest/usr/share/man/man1/sbx-run.1")" = 644 ]
	[ "$(stat -c %a "$dest/usr/share/man/man7/sbx-tools.7")" = 644 ]
	[ -z "$(find "$dest" -type f ! -perm 0755 ! -perm 0644)" ]
	nfiles=$(find "$dest" -type f | wc -l)
	[ "$nfiles" -ge 5 ]
	"$dest/usr/bin/sbx-env" true
	run -0 make -C "$TOP" -s DESTDIR="$dest" PREFIX=/usr uninstall
	[ -z "$(find "$dest" -type f)" ] || fail "left: $(find "$dest" -type f)"
}
