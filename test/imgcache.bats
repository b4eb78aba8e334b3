#!/usr/bin/env bats
# The image cache (issue 19 section 2) against the sbx simulator (tier 2)
# and a real registry (Debian's docker-registry on loopback, reached from
# each sandbox through a forwarder: test/registry.bash), whose access log
# counts the blob bytes it serves.  A project's first session pulls N
# bytes; the teardown saves (2 sbx calls); its next session loads (1
# call) and its pulls cost 0 blob bytes; every poisoned or unusable entry
# costs a normal pull and nothing worse.

load sim-helper

REF=127.0.0.1:5000/t

setup_file() {
	sim_setup_file
	sim_session_file
	export PATH="$TOP/sbx-watch:$TOP/sbx-gc:$PATH:/usr/sbin:/sbin"
	# shellcheck source=test/registry.bash
	. "$TOP/test/registry.bash"
	REG_MISSING=$(reg_missing)
	export REG_MISSING
	[ -z "$SIM_MISSING$REG_MISSING" ] || return 0
	export REG_DIR="$BATS_FILE_TMPDIR/reg" SBX="$SIM"
	mkdir -p "$REG_DIR/ws"
	# the images and the registry outlive each test; idle stops would
	# only add daemon restarts to what is measured here
	PORT=$(reg_free_port)
	reg_start up "$PORT"
	reg_forward_all "$PORT"
	echo "${REG_PIDS[*]}" >"$BATS_FILE_TMPDIR/reg.pids"
	export PORT
	# a: busybox + 1 MiB, c: busybox + 2 MiB (random, incompressible)
	SBX_SIM_IDLE_STOP=0 "$SIM" create -q --name imgc-build shell "$REG_DIR/ws"
	for _ in $(seq 50); do
		"$SIM" exec imgc-build curl -fs -o /dev/null http://127.0.0.1:5000/v2/ && break
		sleep 0.1
	done
	# shellcheck disable=SC2016
	"$SIM" exec -e DOCKER_BUILDKIT=0 imgc-build sh -c '
		set -e
		D="docker -H unix:///var/run/docker.sock"
		cd "$(mktemp -d)"
		printf "FROM busybox:local\nRUN dd if=/dev/urandom of=/a bs=1024 count=1024\n" >a
		printf "FROM busybox:local\nRUN dd if=/dev/urandom of=/c bs=1024 count=2048\n" >c
		for i in a c; do
			$D build -q -t "$1/$i:1" -f $i . >/dev/null
			$D push -q "$1/$i:1" >/dev/null
		done' sh "$REF"
	"$SIM" rm -f imgc-build >/dev/null
}

teardown_file() {
	local p
	for p in $(cat "$BATS_FILE_TMPDIR/reg.pids" 2>/dev/null); do
		pkill -TERM -P "$p" 2>/dev/null
		kill "$p" 2>/dev/null
	done
	sim_teardown_file
}

setup() {
	sim_setup_test "$WS" || return 1
	[ -z "$REG_MISSING" ] || skip "needs: $REG_MISSING"
	. "$TOP/test/registry.bash"
	unset DOCKER_SANDBOX_IMAGE_CACHE SBX_SIM_FAULT
	export SBX_WATCH_BACKOFF_MS=10 DOCKER_SANDBOX_KEEPALIVE=0
	export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/cache"
	mkdir -m 700 -p "$SBX_STATE_DIR" "$XDG_CACHE_HOME"
	N=0
}

teardown() {
	local n
	for n in $("$SIM" ls --json 2>/dev/null | json_get '" ".join(s["name"] for s in d["sandboxes"])'); do
		case $n in imgc-*) "$SIM" rm -f "$n" >/dev/null 2>&1 ;; esac
	done
	return 0
}

# A fresh project directory; its path in P.
project() {
	P="$BATS_TEST_TMPDIR/p$1"
	mkdir -p "$P"
}

# The entry of project directory $1 in the cache root $2 (default ours).
entry_of() {
	printf '%s/%s\n' "${2:-$XDG_CACHE_HOME/sbx-tools/images}" "$(stat -c '%d-%i' "$1")"
}

# run_in DIR NAME ARGS...: sbx-run -s NAME ARGS from DIR (the workspace)
run_in() {
	local d=$1
	shift
	(cd "$d" && sbx-run -s "$@")
}

# wait_load NAME: until no load into it holds the lock (at most 60 s)
wait_load() {
	local _
	for _ in $(seq 600); do
		python3 - "$SBX_STATE_DIR/.imgload.lock" <<-'EOF' && return 0
		import fcntl, os, sys
		try:
		    fd = os.open(sys.argv[1], os.O_RDWR)
		except FileNotFoundError:
		    sys.exit(0)
		try:
		    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 0, 0)
		except OSError:
		    sys.exit(1)
		EOF
		sleep 0.1
	done
	fail "the load into $1 did not end"
}

# session DIR NAME REFS...: a project's session: pull each ref, run the
# first, then the teardown (sbx-watch -n).  Blob bytes served in BYTES,
# sbx calls of the teardown in TCALLS, the teardown's calls in TLOG.
session() {
	local d=$1 name=$2 m r c0
	shift 2
	m=$(reg_mark up)
	for r in "$@"; do
		run_in "$d" "$name" pull -q "$r" >/dev/null ||
		    fail "pull $r in $name failed" || return 1
	done
	run_in "$d" "$name" run --rm "$1" true || fail "run in $name failed" || return 1
	BYTES=$(reg_bytes up "$m")
	wait_load "$name"
	c0=$(sim_ncalls)
	sbx-watch -n "$name" || fail "teardown of $name failed" || return 1
	TLOG=$(sim_calls_after "$c0")
	TCALLS=$(grep -c ' exec ' <<<"$TLOG")
}

@test "imgcache: a project's next session pulls 0 blob bytes, another project N; the fill is 2 sbx calls, the load 1" {
	project 1
	session "$P" imgc-1a "$REF/a:1" "$REF/c:1"
	first=$BYTES
	((first > 3000000)) || fail "the first session's pulls served $first bytes"
	[ "$TCALLS" -eq 2 ] || fail "the fill made $TCALLS execs: $TLOG"
	e=$(entry_of "$P")
	[ -f "$e/archive" ] && [ -f "$e/meta" ]
	grep -qx "workspace=$P" "$e/meta"
	grep -qx "ref=$REF/a:1" "$e/meta"
	grep -qx "ref=$REF/c:1" "$e/meta"
	grep -qx 'store=overlay2' "$e/meta"
	[ "$(stat -c %a "$e/archive")" = 600 ]
	[ "$(stat -c %a "$e")" = 700 ]
	# the next session of the project: one exec -i loads, then 0 bytes
	c0=$(sim_ncalls)
	session "$P" imgc-1b "$REF/a:1" "$REF/c:1"
	[ "$BYTES" -eq 0 ] || fail "the next session's pulls served $BYTES bytes"
	sim_calls_after "$c0" | grep -c ' exec -i ' | grep -qx 1
	# another project: N again
	project 2
	session "$P" imgc-2a "$REF/a:1" "$REF/c:1"
	[ "$BYTES" -eq "$first" ] || fail "another project's pulls served $BYTES, not $first"
}
