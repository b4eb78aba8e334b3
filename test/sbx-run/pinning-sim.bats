#!/usr/bin/env bats
# Pinning and orphans against the simulator (tier 2), where the docker
# inside is the real docker 28 CLI with a real daemon: only -D/--debug and
# -l/--log-level reach it before the subcommand, and a killed sbx-run
# leaves none of its hung sbx call behind.

load ../helpers/sim-session

setup_file() {
	sim_setup_file
	sim_session_file
	[ -n "$SIM_MISSING" ] && return 0
	"$SIM" create --quiet --name pin-a shell "$WS" 3>&-
}

@test "pinning class (real docker): the allow-list works, in docker's spellings" {
	for args in "-D version" "-Dl debug version" "-lwarn version" \
	    "--log-level=error version" "--debug -- version"; do
		n=$(sim_ncalls)
		# shellcheck disable=SC2086
		run -0 --separate-stderr sbx-run -s pin-a -- $args --format '{{.Server.Os}}'
		[ "$output" = linux ] || fail "$args: $output"
		[ "$(sim_calls_after "$n" | sim_argv_of)" = \
		    "exec pin-a -- docker -H unix:///var/run/docker.sock $args --format $(printf '%q' '{{.Server.Os}}')" ]
	done
	run -0 --separate-stderr sbx-run -s pin-a -- -D ps
	[[ "$output" == "CONTAINER ID"* ]]
}

@test "pinning class (real docker): -Dl debug --config X ps is refused before any sbx call" {
	# the docker inside reads the cluster as docker does: -l eats "debug",
	# so --config is a global option there, not the subcommand
	run --separate-stderr "$SIM" exec pin-a -- docker -H unix:///var/run/docker.sock \
	    -Dl debug --context other ps
	[ "$status" -ne 0 ]
	[[ "$stderr" == *context* ]] || fail "$stderr"
	n=$(sim_ncalls)
	for args in "-Dl debug --config /tmp/x ps" "-Dl debug --context other ps" \
	    "-Dc default ps" "-DH unix:///var/run/docker.sock ps" \
	    "--host=unix:///var/run/docker.sock ps" "--tlsverify ps" "--foo ps"; do
		# shellcheck disable=SC2086
		run -64 --separate-stderr sbx-run -s pin-a -- $args
		[[ "$stderr" == "sbx-run: docker option "* ]] || fail "$args: $stderr"
	done
	[ "$(sim_ncalls)" -eq "$n" ]
}

@test "orphan class (simulator): kill -KILL of sbx-run leaves no hung sbx call" {
	tag=$(sim_tag)
	export SBX_SIM_HANG=exec:1
	sbx-run -s pin-a ps &
	pid=$!
	for _ in $(seq 100); do
		pgrep -f "^sbxsim-hang-$tag" >/dev/null && break
		sleep 0.1
	done
	pgrep -f "^sbxsim-hang-$tag" >/dev/null || fail "the call never hung"
	kill -KILL "$pid"
	wait "$pid" || true
	for _ in $(seq 15); do
		pgrep -f "^sbxsim-hang-$tag" >/dev/null || break
		sleep 0.1
	done
	run ! pgrep -f "^sbxsim-hang-$tag"
	# the sandbox still answers
	unset SBX_SIM_HANG
	run -0 sbx-run -s pin-a -- -D ps -q
}
