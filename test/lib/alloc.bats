#!/usr/bin/env bats
# Exit 125: a wrapper that fails before it runs its command.  Only an
# allocation failure leads there, so an LD_PRELOAD shim makes calloc(3)
# fail.  A sanitizer's allocator cannot be displaced that way, so this
# suite stays out of the sanitized pass of test/run-suites.

load ../helpers/helper

N=pi-sbx-4242-abcd1234

setup() {
	common_setup
}

@test "sbx-env: 125 when it fails before exec" {
	run -125 --separate-stderr env LD_PRELOAD="$TOP/test/tools/failalloc.so" \
	    "$TOP/sbx-env/sbx-env" true
	[[ "$stderr" == "sbx-env: Cannot allocate memory" ]]
}

@test "sbx-run: 125 when it fails before running sbx" {
	stub_sandbox "$N"
	run -125 --separate-stderr env LD_PRELOAD="$TOP/test/tools/failalloc.so" \
	    "$TOP/sbx-run/sbx-run" -s "$N" ps
	[ "$stderr" = "sbx-run: Cannot allocate memory" ]
	[ "$(stub_count)" -eq 0 ]
}
