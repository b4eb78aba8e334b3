#!/usr/bin/env bats
# valgrind over sbx-run, sbx-gc, sbx-ports and sbx-verify on their tier-1
# paths, against the recording stand-in sbx: no invalid access, no use of
# uninitialised memory, no definite leak, in the program or in the
# sbx-run and sbx-ports it runs (children are traced; the stand-in and
# system tools are not).  Each run also checks the program did its job.

load ../helpers/helper

N=pi-sbx-4242-abcd1234
PIN="-H unix:///var/run/docker.sock"

setup() {
	common_setup
	command -v valgrind >/dev/null ||
	    { [ "${CI:-}" = true ] && fail "valgrind is missing"; skip "no valgrind"; }
	export PATH="$TOP/sbx-ports:$TOP/sbx-verify:$TOP/sbx-gc:$TOP/sbx-watch:$PATH"
	VGLOG="$BATS_TEST_TMPDIR/vg"
	mkdir -p "$VGLOG" -m 700 "$SBX_STATE_DIR"
}

# vg program args...: run it under valgrind; then "vg_clean" checks.
vg() {
	local prog=$1
	shift
	valgrind --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite --show-leak-kinds=definite \
	    --trace-children=yes \
	    --trace-children-skip='*/test/bin/sbx,*/sh,*/bash,*/dash,/usr/bin/*,/bin/*,*/sbx-watch' \
	    --log-file="$VGLOG/%p.log" "$TOP/$prog/$prog" "$@"
}

# Every valgrind log of this test is clean, and at least N (default 1)
# are of a process that ran to its end.  A forked child that went on to
# exec an untraced program leaves a log without a summary; an error in
# it before the exec still shows.
vg_clean() {
	local want=${1:-1} f n=0
	for f in "$VGLOG"/*.log; do
		[ -f "$f" ] || continue
		if grep -Eq 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]|== (Invalid|Conditional jump|Use of uninitialised|Syscall param|Mismatched|Source and destination overlap)' "$f"; then
			fail "$(cat "$f")"
			return 1
		fi
		grep -q 'ERROR SUMMARY: 0 errors' "$f" && n=$((n + 1))
	done
	[ "$n" -ge "$want" ] || fail "only $n complete valgrind logs, wanted $want"
	rm -f "$VGLOG"/*.log
}

@test "valgrind: sbx-run provisions a missing sandbox (exec, create, exec)" {
	run -0 vg sbx-run -s "$N" ps
	[ "$(stub_count)" -eq 3 ]
	[ "$(stub_count create)" -eq 1 ]
	[ -f "$SBX_STATE_DIR/$N.created" ]
	vg_clean
}

@test "valgrind: sbx-run gives back a not-found text that was no sbx's (create says it exists; a marker: ls)" {
	stub_sandbox "$N"
	export SBX_STUB_EXEC_RUN=1
	run -1 vg sbx-run -x -s "$N" sh -c "echo \"ERROR: no sandbox named '$N'\" >&2; exit 1"
	printf 'created=1\nstate=ready\n' >"$SBX_STATE_DIR/$N.created"
	run -1 vg sbx-run -x -s "$N" sh -c "echo \"ERROR: no sandbox named '$N'\" >&2; exit 1"
	[ "$(stub_count ls)" -eq 1 ]
	vg_clean
}

@test "valgrind: sbx-run provisions in read-only mode with a template" {
	DOCKER_SANDBOX_WORKSPACE_RO=1 DOCKER_SANDBOX_TEMPLATE=tpl \
	    DOCKER_SANDBOX_MEMORY=512m run -0 vg sbx-run -s "$N" ps
	grep -q -- '--template tpl' "$SBX_STUB_DIR/calls.log"
	grep -q -- "$WS:ro" "$SBX_STUB_DIR/calls.log"
	vg_clean
}

@test "valgrind: sbx-run steady state, forwarding, -i, -x, an inner status" {
	stub_sandbox "$N"
	export DOCKER_SANDBOX_ENV_ALLOWLIST=FOO,BAR FOO=1 BAR=2 DOCKER_HOST=tcp://x
	run -0 vg sbx-run -s "$N" ps -a --format '{{json .}}'
	[ "$(stub_count)" -eq 1 ]
	[[ "$(stub_argv 1 | argv_unmarked | tr '\n' ' ')" == "exec -e "[A-Z]*" -e "[A-Z]*" $N -- docker $PIN ps -a --format {{json .}} " ]]
	echo in | vg sbx-run -i -x -s "$N" cat
	printf '3\n0\n' >"$SBX_STUB_DIR/rc.exec"
	run -3 vg sbx-run -s "$N" false
	DOCKER_SANDBOX_ENV_PASSTHROUGH=1 run -0 vg sbx-run -s "$N" ps
	vg_clean 4
}

@test "valgrind: sbx-run journals a long argv, trims a full journal, prints it (-J)" {
	stub_sandbox "$N"
	J="$SBX_STATE_DIR/$N.journal"
	run -0 vg sbx-run -s "$N" ps "$(head -c 6000 /dev/zero | tr '\0' x)"
	grep -q '"truncated":true' "$J"
	for i in $(seq 300); do cat "$J"; done >"$J.full"
	mv "$J.full" "$J"
	run -0 vg sbx-run -s "$N" ps
	head -n 1 "$J" | grep -q '^{"trimmed":'
	run -0 vg sbx-run -s "$N" -J 3
	[ "${#lines[@]}" -eq 4 ]
	vg_clean 3
}

@test "valgrind: sbx-run usage errors, a refused docker option, a missing sbx" {
	run -64 vg sbx-run -Z
	run -64 vg sbx-run -s -rf ps
	run -64 vg sbx-run -s "$N" --host tcp://x ps
	DOCKER_SANDBOX_SBX=/nonexistent/sbx run -127 vg sbx-run -s "$N" ps
	run -0 vg sbx-run -n
	vg_clean 5
}

@test "valgrind: sbx-run kills a hung sbx at the timeout (124)" {
	stub_sandbox "$N"
	touch "$SBX_STUB_DIR/hang.exec"
	run -124 vg sbx-run -t 1 -s "$N" ps
	vg_clean
}

@test "valgrind: sbx-gc sweeps with removals, keeps, orphans and one failure" {
	local now i d
	now=$(date +%s)
	# names of the shape sbx-run makes, for a session that is gone
	sh -c 'exit 0' &
	d=$!
	wait "$d"
	for i in 1 2 3 4 5; do
		stub_sandbox "pi-sbx-$d-old0000$i" stopped
		printf 'created=%s\nmode=rw\n' $((now - 48 * 3600)) \
		    >"$SBX_STATE_DIR/pi-sbx-$d-old0000$i.created"
	done
	stub_sandbox pi-sbx-$d-new00000 stopped
	printf 'created=%s\n' "$now" >"$SBX_STATE_DIR/pi-sbx-$d-new00000.created"
	stub_sandbox pi-sbx-$d-running0 running
	stub_sandbox pi-sbx-$d-owned000 stopped
	printf 'pid=%s\nstart=1\nwatcher=1\n' $$ >"$SBX_STATE_DIR/pi-sbx-$d-owned000.owner"
	stub_sandbox mine stopped
	printf 'created=1\n' >"$SBX_STATE_DIR/pi-sbx-$d-gone0000.created"
	mkdir "$SBX_STATE_DIR/pi-sbx-$d-gone0000.prime"
	touch -d '-1 hour' "$SBX_STATE_DIR"/pi-sbx-$d-gone0000.*
	printf 'garbage' >"$SBX_STATE_DIR/pi-sbx-$d-new00000.owner"
	printf '0\n1\n0\n' >"$SBX_STUB_DIR/rc.rm"
	run -1 vg sbx-gc -v -x pi-sbx-$d-old00005
	[ "$(grep -c '^rm ' "$SBX_STUB_DIR/calls.log")" -eq 4 ]
	[ ! -e "$SBX_STATE_DIR/pi-sbx-$d-gone0000.created" ]
	[ ! -e "$SBX_STATE_DIR/pi-sbx-$d-gone0000.prime" ]
	run -0 vg sbx-gc -n -H 0
	run -0 vg sbx-gc
	vg_clean 3
}

@test "valgrind: sbx-gc refuses a garbled listing" {
	printf '{"sandboxes":[{"name":' >"$SBX_STUB_DIR/out.ls"
	run -1 vg sbx-gc -v
	printf 'not json\n' >"$SBX_STUB_DIR/out.ls"
	run -1 vg sbx-gc
	vg_clean 2
}

@test "valgrind: sbx-ports ls, publish, unpublish" {
	export DOCKER_SANDBOX=pi-sbx-1-ports001
	stub_sandbox pi-sbx-1-ports001
	cat >"$SBX_STUB_DIR/out.port" <<-'EOF'
	[{"host_ip":"127.0.0.1","host_port":8080,"sandbox_port":8080,"protocol":"tcp"},{"host_ip":"::1","host_port":8080,"sandbox_port":8080,"protocol":"tcp6"},{"host_ip":"127.0.0.1","host_port":5353,"sandbox_port":53,"protocol":"udp4"},{"host_ip":"0.0.0.0","host_port":9000,"sandbox_port":9000,"protocol":"tcp"}]
	EOF
	run -0 vg sbx-ports ls
	[ "${#lines[@]}" -eq 4 ]
	run -0 vg sbx-ports -j ls
	run -0 vg sbx-ports publish 18431 80 5353/udp 19999:81 8080
	run -0 vg sbx-ports unpublish 8080 53/udp
	run -64 vg sbx-ports publish 70000
	vg_clean 5
}

@test "valgrind: sbx-ports sync through sbx-run (traced too), then nothing to do" {
	export DOCKER_SANDBOX=pi-sbx-1-ports001
	stub_sandbox pi-sbx-1-ports001
	cat >"$SBX_STUB_DIR/out.exec" <<-'EOF'
	{"ID":"a1","Names":"web","Ports":"0.0.0.0:18434->8000/tcp, :::18434->8000/tcp","State":"running"}
	{"ID":"a2","Names":"dns","Ports":"0.0.0.0:18435->53/udp, 9000/tcp","State":"running"}
	{"ID":"a3","Names":"r","Ports":"127.0.0.1:5000-5001->5000-5001/udp","State":"running"}
	{"ID":"a4","Names":"low","Ports":"[::]:80->80/tcp","State":"running"}
	EOF
	printf '[{"host_ip":"127.0.0.1","host_port":3000,"sandbox_port":3000,"protocol":"tcp"}]\n' \
	    >"$SBX_STUB_DIR/out.port"
	run -0 vg sbx-ports sync
	[ "${#lines[@]}" -ge 4 ]
	grep -q '^port publish ' "$SBX_STUB_DIR/calls.log"
	# sbx-ports and the sbx-run it ran: two logs
	vg_clean 2
	printf '{"ID":"a1","Ports":' >"$SBX_STUB_DIR/out.exec"
	run -1 vg sbx-ports sync
	vg_clean 2
}

@test "valgrind: sbx-verify runs the whole audit (probes on the host), -j and -t" {
	stub_sandbox pi-sbx-1-v
	export SBX_STUB_EXEC_RUN=1 DOCKER_SANDBOX_ENV_ALLOWLIST=MY_TOKEN MY_TOKEN=t
	run -1 vg sbx-verify -s pi-sbx-1-v
	[ "${#lines[@]}" -eq 13 ]
	vg_clean 2
	run -1 vg sbx-verify -j -s pi-sbx-1-v
	run -1 vg sbx-verify -t -s pi-sbx-1-v
	vg_clean 4
	# the session's rules, each asked of the stand-in sbx
	mkdir -p "$SBX_STATE_DIR"
	chmod 700 "$SBX_STATE_DIR"
	printf 'allow web.test\nallow **.ok.test\ndeny [2001:db8::1]:8443\ndeny 10.0.0.0/8\nregistry r.test\n' \
	    >"$SBX_STATE_DIR/pi-sbx-1-v.egress"
	chmod 600 "$SBX_STATE_DIR/pi-sbx-1-v.egress"
	run -1 vg sbx-verify -s pi-sbx-1-v
	[[ ${lines[12]} == "FAIL egress-rules: sbx does not hold: deny [2001:db8::1]:8443 (asked [2001:db8::1]:8443: no answer read, "* ]] ||
	    fail "${lines[12]}"
	[ "$(stub_count policy)" -eq 4 ]
	vg_clean 5
}

@test "valgrind: sbx-verify with no sandbox, and a read-only marker" {
	run -2 vg sbx-verify -s pi-sbx-1-v
	stub_sandbox pi-sbx-1-v
	export SBX_STUB_EXEC_RUN=1
	printf 'created=1\nmode=ro\n' >"$SBX_STATE_DIR/pi-sbx-1-v.created"
	run -1 vg sbx-verify -s pi-sbx-1-v
	vg_clean 2
}

@test "valgrind: the check can fail: a leak is caught" {
	cat >"$BATS_TEST_TMPDIR/leak.c" <<-'C'
	#include <stdlib.h>
	int main(void) { char *p = malloc(64); p[0] = 1; p = NULL; return 0; }
	C
	cc -O0 -o "$BATS_TEST_TMPDIR/leak" "$BATS_TEST_TMPDIR/leak.c"
	run -99 valgrind --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite "$BATS_TEST_TMPDIR/leak"
}
