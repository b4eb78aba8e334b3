#!/usr/bin/env bats
# sbx-ports: arguments, output and sbx calls against the recording
# stand-in (tier 1), then end to end against the simulator (tier 2):
# real daemons, real forwarders, curl from the host.

load ../helpers/helper
load ../helpers/sim-setup

setup() {
	common_setup
	export PATH="$TOP/sbx-ports:$TOP/sbx-verify:$PATH"
	export DOCKER_SANDBOX=pi-sbx-1-ports001
	stub_sandbox pi-sbx-1-ports001
}

teardown() {
	sim_test_teardown
}

# ---------------------------------------------------------------- tier 1

@test "usage: no verb, an unknown verb, an unknown flag, operands to ls and sync" {
	for args in "" "frob" "-Z ls" "ls x" "sync x" "publish" "unpublish" "rules x" "blocked x" "allow" "deny"; do
		# shellcheck disable=SC2086
		run -64 --separate-stderr sbx-ports $args
		[ -z "$output" ] || fail "stdout for '$args': $output"
		[ "${stderr_lines[0]}" = "usage: sbx-ports [-j] [-s name] ls | publish spec ... | unpublish spec ... | sync | allow host ... | deny host ... | rules | blocked" ] ||
		    fail "stderr for '$args': $stderr"
	done
	[ "$(stub_count)" -eq 0 ]
}

@test "specs are parsed strictly before any sbx call: publish foo 70000 exits 64" {
	for spec in foo 70000 0 -1 +80 8080/sctp 1:2:3 :80 80: 8080/ 99999:80 \
	    "8080 " 0x50 80/TCP 127.0.0.1:80:80; do
		run -64 --separate-stderr sbx-ports publish "$spec"
		[[ $stderr == "sbx-ports: $spec: "* ]] || fail "spec '$spec': $stderr"
	done
	run -64 --separate-stderr sbx-ports publish 8080 foo 70000
	[[ $stderr == "sbx-ports: foo: sandbox port is not a number"* ]]
	run -64 --separate-stderr sbx-ports unpublish 65536
	[[ $stderr == *"sandbox port is out of range"* ]]
	[ "$(stub_count)" -eq 0 ]
}

@test "the sandbox name: -s, else DOCKER_SANDBOX, validated" {
	unset DOCKER_SANDBOX
	run -64 --separate-stderr sbx-ports ls
	[[ $stderr == "sbx-ports: no sandbox: give -s name or set DOCKER_SANDBOX" ]]
	run -64 --separate-stderr sbx-ports -s -bad ls
	[[ $stderr == "sbx-ports: invalid sandbox name"* ]]
	run -64 --separate-stderr sbx-ports -s default ls
	[ "$(stub_count)" -eq 0 ]
}

@test "ls: one URL per mapping, each with the family sbx lists it with (golden)" {
	cat >"$SBX_STUB_DIR/out.port" <<-'EOF'
	[{"host_ip":"127.0.0.1","host_port":8080,"sandbox_port":8080,"protocol":"tcp"},{"host_ip":"::1","host_port":8080,"sandbox_port":8080,"protocol":"tcp6"},{"host_ip":"127.0.0.1","host_port":5353,"sandbox_port":53,"protocol":"udp4"},{"host_ip":"0.0.0.0","host_port":9000,"sandbox_port":9000,"protocol":"tcp4"}]
	EOF
	run -0 --separate-stderr sbx-ports ls
	[ "$output" = "http://127.0.0.1:8080/ -> 8080/tcp
http://[::1]:8080/ -> 8080/tcp6
udp://127.0.0.1:5353 -> 53/udp4
http://127.0.0.1:9000/ -> 9000/tcp4 (bound to 0.0.0.0, not loopback)" ]
	[ "$(stub_argv 1 | tr '\n' ' ')" = "port ls --json pi-sbx-1-ports001 " ]
	run -0 --separate-stderr sbx-ports -j ls
	[ "${lines[0]}" = '{"url":"http://127.0.0.1:8080/","host_ip":"127.0.0.1","host_port":8080,"sandbox_port":8080,"protocol":"tcp"}' ]
	[ "${lines[1]}" = '{"url":"http://[::1]:8080/","host_ip":"::1","host_port":8080,"sandbox_port":8080,"protocol":"tcp6"}' ]
	[ "${lines[2]}" = '{"url":"udp://127.0.0.1:5353","host_ip":"127.0.0.1","host_port":5353,"sandbox_port":53,"protocol":"udp4"}' ]
	[ "${lines[3]}" = '{"url":"http://127.0.0.1:9000/","host_ip":"0.0.0.0","host_port":9000,"sandbox_port":9000,"protocol":"tcp4","loopback":false}' ]
	# a protocol sbx does not have is no guess
	echo '[{"host_ip":"127.0.0.1","host_port":1,"sandbox_port":1,"protocol":"tcp5"}]' >"$SBX_STUB_DIR/out.port"
	run -1 sbx-ports ls
}

@test "ls reading class: sbx's listing behind and before its own lines, and an address with controls shown escaped" {
	list='[{"host_ip":"127.0.0.1","host_port":8080,"sandbox_port":8080,"protocol":"tcp"}]'
	for said in 'Starting sandboxd daemon...
Daemon started (PID: 6927, socket: /x/sandboxd.sock)
Logs: /x/daemon.log' '[sbx] Sandbox pi-sbx-1-ports001 started successfully' \
	    'WARN: mcp gateway teardown: context deadline exceeded' '' \
	    'Client Version:  v0.37.1 windows/amd64' 'a wording nobody has seen yet'; do
		printf '%s\n\n%s\n%s\n' "$said" "$list" "$said" >"$SBX_STUB_DIR/out.port"
		run -0 --separate-stderr sbx-ports ls
		[ "$output" = "http://127.0.0.1:8080/ -> 8080/tcp" ] || fail "said '$said': $output / $stderr"
	done
	printf '[{"host_ip":"1.2.3.4\\u009b2J\\u001b]0;x\\u0007","host_port":9000,"sandbox_port":9000,"protocol":"tcp4"}]\n' >"$SBX_STUB_DIR/out.port"
	run -0 --separate-stderr sbx-ports ls
	[ "$output" = 'http://1.2.3.4\302\2332J\033]0;x\007:9000/ -> 9000/tcp4 (bound to 1.2.3.4\302\2332J\033]0;x\007, not loopback)' ] || fail "$output"
}

@test "ls: no mappings (empty output or []) prints nothing" {
	run -0 sbx-ports ls
	[ -z "$output" ]
	echo '[]' >"$SBX_STUB_DIR/out.port"
	run -0 sbx-ports ls
	[ -z "$output" ]
}

@test "sbx's answer that the sandbox is missing exits 68, other failures 1" {
	echo 1 >"$SBX_STUB_DIR/rc.port"
	echo "ERROR: no sandbox named 'pi-sbx-1-ports001'" >"$SBX_STUB_DIR/err.port"
	run -68 --separate-stderr sbx-ports ls
	[[ $stderr == *"sbx-ports: sandbox pi-sbx-1-ports001 does not exist" ]]
	echo 'ERROR: boom' >"$SBX_STUB_DIR/err.port"
	run -1 --separate-stderr sbx-ports ls
	[[ $stderr == *"ERROR: boom"*"failed (exit 1)" ]]
	# an answer no reader places: shown as such, with the version once
	[[ $stderr == *"in words sbx-tools cannot place:"*"  ERROR: boom"*"run 'sbx-verify -S'"* ]] || fail "$stderr"
	rm "$SBX_STUB_DIR/rc.port"
	echo 'not json' >"$SBX_STUB_DIR/out.port"
	run -1 --separate-stderr sbx-ports ls
	[[ $stderr == *"no JSON"* ]]
}

# An sbx from before the port group (0.39 to 0.47): cobra's own refusal.
old_sbx() {
	echo 1 >"$SBX_STUB_DIR/rc.port"
	echo 'ERROR: unknown command "port" for "sbx"' >"$SBX_STUB_DIR/err.port"
}

@test "dialect: the port group first; an sbx without it answers in ports, found once and cached" {
	echo '[{"host_ip":"127.0.0.1","host_port":3000,"sandbox_port":3000,"protocol":"tcp4"}]' >"$SBX_STUB_DIR/out.port"
	run -0 sbx-ports ls
	[ "$output" = "http://127.0.0.1:3000/ -> 3000/tcp4" ]
	[ "$(stub_count)" -eq 1 ]
	[ "$(cat "$SBX_STATE_DIR/sbx-port-dialect")" = port ]
	# the group publishes and unpublishes with two verbs
	run -0 sbx-ports publish 3001:3001 2>&1
	[ "$(stub_argv 3 | tr '\n' ' ')" = "port publish pi-sbx-1-ports001 127.0.0.1:3001:3001/tcp4 " ]
	run -0 sbx-ports unpublish 3000
	[ "$(stub_argv 5 | tr '\n' ' ')" = "port unpublish pi-sbx-1-ports001 127.0.0.1:3000:3000/tcp4 " ]
	# an older sbx: port is unknown, ports answers, and is kept
	rm "$SBX_STATE_DIR/sbx-port-dialect"
	old_sbx
	cp "$SBX_STUB_DIR/out.port" "$SBX_STUB_DIR/out.ports"
	n=$(stub_count)
	run -0 sbx-ports ls
	[ "$output" = "http://127.0.0.1:3000/ -> 3000/tcp4" ]
	[ "$(stub_argv $((n + 1)) | tr '\n' ' ')" = "port ls --json pi-sbx-1-ports001 " ]
	[ "$(stub_argv $((n + 2)) | tr '\n' ' ')" = "ports --json pi-sbx-1-ports001 " ]
	[ "$(cat "$SBX_STATE_DIR/sbx-port-dialect")" = ports ]
	run -0 sbx-ports ls
	[ "$(stub_count)" -eq $((n + 3)) ]
	[ "$(stub_argv $((n + 3)) | tr '\n' ' ')" = "ports --json pi-sbx-1-ports001 " ]
}

@test "dialect class: ports as an alias of the group, ports gone, and a cached dialect that stops working" {
	mkdir -m 0700 -p "$SBX_STATE_DIR"
	echo '[{"host_ip":"127.0.0.1","host_port":3000,"sandbox_port":3000,"protocol":"tcp4"}]' >"$SBX_STUB_DIR/out.port"
	echo 1 >"$SBX_STUB_DIR/rc.ports"
	# each way a ports that is no longer the old verb may answer
	for said in 'ERROR: unknown command "ports" for "sbx"' \
	    'error: unknown flag: --json' \
	    'Error: unknown command "pi-sbx-1-ports001" for "sbx port"' \
	    'ERROR: accepts 0 arg(s), received 1'; do
		echo ports >"$SBX_STATE_DIR/sbx-port-dialect"
		printf '%s\n' "$said" >"$SBX_STUB_DIR/err.ports"
		n=$(stub_count)
		run -0 --separate-stderr sbx-ports ls
		[ "$output" = "http://127.0.0.1:3000/ -> 3000/tcp4" ] || fail "$said: $output $stderr"
		[ "$(stub_argv $((n + 1)) | cut -d' ' -f1 | head -n1)" = ports ]
		[ "$(stub_argv $((n + 2)) | tr '\n' ' ')" = "port ls --json pi-sbx-1-ports001 " ]
		[ "$(cat "$SBX_STATE_DIR/sbx-port-dialect")" = port ] || fail "$said: cache"
	done
	# cached port on an sbx that went back: ports answers, and is kept
	old_sbx
	rm "$SBX_STUB_DIR/rc.ports" "$SBX_STUB_DIR/err.ports"
	cp "$SBX_STUB_DIR/out.port" "$SBX_STUB_DIR/out.ports"
	run -0 sbx-ports ls
	[ "$(cat "$SBX_STATE_DIR/sbx-port-dialect")" = ports ]
	# a real failure of ports on an old sbx asks port once, keeps ports' answer
	echo 1 >"$SBX_STUB_DIR/rc.ports"
	echo 'ERROR: daemon unreachable' >"$SBX_STUB_DIR/err.ports"
	n=$(stub_count)
	run -1 --separate-stderr sbx-ports ls
	[[ $stderr == *"daemon unreachable"* ]]
	[[ $stderr != *"unknown command"* ]]
	# ports, port, and the version of an answer no reader placed
	[ "$(stub_count)" -eq $((n + 3)) ]
	[ "$(stub_argv $((n + 3)) | tr '\n' ' ')" = "version " ]
	[ "$(cat "$SBX_STATE_DIR/sbx-port-dialect")" = ports ]
	# a missing sandbox is no reason to doubt the dialect
	echo "ERROR: no sandbox named 'pi-sbx-1-ports001'" >"$SBX_STUB_DIR/err.ports"
	n=$(stub_count)
	run -68 sbx-ports ls
	[ "$(stub_count)" -eq $((n + 1)) ]
	# a cached port that is gone, and ports failing too: the cache goes,
	# the next program starts afresh
	echo 'ERROR: boom' >"$SBX_STUB_DIR/err.ports"
	echo port >"$SBX_STATE_DIR/sbx-port-dialect"
	run -1 sbx-ports ls
	[ ! -e "$SBX_STATE_DIR/sbx-port-dialect" ]
	# a cached port failing for another reason (a daemon down) stays
	echo 'ERROR: boom' >"$SBX_STUB_DIR/err.port"
	echo port >"$SBX_STATE_DIR/sbx-port-dialect"
	n=$(stub_count)
	run -1 sbx-ports ls
	[ "$(stub_count)" -eq $((n + 1)) ]
	[ "$(cat "$SBX_STATE_DIR/sbx-port-dialect")" = port ]
}

@test "publish: same host port when free and >= 1024, ephemeral below 1024, all in one call, as tcp4/udp4" {
	run -0 --separate-stderr sbx-ports publish 18431 80 5353/udp 19999:81
	[ "${lines[0]}" = "http://127.0.0.1:18431/ -> 18431/tcp4" ]
	[[ ${lines[1]} =~ ^http://127\.0\.0\.1:([0-9]+)/\ -\>\ 80/tcp4\ \(ephemeral:\ sandbox\ port\ 80\ is\ below\ 1024\)$ ]]
	eph=${BASH_REMATCH[1]}
	[ "$eph" -ge 1024 ]
	[ "${lines[2]}" = "udp://127.0.0.1:5353 -> 5353/udp4" ]
	[ "${lines[3]}" = "http://127.0.0.1:19999/ -> 81/tcp4" ]
	[ "$(stub_count)" -eq 2 ]
	[ "$(stub_argv 2 | tr '\n' ' ')" = "port publish pi-sbx-1-ports001 127.0.0.1:18431:18431/tcp4 127.0.0.1:$eph:80/tcp4 127.0.0.1:5353:5353/udp4 127.0.0.1:19999:81/tcp4 " ]
	# a family in the spec: that loopback stack
	run -0 --separate-stderr sbx-ports publish 18437/tcp6
	[ "$output" = "http://[::1]:18437/ -> 18437/tcp6" ]
	[ "$(stub_argv 4 | tr '\n' ' ')" = "port publish pi-sbx-1-ports001 [::1]:18437:18437/tcp6 " ]
}

@test "publish: a host port taken on the host gives an ephemeral one and says so" {
	command -v socat >/dev/null || skip_or_fail "socat is not installed"
	socat TCP4-LISTEN:18432,bind=127.0.0.1,reuseaddr,fork /dev/null &
	echo $! >>"$BATS_TEST_TMPDIR/pids"
	sim_wait_listen 18432
	run -0 --separate-stderr sbx-ports -j publish 18432
	[[ $output =~ \"host_port\":([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" != 18432 ]
	[[ $output == *'"sandbox_port":18432,"protocol":"tcp4","ephemeral":true,"reason":"host port taken"}' ]]
}

@test "publish: a mapping already there is reported, not published again" {
	echo '[{"host_ip":"127.0.0.1","host_port":18433,"sandbox_port":18433,"protocol":"tcp4"}]' >"$SBX_STUB_DIR/out.port"
	run -0 sbx-ports publish 18433
	[ "$output" = "http://127.0.0.1:18433/ -> 18433/tcp4" ]
	[ "$(stub_count)" -eq 1 ]
	# tcp6 is not what was asked for
	run -0 sbx-ports publish 18433/tcp6
	[ "$(stub_count)" -eq 3 ]
}

@test "unpublish family class: each mapping goes back with the protocol it is listed with; none is no error" {
	echo '[{"host_ip":"127.0.0.1","host_port":8080,"sandbox_port":8000,"protocol":"tcp4"},{"host_ip":"::1","host_port":8080,"sandbox_port":8000,"protocol":"tcp6"},{"host_ip":"127.0.0.1","host_port":8082,"sandbox_port":8000,"protocol":"tcp"},{"host_ip":"127.0.0.1","host_port":8081,"sandbox_port":8001,"protocol":"tcp"},{"host_ip":"127.0.0.1","host_port":5353,"sandbox_port":8000,"protocol":"udp6"}]' >"$SBX_STUB_DIR/out.port"
	run -0 sbx-ports unpublish 8000
	[ "$(stub_argv 2 | tr '\n' ' ')" = "port unpublish pi-sbx-1-ports001 127.0.0.1:8080:8000/tcp4 [::1]:8080:8000/tcp6 127.0.0.1:8082:8000/tcp " ]
	run -0 sbx-ports unpublish 8000/tcp6 8000/udp
	[ "$(stub_argv 4 | tr '\n' ' ')" = "port unpublish pi-sbx-1-ports001 [::1]:8080:8000/tcp6 127.0.0.1:5353:8000/udp6 " ]
	run -0 sbx-ports unpublish 9999:8001 4444/udp 8001/tcp4
	[ "$(stub_count)" -eq 5 ]
}

@test "sync: VM ports from docker ps through sbx-run, then the listing, one publish call, then nothing to do" {
	cat >"$SBX_STUB_DIR/out.exec" <<-'EOF'
	{"ID":"a1","Names":"web","Ports":"0.0.0.0:18434->8000/tcp, :::18434->8000/tcp","State":"running"}
	{"ID":"a2","Names":"dns","Ports":"0.0.0.0:18435->53/udp, 9000/tcp","State":"running"}
	{"ID":"a3","Names":"plain","Ports":"","State":"running"}
	{"ID":"a4","Names":"low","Ports":"[::]:80->80/tcp","State":"running"}
	EOF
	run -0 --separate-stderr sbx-ports sync
	[ "${lines[0]}" = "http://127.0.0.1:18434/ -> 18434/tcp4" ]
	[ "${lines[1]}" = "udp://127.0.0.1:18435 -> 18435/udp4" ]
	[[ ${lines[2]} =~ ^http://127\.0\.0\.1:([0-9]+)/\ -\>\ 80/tcp4\ \(ephemeral: ]]
	eph=${BASH_REMATCH[1]}
	[ "$(stub_count)" -eq 3 ]
	[ "$(stub_argv 1 | argv_unmarked | tr '\n' ' ')" = "exec pi-sbx-1-ports001 -- docker -H unix:///var/run/docker.sock ps --format {{json .}} " ]
	[ "$(stub_argv 2 | tr '\n' ' ')" = "port ls --json pi-sbx-1-ports001 " ]
	[ "$(stub_argv 3 | tr '\n' ' ')" = "port publish pi-sbx-1-ports001 127.0.0.1:18434:18434/tcp4 127.0.0.1:18435:18435/udp4 127.0.0.1:$eph:80/tcp4 " ]
	# sbx now lists them: the second sync publishes and unpublishes nothing
	printf '[{"host_ip":"127.0.0.1","host_port":18434,"sandbox_port":18434,"protocol":"tcp4"},{"host_ip":"127.0.0.1","host_port":18435,"sandbox_port":18435,"protocol":"udp4"},{"host_ip":"127.0.0.1","host_port":%s,"sandbox_port":80,"protocol":"tcp4"}]\n' "$eph" >"$SBX_STUB_DIR/out.port"
	run -0 sbx-ports sync
	[ "$(stub_count)" -eq 5 ]
	[ "${#lines[@]}" -eq 3 ]
	# the container on 18434 goes: its mapping goes, a hand-made one stays
	sed -i '/"web"/d' "$SBX_STUB_DIR/out.exec"
	printf '[{"host_ip":"127.0.0.1","host_port":18434,"sandbox_port":18434,"protocol":"tcp4"},{"host_ip":"127.0.0.1","host_port":18435,"sandbox_port":18435,"protocol":"udp4"},{"host_ip":"127.0.0.1","host_port":%s,"sandbox_port":80,"protocol":"tcp4"},{"host_ip":"127.0.0.1","host_port":3000,"sandbox_port":3000,"protocol":"tcp"}]\n' "$eph" >"$SBX_STUB_DIR/out.port"
	run -0 sbx-ports sync
	[ "$(stub_count)" -eq 8 ]
	[ "$(stub_argv 8 | tr '\n' ' ')" = "port unpublish pi-sbx-1-ports001 127.0.0.1:18434:18434/tcp4 " ]
}

@test "sync order class: removals and publications are two calls, removals first, and a port freed is not reused in the same sync" {
	# VM port 80 had ephemeral host port H; now a container wants VM port H
	h=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	mkdir -m 0700 -p "$SBX_STATE_DIR"
	printf 'tcp %s 80\n' "$h" >"$SBX_STATE_DIR/pi-sbx-1-ports001.ports"
	printf '[{"host_ip":"127.0.0.1","host_port":%s,"sandbox_port":80,"protocol":"tcp4"}]\n' "$h" >"$SBX_STUB_DIR/out.port"
	printf '{"ID":"b","Names":"b","Ports":"0.0.0.0:%s->80/tcp"}\n' "$h" >"$SBX_STUB_DIR/out.exec"
	run -0 --separate-stderr sbx-ports sync
	[ "$(stub_count)" -eq 4 ]
	[ "$(stub_argv 3 | tr '\n' ' ')" = "port unpublish pi-sbx-1-ports001 127.0.0.1:$h:80/tcp4 " ]
	[[ "$(stub_argv 4 | tr '\n' ' ')" == "port publish pi-sbx-1-ports001 127.0.0.1:"*":$h/tcp4 " ]]
	[[ "$(stub_argv 4 | tr '\n' ' ')" != *"127.0.0.1:$h:$h/"* ]]
	# the ports dialect: two calls as well, never one with both flags
	echo ports >"$SBX_STATE_DIR/sbx-port-dialect"
	printf 'tcp %s 80\n' "$h" >"$SBX_STATE_DIR/pi-sbx-1-ports001.ports"
	cp "$SBX_STUB_DIR/out.port" "$SBX_STUB_DIR/out.ports"
	run -0 sbx-ports sync
	grep -- '--unpublish' "$SBX_STUB_DIR/calls.log" | grep -vq -- '--publish'
	! grep -- '--unpublish' "$SBX_STUB_DIR/calls.log" | grep -q -- '--publish'
	[ "$(tail -n 2 "$SBX_STUB_DIR/calls.log" | cut -d' ' -f2 | tr '\n' ' ')" = "--unpublish --publish " ]
}

@test "sync: docker's Ports text: ranges, IPv6, exposed-only and sctp entries, duplicates once" {
	cat >"$SBX_STUB_DIR/out.exec" <<-'EOF'

	{"ID":"r1","Ports":"0.0.0.0:18440-18442->8000-8002/tcp, [::]:18440-18442->8000-8002/tcp"}
	{"ID":"r2","Ports":"7000/tcp, 0.0.0.0:18443->9/sctp, 0.0.0.0:18444->53/udp"}
	{"ID":"r3","Ports":"0.0.0.0:18440->8000/tcp","Platform":null}
	{"ID":"r4"}
	EOF
	run -0 --separate-stderr sbx-ports -j sync
	[ "${#lines[@]}" -eq 4 ]
	[ "$(stub_argv 3 | tr '\n' ' ')" = "port publish pi-sbx-1-ports001 127.0.0.1:18440:18440/tcp4 127.0.0.1:18441:18441/tcp4 127.0.0.1:18442:18442/tcp4 127.0.0.1:18444:18444/udp4 " ]
	# a malformed entry is an error, not a guess
	echo '{"Ports":"0.0.0.0:80->/tcp"}' >"$SBX_STUB_DIR/out.exec"
	run -1 --separate-stderr sbx-ports sync
	[[ $stderr == *"a Ports entry is not IP:PORT->PORT/PROTO"* ]]
	echo '{"Ports":17}' >"$SBX_STUB_DIR/out.exec"
	run -1 sbx-ports sync
}

@test "sync reading class: sbx's own lines around and between docker's are skipped by shape, whatever they say" {
	json='{"ID":"n1","Names":"web","Ports":"0.0.0.0:18470->80/tcp"}
{"ID":"n2","Names":"api","Ports":"0.0.0.0:18471->81/tcp"}'
	for said in 'Starting sandboxd daemon...
Daemon started (PID: 6927, socket: /home/u/.local/state/sandboxes/sandboxes/sandboxd/sandboxd.sock)
Logs: /home/u/.local/state/sandboxes/sandboxd/daemon.log' \
	    'Daemon started (PID 4242)' '[sbx] Sandbox pi-sbx-1-ports001 started successfully' \
	    'WARN: mcp gateway teardown: context deadline exceeded' '' '   ' \
	    'Client Version:  v0.37.1 windows/amd64
Server Version:  v0.37.0 windows/amd64' \
	    'sbx 0.99 is out: a wording nobody has seen yet' '[1/3] pulling' \
	    '42' '"a string"' 'null' '[sbx] {"ID":"x","Ports":"0.0.0.0:18479->1/tcp"}'; do
		rm -f "$SBX_STUB_DIR/calls.log" "$SBX_STUB_DIR/seq"
		printf '%s\n%s\n%s\n%s\n' "$said" "$(printf '%s' "$json" | head -n 1)" \
		    "$said" "$(printf '%s' "$json" | tail -n 1)" >"$SBX_STUB_DIR/out.exec"
		printf '%s\n' "$said" >>"$SBX_STUB_DIR/out.exec"
		rm -f "$SBX_STATE_DIR/pi-sbx-1-ports001.ports"
		run -0 --separate-stderr sbx-ports sync
		[ "$(tail -n 1 "$SBX_STUB_DIR/calls.log")" = "port publish pi-sbx-1-ports001 127.0.0.1:18470:18470/tcp4 127.0.0.1:18471:18471/tcp4" ] ||
		    fail "said '$said': $(cat "$SBX_STUB_DIR/calls.log") / $stderr"
		[ "${#lines[@]}" -eq 2 ] || fail "said '$said': $output"
	done
	# a line that begins as docker's object and does not end as one is
	# docker's output cut short: an error, never a listing to act on
	printf 'Daemon started (PID 1)\n{"ID":"n1","Ports":"0.0.0.0:1847\n' >"$SBX_STUB_DIR/out.exec"
	run -1 --separate-stderr sbx-ports sync
	[[ $stderr == *"sbx-ports: sandbox pi-sbx-1-ports001: docker ps: "* ]]
}

@test "sync loopback class: a service bound to the VM's loopback is named and not published; bound elsewhere too, it is" {
	cat >"$SBX_STUB_DIR/out.exec" <<-'EOF'
	{"ID":"c1","Names":"api","Ports":"127.0.0.1:18460->80/tcp"}
	{"ID":"c2","Names":"v6","Ports":"[::1]:18461->80/tcp, ::1:18462->80/udp"}
	{"ID":"c3","Names":"lo2","Ports":"127.0.0.2:18463-18464->80-81/tcp"}
	{"ID":"c4","Names":"both","Ports":"127.0.0.1:18465->80/tcp, [::]:18465->80/tcp"}
	{"ID":"c5","Names":"web","Ports":"0.0.0.0:18466->80/tcp"}
	{"ID":"c6","Names":"evil\u001b[2J\u009b31m","Ports":"127.0.0.1:18467->80/tcp"}
	EOF
	run -0 --separate-stderr sbx-ports sync
	[ "$(tail -n 1 "$SBX_STUB_DIR/calls.log")" = "port publish pi-sbx-1-ports001 127.0.0.1:18465:18465/tcp4 127.0.0.1:18466:18466/tcp4" ] ||
	    fail "$(cat "$SBX_STUB_DIR/calls.log")"
	[ "${#lines[@]}" -eq 2 ]
	for w in "api (c1): 127.0.0.1:18460/tcp" "v6 (c2): ::1:18461/tcp" \
	    "v6 (c2): ::1:18462/udp" "lo2 (c3): 127.0.0.2:18463/tcp" \
	    "lo2 (c3): 127.0.0.2:18464/tcp"; do
		grep -qF "sbx-ports: sandbox pi-sbx-1-ports001: container $w listens on the sandbox's loopback only, which sbx cannot forward: not published" <<<"$stderr" ||
		    fail "$w: $stderr"
	done
	! grep -q "18465\|18466" <<<"$stderr"
	# the container's name is the agent's: no control byte reaches the terminal
	grep -qF 'container evil\033[2J\302\23331m (c6)' <<<"$stderr" || fail "$stderr"
	[[ $stderr != *$'\033'* && $stderr != *$'\302\233'* ]]
	# a wide loopback range is counted, not named port by port
	echo '{"ID":"c7","Names":"many","Ports":"127.0.0.1:20000-20999->20000-20999/tcp"}' >"$SBX_STUB_DIR/out.exec"
	run -0 --separate-stderr sbx-ports sync
	[ "${#stderr_lines[@]}" -le 20 ] || fail "$stderr"
	[[ $stderr == *"and 984 more on the sandbox's loopback"* ]] || fail "$stderr"
	# what sbx says on failing reaches stderr escaped too, UTF-8 kept
	printf 'ERROR: \302\2332J\033]0;t\007 für\n' >"$SBX_STUB_DIR/err.port"
	echo 1 >"$SBX_STUB_DIR/rc.port"
	run -1 --separate-stderr sbx-ports ls
	# (an answer no reader places: under its heading, indented)
	[ "${stderr_lines[1]}" = '  ERROR: \302\2332J\033]0;t\007 für' ] || fail "$stderr"
}

@test "sync: a publish call that fails half way leaves a record the next sync can use" {
	printf '{"ID":"a","Ports":"0.0.0.0:18451->80/tcp, 0.0.0.0:18452->81/tcp"}\n' >"$SBX_STUB_DIR/out.exec"
	printf '0\n1\n0\n' >"$SBX_STUB_DIR/rc.port"
	echo 'ERROR: publish port: listen tcp 127.0.0.1:18452: bind: address already in use' >"$SBX_STUB_DIR/err.port"
	run -1 --separate-stderr sbx-ports sync
	[[ $stderr == *"address already in use"*"publish failed (exit 1)" ]]
	[ "$(cat "$SBX_STATE_DIR/pi-sbx-1-ports001.ports")" = "tcp 18451 18451
tcp 18452 18452" ]
	# sbx kept the first; the container goes; the next sync removes it
	# and forgets the one that never came
	rm "$SBX_STUB_DIR/err.port"
	echo '[{"host_ip":"127.0.0.1","host_port":18451,"sandbox_port":18451,"protocol":"tcp4"}]' >"$SBX_STUB_DIR/out.port"
	: >"$SBX_STUB_DIR/out.exec"
	run -0 sbx-ports sync
	[ "$(stub_argv "$(stub_count)" | tr '\n' ' ')" = "port unpublish pi-sbx-1-ports001 127.0.0.1:18451:18451/tcp4 " ]
	[ ! -e "$SBX_STATE_DIR/pi-sbx-1-ports001.ports" ]
}

@test "sync: docker ps failing, or bad JSON from it, exits 1 and changes nothing" {
	echo 1 >"$SBX_STUB_DIR/rc.exec"
	run -1 --separate-stderr sbx-ports sync
	[[ $stderr == *"docker ps failed (exit 1)"* ]]
	rm "$SBX_STUB_DIR/rc.exec"
	echo '{"Ports":' >"$SBX_STUB_DIR/out.exec"
	run -1 --separate-stderr sbx-ports sync
	[[ $stderr == *"sbx-ports: sandbox pi-sbx-1-ports001: docker ps: "* ]]
	# docker ps comes first: sbx's port verbs were never called
	[ "$(stub_count port)" -eq 0 ]
	[ "$(stub_count ports)" -eq 0 ]
}

@test "sync never creates a sandbox" {
	unset DOCKER_SANDBOX
	echo '[]' >"$SBX_STUB_DIR/out.port"
	run -1 sbx-ports -s pi-sbx-1-absent01 sync
	[ "$(stub_count create)" -eq 0 ]
}

@test "an sbx that is missing exits 127, one that cannot be executed 126" {
	DOCKER_SANDBOX_SBX=/nonexistent/sbx run -127 --separate-stderr sbx-ports ls
	[ "$stderr" = "sbx-ports: /nonexistent/sbx: No such file or directory" ]
	: >"$BATS_TEST_TMPDIR/sbx"
	DOCKER_SANDBOX_SBX="$BATS_TEST_TMPDIR/sbx" run -126 --separate-stderr sbx-ports ls
	[ "$stderr" = "sbx-ports: $BATS_TEST_TMPDIR/sbx: Permission denied" ]
	PATH=/usr/bin:/bin DOCKER_SANDBOX_SBX= run -127 --separate-stderr "$TOP/sbx-ports/sbx-ports" ls
	[[ $stderr == "sbx-ports: sbx: not found on PATH"* ]]
}

@test "a full stdout is an error" {
	echo '[{"host_ip":"127.0.0.1","host_port":8080,"sandbox_port":8080,"protocol":"tcp"}]' >"$SBX_STUB_DIR/out.port"
	run bash -c 'sbx-ports ls >/dev/full'
	[ "$status" -eq 1 ]
	[[ $output == *"sbx-ports: stdout"* ]]
}

# ---------------------------------------------------------------- tier 2

@test "sim: -p 8080:8000, -p 9000:80 and a bare -p 8000 each give a URL curl fetches" {
	sim_sandbox p1
	sim_web p1 a1 -p 8080:8000 8000
	sim_web p1 a2 -p 9000:80 80
	sim_web p1 a3 -p 8000 8000
	run -0 --separate-stderr sbx-ports -s "$SIM_SB" sync
	[ "${#lines[@]}" -eq 3 ]
	for l in "${lines[@]}"; do
		url=${l%% *}
		run -0 curl -fsS --max-time 5 "$url"
		[ "$output" = "<h1>hello from busybox:local</h1>" ] || fail "$url: $output"
	done
}

@test "sim: a VM port below 1024 and a host port taken on the host get working ephemeral ports" {
	sim_sandbox p1
	sim_free_port
	taken=$SIM_PORT
	socat TCP4-LISTEN:"$taken",bind=127.0.0.1,reuseaddr,fork /dev/null &
	echo $! >>"$BATS_TEST_TMPDIR/pids"
	sim_wait_listen "$taken"
	sim_web p1 b1 -p 80:80 80
	sim_web p1 b2 -p "$taken:$taken" "$taken"
	run -0 --separate-stderr sbx-ports -s "$SIM_SB" sync
	l80=$(printf '%s\n' "${lines[@]}" | grep ' -> 80/tcp4 ')
	lt=$(printf '%s\n' "${lines[@]}" | grep " -> $taken/tcp4 ")
	[[ $l80 == *"(ephemeral: sandbox port 80 is below 1024)" ]]
	[[ $lt == *"(ephemeral: host port $taken is taken)" ]]
	for url in "${l80%% *}" "${lt%% *}"; do
		run -0 curl -fsS --max-time 5 "$url"
		[ "$output" = "<h1>hello from busybox:local</h1>" ]
	done
}

@test "sim: a udp echo round trip" {
	sim_sandbox p1
	sim_free_port udp
	vm=$SIM_PORT
	run -0 sbx-run -s "$SIM_SB" run -d --name u1 -v /usr:/usr:ro -v /lib:/lib:ro \
	    -v /lib64:/lib64:ro -p "$vm:5000/udp" busybox:local \
	    /usr/bin/socat UDP4-LISTEN:5000,fork PIPE
	run -0 --separate-stderr sbx-ports -s "$SIM_SB" sync
	line=$(printf '%s\n' "${lines[@]}" | grep "/udp4$")
	[[ $line =~ ^udp://127\.0\.0\.1:([0-9]+)\ -\>\ $vm/udp4$ ]]
	host=${BASH_REMATCH[1]}
	got=
	for _ in 1 2 3 4 5; do
		got=$(printf 'ping-%s\n' "$vm" | timeout 5 socat -t 1 - UDP4:127.0.0.1:"$host") || true
		[ "$got" = "ping-$vm" ] && break
		sleep 0.3
	done
	[ "$got" = "ping-$vm" ]
}

@test "sim: docker rm then sync unpublishes; a second sync makes no publish or unpublish call" {
	sim_sandbox p1
	sim_free_port
	h=$SIM_PORT
	sim_web p1 c1 -p "$h:80" 80
	run -0 sbx-ports -s "$SIM_SB" sync
	run -0 curl -fsS --max-time 5 "http://127.0.0.1:$h/"
	n=$(sim_calls)
	run -0 sbx-ports -s "$SIM_SB" sync
	[ "$(sim_calls_since "$n" | grep -c -- '--publish\|--unpublish\| publish \| unpublish ')" -eq 0 ]
	run -0 sbx-run -s "$SIM_SB" rm -f c1
	run -0 sbx-ports -s "$SIM_SB" sync
	run -0 sbx-ports -s "$SIM_SB" ls
	[[ $output != *":$h/"* ]]
	run ! curl -fsS --max-time 2 "http://127.0.0.1:$h/"
}

@test "sim: compose up and down" {
	sim_sandbox p1
	sim_free_port
	h=$SIM_PORT
	mkdir -p "$WS/app"
	cat >"$WS/app/compose.yaml" <<-EOF
	version: "3"
	services:
	  web:
	    image: busybox:local
	    command: httpd -f -p 80 -h /www
	    ports:
	      - "$h:80"
	EOF
	run -0 sbx-run -s "$SIM_SB" compose -f "$WS/app/compose.yaml" -p app up -d
	run -0 --separate-stderr sbx-ports -s "$SIM_SB" sync
	[[ $output == *"http://127.0.0.1:$h/ -> $h/tcp4"* ]]
	run -0 curl -fsS --max-time 5 "http://127.0.0.1:$h/"
	run -0 sbx-run -s "$SIM_SB" compose -f "$WS/app/compose.yaml" -p app down -t 0
	run -0 sbx-ports -s "$SIM_SB" sync
	run -0 sbx-ports -s "$SIM_SB" ls
	[[ $output != *":$h/"* ]]
}

@test "sim: 20 containers synced in at most 4 sbx calls" {
	sim_sandbox p1
	for i in $(seq 20); do
		sim_web p1 "m$i" -p 80 80
	done
	n=$(sim_calls)
	run -0 --separate-stderr sbx-ports -s "$SIM_SB" sync
	[ "${#lines[@]}" -eq 20 ]
	calls=$(sim_calls_since "$n" | wc -l)
	echo "# sync of 20 containers: $calls sbx calls" >&3
	[ "$calls" -le 4 ]
	run -0 curl -fsS --max-time 5 "${lines[19]%% *}"
	n=$(sim_calls)
	run -0 sbx-ports -s "$SIM_SB" sync
	[ "$(sim_calls_since "$n" | wc -l)" -eq 2 ]
}

@test "sim: every dialect and profile, detected once: 0.55 with ports an alias (default) or gone, 0.47 and 0.46 with ports alone" {
	local prof dia n
	for prof in 0.55/alias 0.55/gone 0.47/ 0.46/; do
		export SBX_SIM_PROFILE=${prof%/*} SBX_SIM_DIALECT=${prof#*/}
		[ -n "$SBX_SIM_DIALECT" ] || unset SBX_SIM_DIALECT
		rm -f "$SBX_STATE_DIR/sbx-port-dialect"
		key=pd${prof%%/*}${prof#*/}
		key=${key//./}
		sim_sandbox "$key"
		sim_free_port
		h=$SIM_PORT
		sim_web "$key" d1 -p "$h:80" 80
		run -0 --separate-stderr sbx-ports -s "$SIM_SB" sync
		[ "$output" = "http://127.0.0.1:$h/ -> $h/tcp4" ] || fail "$prof: $output $stderr"
		run -0 curl -fsS --max-time 5 "http://127.0.0.1:$h/"
		dia=port
		[ "${prof%/*}" = 0.55 ] || dia=ports
		[ "$(cat "$SBX_STATE_DIR/sbx-port-dialect")" = $dia ] || fail "$prof: cached $(cat "$SBX_STATE_DIR/sbx-port-dialect")"
		n=$(sim_calls)
		run -0 sbx-run -s "$SIM_SB" rm -f d1
		run -0 sbx-ports -s "$SIM_SB" sync
		[ "$(sim_calls_since "$n" | grep -c " $dia \(unpublish\|--unpublish\)")" -eq 1 ] || fail "$prof: $(sim_calls_since "$n")"
		run ! curl -fsS --max-time 2 "http://127.0.0.1:$h/"
		run -0 sbx-run -s "$SIM_SB" rm -f d1 2>/dev/null || true
		"$SIM_SBX" rm -f "$SIM_SB" >/dev/null
	done
}

@test "sim: sync under every order of a combined call, a refused combination, and a 409 for a stopped sandbox" {
	sim_sandbox p3
	for w in order-publish-first order-unpublish-first combined-refused ports-409; do
		export SBX_SIM_FAULT=$w SBX_SIM_PROFILE=0.47
		rm -f "$SBX_STATE_DIR/sbx-port-dialect"
		# VM port 80 is given host port H; then a container wants VM port H
		sim_web p3 o1 -p 80:80 80
		run -0 --separate-stderr sbx-ports -s "$SIM_SB" sync
		h=$(printf '%s\n' "$output" | sed -n 's|^http://127.0.0.1:\([0-9]*\)/ -> 80/tcp4.*|\1|p')
		[ -n "$h" ] || fail "$w: $output $stderr"
		run -0 sbx-run -s "$SIM_SB" rm -f o1
		sim_web p3 o2 -p "$h:80" 80
		run -0 --separate-stderr sbx-ports -s "$SIM_SB" sync
		[[ $output == "http://127.0.0.1:"*"/ -> $h/tcp4"* ]] || fail "$w: $output $stderr"
		run -0 curl -fsS --max-time 5 "${output%% *}"
		! grep -q -- '--unpublish.*--publish\|--publish.*--unpublish' "$SBX_SIM_ROOT/calls.log"
		# stopped: the sync's exec starts it, so the listing is of a running one
		"$SIM_SBX" stop "$SIM_SB" >/dev/null
		run -0 --separate-stderr sbx-ports -s "$SIM_SB" sync
		run -0 sbx-run -s "$SIM_SB" rm -f o2
		run -0 sbx-ports -s "$SIM_SB" sync
		"$SIM_SBX" stop "$SIM_SB" >/dev/null
		# ls of a stopped sandbox: refused under ports-409, started, listed
		run -0 --separate-stderr sbx-ports -s "$SIM_SB" ls
	done
	unset SBX_SIM_FAULT SBX_SIM_PROFILE
}

# (17000-17999: no other suite binds them, see sim_free_port)
@test "sim: -p 17000-17099:17000-17099 in the VM: 64 host ports and a refusal naming the rest, none of them bound" {
	sim_sandbox p4
	run -0 sbx-run -s "$SIM_SB" run -d --name r1 -p 17000-17099:17000-17099 busybox:local sleep 600
	run -1 --separate-stderr sbx-ports -s "$SIM_SB" sync
	[ "${#lines[@]}" -eq 64 ]
	[[ $stderr == *"not published (a sandbox holds at most 64 host ports: DOCKER_SANDBOX_PORTS_MAX): 17064-17099/tcp" ]]
	run -0 sbx-ports -s "$SIM_SB" -j ls
	[ "${#lines[@]}" -eq 64 ]
	for p in 17064 17080 17099; do
		! ss -Hltn | awk '{ print $4 }' | grep -q ":$p\$" || fail "$p is bound on the host"
	done
	ss -Hltn | awk '{ print $4 }' | grep -qx "127.0.0.1:17063"
}

# An sbx in front of the simulator for the concurrency tests: the k-th
# `docker ps` of a sync answers $SBX_WRAP_DIR/ps.k (a listing of its
# own, so concurrent syncs disagree), and each port listing waits until
# $SBX_WRAP_N listings have come or 2 s have passed, so calls that can
# interleave do (sbx takes about 0.3 s a call; this makes it certain).
wrap_sbx() {
	export SBX_WRAP_DIR="$BATS_TEST_TMPDIR/wrap" SBX_WRAP_N=$1
	mkdir -p "$SBX_WRAP_DIR"
	cat >"$SBX_WRAP_DIR/sbx" <<-'SH'
	#!/bin/bash
	d=$SBX_WRAP_DIR
	count() { flock "$d/lock" bash -c 'n=$(($(cat "$1" 2>/dev/null || echo 0) + 1)); echo $n >"$1"; echo $n' _ "$d/$1"; }
	case " $* " in
	*" sbx-run-end "* | *" sbx-run-ask "*) ;;
	*" exec "*" ps --format "*)
		k=$(count ps)
		cat "$d/ps.$k" 2>/dev/null
		exit 0 ;;
	*" --json "*)
		case $1 in port | ports)
			k=$(count ls)
			for _ in $(seq 40); do
				[ "$(cat "$d/ls")" -ge "$SBX_WRAP_N" ] && break
				sleep 0.05
			done ;;
		esac ;;
	esac
	exec "$SBX_WRAP_SIM" "$@"
	SH
	chmod +x "$SBX_WRAP_DIR/sbx"
	export DOCKER_SANDBOX_SBX="$SBX_WRAP_DIR/sbx" SBX_WRAP_SIM="$SIM_SBX"
}

# ps.K: one container publishing 64 VM ports from base.
wrap_ps() {	# wrap_ps K base
	printf '{"ID":"c%s","Names":"n%s","Ports":"0.0.0.0:%s-%s->%s-%s/tcp"}\n' \
	    "$1" "$1" "$2" "$(($2 + 63))" "$2" "$(($2 + 63))" >"$SBX_WRAP_DIR/ps.$1"
}

# The listed mappings of SIM_SB and those NAME.ports records, as
# "proto host vm" lines, sorted.
listed_now() {
	SBX_SIM_WORDS=exact "$SIM_SBX" port ls "$SIM_SB" --json |
	    json_get '"\n".join("%s %s %s" % (p["protocol"].rstrip("46"), p["host_port"], p["sandbox_port"]) for p in d)' |
	    grep . | sort
}
recorded_now() {
	sort "$SBX_STATE_DIR/$SIM_SB.ports" 2>/dev/null
}

@test "ports concurrency class: four syncs at once, each of a different listing: at most 64 host ports, and the record is what sbx lists" {
	sim_sandbox pc1
	wrap_sbx 4
	for k in 1 2 3 4; do wrap_ps "$k" $((17100 + k * 100)); done
	pids=()
	for k in 1 2 3 4; do
		sbx-ports -s "$SIM_SB" sync >"$BATS_TEST_TMPDIR/out.$k" 2>&1 &
		pids+=($!)
		sleep 0.1
	done
	for p in "${pids[@]}"; do wait "$p" || true; done
	n=$(listed_now | wc -l)
	echo "# four concurrent syncs: $n host ports listed" >&3
	[ "$n" -le 64 ] || fail "$n host ports published, bound 64"
	[ "$n" -eq 64 ]
	[ "$(listed_now)" = "$(recorded_now)" ] ||
	    fail "listed and recorded differ: $(diff <(listed_now) <(recorded_now) | head)"
	# the last sync's listing is the one published
	[ "$(listed_now | awk '{ print $3 }' | sort -n | head -n 1)" = 17500 ]
	# a sync of an empty listing takes back every one of them
	: >"$SBX_WRAP_DIR/ps.5"
	SBX_WRAP_N=1 run -0 sbx-ports -s "$SIM_SB" sync
	[ -z "$(listed_now)" ] || fail "left published: $(listed_now | wc -l)"
	[ ! -e "$SBX_STATE_DIR/$SIM_SB.ports" ]
}

@test "ports concurrency class: syncs, publishes and an unpublish at once: the bound holds, the record is the syncs' part of what sbx lists" {
	sim_sandbox pc2
	wrap_sbx 6
	for k in 1 2 3; do wrap_ps "$k" $((17100 + k * 100)); done
	hand1=$(seq 17600 17639) hand2=$(seq 17700 17739)
	pids=()
	sbx-ports -s "$SIM_SB" sync >/dev/null 2>&1 & pids+=($!)
	# shellcheck disable=SC2086 # one spec a word
	sbx-ports -s "$SIM_SB" publish $hand1 >/dev/null 2>&1 & pids+=($!)
	sbx-ports -s "$SIM_SB" sync >/dev/null 2>&1 & pids+=($!)
	# shellcheck disable=SC2086
	sbx-ports -s "$SIM_SB" publish $hand2 >/dev/null 2>&1 & pids+=($!)
	sbx-ports -s "$SIM_SB" unpublish 17263 >/dev/null 2>&1 & pids+=($!)
	sbx-ports -s "$SIM_SB" sync >/dev/null 2>&1 & pids+=($!)
	for p in "${pids[@]}"; do wait "$p" || true; done
	n=$(listed_now | wc -l)
	[ "$n" -le 64 ] || fail "$n host ports published, bound 64"
	# what is listed and not recorded is what publish was asked for
	comm -23 <(listed_now) <(recorded_now) | awk '$3 < 17600 || $3 > 17739 { print }' >"$BATS_TEST_TMPDIR/strays"
	[ ! -s "$BATS_TEST_TMPDIR/strays" ] || fail "neither recorded nor asked for: $(head -n 3 "$BATS_TEST_TMPDIR/strays")"
	# everything recorded is listed
	[ -z "$(comm -13 <(listed_now) <(recorded_now))" ] || fail "recorded, not listed"
	# a sync of an empty listing leaves only what was published by hand
	: >"$SBX_WRAP_DIR/ps.4"
	SBX_WRAP_N=1 run -0 sbx-ports -s "$SIM_SB" sync
	[ -z "$(listed_now | awk '$3 < 17600 || $3 > 17739')" ] || fail "sync's ports left: $(listed_now | head -n 3)"
	[ ! -e "$SBX_STATE_DIR/$SIM_SB.ports" ]
}
