#!/usr/bin/env bats
# The image cache (issue 19 section 2) against the sbx simulator (tier 2)
# and a real registry (Debian's docker-registry on loopback, reached from
# each sandbox through a forwarder: test/helpers/registry.bash), whose access log
# counts the blob bytes it serves.  A project's first session pulls N
# bytes; the teardown saves (2 sbx calls); its next session loads (1
# call) and its pulls cost 0 blob bytes; every poisoned or unusable entry
# costs a normal pull and nothing worse.

load ../helpers/sim-helper

REF=127.0.0.1:5000/t

setup_file() {
	sim_setup_file
	sim_session_file
	export PATH="$TOP/sbx-watch:$TOP/sbx-gc:$PATH:/usr/sbin:/sbin"
	# shellcheck source=test/helpers/registry.bash
	. "$TOP/test/helpers/registry.bash"
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
	# shellcheck source=test/helpers/registry.bash
	. "$TOP/test/helpers/registry.bash"
	reg_file_end
	sim_teardown_file
}

setup() {
	sim_setup_test "$WS" || return 1
	[ -z "$REG_MISSING" ] || skip "needs: $REG_MISSING"
	. "$TOP/test/helpers/registry.bash"
	# a registry that died since (it should not) is started again, and said
	if ! curl -fs -o /dev/null "http://127.0.0.1:$PORT/v2/"; then
		echo "# the registry had died; started again" >&3
		reg_start up "$PORT"
		echo "${REG_PIDS[*]}" >>"$BATS_FILE_TMPDIR/reg.pids"
	fi
	unset DOCKER_SANDBOX_IMAGE_CACHE SBX_SIM_FAULT
	export SBX_WATCH_BACKOFF_MS=10 DOCKER_SANDBOX_KEEPALIVE=0
	export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/cache"
	mkdir -m 700 -p "$SBX_STATE_DIR" "$XDG_CACHE_HOME"
	N=0
}

teardown() {
	local n
	[ -z "${STOPPED:-}" ] || kill -CONT "$STOPPED"
	for n in $(sim_look ls --json 2>/dev/null | json_get '" ".join(s["name"] for s in d["sandboxes"])'); do
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
	if [ -n "${HOOK:-}" ]; then
		eval "$HOOK" || return 1
	fi
	c0=$(sim_ncalls)
	sbx-watch -n "$name" || fail "teardown of $name failed" || return 1
	TLOG=$(sim_calls_after "$c0")
	TCALLS=$(grep -c ' exec ' <<<"$TLOG" || true)
}

@test "imgcache: a project's next session pulls 0 blob bytes, another project N; the fill is 2 sbx calls, the load 1" {
	project 1
	session "$P" imgc-1a "$REF/a:1" "$REF/c:1"
	first=$BYTES
	((first > 3000000)) || fail "the first session's pulls served $first bytes"
	[ "$TCALLS" -eq 2 ] || fail "the fill made $TCALLS execs: $TLOG"
	e=$(entry_of "$P")
	[ -f "$e/archive" ]
	[ -f "$e/meta" ]
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

# retar ARCHIVE MODE: rewrite a saved archive in place, as someone with
# the host's cache in reach would
#   layer  flip one byte in the middle of the first image's top layer
#   tags   name the first image (RepoTags), as a poisoned save would
#   bzfirst  a first member named BZh91AY&SY: a plain tar to the host,
#          a bzip2 stream to docker load's sniffing
#   bomb   the first image's top layer a gzip bomb (64 MiB of zeros)
#   pax    the same members in tarfile's PAX format, padded with zeros
retar() {
	python3 - "$1" "$2" <<-'EOF'
	import gzip, io, json, sys, tarfile
	path, mode = sys.argv[1:3]
	with tarfile.open(path) as t:
	    ms = [(m, t.extractfile(m).read() if m.isfile() else None) for m in t.getmembers()]
	d = {m.name: i for i, (m, b) in enumerate(ms)}
	man = json.loads(ms[d["manifest.json"]][1])
	fmt = tarfile.USTAR_FORMAT
	if mode == "bzfirst":
	    ms.insert(0, (tarfile.TarInfo("BZh91AY&SY"), b"naming nothing"))
	elif mode == "bomb":
	    i = d[man[0]["Layers"][-1]]
	    inner = io.BytesIO()
	    with tarfile.open(fileobj=inner, mode="w", format=fmt) as l:
	        z = tarfile.TarInfo("zeros")
	        z.size = 64 << 20
	        l.addfile(z, io.BytesIO(bytes(z.size)))
	    ms[i] = (ms[i][0], gzip.compress(inner.getvalue(), 9))
	elif mode == "pax":
	    fmt = tarfile.PAX_FORMAT
	elif mode == "layer":
	    i = d[man[0]["Layers"][-1]]
	    b = bytearray(ms[i][1])
	    b[len(b) // 2] ^= 0xFF
	    ms[i] = (ms[i][0], bytes(b))
	else:
	    man[0]["RepoTags"] = ["127.0.0.1:5000/t/a:1"]
	    i = d["manifest.json"]
	    ms[i] = (ms[i][0], json.dumps(man).encode())
	with tarfile.open(path, "w", format=fmt) as t:
	    for m, b in ms:
	        if b is None:
	            t.addfile(m)
	        else:
	            m.size = len(b)
	            t.addfile(m, io.BytesIO(b))
	if mode == "pax":
	    with open(path, "ab") as f:
	        f.write(bytes(8192))
	EOF
}

# fake_entry DIR USED BYTES: an entry for project DIR, last used at USED,
# of BYTES (a sparse archive: eviction counts sizes, never reads them)
fake_entry() {
	local e
	e=$(entry_of "$1")
	mkdir -p -m 700 "$XDG_CACHE_HOME/sbx-tools/images"
	chmod 700 "$XDG_CACHE_HOME/sbx-tools"
	mkdir -m 700 "$e"
	truncate -s "$3" "$e/archive"
	printf 'workspace=%s\nstore=overlay2\nsize=%s\nsaved=%s\nused=%s\nref=%s\n' \
	    "$1" "$3" "$2" "$2" "$REF/a:1" >"$e/meta"
}

# the entry of project 1, made by a real first session (a and c pulled)
real_entry() {
	project 1
	session "$P" "imgc-$1" "$REF/a:1" "$REF/c:1"
	N=$BYTES
	E=$(entry_of "$P")
	[ -f "$E/meta" ] || fail "no entry after the first session"
}

@test "imgcache reading class: sbx's own lines on the fill's stdout are no store kind; the entry is saved as usual" {
	project 1
	# the daemon starts again for the teardown: its notices come first
	# on the stdout of the fill's first exec
	HOOK='rm -f "$SBX_SIM_ROOT/faults/once.daemon"; export SBX_SIM_FAULT=notice-stdout' \
	    session "$P" imgc-rd "$REF/a:1"
	unset SBX_SIM_FAULT
	e=$(entry_of "$P")
	[ -f "$e/meta" ] || fail "no entry: $TLOG"
	grep -qx 'store=overlay2' "$e/meta"
	grep -qx "ref=$REF/a:1" "$e/meta"
}

@test "imgcache: a tampered layer fails the load; the entry is dropped, the pull is a normal pull" {
	real_entry t1
	retar "$E/archive" layer
	c0=$(sim_ncalls)
	# shellcheck disable=SC2016
	HOOK='[ ! -e "$E" ] || fail "the entry was kept after its load failed"' \
	    session "$P" imgc-t2 "$REF/a:1" "$REF/c:1"
	sim_calls_after "$c0" | grep -q ' exec -i ' || fail "no load was tried"
	[ "$BYTES" -eq "$N" ] || fail "the pulls served $BYTES, not $N"
	# the teardown saved the session's images anew: a fresh entry
	[ "$(sed -n 's/^saved=//p' "$E/meta")" -ge "$(date +%s -d '-1 min')" ]
}

@test "imgcache: a retagged archive is refused by the host check and deleted, with one warning; no load is tried" {
	real_entry r1
	retar "$E/archive" tags
	c0=$(sim_ncalls)
	m=$(reg_mark up)
	run_in "$P" imgc-r2 pull -q "$REF/a:1" >/dev/null 2>"$BATS_TEST_TMPDIR/err"
	[ "$(grep -c 'image cache' "$BATS_TEST_TMPDIR/err")" -eq 1 ] ||
	    fail "warnings: $(cat "$BATS_TEST_TMPDIR/err")"
	grep -q "image cache entry of $P: it names an image; deleted" "$BATS_TEST_TMPDIR/err" ||
	    grep -q "image cache entry of $P: .*; deleted" "$BATS_TEST_TMPDIR/err"
	[ ! -e "$E" ] || fail "the entry is still there"
	! sim_calls_after "$c0" | grep -q ' exec -i ' || fail "a load was tried"
	[ "$(reg_bytes up "$m")" -gt 1000000 ] || fail "the pull was not a normal pull"
}

# refused_on_host MODE WORDS: the entry of a real first session, rewritten
# by retar MODE, is refused by the host with one warning saying WORDS and
# deleted; no load is tried and the pull is a normal pull
refused_on_host() {
	real_entry "$1"
	retar "$E/archive" "$1"
	c0=$(sim_ncalls)
	m=$(reg_mark up)
	run_in "$P" "imgc-$1-2" pull -q "$REF/a:1" >/dev/null 2>"$BATS_TEST_TMPDIR/err"
	[ "$(grep -c 'image cache' "$BATS_TEST_TMPDIR/err")" -eq 1 ] ||
	    fail "warnings: $(cat "$BATS_TEST_TMPDIR/err")"
	grep "image cache entry of $P: " "$BATS_TEST_TMPDIR/err" | grep -qF "$2" ||
	    fail "the warning: $(cat "$BATS_TEST_TMPDIR/err")"
	[ ! -e "$E" ] || fail "the entry is still there"
	! sim_calls_after "$c0" | grep -q ' exec -i ' || fail "a load was tried"
	[ "$(reg_bytes up "$m")" -gt 1000000 ] || fail "the pull was not a normal pull"
}

@test "imgcache: two readers, two archives: a first member named BZh91AY&SY (docker load would read a bzip2 stream) is refused on the host; no load is tried" {
	refused_on_host bzfirst '"BZh91AY&SY": the archive begins with bzip2'"'"'s magic; deleted'
}

@test "imgcache: what docker loads is the host's own archive: a PAX archive with zero padding after its end loads, and the next pulls cost 0 bytes" {
	real_entry p1
	retar "$E/archive" pax
	tar -tvf "$E/archive" >/dev/null
	c0=$(sim_ncalls)
	session "$P" imgc-p2 "$REF/a:1" "$REF/c:1"
	sim_calls_after "$c0" | grep -q ' exec -i ' || fail "no load was tried"
	[ "$BYTES" -eq 0 ] || fail "the pulls served $BYTES bytes"
}

@test "imgcache: a load bounded whatever the archive holds: a gzip-bomb layer is refused on the host; no load is tried" {
	refused_on_host bomb '/layer.tar": compressed data, which the load would expand past what was measured; deleted'
}

# the processes in sandbox $1's network namespace whose argv has $2
in_sandbox() {
	local ns p
	ns=$(stat -L -c %i "$(reg_netns "$1")") || return 1
	for p in $(pgrep -f -- "$2"); do
		[ "$(stat -L -c %i "/proc/$p/ns/net" 2>/dev/null)" = "$ns" ] &&
		    echo "$p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
	done
	return 0
}

@test "imgcache: every exec is marked, the loader's too: a load past its bound is ended inside before the lock is let go, and its entry dropped" {
	real_entry m1
	# the pulls of the load hang: the registry stops answering
	read -r STOPPED _ <"$BATS_FILE_TMPDIR/reg.pids"
	kill -STOP "$STOPPED"
	export DOCKER_SANDBOX_TIMEOUT=25
	c0=$(sim_ncalls)
	run_in "$P" imgc-m2 ps >/dev/null
	# the load's pull is running inside, under the lock
	for _ in $(seq 100); do
		[ -n "$(in_sandbox imgc-m2 "pull -q $REF/")" ] && break
		sleep 0.2
	done
	[ -n "$(in_sandbox imgc-m2 "pull -q $REF/")" ] || fail "the load's pull never ran"
	wait_load imgc-m2
	left=$(in_sandbox imgc-m2 "pull -q $REF/")
	kill -CONT "$STOPPED"
	STOPPED=
	[ -z "$left" ] || fail "the lock was let go with the load running inside: $left"
	# the calls log has an exec when it ends
	sim_calls_after "$c0" | grep ' exec -i ' | grep -q ' sbx-run [0-9a-f]\{16\} sh -c ' ||
	    fail "the load's exec is not marked: $(sim_calls_after "$c0" | grep ' exec -i ')"
	sim_calls_after "$c0" | grep -q 'sbx-run-end' || fail "no exec ended the load"
	[ ! -e "$E" ] || fail "the entry of a load past its bound is still there"
	# the detached loader's one warning, said by the sandbox's next call
	said_once imgc-m2 "its load passed its time bound; deleted"
}

# said_once NAME WORDS [ERR]: the next call into NAME warns once with
# WORDS about the entry of $P (or the call whose stderr is in file ERR
# did), the call after it not again
said_once() {
	if [ -n "${3:-}" ]; then
		cp "$3" "$BATS_TEST_TMPDIR/err"
	else
		run_in "$P" "$1" ps >/dev/null 2>"$BATS_TEST_TMPDIR/err"
	fi
	[ "$(grep -c 'image cache' "$BATS_TEST_TMPDIR/err")" -eq 1 ] &&
	    grep -qF "image cache entry of $P: $2" "$BATS_TEST_TMPDIR/err" ||
	    fail "the next call said: $(cat "$BATS_TEST_TMPDIR/err")"
	run_in "$P" "$1" ps >/dev/null 2>"$BATS_TEST_TMPDIR/err"
	! grep -q 'image cache' "$BATS_TEST_TMPDIR/err" || fail "said again: $(cat "$BATS_TEST_TMPDIR/err")"
}

@test "imgcache: a built image is never saved; a session that pulled nothing saves nothing (1 exec)" {
	project 3
	printf 'FROM busybox:local\nRUN echo built >/b\n' |
	    run_in "$P" imgc-b1 -i build -q -t local/built:1 - >/dev/null
	run_in "$P" imgc-b1 run --rm local/built:1 true
	c0=$(sim_ncalls)
	sbx-watch -n imgc-b1
	[ "$(sim_calls_after "$c0" | grep -c ' exec ')" -eq 1 ] ||
	    fail "the teardown: $(sim_calls_after "$c0")"
	[ ! -e "$(entry_of "$P")" ] || fail "an entry was made"
	# with a pull beside the build, only the pulled image is recorded
	printf 'FROM busybox:local\nRUN echo built >/b\n' |
	    run_in "$P" imgc-b2 -i build -q -t local/built:1 - >/dev/null
	session "$P" imgc-b2 "$REF/a:1"
	e=$(entry_of "$P")
	[ "$(grep -c '^ref=' "$e/meta")" -eq 1 ]
	grep -qx "ref=$REF/a:1" "$e/meta"
	[ "$(tar -tf "$e/archive" | grep -c '\.json$')" -eq 2 ] ||
	    fail "the archive: $(tar -tf "$e/archive")"
}

@test "imgcache: DOCKER_SANDBOX_IMAGE_CACHE=0 disables it: no exec at teardown, no load" {
	real_entry z1
	export DOCKER_SANDBOX_IMAGE_CACHE=0
	c0=$(sim_ncalls)
	session "$P" imgc-z2 "$REF/a:1"
	! sim_calls_after "$c0" | grep -q ' exec -i ' || fail "a load was tried"
	[ "$TCALLS" -eq 0 ] || fail "the teardown made $TCALLS execs"
	[ "$BYTES" -gt 1000000 ] || fail "the pull served $BYTES bytes"
}

@test "imgcache: the fill evicts the least recently used entries until all fit the budget, never its own" {
	project 7
	fake_entry "$P" 100 $((12 << 20))
	old=$(entry_of "$P")
	project 8
	fake_entry "$P" 200 $((1 << 20))
	newer=$(entry_of "$P")
	project 9
	export DOCKER_SANDBOX_IMAGE_CACHE=12m
	session "$P" imgc-l1 "$REF/a:1" "$REF/c:1"
	[ -f "$(entry_of "$P")/meta" ] || fail "the fill made no entry"
	[ ! -e "$old" ] || fail "the least recently used entry is still there"
	[ -e "$newer" ] || fail "an entry that fits went too"
}

@test "imgcache: an unusable cache root (a symlink, a 0777 level, inside the workspace) is one warning and a plain pull" {
	local kind
	for kind in link open inside; do
		project "u-$kind"
		export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/c-$kind"
		mkdir -m 700 -p "$XDG_CACHE_HOME/sbx-tools" "$BATS_TEST_TMPDIR/elsewhere-$kind"
		case $kind in
		link) ln -s "$BATS_TEST_TMPDIR/elsewhere-$kind" "$XDG_CACHE_HOME/sbx-tools/images" ;;
		open) mkdir -m 700 "$XDG_CACHE_HOME/sbx-tools/images"
		      chmod 0777 "$XDG_CACHE_HOME/sbx-tools" ;;
		inside) export XDG_CACHE_HOME="$P/cache"
			mkdir -m 700 -p "$XDG_CACHE_HOME/sbx-tools/images" ;;
		esac
		c0=$(sim_ncalls)
		m=$(reg_mark up)
		run_in "$P" "imgc-u-$kind" pull -q "$REF/a:1" >/dev/null 2>"$BATS_TEST_TMPDIR/err" ||
		    fail "$kind: the pull failed: $(cat "$BATS_TEST_TMPDIR/err")"
		[ "$(grep -c 'image cache' "$BATS_TEST_TMPDIR/err")" -eq 1 ] ||
		    fail "$kind: sbx-run said: $(cat "$BATS_TEST_TMPDIR/err")"
		! sim_calls_after "$c0" | grep -q ' exec -i ' || fail "$kind: a load was tried"
		[ "$(reg_bytes up "$m")" -gt 1000000 ] || fail "$kind: not a plain pull"
		c0=$(sim_ncalls)
		sbx-watch -n "imgc-u-$kind" 2>"$BATS_TEST_TMPDIR/err"
		[ "$(grep -c 'image cache' "$BATS_TEST_TMPDIR/err")" -eq 1 ] ||
		    fail "$kind: sbx-watch said: $(cat "$BATS_TEST_TMPDIR/err")"
		[ "$(sim_calls_after "$c0" | grep -c ' exec ')" -eq 0 ] ||
		    fail "$kind: the teardown made execs: $(sim_calls_after "$c0")"
		[ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere-$kind")" ] || fail "$kind: written through the link"
	done
}

@test "imgcache: an entry saved on another store kind is dropped at the load; the pull is a normal pull" {
	real_entry s1
	sed -i 's/^store=.*/store=overlayfs/' "$E/meta"
	c0=$(sim_ncalls)
	m=$(reg_mark up)
	run_in "$P" imgc-s2 pull -q "$REF/a:1" >/dev/null 2>"$BATS_TEST_TMPDIR/pull.err"
	sim_calls_after "$c0" | grep -q ' exec -i ' || fail "no load was tried"
	wait_load imgc-s2
	[ ! -e "$E" ] || fail "the entry is still there: $(cat "$E/meta")"
	[ "$(reg_bytes up "$m")" -gt 1000000 ] || fail "not a normal pull"
	# the pull waited for the load, and says what became of the entry
	said_once imgc-s2 "saved on another store kind; deleted" "$BATS_TEST_TMPDIR/pull.err"
}

# hold_load NAME SECONDS: hold NAME's byte of the load lock, as a load in
# flight does
hold_load() {
	hold_name_lock .imgload.lock "$1" "$2"
}

@test "imgcache: a docker pull or tag waits for a load in flight, within its timeout; a docker ps does not" {
	project w
	run_in "$P" imgc-w1 ps >/dev/null
	hold_load imgc-w1 6
	t=$(date +%s%N)
	run_in "$P" imgc-w1 ps >/dev/null
	ps_ms=$((($(date +%s%N) - t) / 1000000))
	# the ps is done while the lock is still held, however slow the machine
	sim_alive "$HOLDER" || fail "docker ps took $ps_ms ms: it waited for the load"
	run_in "$P" imgc-w1 pull -q "$REF/a:1" >/dev/null
	pull_ms=$((($(date +%s%N) - t) / 1000000))
	wait "$HOLDER"
	((pull_ms >= 5800)) || fail "docker pull went on after $pull_ms ms"
	# a tag could name a loaded image before the pulls decide: it waits
	rm -f "$SBX_STATE_DIR/.imgload.lock.held"
	hold_load imgc-w1 3
	t=$(date +%s%N)
	run_in "$P" imgc-w1 tag "$REF/a:1" mine:1 >/dev/null
	tag_ms=$((($(date +%s%N) - t) / 1000000))
	wait "$HOLDER"
	((tag_ms >= 2800)) || fail "docker tag went on after $tag_ms ms"
	# within the call's own timeout: -t 2 waits 2 s, then goes on
	rm -f "$SBX_STATE_DIR/.imgload.lock.held"
	hold_load imgc-w1 8
	t=$(date +%s%N)
	run_in "$P" imgc-w1 -t 5 image ls >/dev/null
	ms=$((($(date +%s%N) - t) / 1000000))
	kill "$HOLDER"
	((ms >= 5000 && ms < 8000)) || fail "docker image ls -t 5 took $ms ms"
}

@test "imgcache: sbx-gc evicts the entries of removed or replaced workspaces; -n lists them and evicts nothing" {
	project g1
	fake_entry "$P" 100 4096
	gone=$P
	e1=$(entry_of "$P")
	project g2
	fake_entry "$P" 100 2048
	e2=$(entry_of "$P")
	# the directory is replaced by another of the same path
	rmdir "$P" && mkdir "$BATS_TEST_TMPDIR/hold" "$P"
	replaced=$P
	project g3
	fake_entry "$P" 100 1024
	kept=$(entry_of "$P")
	rmdir "$gone"
	run -0 sbx-gc -n
	[[ "$output" == *"evict image cache $gone (4"*" bytes): its workspace is gone"* ]]
	[[ "$output" == *"evict image cache $replaced (2"*" bytes): its workspace is another directory now"* ]]
	[ "$(grep -c 'image cache' <<<"$output")" -eq 2 ]
	[ -e "$e1" ]
	[ -e "$e2" ]
	[ -e "$kept" ]
	run -0 sbx-gc
	[ -z "$output" ]
	[ ! -e "$e1" ]
	[ ! -e "$e2" ]
	[ -e "$kept" ]
	# the budget: least recently used first
	project g4
	fake_entry "$P" 50 1024
	older=$(entry_of "$P")
	DOCKER_SANDBOX_IMAGE_CACHE=2k run -0 sbx-gc -v
	[[ "$output" == *"evicted image cache $P (1"*" bytes): least recently used, over the budget"* ]]
	[ ! -e "$older" ]
	[ -e "$kept" ]
}

# status_of NAME: the simulated sandbox's status, empty when gone
status_of() {
	sim_look ls --json | json_get "([s['status'] for s in d['sandboxes'] if s['name'] == '$1'] or [''])[0]"
}

@test "imgcache: a session whose VM idles out before its end fills the cache while the VM is up; nothing is started after the end" {
	project i
	export SBX_SIM_IDLE_STOP=4
	sleep 1000 </dev/null >/dev/null 2>&1 &
	s=$!
	sbx-watch -p "$s" imgc-i1
	run_in "$P" imgc-i1 pull -q "$REF/a:1" >/dev/null
	# the calls go quiet, the watcher fills, then the VM idles out
	for _ in $(seq 300); do
		[ "$(status_of imgc-i1)" = stopped ] && break
		sleep 0.1
	done
	[ "$(status_of imgc-i1)" = stopped ] || fail "the VM did not idle-stop"
	e=$(entry_of "$P")
	grep -qx "ref=$REF/a:1" "$e/meta" || fail "no fill during the session"
	[ "$(grep -c ' exec imgc-i1 -- docker -H unix:///var/run/docker.sock save ' "$SBX_SIM_ROOT/calls.log")" -eq 1 ] ||
	    fail "fills: $(grep ' save ' "$SBX_SIM_ROOT/calls.log")"
	c0=$(sim_ncalls)
	wp=$(sed -n 's/^watcher=//p' "$SBX_STATE_DIR/imgc-i1.owner")
	kill -9 "$s"
	for _ in $(seq 200); do
		kill -0 "$wp" 2>/dev/null || break
		sleep 0.1
	done
	! kill -0 "$wp" 2>/dev/null || fail "the watcher did not finish"
	! sim_calls_after "$c0" | grep -q ' exec ' ||
	    fail "an exec after the end: $(sim_calls_after "$c0")"
	[ -z "$(status_of imgc-i1)" ] || fail "not removed"
	# the project's next session pulls nothing from the registry
	unset SBX_SIM_IDLE_STOP
	session "$P" imgc-i2 "$REF/a:1"
	[ "$BYTES" -eq 0 ] || fail "the next session's pull served $BYTES bytes"
}
