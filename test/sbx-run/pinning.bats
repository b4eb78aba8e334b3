#!/usr/bin/env bats
# Pinning under attack: what stands before the docker subcommand is read
# with docker's own grammar, and only -D/--debug and -l/--log-level LEVEL
# pass.  Everything else there is a usage error with no sbx call.

load ../helpers/helper

N=pi-sbx-4242-abcd1234
PIN="-H unix:///var/run/docker.sock"

setup() {
	common_setup
	stub_sandbox "$N"
}

# Each argument is one docker argument string (split on blanks): refused
# with 64, a message naming the option, and no sbx call.
refused() {
	local args
	for args in "$@"; do
		# shellcheck disable=SC2086
		run -64 --separate-stderr sbx-run -s "$N" -- $args
		[[ "$stderr" == "sbx-run: docker option "* ]] ||
		    fail "$args: $stderr"
		[ "$(stub_count)" -eq 0 ] || fail "$args: sbx was called"
	done
}

# Each argument passes unchanged after the pin, one call each.
passed() {
	local args
	for args in "$@"; do
		: >"$SBX_STUB_DIR/calls.log"
		# shellcheck disable=SC2086
		run -0 sbx-run -s "$N" -- $args
		[ "$(stub_count)" -eq 1 ] || fail "$args: not one call"
		[ "$(stub_argv "$(cat "$SBX_STUB_DIR/seq")" | argv_unmarked | tr '\n' ' ')" = \
		    "exec $N -- docker $PIN $args " ] ||
		    fail "$args: $(stub_argv "$(cat "$SBX_STUB_DIR/seq")" | argv_unmarked | tr '\n' ' ')"
	done
}

@test "pinning class: -Dl cluster consumes its value (the reported --config)" {
	run -64 --separate-stderr sbx-run -s "$N" -- -Dl debug --config /tmp/x ps
	[ "$stderr" = "sbx-run: docker option --config would leave the sandbox's daemon; refused" ]
	[ "$(stub_count)" -eq 0 ]
	refused "-Dl debug --context x ps" "-Dl debug -H tcp://x ps" \
	    "-Dl debug --host=tcp://x ps" "-Dl debug -Hunix:///tmp/s ps" \
	    "-Dl debug --tlsverify --tlscacert /c ps" "-Dl debug -c x ps" \
	    "-Dldebug --config /tmp/x ps" "-Dl=debug --config=/tmp/x ps" \
	    "--log-level debug --config /tmp/x ps" \
	    "--log-level=debug --context=x ps"
}

@test "pinning class: every redirecting global option, in every spelling" {
	refused "--context x ps" "--context=x ps" "-c x ps" "-cx ps" "-c=x ps" \
	    "-H tcp://x ps" "--host tcp://x ps" "--host=tcp://x ps" \
	    "-Hunix:///tmp/s ps" "-H=tcp://x ps" "--config /tmp/x ps" \
	    "--config=/tmp/x ps" "--tls ps" "--tlsverify ps" \
	    "--tlsverify --tlscacert /c ps" "--tlscacert=/c ps" \
	    "--tlscert /c ps" "--tlskey=/k ps" "-D --tls=true ps"
	# a second -H after the pin, behind an allowed option
	refused "-D -H unix:///tmp/other.sock ps" "-l info --host unix:///x ps"
}

@test "pinning class: clusters are read letter by letter, as docker does" {
	refused "-DH tcp://x ps" "-DHtcp://x ps" "-Dc x ps" "-Dcx ps" \
	    "-DDc x ps" "-lD ps" "-Dv ps" "-Dh ps" "-DX ps"
	# a cluster ending in a valued letter eats the next word as its value
	refused "-Dl -H ps" "-Dl --config ps"
	run -64 --separate-stderr sbx-run -s "$N" -- -Dc x ps
	[ "$stderr" = "sbx-run: docker option -c (in -Dc) would leave the sandbox's daemon; refused" ]
	# -lD: D is the value of -l, not a level
	run -64 --separate-stderr sbx-run -s "$N" -- -lD ps
	[[ "$stderr" == *"-l (in -lD) takes debug, info, warn, error or fatal" ]]
}

@test "pinning class: unknown, non-allowed and malformed options are refused" {
	refused "--foo ps" "--foo=bar ps" "-x ps" "-v" "--version" "-h" \
	    "--help ps" "--debug=true ps" "-D=true ps" "-l ps" "--log-level" \
	    "-l" "-l trace ps" "--log-level=loud ps" "-lwarning ps" \
	    "-- --config /tmp/x ps" "-D -- -H x ps"
	run -64 --separate-stderr sbx-run -s "$N" -- --foo ps
	[ "$stderr" = "sbx-run: docker option --foo is unknown; refused" ]
	run -64 --separate-stderr sbx-run -s "$N" -- -v
	[[ "$stderr" == "sbx-run: docker option -v is not allowed before the subcommand"* ]]
}

@test "pinning class: the allow-list passes in every spelling docker takes" {
	passed "-D ps" "--debug ps" "-Dl debug ps" "-Dldebug ps" "-Dl=warn ps" \
	    "-lwarn ps" "-l=error ps" "-l fatal ps" "--log-level info ps" \
	    "--log-level=debug ps" "-DD ps" "-D -l info -D ps" "-- ps" \
	    "-D -- ps" "-Dl debug -- ps" "ps --config /x" "run -c 512 busybox:local true"
}

# The bound (seconds) the last journaled call ran under (its call line:
# event lines may follow it).
last_timeout() {
	grep -v '"event":' "$SBX_STATE_DIR/$N.journal" | tail -n 1 |
	    sed 's/.*"timeout":\([0-9]*\).*/\1/'
}

@test "pinning class: dockerargs_long_running reads the words by the same grammar" {
	stub_sandbox "$N"
	# with no bound given, build, pull and compose get 600 s, however the
	# globals look; the journal records the bound each call had
	for args in "-Dl debug build ." "-Dldebug pull x" "-l debug compose up" \
	    "--log-level debug build ." "-D -- pull x"; do
		# shellcheck disable=SC2086
		run -0 sbx-run -s "$N" -- $args
		[ "$(last_timeout)" = 600 ] || fail "$args: $(tail -n 1 "$SBX_STATE_DIR/$N.journal")"
	done
	# the subcommand is not the value of -l: "build" here is the level
	run -64 sbx-run -s "$N" -- -l build ps
	# and ps keeps the short one
	run -0 sbx-run -s "$N" -- -Dl debug ps
	[ "$(last_timeout)" = 120 ] || fail "$(tail -n 1 "$SBX_STATE_DIR/$N.journal")"
	# a bound given is a bound for every call, build too
	DOCKER_SANDBOX_TIMEOUT=7 run -0 sbx-run -s "$N" -- -Dl debug build .
	[ "$(last_timeout)" = 7 ] || fail "$(tail -n 1 "$SBX_STATE_DIR/$N.journal")"
}

@test "pinning class: compose's own options are read with its grammar" {
	for args in "compose -H tcp://x up" "compose -f c.yml -H x up" \
	    "compose -p x --context=y up" \
	    "compose --file=c.yml --tlsverify up" "compose -Dc x up"; do
		# shellcheck disable=SC2086
		run -64 --separate-stderr sbx-run -s "$N" -- $args
		[[ "$stderr" == "sbx-run: compose option "* ]] ||
		    fail "$args: $stderr"
	done
	[ "$(stub_count)" -eq 0 ]
	passed "compose -f c.yml -p proj up -d" "compose -f -H up" \
	    "compose --dry-run up -H"
}
