#!/usr/bin/env bats
# Settings under attack (issue 11 finding 7): each DOCKER_SANDBOX* setting
# has one parser with one set of limits, and every program that may use
# a setting refuses a bad value at once (exit 64, naming the variable),
# before any sbx call, whatever path the call would have taken.

load ../helpers/helper

N=pi-sbx-7-settings

setup() {
	common_setup
	export PATH="$TOP/sbx-watch:$TOP/sbx-gc:$TOP/sbx-ports:$TOP/sbx-verify:$PATH"
	stub_sandbox "$N" running	# an existing sandbox: no provisioning
	printf '[]\n' >"$SBX_STUB_DIR/out.ports"
	mkdir -m 700 -p "$SBX_STATE_DIR"
}

teardown() {
	[ -n "${SESS:-}" ] && kill "$SESS" 2>/dev/null
	return 0
}

# The command line of each program, run where it needs no provisioning.
cmdline() {
	case $1 in
	sbx-run) echo "sbx-run -s $N ps" ;;
	sbx-run-x) echo "sbx-run -x -s $N true" ;;
	sbx-ports) echo "sbx-ports -s $N ls" ;;
	sbx-ports-sync) echo "sbx-ports -s $N sync" ;;
	sbx-verify) echo "sbx-verify -s $N" ;;
	sbx-watch) echo "sbx-watch -m none -p $$ $N" ;;
	sbx-gc) echo "sbx-gc" ;;
	sbx-env) echo "sbx-env true" ;;
	sbx-env-c) echo "sbx-env -c" ;;
	esac
}

RUNNERS="sbx-run sbx-run-x sbx-ports sbx-ports-sync sbx-verify sbx-env-c"

# VARIABLE: the programs that may use it, then its bad values.
table() {
	cat <<-EOS
	AUTOCREATE|$RUNNERS|maybe 2 yes! -1 ' 1'
	CPUS|$RUNNERS|-1 1025 two 1.5 0x2 ''
	MEMORY|$RUNNERS|2x g 2.g 2048k 2000g -1g 1e3
	TEMPLATE|$RUNNERS|-rf 'a b' $(printf 'x%.0s' $(seq 300))
	WORKSPACE_RO|$RUNNERS|maybe rw 2 r0
	TEARDOWN|sbx-verify sbx-watch sbx-env-c|destroy remove! rm ' none'
	KEEPALIVE|sbx-watch sbx-env-c|maybe 2
	GC_HOURS|sbx-gc sbx-env-c|-1 abc 1e3 1000001 1. .5
	ENV_ALLOWLIST|$RUNNERS sbx-env|1BAD A-B 'A B'
	ENV_PASSTHROUGH|$RUNNERS sbx-env|maybe 2
	TIMEOUT|$RUNNERS sbx-watch sbx-gc|-1 86401 100000 2m 1.5
	PORTS_MAX|sbx-ports sbx-ports-sync sbx-env-c|-1 1025 abc 1.5 0x10 64k ''
	PREWARM|sbx-env-c|maybe 2 ' 1' autos -1
	IMAGE_CACHE|$RUNNERS sbx-watch sbx-gc|-1 10x 1.5g g 10t 1048577g 99999999999999999999 ' 10g' 0x10
	EGRESS_ALLOW|$RUNNERS|localhost '*' a.com, 127.0.0.1:80 http://x.com x:0 ::1 0x7f.1 '**.internal' ''
	EGRESS_DENY|$RUNNERS|localhost '**' ,a.com 169.254.169.254 'a b' -x 0.0.0.0/0 a.com,A.COM
	REGISTRY_AUTH|$RUNNERS|ghcr.io ghcr.io=file:k ghcr.io=env:1 '*.x=env:T' localhost=env:T a.io=env:A, ''
	EOS
}

@test "settings class: every bad value of every setting exits 64 naming it, in every program, with no sbx call" {
	local var progs values prog v cmd
	while IFS='|' read -r var progs values; do
		eval "set -- $values"
		for v in "$@"; do
			[ -n "$v" ] || v=' '
			for prog in $progs; do
				cmd=$(cmdline "$prog")
				rm -f "$SBX_STUB_DIR/calls.log"
				# shellcheck disable=SC2086
				env "DOCKER_SANDBOX_$var=$v" $cmd >"$BATS_TEST_TMPDIR/out" \
				    2>"$BATS_TEST_TMPDIR/err" </dev/null && rc=0 || rc=$?
				[ "$rc" -eq 64 ] ||
				    fail "$prog, $var='$v': exit $rc: $(cat "$BATS_TEST_TMPDIR/err")"
				grep -q "^${cmd%% *}: DOCKER_SANDBOX_$var: " "$BATS_TEST_TMPDIR/err" ||
				    fail "$prog, $var='$v' said: $(cat "$BATS_TEST_TMPDIR/err")"
				[ "$(stub_count)" -eq 0 ] ||
				    fail "$prog, $var='$v': sbx was called"
				[ ! -s "$BATS_TEST_TMPDIR/out" ] || [ "$prog" = sbx-env-c ] ||
				    fail "$prog printed: $(cat "$BATS_TEST_TMPDIR/out")"
			done
		done
	done < <(table)
	[ ! -e "$SBX_STATE_DIR/$N.lock" ]
}

@test "settings class: sbx-env -c prints nothing when a setting is bad" {
	DOCKER_SANDBOX_TIMEOUT=100000 run -64 --separate-stderr sbx-env -c
	[ -z "$output" ]
	DOCKER_SANDBOX_TIMEOUT=100000 run -64 --separate-stderr sbx-env -cj
	[ -z "$output" ]
	[ "$stderr" = "sbx-env: DOCKER_SANDBOX_TIMEOUT: number is too large (0 to 86400)" ]
}

@test "settings class: DOCKER_SANDBOX_TIMEOUT=100000 is refused and =0 (no limit) taken by every program alike" {
	local prog cmd
	for prog in $RUNNERS sbx-gc sbx-env-c; do
		cmd=$(cmdline "$prog")
		# shellcheck disable=SC2086
		DOCKER_SANDBOX_TIMEOUT=100000 run -64 --separate-stderr $cmd
		[[ "$stderr" == *"DOCKER_SANDBOX_TIMEOUT: number is too large (0 to 86400)"* ]] ||
		    fail "$prog: $stderr"
		# shellcheck disable=SC2086
		DOCKER_SANDBOX_TIMEOUT=0 run --separate-stderr $cmd
		[ "$status" -ne 64 ] || fail "$prog refused 0: $stderr"
		[[ "$stderr" != *DOCKER_SANDBOX_TIMEOUT* ]] || fail "$prog: $stderr"
	done
	sleep 60 3>&- &
	SESS=$!
	DOCKER_SANDBOX_TIMEOUT=100000 run -64 --separate-stderr sbx-watch -m none -p "$SESS" "$N"
	DOCKER_SANDBOX_TIMEOUT=0 run -0 --separate-stderr sbx-watch -m none -p "$SESS" "$N"
	DOCKER_SANDBOX_TIMEOUT=0 run -0 sbx-env -c
	[[ "$output" == *"DOCKER_SANDBOX_TIMEOUT=0"* ]]
	# sbx-run -t has the same limits
	run -64 --separate-stderr sbx-run -t 100000 -s "$N" ps
	[ "$stderr" = "sbx-run: -t: seconds are too large" ]
	run -0 sbx-run -t 0 -s "$N" ps
	run -0 sbx-run -t 86400 -s "$N" ps
}

@test "settings class: bad provisioning settings are refused for an existing sandbox too" {
	for v in AUTOCREATE=maybe CPUS=lots MEMORY=2x TEMPLATE=-x WORKSPACE_RO=maybe; do
		rm -f "$SBX_STUB_DIR/calls.log"
		env "DOCKER_SANDBOX_$v" sbx-run -s "$N" ps 2>"$BATS_TEST_TMPDIR/err" && rc=0 || rc=$?
		[ "$rc" -eq 64 ] || fail "$v: exit $rc"
		[ "$(stub_count)" -eq 0 ]
	done
	# and the same sandbox with good values: one exec
	rm -f "$SBX_STUB_DIR/calls.log"
	DOCKER_SANDBOX_AUTOCREATE=no run -0 sbx-run -s "$N" ps
	[ "$(stub_count exec)" -eq 1 ]
}

@test "settings class: DOCKER_SANDBOX_WORKSPACE_RO=ro (the prior extension's word) means read-only, in any case" {
	for v in ro RO Ro 1 true TRUE yes Yes on; do
		rm -rf "$SBX_STUB_DIR/calls.log" "$SBX_STUB_DIR/calls" "$SBX_STATE_DIR"/pi-sbx-7-ro*
		DOCKER_SANDBOX_WORKSPACE_RO=$v run -0 sbx-run -s pi-sbx-7-ro ps
		grep -q "^create .* $WS:ro\$" "$SBX_STUB_DIR/calls.log" ||
		    fail "$v: $(cat "$SBX_STUB_DIR/calls.log")"
		rm -f "$SBX_STUB_DIR/sandboxes/pi-sbx-7-ro"
		DOCKER_SANDBOX_WORKSPACE_RO=$v run -0 sbx-env -c
		[[ "$output" == *"DOCKER_SANDBOX_WORKSPACE_RO=1"* ]]
	done
}

@test "settings class: the values the prior extension took keep working, normalised by sbx-env -c" {
	while read -r var value want; do
		env "DOCKER_SANDBOX_$var=$value" sbx-env -c >"$BATS_TEST_TMPDIR/out" ||
		    fail "$var=$value refused"
		grep -qx "DOCKER_SANDBOX_$var=$want" "$BATS_TEST_TMPDIR/out" ||
		    fail "$var=$value: $(grep "_$var=" "$BATS_TEST_TMPDIR/out")"
	done <<-'EOS'
	AUTOCREATE 0 0
	AUTOCREATE 1 1
	CPUS 4 4
	CPUS 0 0
	MEMORY 2g 2g
	MEMORY 4 4g
	MEMORY 1.5g 1536m
	MEMORY 512m 1g
	MEMORY 2048M 2g
	MEMORY 0.5 1g
	TEMPLATE docker/sandbox-templates:claude-code docker/sandbox-templates:claude-code
	TEARDOWN remove remove
	TEARDOWN stop stop
	TEARDOWN none none
	TEARDOWN Remove remove
	KEEPALIVE on 1
	KEEPALIVE true 1
	KEEPALIVE 0 0
	ENV_PASSTHROUGH yes 1
	ENV_ALLOWLIST FOO,BAR_2,_X FOO,BAR_2,_X
	GC_HOURS 24 24
	GC_HOURS 1.5 2
	GC_HOURS 0 0
	TIMEOUT 300 300
	PREWARM on 1
	PREWARM 1 1
	PREWARM off 0
	PREWARM auto auto
	PREWARM AUTO auto
	IMAGE_CACHE 0 0
	IMAGE_CACHE 1024 1k
	IMAGE_CACHE 1000 1000
	IMAGE_CACHE 2048M 2g
	IMAGE_CACHE 512m 512m
	IMAGE_CACHE 3K 3k
	EOS
	# the teardown default: none for a pinned name, else remove
	DOCKER_SANDBOX=pinned-box run -0 sbx-env -c
	[[ "$output" == *"DOCKER_SANDBOX_TEARDOWN=none"* ]]
	[[ "$output" == *"DOCKER_SANDBOX=pinned-box"* ]]
	DOCKER_SANDBOX=default run -64 --separate-stderr sbx-env -c
	[[ "$stderr" == "sbx-env: DOCKER_SANDBOX: invalid sandbox name"* ]]
}

@test "settings class: sbx-env -cj prints one JSON object per setting" {
	# the image cache's default (common_setup turns it off)
	DOCKER_SANDBOX_TEARDOWN=stop run -0 env -u DOCKER_SANDBOX_IMAGE_CACHE sbx-env -cj
	# one a row of conf.c's table: 16 with DOCKER_SANDBOX_SBX
	[ "${#lines[@]}" -eq "$(grep -c '^	{ SBX_CONF_' "$TOP/lib/conf.c")" ]
	[ "${#lines[@]}" -ge 16 ]
	[[ "$output" == *'{"name":"DOCKER_SANDBOX_IMAGE_CACHE","value":"10g"}'* ]]
	[[ "$output" == *'{"name":"DOCKER_SANDBOX_PORTS_MAX","value":"64"}'* ]]
	[[ "$output" == *'{"name":"DOCKER_SANDBOX_PREWARM","value":"auto"}'* ]]
	[[ "$output" == *'{"name":"DOCKER_SANDBOX_TEARDOWN","value":"stop"}'* ]]
	run -64 --separate-stderr sbx-env -j
	run -64 --separate-stderr sbx-env -c true
}

@test "settings class: sbx-watch takes DOCKER_SANDBOX_TEARDOWN in any case, as sbx-verify does" {
	sleep 60 3>&- &
	SESS=$!
	DOCKER_SANDBOX_TEARDOWN=None run -0 --separate-stderr sbx-watch -p "$SESS" "$N"
	run -64 --separate-stderr sbx-watch -m destroy -p "$SESS" "$N"
	DOCKER_SANDBOX_TEARDOWN=NONE run --separate-stderr sbx-verify -s "$N"
	[ "$status" -ne 64 ]
}

@test "settings class: no program reads a DOCKER_SANDBOX setting by name outside lib/conf.c's table" {
	# getenv(3), its empty-is-unset wrapper, or a lookup in an env array;
	# sbxcli.c reads DOCKER_SANDBOX_SBX from the array it is given, below
	# conf.c, which shows that setting resolved through it
	local hits n
	hits=$(grep -nE '(getenv|sbx_conf_str|sbx_env_get)\([^)]*"DOCKER_SANDBOX' \
	    "$TOP"/sbx-*/*.c "$TOP"/lib/*.c || true)
	[ "$(grep -c '^[^:]*/lib/sbxcli\.c:.*"DOCKER_SANDBOX_SBX"' <<<"$hits")" -eq 1 ]
	hits=$(grep -v '^[^:]*/lib/sbxcli\.c:.*"DOCKER_SANDBOX_SBX"' <<<"$hits" || true)
	[ -z "$hits" ] || fail "read by name: $hits"
	# and the variables are spelled once in conf.c: in its table
	n=$(grep -c '"DOCKER_SANDBOX[A-Z_]*"' "$TOP/lib/conf.c")
	[ "$n" -eq "$(env -i "$TOP/sbx-env/sbx-env" -c | wc -l)" ] ||
	    fail "conf.c names a variable outside its table ($n)"
}

@test "settings class: the suites unset every setting sbx-env -c lists, whatever the caller left set" {
	local n names
	names=$(settings_names)
	[ "$(wc -l <<<"$names")" -eq "$(grep -c '^	{ SBX_CONF_' "$TOP/lib/conf.c")" ]
	grep -qx DOCKER_SANDBOX <<<"$names"
	grep -qx DOCKER_SANDBOX_PREWARM <<<"$names"
	for n in $names; do
		export "$n=left by the caller"
	done
	common_setup
	for n in $names; do
		# set again: the stand-in, and the image cache off
		[ "$n" = DOCKER_SANDBOX_SBX ] && continue
		[ "$n" = DOCKER_SANDBOX_IMAGE_CACHE ] && continue
		[ -z "${!n+set}" ] || fail "$n is still set: ${!n}"
	done
	[ "$DOCKER_SANDBOX_SBX" = "$TOP/test/bin/sbx" ]
	[ "$DOCKER_SANDBOX_IMAGE_CACHE" = 0 ]
	run -0 sbx-env -c
}
