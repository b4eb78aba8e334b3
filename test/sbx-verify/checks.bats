#!/usr/bin/env bats
# sbx-verify: arguments, formats, exit statuses and the transport's
# environment against the recording stand-in (tier 1); then every check
# against the simulator: all PASS when it is faithful, and each one FAIL,
# with evidence and exit 1, under the fault mode that breaks its guarantee.

load ../helpers/helper
load ../helpers/sim-setup

CHECKS="transport env-scrub env-forward daemon-pinning mounts contexts host-socket port-binds workspace-ro teardown-armed ssh-agent mcp-gateway egress-rules"

setup() {
	common_setup
	export PATH="$TOP/sbx-verify:$TOP/sbx-ports:$TOP/sbx-watch:$PATH"
	unset DOCKER_SANDBOX_TEARDOWN SBX_SIM_LEAK SBX_SIM_DIALECT
}

teardown() {
	sim_test_teardown
}

# The line of check $1 in $output.
line_of() {
	printf '%s\n' "$output" | grep -E "^(PASS|FAIL|SKIP) $1: "
}

# sbx calls the stand-in saw (its log has one line per argv line, and
# the probe script has many).
ncalls() {
	ls "$SBX_STUB_DIR/calls" | grep -c '\.argv$'
}

# A watcher for SIM_SB that lives as long as this test.
arm_watch() {
	sleep 600 3>&- &
	echo $! >>"$BATS_TEST_TMPDIR/pids"
	sbx-watch -m none -p $! "$SIM_SB" || fail "sbx-watch failed"
}

# ---------------------------------------------------------------- tier 1

@test "usage: unknown flag, operands; usage line is the synopsis" {
	usage_refused sbx-verify "usage: sbx-verify [-jt] [-S [-f] | -s name]" \
	    "-Z" "-s" "extra" "-j extra" "-s pi-sbx-1-x y"
	[ "$(stub_count)" -eq 0 ]
}

@test "usage: each mode takes its flags: -S with -f, -j and -t; the audit with -j, -s and -t" {
	local args
	for args in "-S -f -j" "-t -S -f" "-j -s pi-sbx-1-x" "-s pi-sbx-1-x -t"; do
		# shellcheck disable=SC2086 # the words are the options
		DOCKER_SANDBOX_TIMEOUT=x run -64 --separate-stderr sbx-verify $args
		[ "$stderr" = "sbx-verify: DOCKER_SANDBOX_TIMEOUT: number is invalid (0 to 86400)" ] ||
		    fail "'$args': $stderr"
	done
	[ "$(stub_count)" -eq 0 ]
}

@test "the name: -s or DOCKER_SANDBOX, validated; a bad DOCKER_SANDBOX_TEARDOWN is a usage error" {
	run -64 --separate-stderr sbx-verify
	[ "$stderr" = "sbx-verify: no sandbox: give -s name or set DOCKER_SANDBOX" ]
	run -64 --separate-stderr sbx-verify -s default
	[[ $stderr == "sbx-verify: invalid sandbox name"* ]]
	DOCKER_SANDBOX_TEARDOWN=later run -64 --separate-stderr sbx-verify -s pi-sbx-1-v
	[[ $stderr == "sbx-verify: DOCKER_SANDBOX_TEARDOWN: expected remove, stop or none" ]]
	[ "$(stub_count)" -eq 0 ]
}

@test "no sandbox: it says so, exits 2 and creates nothing" {
	run -2 --separate-stderr sbx-verify -s pi-sbx-1-absent1
	[ -z "$output" ]
	[[ $stderr == *"sbx-verify: sandbox pi-sbx-1-absent1 does not exist (the audit never creates one)" ]]
	[ "$(stub_count create)" -eq 0 ]
	[ "$(ncalls)" -eq 2 ]
	# nothing of the audit is left behind
	[ -z "$(ls "$SBX_STATE_DIR" | grep verify)" ]
	[ -z "$(ls "$TMPDIR")" ]
}

@test "the transport: one sbx exec through sbx-run, poisoned env scrubbed, only the allowed probe forwarded" {
	stub_sandbox pi-sbx-1-v
	export DOCKER_SANDBOX_ENV_ALLOWLIST=MY_TOKEN MY_TOKEN=t
	run -2 --separate-stderr sbx-verify -s pi-sbx-1-v
	[ "$(stub_count exec)" -eq 1 ]
	argv=$(stub_argv 1 | tr '\n' ' ')
	[[ $argv =~ ^exec\ -e\ (MY_TOKEN|VERIFY_PROBE_[0-9a-f]{16})\ -e\ (MY_TOKEN|VERIFY_PROBE_[0-9a-f]{16})\ pi-sbx-1-v\ --\ sh\ -c\  ]] ||
	    fail "argv: $argv"
	env=$(stub_env 1)
	! grep -q '^DOCKER_HOST=\|^DOCKER_CONTEXT=\|^DOCKER_VERIFY_SENTINEL_\|^DOCKER_SANDBOX_ENV_ALLOWLIST=' <<<"$env"
	grep -q '^DOCKER_SANDBOXES_VERIFY_SENTINEL_[0-9a-f]*=1$' <<<"$env"
	grep -q '^SBX_VERIFY_PROBE_[0-9a-f]*=1$' <<<"$env"
	grep -q '^VERIFY_PROBE_[0-9a-f]*=[0-9a-f]\{16\}$' <<<"$env"
	# the canary docker is first on the PATH the sbx CLI gets
	grep -q "^PATH=$TMPDIR/sbx-verify\.[^:]*:" <<<"$env"
	# a probe that did not complete is no audit: exit 2
	[[ $stderr == *"the probes did not complete"* ]]
}

@test "a transport that runs the probes on the host is caught: the canary docker ran" {
	stub_sandbox pi-sbx-1-v
	export SBX_STUB_EXEC_RUN=1
	run -1 --separate-stderr sbx-verify -s pi-sbx-1-v
	[ "${#lines[@]}" -eq 13 ]
	[ "$(printf '%s\n' "${lines[@]}" | cut -d: -f1 | cut -d' ' -f2 | tr '\n' ' ')" = "$CHECKS " ]
	[[ ${lines[0]} == "FAIL transport: the canary docker first on the host PATH ran: the probes reached a host docker binary" ]]
	[[ $(line_of daemon-pinning) == "FAIL daemon-pinning: "* ]]
	[[ $(line_of workspace-ro) == "SKIP workspace-ro: read-write mode"* ]]
	[[ $(line_of teardown-armed) == "FAIL teardown-armed: no process holds $SBX_STATE_DIR/pi-sbx-1-v.lock"* ]]
	[ "$(ncalls)" -le 3 ]
	[ -z "$(ls "$SBX_STATE_DIR" | grep verify)" ]
}

@test "-j prints one JSON object per check, -t prints TAP with SKIP" {
	stub_sandbox pi-sbx-1-v
	export SBX_STUB_EXEC_RUN=1
	run -1 --separate-stderr sbx-verify -j -s pi-sbx-1-v
	[ "${#lines[@]}" -eq 13 ]
	[[ ${lines[0]} == '{"check":"transport","result":"fail","evidence":"the canary docker first on the host PATH ran: the probes reached a host docker binary"}' ]]
	[[ ${lines[8]} == '{"check":"workspace-ro","result":"skip","evidence":"read-write mode'* ]]
	for l in "${lines[@]}"; do
		[[ $l =~ ^\{\"check\":\"[a-z-]+\",\"result\":\"(pass|fail|skip)\",\"evidence\":\".+\"\}$ ]] || fail "$l"
	done
	run -1 --separate-stderr sbx-verify -t -s pi-sbx-1-v
	[ "${lines[0]}" = "1..13" ]
	[[ ${lines[1]} == "not ok 1 - transport: "* ]]
	[[ ${lines[9]} == "ok 9 - workspace-ro # SKIP read-write mode"* ]]
	[[ ${lines[10]} == "not ok 10 - teardown-armed: "* ]]
}

@test "controls class: what the sandbox said reaches text and TAP lines escaped, as -j escapes it; valid UTF-8 stays" {
	stub_sandbox pi-sbx-1-v
	export SBX_STUB_EXEC_RUN=1
	# a socket whose path the probes report: C1 as UTF-8 and raw, ESC,
	# a carriage return, valid UTF-8 and a backslash in its name
	d="$BATS_TEST_TMPDIR/x$(printf '\302\2332J\302\205\033[1A\rü\\\233K')"
	mkdir -p "$d"
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$d/docker.sock"
	for f in "" -t; do
		XDG_RUNTIME_DIR=$d run -1 --separate-stderr sbx-verify $f -s pi-sbx-1-v
		printf '%s' "$output" | od -c | grep -q '302 233\|033\|\\r\| 233' &&
		    fail "a control reached the output ($f): $(printf '%s' "$output" | od -c | head -40)"
		[[ $output == *'daemon socket visible inside: '*'/x\302\2332J\302\205\033[1A\rü\\\233K/docker.sock'* ]] ||
		    fail "$f: $output"
		# every check still has its line, the FAILs after it too
		[ "$(printf '%s\n' "$output" | grep -cE '^(PASS|FAIL|SKIP|ok|not ok) ')" -eq 13 ]
	done
	XDG_RUNTIME_DIR=$d run -1 --separate-stderr sbx-verify -j -s pi-sbx-1-v
	[[ $output == *'x\u009b2J\u0085\u001b[1A\u000dü\\\ufffdK/docker.sock'* ]] || fail "$output"
}

@test "read-only mode named by the marker but without a project path fails workspace-ro" {
	stub_sandbox pi-sbx-1-v
	export SBX_STUB_EXEC_RUN=1
	mkdir -p "$SBX_STATE_DIR"
	chmod 700 "$SBX_STATE_DIR"
	printf 'created=1\nmode=ro\n' >"$SBX_STATE_DIR/pi-sbx-1-v.created"
	run -1 sbx-verify -s pi-sbx-1-v
	[[ $(line_of workspace-ro) == "FAIL workspace-ro: read-only mode, but no pi-sbx-1-v.created marker names the project"* ]]
}

@test "teardown-armed is SKIP when teardown is off and nobody watches" {
	stub_sandbox pi-sbx-1-v
	export SBX_STUB_EXEC_RUN=1
	DOCKER_SANDBOX_TEARDOWN=none run -1 sbx-verify -s pi-sbx-1-v
	[[ $(line_of teardown-armed) == "SKIP teardown-armed: teardown is off (DOCKER_SANDBOX_TEARDOWN=none) and no watcher holds pi-sbx-1-v.lock" ]]
	DOCKER_SANDBOX=pi-sbx-1-v run -1 sbx-verify
	[[ $(line_of teardown-armed) == "SKIP teardown-armed: teardown is off (DOCKER_SANDBOX_TEARDOWN=none, the default for a pinned sandbox)"* ]]
}

# A PATH of the system's commands but those named, then the programs'.
without() {
	local b f n
	b=$BATS_TEST_TMPDIR/sys-$(printf '%s-' "$@")
	mkdir -p "$b"
	for f in /usr/local/bin/* /usr/bin/* /bin/*; do
		n=${f##*/}
		case " $* " in *" $n "*) continue ;; esac
		[ -e "$b/$n" ] || ln -s "$f" "$b/$n"
	done
	echo "$TOP/sbx-verify:$TOP/sbx-run:$TOP/sbx-env:$TOP/test/tools:$b"
}

@test "the channels' probes: python3 serves where socat is missing; with neither, both FAIL as not probed, never PASS" {
	stub_sandbox pi-sbx-1-v
	export SBX_STUB_EXEC_RUN=1
	PATH=$(without socat) run -1 sbx-verify -s pi-sbx-1-v
	# the controls answered through python3 (the canary docker lists no
	# image, so no container could run)
	[[ $(line_of mcp-gateway) == "FAIL mcp-gateway: could not probe from a container: the sandbox daemon holds no image" ]]
	l=$(line_of ssh-agent)
	[[ $l == "PASS ssh-agent: "*"(the control, through python3)" ||
	    ($l == "FAIL ssh-agent: "*" answered "* && $l != *control*) ]] || fail "$l"
	PATH=$(without socat python3) run -1 sbx-verify -s pi-sbx-1-v
	[[ $(line_of ssh-agent) == "FAIL ssh-agent: could not probe: neither socat nor python3 is in the sandbox" ]]
	[[ $(line_of mcp-gateway) == "FAIL mcp-gateway: could not probe from the VM: neither socat nor python3 is in the sandbox" ]]
}

@test "a full stdout is an error" {
	stub_sandbox pi-sbx-1-v
	export SBX_STUB_EXEC_RUN=1
	run bash -c 'sbx-verify -s pi-sbx-1-v >/dev/full'
	[ "$status" -eq 2 ]
	[[ $output == *"sbx-verify: stdout"* ]]
}

# ---------------------------------------------------------------- tier 2

@test "sim: faithful, read-only, watched, ::1 published: every check passes in 2 sbx calls" {
	DOCKER_SANDBOX_WORKSPACE_RO=1 sim_sandbox vro
	arm_watch
	"$SIM_SBX" port publish "$SIM_SB" '[::1]:18611:80/tcp' 127.0.0.1:18612:80/tcp >/dev/null
	n=$(sim_calls)
	run -0 --separate-stderr sbx-verify -s "$SIM_SB"
	printf '%s\n' "$output" >&3
	[ "${#lines[@]}" -eq 13 ]
	[ "$(printf '%s\n' "${lines[@]}" | cut -d' ' -f1 | sort -u)" = PASS ]
	[ "$(printf '%s\n' "${lines[@]}" | cut -d: -f1 | cut -d' ' -f2 | tr '\n' ' ')" = "$CHECKS " ]
	[[ $(line_of port-binds) == *"[::1]:18611->80/tcp"* ]]
	[[ $(line_of workspace-ro) == "PASS workspace-ro: a write to $WS failed inside" ]]
	[ "$(line_of egress-rules)" = "PASS egress-rules: no rules of the session" ]
	[[ $(line_of mounts) == *"while the project is seen at its host path" ]]
	calls=$(sim_calls_since "$n" | wc -l)
	echo "# sbx calls per audit: $calls" >&3
	[ "$calls" -le 3 ]
	[ "$calls" -eq 2 ]
}

@test "sim: read-write mode: workspace-ro is SKIP and the audit passes" {
	sim_sandbox v1
	arm_watch
	run -0 sbx-verify -s "$SIM_SB"
	[[ $(line_of workspace-ro) == "SKIP workspace-ro: read-write mode (NAME.created says mode=rw): the project is meant to be writable" ]]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^PASS ')" -eq 12 ]
}

@test "sim: a poisoned caller (DOCKER_HOST, DOCKER_CONTEXT, a docker first on PATH) does not change the answer" {
	sim_sandbox v1
	arm_watch
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\n: >%s/host-docker-ran\nexit 1\n' "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/bin/docker"
	chmod +x "$BATS_TEST_TMPDIR/bin/docker"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" DOCKER_HOST=tcp://127.0.0.1:1 \
	    DOCKER_CONTEXT=evil DOCKER_CONFIG=/nonexistent run -0 sbx-verify -s "$SIM_SB"
	[[ $(line_of transport) == "PASS transport: "* ]]
	[ ! -e "$BATS_TEST_TMPDIR/host-docker-ran" ]
}

@test "sim: an sbx without the port group or --no-input (0.47) costs the audit two more calls the first time only (4 at most)" {
	sim_sandbox v1
	export SBX_SIM_PROFILE=0.47
	rm -f "$SBX_STATE_DIR/sbx-port-dialect" "$SBX_STATE_DIR/sbx-no-input"
	n=$(sim_calls)
	run -1 sbx-verify -s "$SIM_SB"
	# the exec, port (unknown), ports --no-input (refused), ports
	[ "$(sim_calls_since "$n" | wc -l)" -eq 4 ] || fail "$(sim_calls_since "$n")"
	n=$(sim_calls)
	run -1 sbx-verify -s "$SIM_SB"
	[ "$(sim_calls_since "$n" | wc -l)" -eq 2 ]
	rm -f "$SBX_STATE_DIR/sbx-port-dialect" "$SBX_STATE_DIR/sbx-no-input"
}

# expect_fail CHECK...: status 1, each named check FAIL with evidence.
expect_fail() {
	[ "$status" -eq 1 ] || fail "status $status: $output"
	local c l
	for c in "$@"; do
		l=$(line_of "$c")
		[[ $l =~ ^FAIL\ $c:\ .{10,} ]] || fail "$c: $l"
		echo "# $l" >&3
	done
}

# With the simulator's fault $1 in a watched sandbox, the audit FAILs
# each check named after it.
leak_fails() {
	local leak=$1
	shift
	sim_sandbox v1
	arm_watch
	SBX_SIM_LEAK=$leak run sbx-verify -s "$SIM_SB"
	expect_fail "$@"
}

@test "sim fault: leaky environment -> env-scrub and env-forward FAIL" {
	leak_fails env env-scrub env-forward
	[[ $(line_of env-scrub) == *DOCKER_SANDBOXES_VERIFY_SENTINEL_* ]]
	[[ $(line_of env-forward) == *SBX_VERIFY_PROBE_* ]]
	[[ $(line_of transport) == "PASS "* ]]
}

@test "sim fault: 0.0.0.0 binding -> port-binds FAIL (::1 stays a pass)" {
	sim_sandbox v1
	arm_watch
	SBX_SIM_LEAK=bind-any run -0 sbx-ports -s "$SIM_SB" publish 18613
	run sbx-verify -s "$SIM_SB"
	expect_fail port-binds
	[[ $(line_of port-binds) == "FAIL port-binds: bound beyond loopback: 0.0.0.0:18613->18613/tcp4" ]]
	# the class: on a stopped sandbox whose listing is refused (409), and
	# on an sbx without the port group, the leak still fails the check
	"$SIM_SBX" stop "$SIM_SB" >/dev/null
	SBX_SIM_FAULT=ports-409 run sbx-verify -s "$SIM_SB"
	expect_fail port-binds
	rm -f "$SBX_STATE_DIR/sbx-port-dialect"
	SBX_SIM_PROFILE=0.47 run sbx-verify -s "$SIM_SB"
	expect_fail port-binds
	rm -f "$SBX_STATE_DIR/sbx-port-dialect"
}

@test "sim fault: visible HOME -> mounts FAIL" {
	sim_sandbox v1
	arm_watch
	mkdir -p "$HOME/.ssh"
	SBX_SIM_LEAK=home run sbx-verify -s "$SIM_SB"
	expect_fail mounts
	[[ $(line_of mounts) == "FAIL mounts: visible inside: the canary, ~/.ssh (canary $SBX_STATE_DIR/$SIM_SB.verify-"* ]]
	rmdir "$HOME/.ssh"
}

@test "sim fault: extra docker context -> contexts FAIL" {
	leak_fails context contexts
	[[ $(line_of contexts) == "FAIL contexts: contexts inside: default sbx-sim-leak" ]]
}

@test "sim fault: host socket inside -> host-socket FAIL" {
	leak_fails socket host-socket
	[[ $(line_of host-socket) == *"/run/user/0/docker.sock"* ]]
}

@test "sim fault: a transport that runs on the host, where a canary docker is first on PATH -> transport FAIL" {
	leak_fails host-exec transport
	[[ $(line_of transport) == "FAIL transport: the canary docker first on the host PATH ran"* ]]
}

@test "sim fault: a docker inside that follows DOCKER_HOST over -H -> daemon-pinning FAIL" {
	leak_fails unpinned daemon-pinning
	[[ $(line_of daemon-pinning) == *"Cannot connect to the Docker daemon at unix:///nonexistent/sbx-verify-"* ]]
	[[ $(line_of transport) == "PASS "* ]]
}

@test "sim fault: a writable project in read-only mode -> workspace-ro FAIL" {
	sim_sandbox vbad
	arm_watch
	# provisioned read-write, but the marker says read-only: the sandbox
	# does not enforce what the session believes
	sed -i 's/^mode=rw$/mode=ro/' "$SBX_STATE_DIR/$SIM_SB.created"
	run sbx-verify -s "$SIM_SB"
	expect_fail workspace-ro
	[[ $(line_of workspace-ro) == "FAIL workspace-ro: a write to $WS succeeded inside" ]]
	[ -z "$(ls -A "$WS" | grep sbx-verify)" ]
	sed -i 's/^mode=ro$/mode=rw/' "$SBX_STATE_DIR/$SIM_SB.created"
}

@test "sim fault: no watcher -> teardown-armed FAIL" {
	sim_sandbox v1
	run sbx-verify -s "$SIM_SB"
	expect_fail teardown-armed
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^FAIL ')" -eq 1 ]
}

# An ssh-agent holding one key, listening at $1 on the host; its pid goes
# to the test's list, ended at teardown.
host_agent() {
	local key=$BATS_TEST_TMPDIR/key out
	mkdir -p "${1%/*}"
	ssh-keygen -q -t ed25519 -N '' -C sbx-verify-test -f "$key" ||
	    fail "ssh-keygen"
	out=$(ssh-agent -a "$1" -s) || fail "ssh-agent"
	AGENT_PID=$(printf '%s\n' "$out" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
	echo "$AGENT_PID" >>"$BATS_TEST_TMPDIR/pids"
	SSH_AUTH_SOCK=$1 ssh-add -q "$key" 2>/dev/null || fail "ssh-add"
}

@test "sim fault: sbx's SSH agent forwarding (a host agent bound in, SSH_AUTH_SOCK set) -> ssh-agent FAIL" {
	sim_sandbox v1
	arm_watch
	host_agent "$SBX_SIM_ROOT/host/ssh-agent.sock"
	SBX_SIM_LEAK=ssh-agent run sbx-verify -s "$SIM_SB"
	expect_fail ssh-agent
	[[ $(line_of ssh-agent) == "FAIL ssh-agent: /run/ssh-agent.sock answered SSH2_AGENT_IDENTITIES_ANSWER with 1 key; set inside: SSH_AUTH_SOCK=/run/ssh-agent.sock" ]]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^FAIL ')" -eq 1 ]
	# the variable alone, its agent gone, still fails
	kill "$AGENT_PID"
	SBX_SIM_LEAK=ssh-agent run sbx-verify -s "$SIM_SB"
	expect_fail ssh-agent
	[[ $(line_of ssh-agent) == "FAIL ssh-agent: set inside: SSH_AUTH_SOCK=/run/ssh-agent.sock (no agent answered)" ]]
	rm -f "$SBX_SIM_ROOT/host/ssh-agent.sock"
}

@test "sim: an agent's socket inside that no variable names is found -> ssh-agent FAIL; faithful, it PASSes with its control" {
	sim_sandbox v1
	arm_watch
	run -0 sbx-verify -s "$SIM_SB"
	[[ $(line_of ssh-agent) =~ ^PASS\ ssh-agent:\ no\ SSH_AUTH_SOCK\ inside.*an\ agent\ planted\ at\ /tmp/sbx-verify\.[^/]+/agent\.[0-9a-f]{16}\ answered\ \(the\ control,\ through\ socat\)$ ]] ||
	    fail "$(line_of ssh-agent)"
	run -0 sbx-run -s "$SIM_SB" -x sh -c 'mkdir -p /tmp/agentdir && ssh-agent -a /tmp/agentdir/a.sock -s'
	pid=$(printf '%s\n' "$output" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
	[ -n "$pid" ] || fail "$output"
	echo "$pid" >>"$BATS_TEST_TMPDIR/pids"
	run sbx-verify -s "$SIM_SB"
	kill "$pid"
	sbx-run -s "$SIM_SB" -x rm -rf /tmp/agentdir
	expect_fail ssh-agent
	[[ $(line_of ssh-agent) == "FAIL ssh-agent: /tmp/agentdir/a.sock answered SSH2_AGENT_IDENTITIES_ANSWER with 0 keys" ]]
}

@test "sim fault: an MCP gateway reachable inside (MCP_GATEWAY_URL) -> mcp-gateway FAIL, from the VM and from a container" {
	leak_fails mcp-gateway mcp-gateway
	# (by the gateway's name too, where the VM resolves it)
	[[ $(line_of mcp-gateway) == "FAIL mcp-gateway: "*"10.254.0.1:8811 from the VM answered MCP initialize (HTTP 200)"* ]]
	[[ $(line_of mcp-gateway) == *"10.254.0.1:8811 from a container answered MCP initialize (HTTP 200)"* ]]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '^FAIL ')" -eq 1 ]
	# faithful again: the endpoint went with the exec
	run -0 sbx-verify -s "$SIM_SB"
	[[ $(line_of mcp-gateway) =~ ^PASS\ mcp-gateway:\ no\ MCP\ gateway\ answered:\ from\ the\ VM\ .*\([0-9]+\ unreachable[^\)]*\)\;\ from\ a\ container\ of\ busybox:local\ through\ nc,\ .*an\ endpoint\ planted\ at\ 127\.0\.0\.1:[0-9]+\ answered\ MCP\ initialize\ \(the\ control,\ through\ socat\)$ ]] ||
	    fail "$(line_of mcp-gateway)"
}

@test "sim: the newest image has no shell: the container probe runs in the next one" {
	sim_sandbox v1
	arm_watch
	run -0 sbx-run -s "$SIM_SB" -x sh -c 'mkdir -p /tmp/ns && echo x >/tmp/ns/f &&
	    printf "FROM scratch\nCOPY f /f\n" >/tmp/ns/Dockerfile &&
	    docker -H unix:///var/run/docker.sock build -q -t sbxv-noshell:1 /tmp/ns &&
	    rm -rf /tmp/ns'
	run sbx-verify -s "$SIM_SB"
	sbx-run -s "$SIM_SB" rmi sbxv-noshell:1 >/dev/null
	[ "$status" -eq 0 ] || fail "$output"
	[[ $(line_of mcp-gateway) == "PASS mcp-gateway: "*"; from a container of busybox:local through nc, "* ]] ||
	    fail "$(line_of mcp-gateway)"
}

# ---------------------------------------------------------------- egress-rules

# The policy checks of the calls since mark $1: their targets, in order
# (as the calls log quotes them).
checked() {
	sim_calls_since "$1" | sed -n "s/^.* policy check network --sandbox $SIM_SB //p" | tr '\n' ' '
}

@test "sim: egress-rules: each rule of the session asked with policy check on a host it covers, deny rules first; an allow under a deny not asked" {
	export DOCKER_SANDBOX_EGRESS_ALLOW='web.test,*.ok.test,10.1.0.0/16,in.no.test'
	export DOCKER_SANDBOX_EGRESS_DENY='bad.ok.test,[2001:db8::1]:8443,**.no.test'
	sim_sandbox eg1
	arm_watch
	n=$(sim_calls)
	run -0 --separate-stderr sbx-verify -s "$SIM_SB"
	[ "${#lines[@]}" -eq 13 ]
	[ "$(line_of egress-rules)" = "PASS egress-rules: 6 rules held (3 deny, 3 allow), each asked of sbx with policy check on a host it covers; 1 allow rule not asked (a deny rule of the session covers it)" ] ||
	    fail "$(line_of egress-rules)"
	[ "$(checked "$n")" = "bad.ok.test:443 \\[2001:db8::1\\]:8443 sbxv.sbxv.no.test:443 web.test:443 sbxv.ok.test:443 10.1.0.0:443 " ] ||
	    fail "$(sim_calls_since "$n")"
	[ "$(sim_calls_since "$n" | wc -l)" -eq 8 ]
	# sbx's words varied, a denial's status 0 or 1: read the same
	for seed in 1 2 3 4 5 6; do
		SBX_SIM_WORDS=vary SBX_SIM_SEED=$seed run -0 --separate-stderr sbx-verify -s "$SIM_SB"
		[[ $(line_of egress-rules) == "PASS egress-rules: 6 rules held (3 deny, 3 allow)"* ]] ||
		    fail "seed $seed: $(line_of egress-rules)"
	done
	for rc in 0 1; do
		SBX_SIM_POLICY_CHECK_RC=$rc run -0 --separate-stderr sbx-verify -s "$SIM_SB"
		[[ $(line_of egress-rules) == "PASS egress-rules: 6 rules held"* ]] || fail "rc $rc: $(line_of egress-rules)"
	done
	# the operand spelling, on an sbx that refuses --sandbox
	SBX_SIM_PROFILE=0.46 run --separate-stderr sbx-verify -s "$SIM_SB"
	[[ $(line_of egress-rules) == "PASS egress-rules: 6 rules held"* ]] || fail "0.46: $(line_of egress-rules)"
	rm -f "$SBX_STATE_DIR/sbx-port-dialect" "$SBX_STATE_DIR/sbx-no-input" "$SBX_STATE_DIR/sbx-policy-operand"
}

@test "sim: egress-rules FAILs after a stop dropped the rules: the lost allow, then the lost deny once only the allow is back" {
	export DOCKER_SANDBOX_EGRESS_ALLOW='**.ok.test' DOCKER_SANDBOX_EGRESS_DENY='bad.ok.test'
	sim_sandbox eg2
	run --separate-stderr sbx-verify -s "$SIM_SB"
	[ "$(line_of egress-rules)" = "PASS egress-rules: 2 rules held (1 deny, 1 allow), each asked of sbx with policy check on a host it covers" ] ||
	    fail "$(line_of egress-rules)"
	"$SIM_SBX" stop "$SIM_SB" >/dev/null
	run --separate-stderr sbx-verify -s "$SIM_SB"
	expect_fail egress-rules
	[ "$(line_of egress-rules)" = "FAIL egress-rules: sbx does not hold: allow **.ok.test (sbx says sbxv.sbxv.ok.test:443 is denied); 1 held" ] ||
	    fail "$(line_of egress-rules)"
	# the allow put back alone: the deny now fails open, and is named
	"$SIM_SBX" policy allow network --sandbox "$SIM_SB" '**.ok.test' >/dev/null
	run --separate-stderr sbx-verify -s "$SIM_SB"
	expect_fail egress-rules
	[ "$(line_of egress-rules)" = "FAIL egress-rules: sbx does not hold: deny bad.ok.test (sbx says bad.ok.test:443 is allowed); 1 held" ] ||
	    fail "$(line_of egress-rules)"
}

@test "sim fault: an organisation's policy voids local allows -> egress-rules FAILs naming them; an answer it cannot read is no PASS" {
	export DOCKER_SANDBOX_EGRESS_ALLOW='web.test' DOCKER_SANDBOX_EGRESS_DENY='bad.test'
	sim_sandbox eg3
	SBX_SIM_FAULT=policy-org run --separate-stderr sbx-verify -s "$SIM_SB"
	expect_fail egress-rules
	[ "$(line_of egress-rules)" = "FAIL egress-rules: sbx does not hold: allow web.test (sbx says web.test:443 is denied); 1 held" ] ||
	    fail "$(line_of egress-rules)"
	# an sbx whose check answers in no words the audit knows, exit 0
	cat >"$BATS_TEST_TMPDIR/sbx" <<-EOF
	#!/bin/sh
	case "\$*" in
	*"check network"*) echo "Verdict: maybe"; exit 0 ;;
	esac
	exec "$SIM_SBX" "\$@"
	EOF
	chmod +x "$BATS_TEST_TMPDIR/sbx"
	DOCKER_SANDBOX_SBX=$BATS_TEST_TMPDIR/sbx run --separate-stderr sbx-verify -s "$SIM_SB"
	expect_fail egress-rules
	[ "$(line_of egress-rules)" = "FAIL egress-rules: sbx does not hold: deny bad.test (asked bad.test:443: no answer read, exit 0: Verdict: maybe), allow web.test (asked web.test:443: no answer read, exit 0: Verdict: maybe); 0 held" ] ||
	    fail "$(line_of egress-rules)"
}

@test "sim: egress-rules asks 16 rules at most, deny rules first: an allow beyond is named, a deny beyond FAILs" {
	sim_sandbox eg4
	"$SIM_SBX" policy allow network --sandbox "$SIM_SB" web.test >/dev/null
	{
		echo 'allow web.test'
		echo 'registry registry.test'
		for i in $(seq 16); do echo "deny d$i.test"; done
	} >"$SBX_STATE_DIR/$SIM_SB.egress"
	chmod 600 "$SBX_STATE_DIR/$SIM_SB.egress"
	n=$(sim_calls)
	run --separate-stderr sbx-verify -s "$SIM_SB"
	[ "$(line_of egress-rules)" = "PASS egress-rules: 16 rules held (16 deny, 0 allow), each asked of sbx with policy check on a host it covers; 1 allow rule not asked (16 asked at most; an allow sbx lost fails closed)" ] ||
	    fail "$(line_of egress-rules)"
	[ "$(sim_calls_since "$n" | wc -l)" -eq 18 ]
	echo 'deny d17.test' >>"$SBX_STATE_DIR/$SIM_SB.egress"
	run --separate-stderr sbx-verify -s "$SIM_SB"
	expect_fail egress-rules
	[ "$(line_of egress-rules)" = "FAIL egress-rules: 1 deny rule not asked: 16 are asked at most, and a deny rule sbx lost would fail open; 16 held" ] ||
	    fail "$(line_of egress-rules)"
	rm -f "$SBX_STATE_DIR/$SIM_SB.egress"
}
