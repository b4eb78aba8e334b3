#!/usr/bin/env bats
# The image cache's entry is replaced whole or not at all (issue 24 item
# 6), against the recording stand-in sbx, whose execs run a fake docker
# here: a fill that fails leaves the entry an earlier session saved byte
# for byte, and a load's write-back never lands on a newer fill.

load ../helpers/helper
load ../helpers/sim-setup
load ../helpers/lifecycle
load ../helpers/fakedocker

N=pi-sbx-4242-fill0001
REF=127.0.0.1:5000/t

setup() {
	lifecycle_setup
	export DOCKER_SANDBOX_IMAGE_CACHE=10g
	fake_docker_setup
	ROOT="$XDG_CACHE_HOME/sbx-tools/images"
	E="$ROOT/$(stat -c '%d-%i' "$WS")"
}

teardown() {
	lifecycle_teardown
	[ -z "${MNT:-}" ] || umount "$MNT" 2>/dev/null
	sim_test_teardown
	return 0
}

# ours NAME: a sandbox sbx-run made for $WS, running, in the stand-in,
# and a call of its session that just ended (its journal)
ours() {
	stub_sandbox "$1" running
	printf 'created=%s\nstate=ready\nby=1\nworkspace=%s\nmode=rw\n' \
	    "$(date +%s)" "$WS" >"$SBX_STATE_DIR/$1.created"
	echo '{"status":0}' >"$SBX_STATE_DIR/$1.journal"
}

# old_entry: the entry an earlier session saved, and its fingerprint in
# OLD: every file's name and bytes
old_entry() {
	mkdir -m 700 -p "$E"
	chmod 700 "$XDG_CACHE_HOME/sbx-tools" "$ROOT"
	"$TOP/test/tools/badtar" plain "$E/archive"
	printf 'workspace=%s\nstore=overlay2\nsize=%s\nsaved=100\nused=100\nref=%s/a:1\n' \
	    "$WS" "$(stat -c %s "$E/archive")" "$REF" >"$E/meta"
	chmod 600 "$E/archive" "$E/meta"
	OLD=$(fingerprint)
}

# the execs the stand-in saw
nexec() {
	local c
	c=$(stub_count exec)
	echo "${c:-0}"
}

fingerprint() {
	(cd "$E" && ls -A && sha256sum -- *)
}

# nothing of a fill left aside in the root
no_debris() {
	[ -z "$(find "$ROOT" -mindepth 1 -maxdepth 1 -name '.*' ! -name .lock)" ] ||
	    fail "left in the root: $(ls -A "$ROOT")"
}

@test "replaced whole class: a fill that fails leaves the entry an earlier session saved, byte for byte" {
	local kind
	for kind in store store-ctl cut budget; do
		old_entry
		ours "$N"
		echo overlay2 >"$F/store"
		rm -f "$F/save.sh"
		unset DOCKER_SANDBOX_IMAGE_CACHE
		export DOCKER_SANDBOX_IMAGE_CACHE=10g
		case $kind in
		store) echo 'overlay2 x' >"$F/store" ;;	# the meta's check refuses it
		store-ctl) printf 'over\033lay\n' >"$F/store" ;;
		cut) echo 'cat "$F/archive"; exit 1' >"$F/save.sh" ;;
		budget) export DOCKER_SANDBOX_IMAGE_CACHE=8 ;;
		esac
		c0=$(nexec)
		sbx-watch -n "$N" || fail "$kind: the teardown failed"
		[ "$(nexec)" -gt "$c0" ] || fail "$kind: no fill was tried"
		[ "$(fingerprint)" = "$OLD" ] || { diff <(echo "$OLD") <(fingerprint); cat "$E/meta"; } ||
		    fail "$kind: the entry changed: $(fingerprint)"
		no_debris
		stub_count rm | grep -qx "$(( ${n:-0} + 1 ))" || fail "$kind: no rm"
		n=$(stub_count rm)
	done
}

@test "replaced whole class: a disk that fills up under the fill leaves the entry as it was" {
	[ "$(id -u)" -eq 0 ] || skip_unless_ci "mounting a tmpfs needs root"
	MNT="$BATS_TEST_TMPDIR/small"
	mkdir -p "$MNT"
	mount -t tmpfs -o size=256k,mode=700 sbxtest-small "$MNT" ||
	    skip_unless_ci "no tmpfs mount here"
	export XDG_CACHE_HOME="$MNT"
	ROOT="$XDG_CACHE_HOME/sbx-tools/images"
	E="$ROOT/$(stat -c '%d-%i' "$WS")"
	old_entry
	ours "$N"
	# the archive takes every byte left, so the meta cannot be written
	cat >"$F/save.sh" <<-EOF
	free=\$(stat -f -c '%a * %S' "$MNT")
	head -c \$((free)) /dev/zero
	exit 0
	EOF
	sbx-watch -n "$N"
	[ "$(fingerprint)" = "$OLD" ] || fail "the entry changed: $(fingerprint)"
	no_debris
}

@test "replaced whole class: a fill that succeeds replaces archive and meta together, and leaves nothing aside" {
	old_entry
	ours "$N"
	sbx-watch -n "$N"
	[ "$(cat "$E/archive")" = "NEW ARCHIVE" ]
	grep -qx "ref=$REF/b:1" "$E/meta"
	! grep -q "ref=$REF/a:1" "$E/meta"
	[ "$(sed -n 's/^size=//p' "$E/meta")" -eq 12 ]
	[ "$(stat -c %a "$E")" = 700 ]
	no_debris
}

# Does no load hold its lock?
load_done() {
	python3 - "$SBX_STATE_DIR/.imgload.lock" <<-'EOF'
	import fcntl, os, sys
	fd = os.open(sys.argv[1], os.O_RDWR)
	try:
	    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 0, 0)
	except OSError:
	    sys.exit(1)
	EOF
}

# load_then_fill RC: a load of the entry into a new sandbox, held in its
# exec (5 s) while another session's fill replaces the entry; the load's
# exec then exits RC.  The entry must be the fill's afterwards.
load_then_fill() {
	local a="$BATS_TEST_TMPDIR/stub-load" _
	old_entry
	mkdir -p "$a"
	echo 5 >"$a/delay.exec"
	printf '%s\n' "$1" "$1" "$1" >"$a/rc.exec"
	# the new session: sbx-run creates and starts the load
	SBX_STUB_DIR=$a SBX_STUB_EXEC_RUN=0 DOCKER_SANDBOX_TEARDOWN=none \
	    sbx-run -s pi-sbx-4242-load0001 ps >/dev/null 2>&1 &
	for _ in $(seq 200); do
		grep -q 'exec -i pi-sbx-4242-load0001' "$a/calls.log" 2>/dev/null &&
		    break
		sleep 0.05
	done
	grep -q 'exec -i pi-sbx-4242-load0001' "$a/calls.log" ||
	    fail "no load was started: $(cat "$a/calls.log")"
	# meanwhile the earlier session ends: its fill replaces the entry
	ours "$N"
	sbx-watch -n "$N"
	grep -qx "ref=$REF/b:1" "$E/meta" || fail "the fill did not land"
	NEW=$(fingerprint)
	! load_done || fail "the fill came after the load ended: no interleaving"
	# the load ends (its lock goes)
	for _ in $(seq 300); do
		load_done && break
		sleep 0.05
	done
	wait
	[ "$(fingerprint)" = "$NEW" ] ||
	    fail "the load wrote over the newer fill: $(cat "$E/meta" 2>&1)"
}

@test "replaced whole class: a load's write-back never lands on a newer fill of the project" {
	load_then_fill 0
}

@test "replaced whole class: a load that fails never drops a newer fill of the project" {
	load_then_fill 4
}

@test "replaced whole class: sbx-gc removes what a fill that died left aside, after a day; never a fresh one" {
	old_entry
	mkdir -m 700 "$ROOT/.fill.1-2.4242" "$ROOT/.old.1-2.4243" "$ROOT/.fill.1-2.4244"
	echo x >"$ROOT/.fill.1-2.4242/archive"
	touch -d '-2 days' "$ROOT/.fill.1-2.4242" "$ROOT/.old.1-2.4243"
	"$TOP/sbx-gc/sbx-gc" -n >/dev/null
	[ -d "$ROOT/.fill.1-2.4242" ] || fail "-n removed debris"
	"$TOP/sbx-gc/sbx-gc"
	[ ! -e "$ROOT/.fill.1-2.4242" ] || fail "a dead fill's entry stayed"
	[ ! -e "$ROOT/.old.1-2.4243" ] || fail "an old entry aside stayed"
	[ -d "$ROOT/.fill.1-2.4244" ] || fail "a fill in progress was removed"
	[ "$(fingerprint)" = "$OLD" ] || fail "the entry changed"
}
