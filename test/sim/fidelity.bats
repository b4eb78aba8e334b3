#!/usr/bin/env bats
# The sbx simulator's own fidelity (tier 2): each verb, the real error
# texts, ports (tcp, udp, ::1, ephemeral, duplicate), both port dialects,
# the sandbox view (only the workspace, only -e variables, the private
# daemon at the canonical socket), two sandboxes apart, every fault mode,
# and a teardown that leaves nothing on the host.
#
# Sandboxes sim-a and sim-b live for the whole file; tests that stop or
# remove one make their own.

load ../helpers/sim-helper

E=$(sim_errword)

setup_file() {
	sim_setup_file
	# the simulator's own words, exactly (profiles.bats tests them varied)
	export SBX_SIM_WORDS=exact
	export HOME="$BATS_FILE_TMPDIR/home"
	export WSA="$BATS_FILE_TMPDIR/wsa" WSB="$BATS_FILE_TMPDIR/wsb"
	mkdir -p "$HOME/.ssh" "$WSA" "$WSB"
	echo secret >"$HOME/.ssh/id_test"
	echo in-a >"$WSA/file"
	[ -n "$SIM_MISSING" ] && return 0
	"$SIM" create --quiet --name sim-a --cpus 2 --memory 2g shell "$WSA" 3>&- &
	"$SIM" create --quiet --name sim-b shell "$WSB" 3>&- &
	wait
}

teardown_file() {
	sim_teardown_file
}

setup() {
	sim_setup_test "$WSA"
}

# ---------------------------------------------------------------- version, ls, create

@test "version prints the real shape and every call is logged with time, status and quoted argv" {
	n=$(sim_ncalls)
	run -0 --separate-stderr "$SIM" version
	[[ $output =~ ^sbx\ version:\ v[0-9]+\.[0-9]+\.[0-9]+\ [0-9a-f]{40}$ ]]
	run -0 "$SIM" exec sim-a -- sh -c 'echo "a b"'
	[ "$output" = "a b" ]
	run -2 "$SIM" exec sim-a -- sh -c 'exit 2'
	[ "$(sim_ncalls)" -eq $((n + 3)) ]
	mapfile -t l < <(sim_calls_after "$n")
	[[ ${l[0]} =~ ^[0-9]{10}\.[0-9]{3}\ 0\ version$ ]]
	[ "${l[1]#* }" = "0 exec sim-a -- sh -c $(printf '%q' 'echo "a b"')" ]
	[ "${l[2]#* }" = "2 exec sim-a -- sh -c $(printf '%q' 'exit 2')" ]
	# sim-only verbs are not sbx calls
	"$SIM" sim-reset
	[ "$(sim_ncalls)" -eq $((n + 3)) ]
	run -0 --separate-stderr "$SIM" diagnose --json
	[ "$(json_get 'd["version"]' <<<"$output")" = 1.0 ]
	run -1 --separate-stderr "$SIM" --version
	[ "$stderr" = "$E: unknown flag: --version" ]
}

@test "starts.log has a call's line while it still runs, its words quoted" {
	rm -f "$SBX_SIM_ROOT/starts.log"
	"$SIM" exec sim-a -- sh -c 'sleep 30 # a b' &
	p=$!
	for _ in $(seq 100); do
		[ -s "$SBX_SIM_ROOT/starts.log" ] && break
		sleep 0.1
	done
	kill -0 "$p"
	run -0 cat "$SBX_SIM_ROOT/starts.log"
	[[ $output =~ ^[0-9]{10}\.[0-9]{3}\ [0-9]+\ \'exec\'\ \'sim-a\'\ \'--\'\ \'sh\'\ \'-c\'\ \'sleep\ 30\ \#\ a\ b\'$ ]]
	kill -9 "$p"
	wait "$p" || true
}

@test "ls: table, -q and --json with name, id, agent, status, workspaces, last_used_at" {
	run -0 --separate-stderr "$SIM" ls
	[[ ${lines[0]} =~ ^SANDBOX\ +AGENT\ +STATUS\ +PORTS\ +WORKSPACE$ ]]
	[[ $output =~ (^|$'\n')sim-a\ +shell\ +running\ +$WSA($'\n'|$) ]]
	run -0 "$SIM" ls -q
	[ "$(sort <<<"$output")" = "$(printf 'sim-a\nsim-b')" ]
	run -0 --separate-stderr "$SIM" ls --json
	[ "$(json_get 'sorted(s["name"] for s in d["sandboxes"])' <<<"$output")" = '["sim-a", "sim-b"]' ]
	a='[s for s in d["sandboxes"] if s["name"] == "sim-a"][0]'
	[ "$(json_get "$a[\"workspaces\"]" <<<"$output")" = "[\"$WSA\"]" ]
	[ "$(json_get "$a[\"agent\"]" <<<"$output")" = shell ]
	[ "$(json_get "$a[\"status\"]" <<<"$output")" = running ]
	[[ $(json_get "$a[\"id\"]" <<<"$output") =~ ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$ ]]
	[[ $(json_get "$a[\"last_used_at\"]" <<<"$output") =~ ^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}(\.[0-9]*[1-9])?Z$ ]]
	# pretty-printed, as Go's MarshalIndent: one key a line, two spaces
	[ "${lines[0]}" = "{" ] && [ "${lines[1]}" = '  "sandboxes": [' ]
	grep -q '^      "name": "sim-a",$' <<<"$output"
	# no ports key (BAT-TS 0.43.0 shows none)
	[ "$(json_get "\"ports\" in $a" <<<"$output")" = False ]
}

@test "ls on an empty root says so; --json is an empty array" {
	SBX_SIM_ROOT=$(mktemp -d /tmp/sbxsim.XXXXXX)
	run -0 "$SIM" ls
	[ "$output" = "$(printf 'No sandboxes found.\nLaunch one: sbx run claude')" ]
	run -0 "$SIM" ls --json
	[ "$output" = "$(printf '{\n  "sandboxes": []\n}')" ]
	run -0 "$SIM" sim-cleanup
	[ ! -e "$SBX_SIM_ROOT" ]
}

@test "create: errors for an existing name, a missing path, a bad name, an unknown flag, and none of them makes a sandbox" {
	run -1 --separate-stderr "$SIM" create --name sim-a shell "$WSB"
	[ "$stderr" = "$E: sandbox 'sim-a' already exists and can't be given new workspaces" ]
	run -1 --separate-stderr "$SIM" create --name sim-x shell "$BATS_TEST_TMPDIR/nope" </dev/null
	[[ $stderr == "The selected workspace does not exist. Would you like to create it? (y/N) "* ]]
	[[ $stderr == *"$E: workspace $BATS_TEST_TMPDIR/nope does not exist" ]]
	[ ! -e "$BATS_TEST_TMPDIR/nope" ]
	run -1 --separate-stderr "$SIM" create --name default shell "$WSB"
	[[ $stderr == "$E: invalid sandbox name \"default\": "* ]]
	run -1 --separate-stderr "$SIM" create --name '-x' shell "$WSB"
	[[ $stderr == "$E: invalid sandbox name \"-x\": "* ]]
	run -1 --separate-stderr "$SIM" create --bogus shell "$WSB"
	[ "$stderr" = "$E: unknown flag: --bogus" ]
	run -0 "$SIM" ls -q
	[ "$(sort <<<"$output")" = "$(printf 'sim-a\nsim-b')" ]
}

@test "create without -q prints the success line; flags may follow the operands; stop and rm" {
	mkdir -p "$BATS_TEST_TMPDIR/wsc"
	run -0 --separate-stderr "$SIM" create shell "$BATS_TEST_TMPDIR/wsc" --name sim-c -m 1g
	[ "$output" = "✓ Created sandbox sim-c" ]
	"$SIM" exec sim-c -- sh -c 'echo kept >/tmp/kept; echo ws >file'
	# a guest process that stop must end
	"$SIM" exec sim-c -- sh -c 'sleep 307 >/dev/null 2>&1 &'
	pgrep -fx 'sleep 307' >/dev/null
	sim_free_port
	"$SIM" port publish sim-c "$SIM_PORT:80" >/dev/null
	run -0 "$SIM" stop sim-c
	# published ports survive a stop
	run -0 "$SIM" port ls sim-c --json
	[ "$output" = "[{\"host_ip\":\"127.0.0.1\",\"host_port\":$SIM_PORT,\"sandbox_port\":80,\"protocol\":\"tcp4\"}]" ]
	[ "$(json_get '[s["status"] for s in d["sandboxes"] if s["name"] == "sim-c"][0]' < <("$SIM" ls --json))" = stopped ]
	run ! pgrep -fx 'sleep 307'
	[ "$(cat "$BATS_TEST_TMPDIR/wsc/file")" = ws ]
	# exec starts it again; the sandbox's files survived
	run -0 "$SIM" exec sim-c -- cat /tmp/kept
	[ "$output" = kept ]
	[ "$(json_get '[s["status"] for s in d["sandboxes"] if s["name"] == "sim-c"][0]' < <("$SIM" ls --json))" = running ]
	# rm: refused without --force when stdin is not a terminal
	run -1 --separate-stderr "$SIM" rm sim-c </dev/null
	[ "$stderr" = "$E: stdin is not a terminal" ]
	"$SIM" ls -q | grep -qx sim-c
	d=$(grep -lx sim-c "$SBX_SIM_ROOT"/s/*/name)
	d=${d%/name}
	ns=sbxsim-$(sim_tag)-${d##*/}
	pid=$(cat "$d/dockerd.pid")
	run -0 "$SIM" rm --force sim-c
	run ! grep -qx sim-c <<<"$("$SIM" ls -q)"
	run ! grep -qx "127.0.0.1:$SIM_PORT" <<<"$(ss -Hltn | awk '{ print $4 }')"
	run ! sim_alive "$pid"
	run ! grep -qx "$ns" <<<"$(ip netns list | cut -d' ' -f1)"
	[ ! -e "$d" ]
	run ! sim_leftovers "$d" "$(sim_tag)-${d##*/}"
	run -1 --separate-stderr "$SIM" rm --force sim-c
	[ "$stderr" = "$(sim_missing_text sim-c rm)" ]
	run -1 --separate-stderr "$SIM" stop sim-c
	[ "$stderr" = "$(sim_missing_text sim-c stop)" ]
}

@test "hostile input: a workspace path with quotes, backslash and space is kept exact; bad specs and names are refused" {
	w="$BATS_TEST_TMPDIR/w a\"b\\c'd"
	mkdir -p "$w"
	run -0 "$SIM" create -q --name sim.h shell "$w"
	run -0 "$SIM" ls --json
	[ "$(json_get '[s["workspaces"][0] for s in d["sandboxes"] if s["name"] == "sim.h"][0]' <<<"$output")" = "$w" ]
	run -0 "$SIM" exec sim.h -- pwd
	[ "$output" = "$w" ]
	run -1 --separate-stderr "$SIM" port publish sim.h '1;touch /tmp/x'
	[ "$stderr" = "$E: publish port: invalid port spec \"1;touch /tmp/x\"" ]
	run -1 --separate-stderr "$SIM" exec -e 'A B=1' sim.h -- true
	[ "$stderr" = "$E: invalid environment variable: A B=1" ]
	run -1 --separate-stderr "$SIM" create -q --name sim-n shell "$BATS_TEST_TMPDIR/$(printf 'nl\nx')"
	run -0 "$SIM" rm -f sim.h
}

@test "the dependency check names what is missing; under CI=true it fails instead of skipping" {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	for c in id ldd grep dockerd curl ip ss nsenter unshare pivot_root flock setsid docker-compose python3; do
		ln -s "$(PATH=$PATH:/usr/sbin:/sbin command -v "$c")" "$BATS_TEST_TMPDIR/bin/$c"
	done
	PATH="$BATS_TEST_TMPDIR/bin" run -0 sim_missing
	[ "$output" = socat ]
	run -1 --separate-stderr bash -c 'bats_require_minimum_version() { :; }; source "$0"; SIM_MISSING=socat CI=true sim_require' "$TOP/test/helpers/sim-helper.bash"
	[ "$stderr" = "missing (CI=true forbids skipping): socat" ]
}

# ---------------------------------------------------------------- exec

@test "missing sandbox: every verb answers in its profile's words, exit 1" {
	local v p
	for p in 0.46 0.47 0.55; do
		# each release's port verb: ports up to 0.47, the port group
		# after (the other is another suite's, sbx-ports/verbs.bats)
		local pv=port
		[ "$p" = 0.55 ] || pv=ports
		for v in exec rm stop "$pv" inspect; do
			case $v in
			exec) set -- exec no-such-box -- true ;;
			rm) set -- rm --force no-such-box ;;
			port) set -- port ls no-such-box ;;
			*) set -- "$v" no-such-box ;;
			esac
			SBX_SIM_PROFILE=$p run -1 --separate-stderr "$SIM" "$@"
			[ "$output" = "" ] || fail "$p $v: $output"
			[ "$stderr" = "$(SBX_SIM_PROFILE=$p sim_missing_text no-such-box "$v")" ] ||
			    fail "$p $v: $stderr"
		done
	done
	# the literal texts, as the sources give them
	SBX_SIM_PROFILE=0.46 run -1 --separate-stderr "$SIM" exec no-such-box -- true
	[ "$stderr" = "$(printf "ERROR: no sandbox named 'no-such-box'\n\nTo create one:\n  sbx create AGENT WORKSPACE")" ]
	SBX_SIM_PROFILE=0.46 run -1 --separate-stderr "$SIM" rm --force no-such-box
	[ "$stderr" = "Error: sandbox 'no-such-box' not found" ]
	SBX_SIM_PROFILE=0.55 run -1 --separate-stderr "$SIM" exec no-such-box -- true
	[ "$stderr" = "$(printf "error: sandbox 'no-such-box' not found\n  try: sbx ls")" ]
}

@test "exec: cwd is the workspace, the status passes through, -w, not found is 127" {
	run -0 "$SIM" exec sim-a -- pwd
	[ "$output" = "$WSA" ]
	run -0 "$SIM" exec sim-a cat file
	[ "$output" = in-a ]
	run -0 "$SIM" exec -w /tmp sim-a -- pwd
	[ "$output" = /tmp ]
	run -42 "$SIM" exec sim-a -- sh -c 'exit 42'
	run -127 --separate-stderr "$SIM" exec sim-a -- no-such-command
	[[ $stderr == *'"no-such-command": executable file not found'* ]]
	run -0 "$SIM" exec sim-a -- hostname
	[ "$output" = sim-a ]
	run -0 "$SIM" exec -u nobody sim-a -- id -un
	[ "$output" = nobody ]
	run -126 --separate-stderr "$SIM" exec -u agent sim-a -- id
	[ "$stderr" = "$E: unable to find user agent: no matching entries in passwd file" ]
}

@test "exec: stdin only with -i" {
	run -0 bash -c 'echo piped | "$0" exec -i sim-a -- cat' "$SIM"
	[ "$output" = piped ]
	run -0 bash -c 'echo piped | "$0" exec sim-a -- cat' "$SIM"
	[ "$output" = "" ]
}

@test "exec: a fixed base environment plus -e only (bare -e takes the simulator's value)" {
	export SIM_PROBE=from-caller OTHER_PROBE=nope
	run -0 --separate-stderr "$SIM" exec -e SIM_PROBE -e SET_PROBE=x=y sim-a -- env
	names=$(printf '%s\n' "${lines[@]}" | cut -d= -f1 | LC_ALL=C sort | tr '\n' ' ')
	# the proxy's variables are test/sim/proxy.bats's
	[ "$names" = "HOME HOSTNAME HTTPS_PROXY HTTP_PROXY LANG NO_PROXY PATH SET_PROBE SIM_PROBE http_proxy https_proxy no_proxy " ] || fail "names: $names"
	[[ $output == *$'\n'"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"$'\n'* ]]
	[[ $output == *$'\n'"SIM_PROBE=from-caller"* ]]
	[[ $output == *"SET_PROBE=x=y"* ]]
	[[ $output == *"HOME=/home/agent"* ]]
	[[ $output != *OTHER_PROBE* ]]
	[[ $output != *SBX_SIM_ROOT* ]]
}

@test "exec: the caller's HOME and host directories are hidden, /run holds only the canonical socket" {
	run -0 "$SIM" exec sim-a -- sh -c "test -e '$HOME' && echo visible; ls -A /run; ls -A /home; test -e /work && echo work; test -e $TOP && echo top; ls -A /root"
	[ "$output" = "$(printf 'docker.sock\nagent')" ]
	run -0 "$SIM" exec sim-a -- sh -c 'test -S /var/run/docker.sock && ls -A /home/agent/.docker/cli-plugins'
	[ "$output" = docker-compose ]
	# the host's /usr is read-only inside
	run -1 "$SIM" exec sim-a -- touch /usr/sbxsim-probe
	[ ! -e /usr/sbxsim-probe ]
}

@test "exec: a :ro workspace is read-only, the primary read-write" {
	mkdir -p "$BATS_TEST_TMPDIR/prime" "$BATS_TEST_TMPDIR/proj"
	echo p >"$BATS_TEST_TMPDIR/proj/p"
	run -0 "$SIM" create -q --name sim-ro shell "$BATS_TEST_TMPDIR/prime" "$BATS_TEST_TMPDIR/proj:ro"
	run -0 "$SIM" ls --json
	[ "$(json_get '[s["workspaces"] for s in d["sandboxes"] if s["name"] == "sim-ro"][0]' <<<"$output")" = "[\"$BATS_TEST_TMPDIR/prime\", \"$BATS_TEST_TMPDIR/proj:ro\"]" ]
	run -0 "$SIM" exec sim-ro -- pwd
	[ "$output" = "$BATS_TEST_TMPDIR/prime" ]
	run -1 --separate-stderr "$SIM" exec sim-ro -- touch "$BATS_TEST_TMPDIR/proj/new"
	[[ $stderr == *"Read-only file system"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/proj/new" ]
	run -0 "$SIM" exec sim-ro -- sh -c "cat '$BATS_TEST_TMPDIR/proj/p'; touch new"
	[ "$output" = p ]
	[ -e "$BATS_TEST_TMPDIR/prime/new" ]
	run -0 "$SIM" rm --force sim-ro
}

@test "the private daemon: busybox:local, docker ps --format json, compose through the plugin shim" {
	run -0 "$SIM" exec sim-a -- $DK images --format '{{.Repository}}:{{.Tag}}'
	[ "$output" = busybox:local ]
	run -0 "$SIM" exec sim-a -- $DK run --rm busybox:local echo hi
	[ "$output" = hi ]
	"$SIM" exec sim-a -- $DK run -d --name jsonps busybox:local sleep 300 >/dev/null
	run -0 "$SIM" exec sim-a -- $DK ps --format json
	[ "$(json_get 'd["Names"]' <<<"$output")" = jsonps ]
	"$SIM" exec sim-a -- $DK rm -f jsonps >/dev/null
	run -0 "$SIM" exec sim-a -- $DK compose version
	[[ $output == *"docker-compose version 1."* ]]
}

# ---------------------------------------------------------------- ports

@test "ports: tcp publish, fetch from the host, duplicate error, list, unpublish" {
	printf '<p>page of sim-a</p>\n' >"$WSA/index.html"
	"$SIM" exec sim-a -- $DK run -d --name weba -p 8080:8080 -v "$WSA:/www:ro" busybox:local httpd -f -p 8080 -h /www >/dev/null
	sim_free_port
	h=$SIM_PORT
	run -0 --separate-stderr "$SIM" port publish sim-a "$h:8080"
	[ "$output" = "Published 127.0.0.1:$h -> 8080/tcp4" ]
	run -0 sim_fetch "http://127.0.0.1:$h/"
	[ "$output" = "<p>page of sim-a</p>" ]
	# loopback only
	grep -qx "127.0.0.1:$h" <<<"$(ss -Hltn | awk '{ print $4 }')"
	run ! grep -qx "0.0.0.0:$h" <<<"$(ss -Hltn | awk '{ print $4 }')"
	run -1 --separate-stderr "$SIM" port publish sim-a "$h:8080"
	[ "$stderr" = "$E: publish port: port 127.0.0.1:$h/tcp4 is already published" ]
	run -0 "$SIM" port ls sim-a --json
	[ "$output" = "[{\"host_ip\":\"127.0.0.1\",\"host_port\":$h,\"sandbox_port\":8080,\"protocol\":\"tcp4\"}]" ]
	run -0 "$SIM" port ls sim-a
	[[ ${lines[0]} =~ ^HOST\ IP\ +HOST\ PORT\ +SANDBOX\ PORT\ +PROTOCOL$ ]]
	[[ ${lines[1]} =~ ^127\.0\.0\.1\ +$h\ +8080\ +tcp4$ ]]
	run -0 "$SIM" ls
	[[ $output == *"127.0.0.1:$h->8080/tcp4"* ]]
	run -0 "$SIM" ls --json
	[ "$(json_get '"ports" in [s for s in d["sandboxes"] if s["name"] == "sim-a"][0]' <<<"$output")" = False ]
	run -0 "$SIM" port unpublish sim-a "$h:8080"
	[ "$output" = "Unpublished 127.0.0.1:$h -> 8080/tcp4" ]
	run -7 curl -fsS --max-time 3 "http://127.0.0.1:$h/"
	run -0 "$SIM" port ls sim-a
	[ "$output" = "No published ports" ]
	run -1 --separate-stderr "$SIM" port unpublish sim-a "$h:8080"
	[[ $stderr == "$E: unpublish port: "* ]]
}

@test "ports: an ephemeral host port when none is given, and ::1 where asked" {
	sim_unpublish_all sim-a
	run -0 "$SIM" port publish sim-a 8080
	[[ $output =~ ^Published\ 127\.0\.0\.1:([0-9]+)\ -\>\ 8080/tcp4$ ]]
	e=${BASH_REMATCH[1]}
	((e >= 49152 && e <= 65535))
	run -0 sim_fetch "http://127.0.0.1:$e/"
	[ "$output" = "<p>page of sim-a</p>" ]
	sim_free_port
	run -0 "$SIM" port publish sim-a "[::1]:$SIM_PORT:8080/tcp"
	[ "$output" = "Published [::1]:$SIM_PORT -> 8080/tcp" ]
	run -0 sim_fetch "http://[::1]:$SIM_PORT/"
	[ "$output" = "<p>page of sim-a</p>" ]
	run -0 "$SIM" port ls sim-a --json
	[ "$(json_get 'sorted(p["host_ip"] for p in d)' <<<"$output")" = '["127.0.0.1", "::1"]' ]
	"$SIM" port unpublish sim-a "$e:8080" "[::1]:$SIM_PORT:8080/tcp" >/dev/null
	run -0 "$SIM" port ls sim-a --json
	[ "$output" = "[]" ]
	run -1 --separate-stderr "$SIM" port publish sim-a 10.0.0.1:1:80
	[[ $stderr == "$E: publish port: invalid port spec"* ]]
}

@test "ports: udp is forwarded too" {
	sim_unpublish_all sim-a
	# a udp echo service in the sandbox's own network namespace
	"$SIM" exec sim-a -- sh -c 'socat UDP4-LISTEN:9999,reuseaddr,fork EXEC:cat >/dev/null 2>&1 &'
	sim_free_port udp
	run -0 "$SIM" port publish sim-a "$SIM_PORT:9999/udp4"
	[ "$output" = "Published 127.0.0.1:$SIM_PORT -> 9999/udp4" ]
	grep -qx "127.0.0.1:$SIM_PORT" <<<"$(ss -Hlun | awk '{ print $4 }')"
	for _ in 1 2 3 4 5; do
		got=$(echo ping-udp | socat -T 2 - "UDP4:127.0.0.1:$SIM_PORT") && [ -n "$got" ] && break
		sleep 0.2
	done
	[ "$got" = ping-udp ]
	run -0 "$SIM" port ls sim-a --json
	[ "$output" = "[{\"host_ip\":\"127.0.0.1\",\"host_port\":$SIM_PORT,\"sandbox_port\":9999,\"protocol\":\"udp4\"}]" ]
	"$SIM" port unpublish sim-a "$SIM_PORT:9999/udp4" >/dev/null
	"$SIM" exec sim-a -- pkill -f UDP4-LISTEN:9999 || true
}

@test "port dialects: the port group on 0.55 with ports an alias of it or gone; ports alone up to 0.47" {
	sim_unpublish_all sim-a
	sim_free_port
	run -0 "$SIM" port publish sim-a "$SIM_PORT:8080" --format json
	[ "$output" = "Published 127.0.0.1:$SIM_PORT -> 8080/tcp4" ]
	run -0 "$SIM" port ls sim-a --format json
	[ "$output" = "[{\"host_ip\":\"127.0.0.1\",\"host_port\":$SIM_PORT,\"sandbox_port\":8080,\"protocol\":\"tcp4\"}]" ]
	run -0 "$SIM" port ls sim-a --format yaml
	[ "${lines[3]}" = "  protocol: tcp4" ]
	run -1 "$SIM" port ls sim-a --format xml
	# the default: ports is the group under another name, so the old
	# call fails, and not with unknown command "ports"
	run -1 --separate-stderr "$SIM" ports sim-a --json
	[[ $stderr != *'unknown command "ports"'* ]]
	[ "${stderr_lines[0]}" = "$E: unknown command \"sim-a\" for \"sbx port\"" ]
	run -1 --separate-stderr "$SIM" ports --json sim-a
	[ "${stderr_lines[0]}" = "$E: unknown flag: --json" ]
	run -0 "$SIM" ports ls sim-a --json
	[[ $output == *'"protocol":"tcp4"'* ]]
	SBX_SIM_DIALECT=gone run -1 --separate-stderr "$SIM" ports sim-a
	[ "${stderr_lines[0]}" = "$E: unknown command \"ports\" for \"sbx\"" ]
	# up to 0.47: ports alone, and the same families
	SBX_SIM_PROFILE=0.47 run -1 --separate-stderr "$SIM" port ls sim-a
	[[ ${stderr_lines[0]} == *'unknown command "port" for "sbx"' ]]
	SBX_SIM_PROFILE=0.46 run -0 "$SIM" ports sim-a --json
	[[ $output == *'"protocol":"tcp4"'* ]]
	SBX_SIM_PROFILE=0.47 SBX_SIM_DIALECT=both run -0 "$SIM" port ls sim-a
	run -0 "$SIM" port unpublish sim-a "$SIM_PORT:8080"
	[ "$output" = "Unpublished 127.0.0.1:$SIM_PORT -> 8080/tcp4" ]
}

@test "port families: tcp is both loopbacks, unpublish by the exact protocol, none named matches tcp4 or tcp, no host port every one" {
	sim_unpublish_all sim-a
	sim_free_port
	p=$SIM_PORT
	run -0 "$SIM" port publish sim-a "$p:8080/tcp"
	[ "$output" = "Published 127.0.0.1:$p -> 8080/tcp
Published [::1]:$p -> 8080/tcp" ]
	ss -Hltn | awk '{ print $4 }' | grep -qx "\[::1\]:$p"
	ss -Hltn | awk '{ print $4 }' | grep -qx "127.0.0.1:$p"
	# tcp6 is not tcp: nothing of the dual-stack mapping goes
	run -1 --separate-stderr "$SIM" port unpublish sim-a "$p:8080/tcp6"
	[[ $stderr == *"is not published"* ]]
	# no protocol: the dual-stack mapping goes, both stacks
	run -0 "$SIM" port unpublish sim-a "$p:8080"
	[ "${#lines[@]}" -eq 2 ]
	run -0 "$SIM" port ls sim-a --json
	[ "$output" = "[]" ]
	# no protocol does not match tcp6 or udp; the newest grammar needs no host port
	"$SIM" port publish sim-a "[::1]:$p:8080/tcp6" "$p:8080/udp4" 8080 >/dev/null
	run -1 "$SIM" port unpublish sim-a "[::1]:$p:8080"
	run -0 "$SIM" port unpublish sim-a 8080
	run -0 "$SIM" port ls sim-a --json
	[ "$(json_get 'sorted(x["protocol"] for x in d)' <<<"$output")" = '["tcp6", "udp4"]' ]
	run -0 "$SIM" port unpublish sim-a 8080/tcp6 8080/udp4
	run -0 "$SIM" port ls sim-a --json
	[ "$output" = "[]" ]
	# the ports verb (0.47) wants the host port
	SBX_SIM_PROFILE=0.47 run -1 --separate-stderr "$SIM" ports sim-a --unpublish 8080
	[[ $stderr == *"(host port required)"* ]]
}

@test "port faults: ports-409 refuses a stopped sandbox, publish-starts starts it (0.55's default), a combined call in either order or refused" {
	mkdir -p "$BATS_TEST_TMPDIR/wsq"
	"$SIM" create -q --name sim-q shell "$BATS_TEST_TMPDIR/wsq"
	"$SIM" stop sim-q
	SBX_SIM_FAULT=ports-409 run -1 --separate-stderr "$SIM" port ls sim-q --json
	[ "$stderr" = "$E: request failed: 409 Conflict: sandbox sim-q is not running" ]
	run -0 "$SIM" port ls sim-q --json
	[ "$output" = "[]" ]
	[ "$(json_get '[s["status"] for s in d["sandboxes"] if s["name"] == "sim-q"][0]' < <("$SIM" ls --json))" = stopped ]
	# 0.47 without the word: a publish leaves it stopped; 0.55 starts it
	sim_free_port
	SBX_SIM_PROFILE=0.47 run -0 "$SIM" ports sim-q --publish "$SIM_PORT:80"
	[ "$(json_get '[s["status"] for s in d["sandboxes"] if s["name"] == "sim-q"][0]' < <("$SIM" ls --json))" = stopped ]
	SBX_SIM_PROFILE=0.47 SBX_SIM_FAULT=ports-409 run -1 "$SIM" ports sim-q --unpublish "$SIM_PORT:80"
	sim_free_port
	SBX_SIM_FAULT=ports-409 run -0 "$SIM" port publish sim-q "$SIM_PORT:81"
	[ "$(json_get '[s["status"] for s in d["sandboxes"] if s["name"] == "sim-q"][0]' < <("$SIM" ls --json))" = running ]
	# a combined call (ports, 0.47): unpublish first, publish first, or refused
	"$SIM" exec sim-q -- true
	a=$SIM_PORT
	export SBX_SIM_PROFILE=0.47
	for w in order-unpublish-first order-publish-first; do
		for sp in 81 82; do
			"$SIM" ports sim-q --unpublish "$a:$sp" >/dev/null 2>&1 || true
		done
		"$SIM" ports sim-q --publish "$a:81" >/dev/null
		# the same host port freed and taken in one call
		SBX_SIM_FAULT=$w run --separate-stderr "$SIM" ports sim-q --unpublish "$a:81" --publish "$a:82"
		if [ $w = order-unpublish-first ]; then
			[ "$status" -eq 0 ] || fail "$w: $stderr"
		else
			[ "$status" -eq 1 ] && [[ $stderr == *"already published"* || $stderr == *"address already in use"* ]] || fail "$w: $status $stderr"
		fi
	done
	SBX_SIM_FAULT=combined-refused run -1 --separate-stderr "$SIM" ports sim-q --unpublish "$a:81" --publish 83
	[[ $stderr == *"cannot be combined"* ]]
	unset SBX_SIM_PROFILE
	"$SIM" rm -f sim-q
}

# ---------------------------------------------------------------- isolation

@test "two sandboxes: separate daemons, containers, images, loopbacks and pages on the same sandbox port" {
	run -0 "$SIM" exec sim-a -- $DK info --format '{{.ID}}'
	ida=$output
	run -0 "$SIM" exec sim-b -- $DK info --format '{{.ID}}'
	[ -n "$ida" ] && [ "$output" != "$ida" ]
	printf 'FROM busybox:local\nRUN echo only-a >/only-a\n' >"$WSA/Dockerfile"
	"$SIM" exec sim-a -- $DK build -q -t only-a . >/dev/null 2>&1
	run -0 "$SIM" exec sim-b -- $DK images --format '{{.Repository}}'
	[ "$output" = busybox ]
	run -0 "$SIM" exec sim-b -- $DK ps -a --format '{{.Names}}'
	[ "$output" = "" ]
	# the same sandbox port in both, each its own page
	mkdir -p "$WSB/www"
	echo '<p>page of sim-b</p>' >"$WSB/www/index.html"
	"$SIM" exec sim-b -- $DK run -d --name webb -p 8080:8080 -v "$WSB/www:/www:ro" busybox:local httpd -f -p 8080 -h /www >/dev/null
	sim_free_port
	ha=$SIM_PORT
	"$SIM" port publish sim-a "$ha:8080" >/dev/null
	sim_free_port
	hb=$SIM_PORT
	"$SIM" port publish sim-b "$hb:8080" >/dev/null
	run -0 sim_fetch "http://127.0.0.1:$ha/"
	[ "$output" = "<p>page of sim-a</p>" ]
	run -0 sim_fetch "http://127.0.0.1:$hb/"
	[ "$output" = "<p>page of sim-b</p>" ]
	# each loopback is its own: sim-a's 8081 is not reachable from sim-b
	"$SIM" exec sim-a -- $DK run -d --name only8081 -p 8081:8080 -v "$WSA:/www:ro" busybox:local httpd -f -p 8080 -h /www >/dev/null
	run -0 "$SIM" exec sim-a -- curl -fsS --max-time 3 http://127.0.0.1:8081/
	[ "$output" = "<p>page of sim-a</p>" ]
	run -7 "$SIM" exec sim-b -- curl -fsS --max-time 3 http://127.0.0.1:8081/
	# and the host's loopback is not the sandbox's
	run -0 "$SIM" exec sim-b -- sh -c "curl -fsS --max-time 3 http://127.0.0.1:$ha/ 2>/dev/null || echo unreachable"
	[ "$output" = unreachable ]
	"$SIM" port unpublish sim-a "$ha:8080" >/dev/null
	"$SIM" port unpublish sim-b "$hb:8080" >/dev/null
	"$SIM" exec sim-a -- $DK rm -f only8081 >/dev/null
}

@test "two simulator roots side by side: the same sandbox name in each, and one's cleanup leaves the other alone" {
	run -0 "$SIM" exec sim-a -- $DK info --format '{{.ID}}'
	id1=$output
	other=$(mktemp -d /tmp/sbxsim.XXXXXX)
	SBX_SIM_ROOT=$other run -0 "$SIM" create -q --name sim-a shell "$WSA"
	SBX_SIM_ROOT=$other run -0 "$SIM" exec sim-a -- $DK info --format '{{.ID}}'
	[ -n "$output" ] && [ "$output" != "$id1" ]
	otag=$(cat "$other/tag")
	[ "$otag" != "$(sim_tag)" ]
	SBX_SIM_ROOT=$other run -0 "$SIM" sim-cleanup
	[ ! -e "$other" ]
	run -0 "$SIM" exec sim-a -- $DK info --format '{{.ID}}'
	[ "$output" = "$id1" ]
	run -1 sim_leftovers "$other" "$otag"
}

# ---------------------------------------------------------------- faults

@test "SBX_SIM_FAIL: the next N calls of a verb fail with the real text, then calls work; counters restart on a new value" {
	export SBX_SIM_FAIL=exec:2
	n=$(sim_ncalls)
	run -1 --separate-stderr "$SIM" exec sim-a -- echo ran
	[ "$output" = "" ]
	[ "$stderr" = "$E: failed to start sandbox: start runtime: request failed: 500 Internal Server Error" ]
	run -1 "$SIM" exec sim-a -- echo ran
	run -0 "$SIM" exec sim-a -- echo ran
	[ "$output" = ran ]
	run -0 "$SIM" ls -q
	[ "$(sim_calls_after "$n" | cut -d' ' -f2 | tr '\n' ' ')" = "1 1 0 0 " ]
	export SBX_SIM_FAIL=ls:1:auth,create
	run -1 --separate-stderr "$SIM" ls --json
	[ "${stderr_lines[0]}" = "$E: Not authenticated to Docker" ]
	run -0 "$SIM" ls -q
	run -1 --separate-stderr "$SIM" create -q --name sim-f shell "$WSB"
	[ "$stderr" = "$E: failed to create sandbox: failed to run sandbox container" ]
	run -1 "$SIM" create -q --name sim-f shell "$WSB"
	export SBX_SIM_FAIL=port:1:endpoint
	run -1 --separate-stderr "$SIM" port ls sim-a
	[ "$stderr" = "$E: publish port: failed to resolve endpoint: no container endpoint with IP address found" ]
	unset SBX_SIM_FAIL
	run -0 "$SIM" ls -q
	[ "$(sort <<<"$output")" = "$(printf 'sim-a\nsim-b')" ]
	# the same value again after a change: armed again
	export SBX_SIM_FAIL=exec:1
	run -1 "$SIM" exec sim-a -- true
	run -0 "$SIM" exec sim-a -- true
	"$SIM" sim-reset
	run -1 "$SIM" exec sim-a -- true
}

@test "SBX_SIM_HANG: a hung call is a process tree that only a process-group kill removes" {
	tag=$(sim_tag)
	n=$(sim_ncalls)
	# (ls: a local exec ends on SIGKILL only, a test of its own)
	SBX_SIM_HANG=ls:1 setsid "$SIM" ls -q </dev/null >/dev/null 2>&1 3>&- &
	pid=$!
	for _ in $(seq 100); do
		[ "$(pgrep -fc "^sbxsim-hang-$tag")" -eq 2 ] && break
		sleep 0.05
	done
	[ "$(pgrep -fc "^sbxsim-hang-$tag")" -eq 2 ]
	[ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]
	for p in $(pgrep -f "^sbxsim-hang-$tag"); do
		[ "$(ps -o pgid= -p "$p" | tr -d ' ')" = "$pid" ]
	done
	# killing the sbx process alone leaves the tree behind
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	[ "$(pgrep -fc "^sbxsim-hang-$tag")" -eq 2 ]
	[ "$(sim_calls_after "$n" | cut -d' ' -f2-)" = "143 ls -q" ]
	# the group kill removes all of it
	kill -TERM -- "-$pid"
	for _ in $(seq 40); do
		pgrep -f "^sbxsim-hang-$tag" >/dev/null || break
		sleep 0.05
	done
	run ! pgrep -f "^sbxsim-hang-$tag"
	# the count was one: the next call runs
	SBX_SIM_HANG=ls:1 run -0 "$SIM" ls -q
	[[ $output == *sim-a* ]]
}

@test "SBX_SIM_LEAK=env: the simulator's whole environment reaches the sandbox" {
	export LEAK_PROBE=leaked
	run -0 "$SIM" exec sim-a -- env
	[[ $output != *LEAK_PROBE* ]]
	SBX_SIM_LEAK=env run -0 "$SIM" exec sim-a -- env
	[[ $output == *"LEAK_PROBE=leaked"* ]]
	[[ $output == *"HOME=/home/agent"* ]]
}

@test "SBX_SIM_LEAK=home: the caller's HOME is visible inside" {
	run -1 "$SIM" exec sim-a -- cat "$HOME/.ssh/id_test"
	SBX_SIM_LEAK=home run -0 "$SIM" exec sim-a -- cat "$HOME/.ssh/id_test"
	[ "$output" = secret ]
}

@test "SBX_SIM_LEAK=context: an extra docker context inside" {
	run -0 "$SIM" exec sim-a -- docker context ls --format '{{.Name}}'
	[ "$output" = default ]
	SBX_SIM_LEAK=context run -0 "$SIM" exec sim-a -- docker context ls --format '{{.Name}}'
	[ "$output" = "$(printf 'default\nsbx-sim-leak')" ]
	run -0 "$SIM" exec sim-a -- docker context ls --format '{{.Name}}'
	[ "$output" = default ]
}

@test "SBX_SIM_LEAK=socket: a host docker socket at /run/user/0/docker.sock and /var/run/docker.sock.host" {
	run -0 "$SIM" exec sim-a -- sh -c 'ls -A /run'
	[ "$output" = docker.sock ]
	SBX_SIM_LEAK=socket run -0 "$SIM" exec sim-a -- sh -c 'test -S /run/user/0/docker.sock && test -S /var/run/docker.sock.host && echo both'
	[ "$output" = both ]
}

@test "SBX_SIM_LEAK=bind-any: a publish binds 0.0.0.0 and says so" {
	sim_unpublish_all sim-a
	sim_free_port
	SBX_SIM_LEAK=bind-any run -0 "$SIM" port publish sim-a "$SIM_PORT:8080"
	[ "$output" = "Published 0.0.0.0:$SIM_PORT -> 8080/tcp4" ]
	grep -qx "0.0.0.0:$SIM_PORT" <<<"$(ss -Hltn | awk '{ print $4 }')"
	run -0 "$SIM" port ls sim-a --json
	[ "$output" = "[{\"host_ip\":\"0.0.0.0\",\"host_port\":$SIM_PORT,\"sandbox_port\":8080,\"protocol\":\"tcp4\"}]" ]
	run -0 "$SIM" port unpublish sim-a "$SIM_PORT:8080"
	[ "$output" = "Unpublished 0.0.0.0:$SIM_PORT -> 8080/tcp4" ]
}

@test "SBX_SIM_LEAK=unpinned: the docker CLI inside follows DOCKER_HOST over -H" {
	probe='DOCKER_HOST=unix:///nonexistent/sbxsim docker -H unix:///var/run/docker.sock version --format "{{.Server.Os}}"'
	run -0 "$SIM" exec sim-a -- sh -c "$probe"
	[ "$output" = linux ]
	SBX_SIM_LEAK=unpinned run -1 "$SIM" exec sim-a -- sh -c "$probe"
	[[ $output == *"Cannot connect to the Docker daemon at unix:///nonexistent/sbxsim"* ]]
}

@test "SBX_SIM_LEAK=host-exec: the command runs on the host with the caller's PATH" {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho canary-docker\n' >"$BATS_TEST_TMPDIR/bin/docker"
	chmod +x "$BATS_TEST_TMPDIR/bin/docker"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run -0 "$SIM" exec sim-a -- docker -H unix:///var/run/docker.sock version --format '{{.Server.Os}}'
	[ "$output" = linux ]
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" SBX_SIM_LEAK=host-exec run -0 "$SIM" exec sim-a -- docker -H unix:///var/run/docker.sock version
	[ "$output" = canary-docker ]
}

@test "a poisoned caller PATH does not change the tools the simulator runs" {
	mkdir -p "$BATS_TEST_TMPDIR/poison"
	for c in ip socat nsenter unshare curl dockerd mount docker ss flock setsid env bash sh; do
		printf '#!/bin/sh\n: >"%s/ran-%s"\nexit 1\n' "$BATS_TEST_TMPDIR" "$c" >"$BATS_TEST_TMPDIR/poison/$c"
		chmod +x "$BATS_TEST_TMPDIR/poison/$c"
	done
	sim_free_port
	PATH="$BATS_TEST_TMPDIR/poison:$PATH" run -0 "$SIM" port publish sim-a "$SIM_PORT:8080"
	PATH="$BATS_TEST_TMPDIR/poison:$PATH" run -0 "$SIM" exec sim-a -- sh -c 'echo $PATH'
	[ "$output" = /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin ]
	PATH="$BATS_TEST_TMPDIR/poison:$PATH" run -0 "$SIM" port unpublish sim-a "$SIM_PORT:8080"
	[ -z "$(ls "$BATS_TEST_TMPDIR" | grep '^ran-')" ]
}

# The sandbox's status from outside, without an sbx call: its dockerd.
sim_daemon_up() {	# sim_daemon_up name
	local f p
	for f in "$SBX_SIM_ROOT"/s/*/name; do
		[ "$(cat "$f")" = "$1" ] || continue
		p=$(cat "${f%/name}/dockerd.pid" 2>/dev/null) || return 1
		sim_alive "$p"
		return
	done
	return 1
}

# The daemon of name is gone within s seconds (a stop takes ~2.5 s).
sim_down_within() {	# sim_down_within name seconds
	local i
	for i in $(seq $(($2 * 10))); do
		sim_daemon_up "$1" || return 0
		sleep 0.1
	done
	return 1
}

@test "guest commands: a killed sbx exec (KILL, its whole group; TERM it ignores) leaves its command running; it ends at stop" {
	mkdir -p "$BATS_TEST_TMPDIR/wsg"
	"$SIM" create -q --name sim-g shell "$BATS_TEST_TMPDIR/wsg"
	for how in TERM KILL group; do
		setsid "$SIM" exec sim-g -- sh -c "echo \$\$ >/tmp/$how.pid; sleep 600" 3>&- &
		p=$!
		for _ in $(seq 100); do "$SIM" exec sim-g -- test -s "/tmp/$how.pid" && break; sleep 0.1; done
		case $how in
		group) kill -KILL -- "-$p" ;;
		TERM)
			# the local exec goes on after a SIGTERM (README, "Verbs")
			kill -TERM "$p"
			"$SIM" exec sim-g -- true
			sim_alive "$p" || fail "TERM ended the local exec"
			kill -KILL "$p"
			;;
		*) kill "-$how" "$p" ;;
		esac
		wait "$p" || true
		g=$("$SIM" exec sim-g -- cat "/tmp/$how.pid")
		sleep 0.5
		# still there, in a session of its own (not sbx's)
		sim_alive "$g" || fail "$how: the guest command died with its exec"
		[ "$(ps -o sid= -p "$g" | tr -d ' ')" = "$g" ] || fail "$how: not a session leader"
		gs="$gs $g"
	done
	"$SIM" stop sim-g
	for g in $gs; do
		! sim_alive "$g" || fail "guest $g outlived stop"
	done
	"$SIM" rm -f sim-g
}

@test "SBX_SIM_IDLE_STOP: the sandbox stops on its own N s after the last exec, without a call; a guest left running and guest load do not hold it; exec brings it back with restart-policy containers" {
	export SBX_SIM_IDLE_STOP=2
	"$SIM" exec sim-b -- $DK run -d --restart unless-stopped --name keep busybox:local httpd -f -p 8080 >/dev/null
	"$SIM" exec sim-b -- $DK run -d --name gone busybox:local sleep 600 >/dev/null
	"$SIM" exec sim-b -- sh -c "sh -c 'while :; do :; done' >/dev/null 2>&1 &"
	n=$(sim_ncalls)
	sim_daemon_up sim-b
	sleep 1.5
	sim_daemon_up sim-b || fail "stopped before the grace"
	# no call comes, and it stops all the same (and its busy loop with it)
	sim_down_within sim-b 5 || fail "still running 6.5 s after the last exec of a 2 s grace"
	[ "$(sim_ncalls)" -eq "$n" ]
	[ -z "$(pgrep -f 'while :; do :; done')" ] || fail "the guest's loop outlived the stop"
	run -0 "$SIM" ls --json
	[ "$(json_get '[s["status"] for s in d["sandboxes"] if s["name"] == "sim-b"][0]' <<<"$output")" = stopped ]
	# exec starts it again, and the container with a restart policy with it
	run -0 "$SIM" exec sim-b -- $DK ps --format '{{.Names}}'
	[ "$output" = keep ]
	"$SIM" exec sim-b -- $DK rm -f keep gone >/dev/null
}

@test "SBX_SIM_IDLE_STOP: an open exec holds the sandbox up past the grace; a bare create stops after it; 0 turns it off" {
	export SBX_SIM_IDLE_STOP=1
	"$SIM" exec sim-b -- sleep 2.5
	sim_daemon_up sim-b || fail "stopped under an open exec"
	sim_down_within sim-b 5 || fail "not stopped 5 s after the exec of a 1 s grace"
	mkdir -p "$BATS_TEST_TMPDIR/wsc"
	"$SIM" create -q --name sim-c shell "$BATS_TEST_TMPDIR/wsc"
	sim_down_within sim-c 5 || fail "a bare create kept running"
	SBX_SIM_IDLE_STOP=0 "$SIM" exec sim-c -- true
	sleep 2
	sim_daemon_up sim-c || fail "stopped with the idle stop off"
	# the default is real sbx's 30 s
	unset SBX_SIM_IDLE_STOP
	"$SIM" exec sim-c -- true
	g=$(grep -lx sim-c "$SBX_SIM_ROOT"/s/*/name)
	[ "$(cat "${g%/name}/grace")" = 30 ] || fail "grace: $(cat "${g%/name}/grace")"
	"$SIM" rm -f sim-c
}

@test "rm while containers are being started leaves none of them behind (adopted by PID 1)" {
	mkdir -p "$BATS_TEST_TMPDIR/wsr"
	for i in 1 2 3 4; do
		"$SIM" create -q --name "sim-r$i" shell "$BATS_TEST_TMPDIR/wsr"
		"$SIM" exec "sim-r$i" -- sh -c "for j in 1 2 3 4; do $DK run -d busybox:local sleep 77\$j >/dev/null & done; wait" 3>&- 2>/dev/null &
		sleep "0.$((3 + i * 2))"
		"$SIM" rm -f "sim-r$i"
		wait || true
	done
	sleep 0.3
	left=$(for p in $(pgrep -f 'sleep 77[1-4]|runc init'); do grep -l "sbxsim-$(sim_tag)-" "/proc/$p/cgroup" 2>/dev/null; done)
	[ -z "$left" ] || fail "left behind: $left"
}

@test "template save, ls, rm; create -t starts from the saved home" {
	"$SIM" exec sim-a -- sh -c 'echo from-template >/home/agent/marker'
	run -0 "$SIM" template save sim-a sim-tpl:v1
	run -0 "$SIM" template ls --json
	[ "$(json_get '[(i["repository"], i["tag"]) for i in d["images"]]' <<<"$output")" = "[[\"sim-tpl\", \"v1\"]]" ]
	mkdir -p "$BATS_TEST_TMPDIR/wst"
	"$SIM" create -q --name sim-t -t sim-tpl:v1 shell "$BATS_TEST_TMPDIR/wst"
	run -0 "$SIM" exec sim-t -- cat /home/agent/marker
	[ "$output" = from-template ]
	run -0 "$SIM" rm -f sim-t
	run -0 "$SIM" template rm sim-tpl:v1
	run -0 "$SIM" template ls --json
	[ "$output" = '{"images":[]}' ]
}

# ---------------------------------------------------------------- teardown (last)

@test "teardown: sim-cleanup removes both sandboxes in parallel and leaves nothing on the host" {
	tag=$(sim_tag)
	[ -n "$tag" ]
	# something to clean: a container, a forwarder, a guest process
	"$SIM" exec sim-a -- $DK run -d --name last busybox:local sleep 308 >/dev/null
	sim_free_port
	"$SIM" port publish sim-a "$SIM_PORT:8080" >/dev/null
	"$SIM" exec sim-b -- sh -c 'sleep 309 >/dev/null 2>&1 &'
	pgrep -f "sbxsim-$tag" >/dev/null
	sim_leftovers "$SBX_SIM_ROOT" "$tag" >/dev/null
	start=$(date +%s%N)
	run -0 sim_teardown_assert
	ms=$((($(date +%s%N) - start) / 1000000))
	echo "# teardown of 2 sandboxes: $ms ms" >&3
	run ! pgrep -fx 'sleep 309'
	run ! pgrep -fx 'sleep 308'
	run ! grep -qx "127.0.0.1:$SIM_PORT" <<<"$(ss -Hltn | awk '{ print $4 }')"
	((ms < 8000))
}
