#!/usr/bin/env bats
# End to end (tier 2): the deploy flow THROUGH sbx-run against the sbx
# simulator, where every sandbox is a real private dockerd.  Provisioning
# on first use, build, run, publish, fetch, logs, exec, rm, compose, two
# sandboxes apart, read-only mode, an idle-stopped sandbox coming back,
# timeouts, and a teardown that leaves nothing.

load ../helpers/sim-helper

setup_file() {
	sim_setup_file
	sim_session_file
	export WSB="$BATS_FILE_TMPDIR/wsb" WSR="$BATS_FILE_TMPDIR/wsr"
	mkdir -p "$HOME/.ssh" "$WS/www" "$WSB/www" "$WSR"
	echo secret >"$HOME/.ssh/id_e2e"
	printf '<h1>deployed by sbx-run</h1>\n' >"$WS/www/index.html"
	printf 'FROM busybox:local\nCOPY www /www\nCMD ["httpd", "-f", "-v", "-p", "8080", "-h", "/www"]\n' >"$WS/Dockerfile"
	cat >"$WS/compose.yaml" <<-'EOF'
	services:
	  web:
	    image: busybox:local
	    command: httpd -f -p 8081 -h /www
	    volumes:
	      - ./www:/www:ro
	    ports:
	      - "8081:8081"
	  worker:
	    image: busybox:local
	    command: sleep 3600
	EOF
	printf '<h1>the other sandbox</h1>\n' >"$WSB/www/index.html"
	printf 'FROM busybox:local\nRUN echo built-from-ro >/ro\n' >"$WSR/Dockerfile"
}

teardown_file() {
	sim_teardown_file
}

setup() {
	sim_setup_test "$WS" || return 1
	if [ ! -x "$TOP/sbx-run/sbx-run" ]; then
		if [ "${CI:-}" = true ]; then
			fail "sbx-run/sbx-run is not built"
			return 1
		fi
		skip "sbx-run/sbx-run is not built (make)"
	fi
}

# The verbs of the sbx calls after the first N.
verbs_after() {
	sim_calls_after "$1" | cut -d' ' -f3 | tr '\n' ' '
}

status_of() {
	sim_look ls --json | json_get "[s[\"status\"] for s in d[\"sandboxes\"] if s[\"name\"] == \"$1\"][0]"
}

# ---------------------------------------------------------------- provisioning

@test "first use provisions the sandbox (exec, create, exec); after that a call is one sbx exec" {
	n=$(sim_ncalls)
	run -0 --separate-stderr sbx-run -s e2e-a version --format '{{.Server.Os}}'
	[ "$output" = linux ]
	# an sbx without --no-input refuses it once: one create more
	if sim_noinput; then
		[ "$(verbs_after "$n")" = "exec create exec " ]
	else
		[ "$(verbs_after "$n")" = "exec create create exec " ]
	fi
	mapfile -t c < <(sim_calls_after "$n" | sim_argv_of)
	[ "${c[0]}" = "exec e2e-a -- docker -H unix:///var/run/docker.sock version --format $(printf '%q' '{{.Server.Os}}')" ]
	[ "${c[1]}" = "create --quiet --name e2e-a --cpus 2 --memory 2g shell $WS" ]
	[ "$(sim_calls_after "$n" | sed -n 1p | cut -d' ' -f2)" = 1 ]
	[ -f "$SBX_STATE_DIR/e2e-a.created" ]
	[ "$(stat -c %a "$SBX_STATE_DIR")" = 700 ]
	"$SIM" ls -q | grep -qx e2e-a
	n=$(sim_ncalls)
	run -0 --separate-stderr sbx-run -s e2e-a ps -q
	[ "$output" = "" ]
	[ "$(verbs_after "$n")" = "exec " ]
}

# ---------------------------------------------------------------- the deploy flow

@test "build the workspace's Dockerfile, run it with -p 8080:8080, publish, fetch the page from the host, logs, exec, rm -f" {
	run -0 sbx-run -s e2e-a build -t e2e-web .
	[[ $output == *"Successfully tagged e2e-web:latest"* ]]
	run -0 --separate-stderr sbx-run -s e2e-a images --format '{{.Repository}}'
	[[ $'\n'"$output"$'\n' == *$'\n'e2e-web$'\n'* ]]
	run -0 --separate-stderr sbx-run -s e2e-a run -d --name web -p 8080:8080 e2e-web
	[[ $output =~ ^[0-9a-f]{64}$ ]]
	sim_free_port
	run -0 --separate-stderr sim_port publish e2e-a "$SIM_PORT:8080"
	# (sbx's own lines may come before and after it: README, "Words")
	grep -qx "Published 127.0.0.1:$SIM_PORT -> 8080/tcp4" <<<"$output"
	run -0 sim_fetch "http://127.0.0.1:$SIM_PORT/"
	[ "$output" = "<h1>deployed by sbx-run</h1>" ]
	run -0 sbx-run -s e2e-a logs web
	[[ $output == *"response:200"* ]]
	run -0 --separate-stderr sbx-run -s e2e-a exec web cat /www/index.html
	[ "$output" = "<h1>deployed by sbx-run</h1>" ]
	run -0 --separate-stderr sbx-run -s e2e-a ps --format '{{.Names}} {{.Ports}}'
	[[ $output == "web "*":8080->8080/tcp"* ]]
	run -0 --separate-stderr sbx-run -s e2e-a rm -f web
	[ "$output" = web ]
	run -0 --separate-stderr sbx-run -s e2e-a ps -aq
	[ "$output" = "" ]
	run ! curl -fsS --max-time 3 "http://127.0.0.1:$SIM_PORT/"
	run -0 sim_port unpublish e2e-a "$SIM_PORT:8080"
}

@test "docker compose up -d and down -t 0 (compose v1 through the plugin shim)" {
	run -0 --separate-stderr sbx-run -s e2e-a compose up -d
	run -0 --separate-stderr sbx-run -s e2e-a compose ps --services
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "web worker " ]
	run -0 --separate-stderr sbx-run -s e2e-a ps --format '{{.Names}}'
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "ws_web_1 ws_worker_1 " ]
	sim_free_port
	sim_port publish e2e-a "$SIM_PORT:8081" >/dev/null
	run -0 sim_fetch "http://127.0.0.1:$SIM_PORT/"
	[ "$output" = "<h1>deployed by sbx-run</h1>" ]
	run -0 --separate-stderr sbx-run -s e2e-a compose down -t 0
	run -0 --separate-stderr sbx-run -s e2e-a ps -aq
	[ "$output" = "" ]
	sim_port unpublish e2e-a "$SIM_PORT:8081" >/dev/null
}

@test "two sandboxes side by side see neither each other's containers, images nor ports" {
	sbx-run -s e2e-a run -d --name web-a -p 8080:8080 e2e-web >/dev/null
	run -0 --separate-stderr sbx-run -s e2e-b -w "$WSB" run -d --name web-b -p 8080:8080 -v "$WSB/www:/www:ro" busybox:local httpd -f -p 8080 -h /www
	[ -f "$SBX_STATE_DIR/e2e-b.created" ]
	run -0 --separate-stderr sbx-run -s e2e-b ps -a --format '{{.Names}}'
	[ "$output" = web-b ]
	run -0 --separate-stderr sbx-run -s e2e-a ps -a --format '{{.Names}}'
	[ "$output" = web-a ]
	run -0 --separate-stderr sbx-run -s e2e-b images --format '{{.Repository}}'
	[ "$output" = busybox ]
	# the same sandbox port, one page each
	sim_free_port
	ha=$SIM_PORT
	sim_port publish e2e-a "$ha:8080" >/dev/null
	sim_free_port
	hb=$SIM_PORT
	sim_port publish e2e-b "$hb:8080" >/dev/null
	run -0 sim_fetch "http://127.0.0.1:$ha/"
	[ "$output" = "<h1>deployed by sbx-run</h1>" ]
	run -0 sim_fetch "http://127.0.0.1:$hb/"
	[ "$output" = "<h1>the other sandbox</h1>" ]
	# e2e-b cannot reach e2e-a: not by its loopback, not by the host's
	sim_port unpublish e2e-b "$hb:8080" >/dev/null
	sbx-run -s e2e-b rm -f web-b >/dev/null
	run -0 --separate-stderr sbx-run -s e2e-b -x sh -c "curl -sS --max-time 3 http://127.0.0.1:8080/ 2>/dev/null || echo unreachable; curl -sS --max-time 3 http://127.0.0.1:$ha/ 2>/dev/null || echo unreachable"
	[ "$output" = "$(printf 'unreachable\nunreachable')" ]
	# and a removal of one container there changed nothing here
	run -0 sim_fetch "http://127.0.0.1:$ha/"
	sim_port unpublish e2e-a "$ha:8080" >/dev/null
	sbx-run -s e2e-a rm -f web-a >/dev/null
}

@test "read-only workspace mode: a write inside fails, a build from it works" {
	export DOCKER_SANDBOX_WORKSPACE_RO=1
	n=$(sim_ncalls)
	run -1 --separate-stderr sbx-run -s e2e-ro -w "$WSR" -x touch "$WSR/written"
	[[ $stderr == *"Read-only file system"* ]]
	[ ! -e "$WSR/written" ]
	run -0 grep -c "^create --quiet --name e2e-ro --cpus 2 --memory 2g shell $SBX_STATE_DIR/e2e-ro.prime $WSR:ro\$" < <(sim_calls_after "$n" | sim_argv_of)
	run -0 --separate-stderr sbx-run -s e2e-ro -x pwd
	[ "$output" = "$SBX_STATE_DIR/e2e-ro.prime" ]
	run -0 --separate-stderr sbx-run -s e2e-ro build -q -t ro-img "$WSR"
	run -0 --separate-stderr sbx-run -s e2e-ro run --rm ro-img cat /ro
	[ "$output" = built-from-ro ]
	[ "$(ls -A "$WSR")" = Dockerfile ]
}

# ---------------------------------------------------------------- environment

@test "only allow-listed names reach the sandbox, as bare -e NAME: no value in any argv, no DOCKER_* inside" {
	export E2E_TOKEN=s3cret-value DOCKER_HOST=tcp://127.0.0.1:9 E2E_OTHER=not-forwarded
	n=$(sim_ncalls)
	DOCKER_SANDBOX_ENV_ALLOWLIST=E2E_TOKEN run -0 --separate-stderr sbx-run -s e2e-a -x sh -c 'echo "$E2E_TOKEN/${E2E_OTHER:-none}/${DOCKER_HOST:-none}"; if test -e "$0"; then echo home-visible; fi' "$HOME"
	[ "$output" = "s3cret-value/none/none" ]
	run -0 grep -c -- "exec -e E2E_TOKEN e2e-a -- sh -c" < <(sim_calls_after "$n")
	run ! grep -q s3cret "$SBX_SIM_ROOT/calls.log"
	# DOCKER_HOST in the caller does not redirect the pinned docker
	run -0 --separate-stderr sbx-run -s e2e-a version --format '{{.Server.Os}}'
	[ "$output" = linux ]
}

# ---------------------------------------------------------------- idle stop, faults

@test "a sandbox idle-stopped by the simulator comes back on the next call, its restart-policy container with it" {
	export SBX_SIM_IDLE_STOP=2
	sbx-run -s e2e-a run -d --restart unless-stopped --name keep busybox:local httpd -f -p 8080 >/dev/null
	# it stops on its own, 2 s after the exec (the stop itself takes ~2.5 s)
	for _ in $(seq 70); do
		[ "$(status_of e2e-a)" = stopped ] && break
		sleep 0.1
	done
	[ "$(status_of e2e-a)" = stopped ]
	n=$(sim_ncalls)
	run -0 --separate-stderr sbx-run -s e2e-a ps --format '{{.Names}}'
	[ "$output" = keep ]
	[ "$(verbs_after "$n")" = "exec " ]
	[ "$(status_of e2e-a)" = running ]
	sbx-run -s e2e-a rm -f keep >/dev/null
}

@test "a failing sbx exec passes its status and text through; the next call works" {
	n=$(sim_ncalls)
	SBX_SIM_FAIL=exec:1 run -1 --separate-stderr sbx-run -s e2e-a ps -q
	# its words, in whatever case and prefix sbx gives them
	[[ ${stderr,,} == *"failed to start sandbox: start runtime: request failed: 500 internal server error"* ]]
	# and, the call having failed, one look at what sbx blocked
	[ "$(verbs_after "$n")" = "exec policy " ]
	SBX_SIM_FAIL=exec:1 run -0 --separate-stderr sbx-run -s e2e-a ps -q
}

@test "a hung sbx call: sbx-run -t times out with 124 and kills the whole process group" {
	tag=$(sim_tag)
	start=$(date +%s%N)
	n=$(sim_ncalls)
	SBX_SIM_HANG=exec:1 run -124 --separate-stderr sbx-run -t 1 -s e2e-a ps
	ms=$((($(date +%s%N) - start) / 1000000))
	((ms < 6000))
	for _ in $(seq 40); do
		pgrep -f "^sbxsim-hang-$tag" >/dev/null || break
		sleep 0.05
	done
	run ! pgrep -f "^sbxsim-hang-$tag"
	# the hung exec, which ignored SIGTERM and took the SIGKILL (its
	# line written after its end, in either order), and the one that
	# looked for its command inside: it never began there; then the one
	# look at what sbx blocked
	[ "$(sim_calls_after "$n" | cut -d' ' -f2-4 | sort | tr '\n' ' ')" = "0 exec e2e-a 0 policy log 137 exec e2e-a " ]
	[[ $stderr == *"timed out after 1 s; nothing it started was found inside"* ]]
}

# ---------------------------------------------------------------- teardown (last)

@test "teardown: sbx rm --force of all three, then the suite's cleanup, leave nothing on the host" {
	run -0 sim_look rm --force e2e-a e2e-b e2e-ro
	run -0 sim_look ls --json
	[ "$(json_get 'd["sandboxes"]' <<<"$output")" = "[]" ]
	run -0 sim_teardown_assert
}
