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
