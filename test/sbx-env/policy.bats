#!/usr/bin/env bats
# sbx-env: the environment policy, hostile environments, exit statuses.

load ../helpers/helper

setup() {
	common_setup
}

# The names sbx-env printed, one a line, sorted.
names() {
	printf '%s\n' "$output" | sed 's/=.*//' | sort
}

@test "sbx-env: a bad option prints only the usage line and exits 64" {
	run -64 --separate-stderr sbx-env -Z
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "usage: sbx-env [-cjp] [-a name[,name...]] [utility [argument ...]]" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "sbx-env: strict mode keeps the host set and nothing else" {
	run -0 env -i HOME=/h PATH=/usr/bin:/bin USER=u LOGNAME=u TMPDIR=/t \
	    SHELL=/bin/sh LANG=C LC_ALL=C LC_CTYPE=C TZ=UTC TERM=dumb \
	    XDG_CONFIG_HOME=/c XDG_STATE_HOME=/s XDG_CACHE_HOME=/k \
	    XDG_DATA_HOME=/d XDG_RUNTIME_DIR=/r DBUS_SESSION_BUS_ADDRESS=x \
	    HTTP_PROXY=p https_proxy=p NO_PROXY=n SBX_NO_TELEMETRY=1 \
	    DOCKER_SANDBOXES_PROXY=q \
	    SECRET=s AWS_SECRET_ACCESS_KEY=k OPENAI_API_KEY=o SSH_AUTH_SOCK=/a \
	    "$TOP/sbx-env/sbx-env"
	expected="DBUS_SESSION_BUS_ADDRESS DOCKER_SANDBOXES_PROXY HOME HTTP_PROXY LANG LC_ALL LC_CTYPE LOGNAME NO_PROXY PATH SBX_NO_TELEMETRY SHELL TERM TMPDIR TZ USER XDG_CACHE_HOME XDG_CONFIG_HOME XDG_DATA_HOME XDG_RUNTIME_DIR XDG_STATE_HOME https_proxy"
	[ "$(names | tr '\n' ' ' | sed 's/ $//')" = "$(echo $expected | tr ' ' '\n' | sort | tr '\n' ' ' | sed 's/ $//')" ]
	[[ "$output" != *SECRET* ]]
	[[ "$output" != *OPENAI* ]]
}

@test "sbx-env: the output keeps the incoming order and values" {
	run -0 env -i PATH=/p HOME=/h TERM=t "$TOP/sbx-env/sbx-env"
	[ "$output" = "$(printf 'PATH=/p\nHOME=/h\nTERM=t')" ]
}

@test "sbx-env: -a and the allowlist variable add names, -a repeats" {
	run -0 env -i PATH=/p FOO=1 BAR=2 BAZ=3 QUX=4 \
	    DOCKER_SANDBOX_ENV_ALLOWLIST=QUX "$TOP/sbx-env/sbx-env" -a FOO -a BAR
	[ "$(names | tr '\n' ' ')" = "BAR FOO PATH QUX " ]
}

@test "sbx-env: -p and the passthrough variable keep all but docker names" {
	for how in "-p" "DOCKER_SANDBOX_ENV_PASSTHROUGH=yes" \
	    "DOCKER_SANDBOX_ENV_PASSTHROUGH=ON"; do
		if [ "$how" = -p ]; then
			run -0 env -i PATH=/p FOO=1 DOCKER_HOST=x "$TOP/sbx-env/sbx-env" -p
		else
			run -0 env -i PATH=/p FOO=1 DOCKER_HOST=x "$how" \
			    "$TOP/sbx-env/sbx-env"
		fi
		[ "$(names | tr '\n' ' ')" = "FOO PATH " ] ||
		    fail "$how: $output"
	done
}

@test "sbx-env: docker and compose names go in every mode and any case" {
	dirty="DOCKER_HOST=tcp://evil docker_host=tcp://evil Docker_Context=x
	    DOCKER_CONFIG=/c COMPOSE_FILE=f Compose_File=f compose_project_name=p
	    DOCKER_TLS_VERIFY=1 DOCKER_SANDBOX=mine"
	for mode in "" "-a docker_host,Compose_File,FOO" "-p"; do
		# shellcheck disable=SC2086
		run -0 env -i PATH=/p FOO=1 $dirty "$TOP/sbx-env/sbx-env" $mode
		if printf '%s\n' "$output" | grep -qi '^\(docker\|compose\)_'; then
			fail "mode '$mode' kept: $output"
		fi
	done
}

@test "sbx-env: sbx's own DOCKER_SANDBOXES_* settings pass, other spellings do not" {
	run -0 env -i PATH=/p DOCKER_SANDBOXES_ROOT_SIZE=20g \
	    docker_sandboxes_root_size=1 "$TOP/sbx-env/sbx-env"
	[ "$(names | tr '\n' ' ')" = "DOCKER_SANDBOXES_ROOT_SIZE PATH " ]
}

@test "sbx-env: allow-listing a docker name warns and still removes it" {
	run -0 --separate-stderr env -i PATH=/p DOCKER_HOST=tcp://evil \
	    "$TOP/sbx-env/sbx-env" -a DOCKER_HOST
	[ "$output" = "PATH=/p" ]
	[[ "$stderr" == "sbx-env: -a: DOCKER_HOST: docker and compose variables are never passed" ]]
	run -0 --separate-stderr env -i PATH=/p COMPOSE_FILE=x \
	    DOCKER_SANDBOX_ENV_ALLOWLIST=compose_file "$TOP/sbx-env/sbx-env"
	[ "$output" = "PATH=/p" ]
	[[ "$stderr" == "sbx-env: DOCKER_SANDBOX_ENV_ALLOWLIST: compose_file: "* ]]
}

@test "sbx-env: duplicate names keep the first value, never a later DOCKER_HOST" {
	run -0 --separate-stderr hostile-env PATH=/p TERM=first TERM=second \
	    DOCKER_HOST=tcp://a DOCKER_HOST=tcp://b FOO=1 FOO=2 -- \
	    "$TOP/sbx-env/sbx-env" -a FOO,DOCKER_HOST
	[ "$output" = "$(printf 'PATH=/p\nTERM=first\nFOO=1')" ]
	# passthrough too
	run -0 hostile-env PATH=/p X=1 DOCKER_HOST=tcp://a X=2 docker_host=y \
	    -- "$TOP/sbx-env/sbx-env" -p
	[ "$output" = "$(printf 'PATH=/p\nX=1')" ]
}

@test "sbx-env: entries without '=' and odd names are dropped" {
	run -0 hostile-env PATH=/p NOEQUALS "=novalue" "A B=1" "1X=2" "-rf=3" \
	    "$(printf 'NL\nX=4')" FOO=ok -- "$TOP/sbx-env/sbx-env" -p
	[ "$output" = "$(printf 'PATH=/p\nFOO=ok')" ]
}

@test "sbx-env: a value near the kernel's per-string limit passes whole" {
	run -0 hostile-env PATH=/p -b BIG 131000 -- "$TOP/sbx-env/sbx-env" -a BIG
	big=$(printf '%s\n' "$output" | grep '^BIG=')
	[ "${#big}" -eq $((131000 + 4)) ]
}

@test "sbx-env: 10,000 variables are sorted out quickly and exactly" {
	run -0 hostile-env PATH=/p -n 10000 -- "$TOP/sbx-env/sbx-env" -a V0,V9999,V5000
	[ "$output" = "$(printf 'PATH=/p\nV0=x\nV5000=x\nV9999=x')" ]
	run -0 hostile-env PATH=/p -n 10000 -- "$TOP/sbx-env/sbx-env" -p
	[ "${#lines[@]}" -eq 10001 ]
}

@test "sbx-env: the utility runs with the scrubbed environment" {
	run -0 env -i PATH=/usr/bin:/bin SECRET=s FOO=1 "$TOP/sbx-env/sbx-env" -a FOO env
	[ "$(names | tr '\n' ' ')" = "FOO PATH " ]
}

@test "sbx-env: options after the utility belong to it" {
	run -0 env -i PATH=/usr/bin:/bin "$TOP/sbx-env/sbx-env" sh -c 'echo "$1"' sh -p
	[ "$output" = "-p" ]
}

@test "sbx-env: the utility is found on the scrubbed PATH" {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho found "$@"\n' >"$BATS_TEST_TMPDIR/bin/probe"
	chmod +x "$BATS_TEST_TMPDIR/bin/probe"
	run -0 env -i PATH="$BATS_TEST_TMPDIR/bin:/usr/bin:/bin" "$TOP/sbx-env/sbx-env" probe 1
	[ "$output" = "found 1" ]
	# a script without #! runs through sh, as exec(3p) says
	printf 'echo plain\n' >"$BATS_TEST_TMPDIR/bin/plain"
	chmod +x "$BATS_TEST_TMPDIR/bin/plain"
	run -0 env -i PATH="$BATS_TEST_TMPDIR/bin:/usr/bin:/bin" "$TOP/sbx-env/sbx-env" plain
	[ "$output" = "plain" ]
}

@test "sbx-env: 127 for a utility that is not found" {
	run -127 --separate-stderr sbx-env no-such-utility-here
	[ "$stderr" = "sbx-env: no-such-utility-here: not found" ]
	run -127 --separate-stderr sbx-env /no/such/path
	[[ "$stderr" == "sbx-env: /no/such/path: "* ]]
}

@test "sbx-env: 126 for a utility that cannot be executed" {
	printf 'data\n' >"$BATS_TEST_TMPDIR/notexec"
	run -126 --separate-stderr sbx-env "$BATS_TEST_TMPDIR/notexec"
	[[ "$stderr" == "sbx-env: $BATS_TEST_TMPDIR/notexec: Permission denied" ]]
	run -126 sbx-env "$BATS_TEST_TMPDIR"
}

@test "sbx-env: 64 for a bad allowlist name or passthrough value" {
	run -64 --separate-stderr sbx-env -a 'BAD NAME' true
	[[ "$stderr" == 'sbx-env: -a: invalid variable name "BAD NAME"' ]]
	run -64 --separate-stderr env DOCKER_SANDBOX_ENV_ALLOWLIST='-rf' "$TOP/sbx-env/sbx-env"
	[[ "$stderr" == "sbx-env: DOCKER_SANDBOX_ENV_ALLOWLIST: invalid variable name"* ]]
	run -64 --separate-stderr env DOCKER_SANDBOX_ENV_PASSTHROUGH=maybe "$TOP/sbx-env/sbx-env"
	[[ "$stderr" == "sbx-env: DOCKER_SANDBOX_ENV_PASSTHROUGH: "* ]]
}

@test "sbx-env: a listing that cannot be written fails" {
	run sh -c "'$TOP/sbx-env/sbx-env' >/dev/full"
	[ "$status" -eq 1 ]
}

@test "sbx-env: -c class: a huge allowlist is printed whole, as sbx-run forwards it" {
	local list n
	# 3000 names, 30 kB: far past any fixed buffer
	list=$(seq -f 'ALLOW_NAME_%05g' 3000 | paste -sd, -)
	export DOCKER_SANDBOX_ENV_ALLOWLIST="$list"
	run -0 --separate-stderr sbx-env -c
	[ "$(printf '%s\n' "$output" | sed -n 's/^DOCKER_SANDBOX_ENV_ALLOWLIST=//p')" = "$list" ]
	run -0 --separate-stderr sbx-env -c -j
	n=$(printf '%s\n' "$output" | python3 -c '
import json, sys
for l in sys.stdin:
    o = json.loads(l)
    if o["name"] == "DOCKER_SANDBOX_ENV_ALLOWLIST": print(o["value"])')
	[ "$n" = "$list" ]
	# every name of it, set, goes to the sandbox
	stub_sandbox pi-sbx-1-allowall
	run -0 env $(seq -f 'ALLOW_NAME_%05g=v' 3000) sbx-run -s pi-sbx-1-allowall true
	[ "$(stub_argv 1 | grep -c '^ALLOW_NAME_')" -eq 3000 ]
	# a long template, a pinned name: whole too
	DOCKER_SANDBOX_TEMPLATE=$(printf 'r%.0s' $(seq 255)) run -0 sbx-env -c
	[[ "$output" == *"DOCKER_SANDBOX_TEMPLATE=$(printf 'r%.0s' $(seq 255))"* ]]
}

# The DOCKER_SANDBOX_SBX line of sbx-env -c.
cli_line() {
	sed -n 's/^DOCKER_SANDBOX_SBX=//p' <<<"$output"
}

@test "sbx-env: -c prints the sbx CLI the programs would run, resolved, or none" {
	local real
	real=$(realpath "$TOP/test/bin/sbx")
	run -0 --separate-stderr sbx-env -c
	[ "$(cli_line)" = "$real" ]
	[ -z "$stderr" ]
	# a link is shown resolved, as the programs execve(2) it
	ln -s "$TOP/test/bin/sbx" "$BATS_TEST_TMPDIR/sbx-link"
	DOCKER_SANDBOX_SBX="$BATS_TEST_TMPDIR/sbx-link" run -0 sbx-env -c
	[ "$(cli_line)" = "$real" ]
	# one that names nothing, or cannot run: none (the programs exit 127, 126)
	DOCKER_SANDBOX_SBX=/nonexistent/sbx run -0 --separate-stderr sbx-env -c
	[ "$(cli_line)" = none ]
	[ -z "$stderr" ]
	DOCKER_SANDBOX_SBX=/nonexistent/sbx run -127 sbx-run -s pi-sbx-1-cli ps
	printf '#!/bin/sh\n' >"$BATS_TEST_TMPDIR/noexec"
	DOCKER_SANDBOX_SBX="$BATS_TEST_TMPDIR/noexec" run -0 sbx-env -c
	[ "$(cli_line)" = none ]
	# unset: the first on PATH, else none when no place has one
	mkdir "$BATS_TEST_TMPDIR/bin"
	cp "$TOP/test/bin/sbx" "$BATS_TEST_TMPDIR/bin/sbx"
	unset DOCKER_SANDBOX_SBX
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run -0 sbx-env -c
	[ "$(cli_line)" = "$(realpath "$BATS_TEST_TMPDIR/bin/sbx")" ]
	[ ! -e /usr/local/bin/sbx ] && [ ! -e /opt/homebrew/bin/sbx ] ||
	    skip_unless_ci "an sbx is installed on this machine"
	env -i PATH=/usr/bin:/bin HOME="$HOME" "$TOP/sbx-env/sbx-env" -c >"$BATS_TEST_TMPDIR/out"
	grep -qx 'DOCKER_SANDBOX_SBX=none' "$BATS_TEST_TMPDIR/out"
	# -j: the same value
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run -0 sbx-env -cj
	[[ "$output" == *"{\"name\":\"DOCKER_SANDBOX_SBX\",\"value\":\"$(realpath "$BATS_TEST_TMPDIR/bin/sbx")\"}"* ]]
}

@test "sbx-env: -c refuses a relative DOCKER_SANDBOX_SBX as the programs do, and shows none for one inside the working directory" {
	DOCKER_SANDBOX_SBX=bin/sbx run -64 --separate-stderr sbx-env -c
	[ -z "$output" ]
	[ "$stderr" = "sbx-env: DOCKER_SANDBOX_SBX: not an absolute path" ]
	DOCKER_SANDBOX_SBX=bin/sbx run -64 --separate-stderr sbx-run -s pi-sbx-1-cli ps
	[ "$stderr" = "sbx-run: DOCKER_SANDBOX_SBX: not an absolute path" ]
	# the working directory stands for the session workspace, which the
	# sandbox can write: an sbx there is never shown, as sbx-run never runs it
	mkdir "$WS/bin"
	cp "$TOP/test/bin/sbx" "$WS/bin/sbx"
	DOCKER_SANDBOX_SBX="$WS/bin/sbx" run -0 --separate-stderr sbx-env -c
	[ "$(cli_line)" = none ]
	DOCKER_SANDBOX_SBX="$WS/bin/sbx" run -126 --separate-stderr sbx-run -s pi-sbx-1-cli ps
	[[ "$stderr" == *"lies in the session workspace"* ]]
	# on PATH: skipped, the next one taken
	unset DOCKER_SANDBOX_SBX
	mkdir "$BATS_TEST_TMPDIR/bin"
	cp "$TOP/test/bin/sbx" "$BATS_TEST_TMPDIR/bin/sbx"
	PATH="$WS/bin:$BATS_TEST_TMPDIR/bin:$PATH" run -0 sbx-env -c
	[ "$(cli_line)" = "$(realpath "$BATS_TEST_TMPDIR/bin/sbx")" ]
	# elsewhere, the same file is the one
	mkdir "$BATS_TEST_TMPDIR/elsewhere"
	cd "$BATS_TEST_TMPDIR/elsewhere"
	DOCKER_SANDBOX_SBX="$WS/bin/sbx" run -0 sbx-env -c
	[ "$(cli_line)" = "$(realpath "$WS/bin/sbx")" ]
}
