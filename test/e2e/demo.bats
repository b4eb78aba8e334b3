#!/usr/bin/env bats
# make demo is the README's promise: the whole deploy flow, narrated,
# against the simulator, ending with nothing left.

load ../helpers/sim-helper

# make demo [SIM_PROFILE=P]: every step, nothing left
demo_ok() {
	SIM_MISSING=$(sim_missing)
	sim_require
	run make -C "$TOP" -s demo "$@"
	[ "$status" -eq 0 ] || fail "$output"
	[[ "$output" == *"all went as shown."* ]] || fail "$output"
	for step in "sbx-run" "sbx-ports" "sbx-verify" "curl" "Nothing is left"; do
		[[ "$output" == *"$step"* ]] || fail "no '$step' in: $output"
	done
	[[ "$output" != *"skipped"* ]] || fail "a step was skipped: $output"
}

@test "demo: make demo runs every step and leaves nothing behind" {
	demo_ok
}

@test "demo: on the oldest profile too (make demo SIM_PROFILE=0.46)" {
	demo_ok SIM_PROFILE=0.46
}
