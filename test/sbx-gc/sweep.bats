#!/usr/bin/env bats
# sbx-gc against the recording stand-in sbx: every keep/remove rule in
# one table, the lock, -n, silence, partial failure, orphan markers,
# hostile listings.

load ../helpers/helper
load ../helpers/sim-setup
load ../helpers/lifecycle

USAGE="usage: sbx-gc [-nv] [-H hours] [-P prefix] [-x name]"

setup() {
	common_setup
	G="$TOP/sbx-gc/sbx-gc"
	mkdir -m 700 -p "$SBX_STATE_DIR"
	NOW=$(date +%s)
	# the session pid in the names: one that is gone
	D=$(deadpid)
}

teardown() {
	lifecycle_teardown
	sim_test_teardown
	return 0
}

# NAME.created, written HOURS ago.
created() {
	printf 'created=%s\nworkspace=%s\nmode=rw\n' \
	    "$((NOW - $2 * 3600))" "$WS" >"$SBX_STATE_DIR/$1.created"
}

# NAME.owner for pid, with a start time (default: its real one).
owner() {
	printf 'pid=%s\nstart=%s\nwatcher=1\n' "$2" "${3:-$(start_of "$2")}" \
	    >"$SBX_STATE_DIR/$1.owner"
}

# last_used_at HOURS ago in the listing, in UTC or with an offset.
lastused() {
	mkdir -p "$SBX_STUB_DIR/lastused"
	if [ "${3:-}" = offset ]; then
		TZ=Etc/GMT-2 date -d "@$((NOW - $2 * 3600))" \
		    +%Y-%m-%dT%H:%M:%S.123456+02:00
	else
		date -u -d "@$((NOW - $2 * 3600))" +%Y-%m-%dT%H:%M:%SZ
	fi >"$SBX_STUB_DIR/lastused/$1"
}

# A pid that existed and is gone.
deadpid() {
	sh -c 'exit 0' &
	local p=$!
	wait "$p"
	echo "$p"
}

# A watcher holding NAME.lock for a live session.
watched() {
	session
	"$TOP/sbx-watch/sbx-watch" -m none -p "$SESSION" "$1"
}

# The table: every rule, one sandbox each.  name status expected
table() {
	stub_sandbox pi-sbx-${D}-old00000 stopped;	created pi-sbx-${D}-old00000 48
	stub_sandbox pi-sbx-${D}-recent00 stopped;	created pi-sbx-${D}-recent00 1
	stub_sandbox pi-sbx-${D}-running0 running;	created pi-sbx-${D}-running0 48
	stub_sandbox mine-${D}-old00000 stopped;		created mine-${D}-old00000 48
	stub_sandbox pi-sbx-${D}-excluded stopped;	created pi-sbx-${D}-excluded 48
	stub_sandbox pi-sbx-${D}-alive000 stopped;	created pi-sbx-${D}-alive000 48
	owner pi-sbx-${D}-alive000 $$
	stub_sandbox pi-sbx-${D}-reused00 stopped;	created pi-sbx-${D}-reused00 48
	owner pi-sbx-${D}-reused00 $$ 1
	stub_sandbox pi-sbx-${D}-dead0000 stopped;	created pi-sbx-${D}-dead0000 48
	owner pi-sbx-${D}-dead0000 "$(deadpid)" 12345
	stub_sandbox pi-sbx-${D}-unknown0 stopped
	stub_sandbox pi-sbx-${D}-usedold0 stopped; lastused pi-sbx-${D}-usedold0 30
	stub_sandbox pi-sbx-${D}-usednew0 stopped; created pi-sbx-${D}-usednew0 48
	lastused pi-sbx-${D}-usednew0 2
	stub_sandbox pi-sbx-${D}-watched0 stopped;	created pi-sbx-${D}-watched0 48
	watched pi-sbx-${D}-watched0
	stub_sandbox pi-sbx-${D}-offset00 stopped
	lastused pi-sbx-${D}-offset00 25 offset
	stub_sandbox pi-sbx-${D}-creating creating; created pi-sbx-${D}-creating 48
}

# What -v said about NAME: "kept: reason" or "removed: reason".
said() {
	printf '%s\n' "$output" | sed -n "s/^\(kept\|removed\|would remove\) $1: /\1: /p"
}

# The names sbx rm --force was called with, sorted, space-separated.
removed_names() {
	grep '^rm ' "$SBX_STUB_DIR/calls.log" 2>/dev/null |
	    sed 's/^rm --force //' | sort | tr '\n' ' '
}

@test "sbx-gc: a bad option prints only the usage line, a bad -H names what is wrong; both exit 64" {
	run -64 --separate-stderr "$G" -Z
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "$USAGE" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	# a bad argument is named, as sbx-run names a bad -t
	run -64 --separate-stderr "$G" -H 1x
	[ "$stderr" = "sbx-gc: -H: hours are invalid (0 to 1000000)" ]
	run -64 --separate-stderr "$G" -H -1
	[ "$stderr" = "sbx-gc: -H: hours are too small (0 to 1000000)" ]
	run -64 --separate-stderr "$G" -H 1000001
	[ "$stderr" = "sbx-gc: -H: hours are too large (0 to 1000000)" ]
	run -64 --separate-stderr "$G" extra
	[ "${stderr_lines[0]}" = "$USAGE" ]
	run -64 --separate-stderr "$G" -P ''
	[ "$stderr" = "sbx-gc: -P : invalid prefix" ]
	run -64 --separate-stderr "$G" -P '-'
	[ "$stderr" = "sbx-gc: -P -: invalid prefix" ]
	run -64 --separate-stderr "$G" -x --all
	[ "$stderr" = "sbx-gc: -x --all: invalid sandbox name" ]
	DOCKER_SANDBOX_TIMEOUT=2m run -64 --separate-stderr "$G"
	[ "$stderr" = "sbx-gc: DOCKER_SANDBOX_TIMEOUT: number is invalid (0 to 86400)" ]
	[ ! -e "$SBX_STUB_DIR/calls.log" ]
}

@test "sbx-gc: the usage line is the man page's SYNOPSIS, and the page is clean" {
	run -64 --separate-stderr "$G" -Z
	[ "$stderr" = "usage: $(synopsis sbx-gc)" ]
	run -0 mandoc -Tlint -Wwarning "$TOP/man/sbx-gc.8"
	[ -z "$output" ]
}

@test "sbx-gc: every keep/remove rule, one sandbox each (-H 24)" {
	table
	run -0 --separate-stderr "$G" -v -x pi-sbx-${D}-excluded
	[ -z "$stderr" ]
	[ "$(said pi-sbx-${D}-old00000)" = "removed: stopped, no live owner, idle 48h00m" ]
	[[ "$(said pi-sbx-${D}-recent00)" == "kept: idle 1h00m, under 24h" ]]
	[ "$(said pi-sbx-${D}-running0)" = "kept: status running" ]
	[ "$(said mine-${D}-old00000)" = "kept: not a name sbx-run makes (pi-sbx-<pid>-<8 of [a-z0-9]>)" ]
	[ "$(said pi-sbx-${D}-excluded)" = "kept: excluded with -x" ]
	[ "$(said pi-sbx-${D}-alive000)" = "kept: owner pid $$ alive" ]
	[[ "$(said pi-sbx-${D}-reused00)" == "removed: stopped, no live owner, idle 48h"* ]]
	[[ "$(said pi-sbx-${D}-dead0000)" == "removed: stopped, no live owner, idle 48h"* ]]
	[ "$(said pi-sbx-${D}-unknown0)" = "kept: age unknown" ]
	[[ "$(said pi-sbx-${D}-usedold0)" == "removed: stopped, no live owner, idle 30h"* ]]
	[[ "$(said pi-sbx-${D}-usednew0)" == "kept: idle 2h00m, under 24h" ]]
	[[ "$(said pi-sbx-${D}-watched0)" == "kept: watched by pid "* ]]
	[[ "$(said pi-sbx-${D}-offset00)" == "removed: stopped, no live owner, idle 25h"* ]]
	[ "$(said pi-sbx-${D}-creating)" = "kept: status creating" ]
	[ "$(removed_names)" = "pi-sbx-${D}-dead0000 pi-sbx-${D}-offset00 pi-sbx-${D}-old00000 pi-sbx-${D}-reused00 pi-sbx-${D}-usedold0 " ]
	[ "$(stub_count ls)" -eq 1 ]
	# removed sandboxes lose their markers; kept ones keep them
	[ ! -e "$SBX_STATE_DIR/pi-sbx-${D}-old00000.created" ]
	[ ! -e "$SBX_STATE_DIR/pi-sbx-${D}-reused00.owner" ]
	[ -e "$SBX_STATE_DIR/pi-sbx-${D}-alive000.owner" ]
	[ -e "$SBX_STATE_DIR/pi-sbx-${D}-recent00.created" ]
}

@test "sbx-gc: -H 0 takes any age, even unknown, but never a live owner's" {
	table
	run -0 --separate-stderr "$G" -v -H 0 -x pi-sbx-${D}-excluded
	[ "$(said pi-sbx-${D}-recent00)" = "removed: stopped, no live owner, any age" ]
	[ "$(said pi-sbx-${D}-unknown0)" = "removed: stopped, no live owner, any age" ]
	[ "$(said pi-sbx-${D}-usednew0)" = "removed: stopped, no live owner, any age" ]
	[ "$(said pi-sbx-${D}-alive000)" = "kept: owner pid $$ alive" ]
	[[ "$(said pi-sbx-${D}-watched0)" == "kept: watched by pid "* ]]
	[ "$(said pi-sbx-${D}-running0)" = "kept: status running" ]
	[ "$(said pi-sbx-${D}-excluded)" = "kept: excluded with -x" ]
	[ "$(said mine-${D}-old00000)" = "kept: not a name sbx-run makes (pi-sbx-<pid>-<8 of [a-z0-9]>)" ]
	[ "$(removed_names)" = "pi-sbx-${D}-dead0000 pi-sbx-${D}-offset00 pi-sbx-${D}-old00000 pi-sbx-${D}-recent00 pi-sbx-${D}-reused00 pi-sbx-${D}-unknown0 pi-sbx-${D}-usednew0 pi-sbx-${D}-usedold0 " ]
}

@test "sbx-gc: -P chooses the prefix; -H sets the age" {
	stub_sandbox mine-${D}-old00000 stopped;	created mine-${D}-old00000 48
	stub_sandbox pi-sbx-${D}-old00000 stopped; created pi-sbx-${D}-old00000 48
	run -0 "$G" -v -P mine- -H 50
	[ "$(said mine-${D}-old00000)" = "kept: idle 48h00m, under 50h" ]
	run -0 "$G" -v -P mine- -H 47
	[[ "$(said mine-${D}-old00000)" == "removed: "* ]]
	[ "$(said pi-sbx-${D}-old00000)" = "kept: not a name sbx-run makes (mine-<pid>-<8 of [a-z0-9]>)" ]
	[ "$(removed_names)" = "mine-${D}-old00000 " ]
}

@test "sbx-gc: DOCKER_SANDBOX_GC_HOURS is the default -H, rounded up; -H wins over it" {
	stub_sandbox pi-sbx-${D}-old00000 stopped; created pi-sbx-${D}-old00000 48
	DOCKER_SANDBOX_GC_HOURS=49 run -0 "$G" -nv
	[ "$(said pi-sbx-${D}-old00000)" = "kept: idle 48h00m, under 49h" ]
	# a fraction rounds up: 48.5 is 49, never 48
	DOCKER_SANDBOX_GC_HOURS=48.5 run -0 "$G" -nv
	[ "$(said pi-sbx-${D}-old00000)" = "kept: idle 48h00m, under 49h" ]
	DOCKER_SANDBOX_GC_HOURS=49 run -0 "$G" -nv -H 47
	[ "$(said pi-sbx-${D}-old00000)" = "would remove: stopped, no live owner, idle 48h00m" ]
	# unset: 24, as before
	run -0 "$G" -nv
	[ "$(said pi-sbx-${D}-old00000)" = "would remove: stopped, no live owner, idle 48h00m" ]
	DOCKER_SANDBOX_GC_HOURS=49 run -0 "$G" -v
	[ "$(said pi-sbx-${D}-old00000)" = "kept: idle 48h00m, under 49h" ]
	[ "$(removed_names)" = "" ]
	DOCKER_SANDBOX_GC_HOURS=47 run -0 "$G"
	[ "$(removed_names)" = "pi-sbx-${D}-old00000 " ]
}

@test "sbx-gc: DOCKER_SANDBOX_GC_HOURS=0 turns the sweep off: no sbx call, no marker touched; -H still sweeps" {
	stub_sandbox pi-sbx-${D}-old00000 stopped; created pi-sbx-${D}-old00000 48
	: >"$SBX_STATE_DIR/pi-sbx-${D}-gone0000.created"
	DOCKER_SANDBOX_GC_HOURS=0 run -0 --separate-stderr "$G"
	[ -z "$output" ]
	[ -z "$stderr" ]
	DOCKER_SANDBOX_GC_HOURS=0 run -0 --separate-stderr "$G" -v
	[ "$output" = "no sweep: DOCKER_SANDBOX_GC_HOURS is 0 (give -H to sweep)" ]
	DOCKER_SANDBOX_GC_HOURS=0 run -0 --separate-stderr "$G" -n
	[ "$output" = "no sweep: DOCKER_SANDBOX_GC_HOURS is 0 (give -H to sweep)" ]
	[ "$(stub_count)" -eq 0 ]
	[ -e "$SBX_STATE_DIR/pi-sbx-${D}-gone0000.created" ]
	[ ! -e "$SBX_STATE_DIR/.gc.lock" ]
	# 0.0 is 0 too; any fraction above it is an hour
	DOCKER_SANDBOX_GC_HOURS=0.0 run -0 "$G" -v
	[ "$output" = "no sweep: DOCKER_SANDBOX_GC_HOURS is 0 (give -H to sweep)" ]
	[ "$(stub_count)" -eq 0 ]
	# -H decides alone: 0 there is any age
	DOCKER_SANDBOX_GC_HOURS=0 run -0 "$G" -v -H 0
	[ "$(said pi-sbx-${D}-old00000)" = "removed: stopped, no live owner, any age" ]
}

@test "sbx-gc: a bad DOCKER_SANDBOX_GC_HOURS exits 64 naming it, with or without -H, before any sbx call" {
	stub_sandbox pi-sbx-${D}-old00000 stopped; created pi-sbx-${D}-old00000 48
	for v in -1 abc 1e3 1000001 1. .5; do
		DOCKER_SANDBOX_GC_HOURS=$v run -64 --separate-stderr "$G"
		[ "$stderr" = "sbx-gc: DOCKER_SANDBOX_GC_HOURS: expected hours from 0 to 1000000 (0: no automatic sweep)" ]
		DOCKER_SANDBOX_GC_HOURS=$v run -64 --separate-stderr "$G" -H 1
		[ "$stderr" = "sbx-gc: DOCKER_SANDBOX_GC_HOURS: expected hours from 0 to 1000000 (0: no automatic sweep)" ]
	done
	[ "$(stub_count)" -eq 0 ]
}

@test "sbx-gc: silent on success, with or without anything to do" {
	run -0 "$G"
	[ -z "$output" ]
	stub_sandbox pi-sbx-${D}-old00000 stopped; created pi-sbx-${D}-old00000 48
	stub_sandbox pi-sbx-${D}-recent00 stopped; created pi-sbx-${D}-recent00 1
	run -0 "$G"
	[ -z "$output" ]
	[ "$(removed_names)" = "pi-sbx-${D}-old00000 " ]
}

@test "sbx-gc: -n only says what it would do" {
	table
	run -0 --separate-stderr "$G" -n -x pi-sbx-${D}-excluded
	[ "$(stub_count)" -eq 1 ]
	[ "$(stub_count ls)" -eq 1 ]
	[ "${#lines[@]}" -eq 5 ]
	[[ "$(said pi-sbx-${D}-old00000)" == "would remove: stopped, no live owner"* ]]
	[[ "$(said pi-sbx-${D}-dead0000)" == "would remove: "* ]]
	[ -z "$(said pi-sbx-${D}-alive000)" ]
	[ -e "$SBX_STATE_DIR/pi-sbx-${D}-old00000.created" ]
	[ -e "$SBX_STUB_DIR/sandboxes/pi-sbx-${D}-old00000" ]
}

@test "sbx-gc: a failed removal: warn, try the rest, exit 1" {
	stub_sandbox pi-sbx-${D}-a0000000 stopped; created pi-sbx-${D}-a0000000 48
	stub_sandbox pi-sbx-${D}-b0000000 stopped; created pi-sbx-${D}-b0000000 48
	stub_sandbox pi-sbx-${D}-c0000000 stopped; created pi-sbx-${D}-c0000000 48
	printf '0\n1\n0\n' >"$SBX_STUB_DIR/rc.rm"
	echo "ERROR: sandbox is busy" >"$SBX_STUB_DIR/err.rm"
	run -1 --separate-stderr "$G"
	[ -z "$output" ]
	# sbx's answer, placed by no reader, shown with the version once
	[ "${stderr_lines[0]}" = "sbx-gc: sandbox pi-sbx-${D}-b0000000: sbx rm --force: sbx answered (exit 1) in words sbx-tools cannot place:" ] || fail "$stderr"
	[ "${stderr_lines[1]}" = "  ERROR: sandbox is busy" ] || fail "$stderr"
	[[ "${stderr_lines[2]}" == "sbx-gc: sbx "*": run 'sbx-verify -S'"* ]] || fail "$stderr"
	[ "${stderr_lines[3]}" = "sbx-gc: sandbox pi-sbx-${D}-b0000000: sbx rm --force: exit status 1" ] || fail "$stderr"
	[ "${#stderr_lines[@]}" -eq 4 ] || fail "$stderr"
	[ "$(removed_names)" = "pi-sbx-${D}-a0000000 pi-sbx-${D}-b0000000 pi-sbx-${D}-c0000000 " ]
	[ ! -e "$SBX_STATE_DIR/pi-sbx-${D}-a0000000.created" ]
	[ -e "$SBX_STATE_DIR/pi-sbx-${D}-b0000000.created" ]
	[ ! -e "$SBX_STATE_DIR/pi-sbx-${D}-c0000000.created" ]
}

@test "lying words class: an rm that says not found while sbx still lists the sandbox, or names another, keeps its markers" {
	local a=pi-sbx-${D}-a0000000 b=pi-sbx-${D}-b0000000
	stub_sandbox "$a" stopped; created "$a" 48
	stub_sandbox "$b" stopped; created "$b" 48
	# a's rm says not found but leaves it listed; b's says it and b is gone
	printf '1\n1\n' >"$SBX_STUB_DIR/rc.rm"
	echo "ERROR: no sandbox named '$a'" >"$SBX_STUB_DIR/err.rm"
	run -1 --separate-stderr "$G"
	[ -e "$SBX_STATE_DIR/$a.created" ] || fail "a's marker dropped: $stderr"
	[[ $stderr == *"sandbox $a: sbx rm --force: exit status 1"* ]] || fail "$stderr"
	# each answer is confirmed by one listing, no more
	# (and the one `sbx version` of the first answer no reader placed)
	[ "$(cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" | tr '\n' ' ')" = "ls rm ls version rm " ] ||
	    fail "$(cat "$SBX_STUB_DIR/calls.log")"
	[ -e "$SBX_STATE_DIR/$b.created" ] || fail "b's marker dropped for a's words"
}

@test "sbx-gc: a concurrent run exits 75 without a word (-v says why)" {
	echo 2 >"$SBX_STUB_DIR/delay.ls"
	"$G" 3>&- &
	first=$!
	until [ -e "$SBX_STUB_DIR/calls.log" ]; do sleep 0.05; done
	run -75 --separate-stderr "$G"
	[ -z "$output" ] && [ -z "$stderr" ]
	run -75 --separate-stderr "$G" -v
	[ "$stderr" = "sbx-gc: another sbx-gc is running" ]
	wait "$first"
	[ "$(stub_count ls)" -eq 1 ]
	rm "$SBX_STUB_DIR/delay.ls"
	run -0 "$G"
}

@test "sbx-gc: markers and scratch dirs of sandboxes that no longer exist are swept" {
	d=$SBX_STATE_DIR
	# gone: every kind of marker, a dead owner
	created pi-sbx-${D}-gone0000 48
	owner pi-sbx-${D}-gone0000 "$(deadpid)" 12345
	echo 'tries=5' >"$d/pi-sbx-${D}-gone0000.failed"
	mkdir -p "$d/pi-sbx-${D}-gone0000.prime/deep/er"
	: >"$d/pi-sbx-${D}-gone0000.lock"
	echo '80/tcp 8080' >"$d/pi-sbx-${D}-gone0000.ports"
	# gone, never created: only the owner of a killed watcher
	owner mine-pinned "$(deadpid)" 12345
	: >"$d/mine-pinned.lock"
	# a scratch dir planted as a link: the link goes, not its target
	mkdir "$BATS_TEST_TMPDIR/precious"
	echo keep >"$BATS_TEST_TMPDIR/precious/file"
	ln -s "$BATS_TEST_TMPDIR/precious" "$d/mine-pinned.prime"
	touch -h -d '-1 hour' "$d"/pi-sbx-${D}-gone0000.* "$d"/mine-pinned.*
	# not gone yet: a live owner, a watcher, a marker newer than the sweep
	owner pi-sbx-${D}-live0000 $$
	touch -d '-1 hour' "$d/pi-sbx-${D}-live0000.owner"
	watched pi-sbx-${D}-watched0
	touch -d '-1 hour' "$d"/pi-sbx-${D}-watched0.*
	created pi-sbx-${D}-fresh000 0
	touch -d '+1 minute' "$d/pi-sbx-${D}-fresh000.created"
	# not a sandbox's marker at all
	: >"$d/.provision.lock"
	echo keep >"$d/notes.txt"
	# listed: its markers stay
	stub_sandbox pi-sbx-${D}-listed00 running; created pi-sbx-${D}-listed00 48
	touch -d '-1 hour' "$d/pi-sbx-${D}-listed00.created"
	run -0 --separate-stderr "$G" -v
	[ -z "$stderr" ]
	[ -z "$(ls -A "$d" | grep pi-sbx-${D}-gone0000)" ]
	[ -z "$(ls -A "$d" | grep mine-pinned)" ]
	[ "$(cat "$BATS_TEST_TMPDIR/precious/file")" = keep ]
	[[ "$output" == *"removed markers of pi-sbx-${D}-gone0000: no such sandbox"* ]]
	[[ "$output" == *"kept markers of pi-sbx-${D}-live0000: owner pid $$ alive"* ]]
	[[ "$output" == *"kept markers of pi-sbx-${D}-watched0: watched by pid "* ]]
	[ -e "$d/pi-sbx-${D}-live0000.owner" ]
	[ -e "$d/pi-sbx-${D}-watched0.owner" ] && [ -e "$d/pi-sbx-${D}-watched0.lock" ]
	[ -e "$d/pi-sbx-${D}-fresh000.created" ]
	[ -e "$d/.provision.lock" ] && [ -e "$d/notes.txt" ]
	[ -e "$d/pi-sbx-${D}-listed00.created" ]
	[ "$(stub_count)" -eq 1 ]
}

@test "sbx-gc: the markers of a sandbox being provisioned are left alone, and only those" {
	created pi-sbx-${D}-gone0000 48
	touch -d '-1 hour' "$SBX_STATE_DIR/pi-sbx-${D}-gone0000.created"
	# sbx-run holds its sandbox's provisioning lock while its (slow) create runs
	echo 2 >"$SBX_STUB_DIR/delay.create"
	"$TOP/sbx-run/sbx-run" -s pi-sbx-${D}-new00000 ps >/dev/null 2>&1 &
	local p=$!
	for i in $(seq 50); do
		[ "$(stub_count create)" -ge 1 ] && break
		sleep 0.1
	done
	# as if that create had begun before the sweep's listing
	touch -d '-1 hour' "$SBX_STATE_DIR/pi-sbx-${D}-new00000.created"
	run -0 "$G" -v
	[[ "$output" == *"kept markers of pi-sbx-${D}-new00000: being provisioned"* ]]
	wait "$p"
	[ -e "$SBX_STATE_DIR/pi-sbx-${D}-new00000.created" ]
	# another sandbox's provisioning holds no sweep of these
	[ ! -e "$SBX_STATE_DIR/pi-sbx-${D}-gone0000.created" ]
}

@test "sbx-gc: markers holding garbage are kept, with a clear message" {
	stub_sandbox pi-sbx-${D}-badowner stopped; created pi-sbx-${D}-badowner 48
	printf 'pid=twelve\n' >"$SBX_STATE_DIR/pi-sbx-${D}-badowner.owner"
	stub_sandbox pi-sbx-${D}-badcreat stopped
	printf 'created=yesterday\n' >"$SBX_STATE_DIR/pi-sbx-${D}-badcreat.created"
	stub_sandbox pi-sbx-${D}-huge0000 stopped; created pi-sbx-${D}-huge0000 48
	head -c 100000 /dev/zero | tr '\0' x >"$SBX_STATE_DIR/pi-sbx-${D}-huge0000.owner"
	run -0 --separate-stderr "$G"
	[ -z "$output" ]
	[[ "$stderr" == *"sbx-gc: sandbox pi-sbx-${D}-badowner: $SBX_STATE_DIR/pi-sbx-${D}-badowner.owner: not an owner marker, keeping it"* ]]
	[[ "$stderr" == *"sbx-gc: sandbox pi-sbx-${D}-badcreat: $SBX_STATE_DIR/pi-sbx-${D}-badcreat.created: no valid created= time"* ]]
	[[ "$stderr" == *"sbx-gc: sandbox pi-sbx-${D}-huge0000: $SBX_STATE_DIR/pi-sbx-${D}-huge0000.owner: not an owner marker, keeping it"* ]]
	[ ! -e "$SBX_STUB_DIR/rcused.rm" ]
	[ -z "$(removed_names)" ]
}

@test "sbx-gc: names that are invalid or look like options are never passed to sbx" {
	cat >"$SBX_STUB_DIR/out.ls" <<-EOF
	Starting sandboxd daemon...
	{"sandboxes":[
	 {"name":"--all","status":"stopped"},
	 {"name":"-rf","status":"stopped"},
	 {"name":"pi-sbx-a b","status":"stopped"},
	 {"name":"pi-sbx-x\n--all","status":"stopped"},
	 {"name":"default","status":"stopped"},
	 {"name":42,"status":"stopped"},
	 {"status":"stopped"},
	 "pi-sbx-string",
	 {"name":"pi-sbx-${D}-ok000000","status":"stopped","last_used_at":"2001-01-01T00:00:00Z"},
	 {"name":"pi-sbx-${D}-ok000000","status":"stopped","last_used_at":"2001-01-01T00:00:00Z"}
	]}
	EOF
	run -0 --separate-stderr "$G" -v
	[ "$(removed_names)" = "pi-sbx-${D}-ok000000 " ]
	[[ "$output" == *'skipped "--all": not a valid sandbox name'* ]]
	[[ "$output" == *'skipped "pi-sbx-x\n--all": not a valid sandbox name'* ]]
	[ "$(grep -c '^rm ' "$SBX_STUB_DIR/calls.log")" -eq 1 ]
}

@test "sbx-gc: a failing, garbled or huge listing is an error, and nothing is removed" {
	created pi-sbx-${D}-gone0000 48
	touch -d '-1 hour' "$SBX_STATE_DIR/pi-sbx-${D}-gone0000.created"
	echo 1 >"$SBX_STUB_DIR/rc.ls"
	echo "Not authenticated to Docker" >"$SBX_STUB_DIR/err.ls"
	run -1 --separate-stderr "$G"
	[ "${stderr_lines[1]}" = "  Not authenticated to Docker" ] || fail "$stderr"
	[ "${stderr_lines[-1]}" = "sbx-gc: sbx ls --json: exit status 1" ] || fail "$stderr"
	# the version and sbx-verify -S once per sbx: the second time, not
	printf 'Not authenticated\033]0;x\007 to \302\233Docker\n' >"$SBX_STUB_DIR/err.ls"
	run -1 --separate-stderr "$G"
	[ "$stderr" = "sbx-gc: sbx ls --json: sbx answered (exit 1) in words sbx-tools cannot place:
  Not authenticated\\033]0;x\\007 to \\302\\233Docker
sbx-gc: sbx ls --json: exit status 1" ] || fail "$stderr"
	[ "$(grep -c '^version' "$SBX_STUB_DIR/calls.log")" -eq 1 ]
	rm "$SBX_STUB_DIR/rc.ls" "$SBX_STUB_DIR/err.ls"
	echo 'SANDBOX AGENT STATUS' >"$SBX_STUB_DIR/out.ls"
	run -1 --separate-stderr "$G"
	[ "$stderr" = "sbx-gc: sbx ls --json: no JSON in the output" ]
	echo '{"sandboxes":[' >"$SBX_STUB_DIR/out.ls"
	run -1 --separate-stderr "$G"
	[[ "$stderr" == "sbx-gc: sbx ls --json: "* ]]
	echo '{"vms":[]}' >"$SBX_STUB_DIR/out.ls"
	run -1 --separate-stderr "$G"
	[ "$stderr" = "sbx-gc: sbx ls --json: no \"sandboxes\" array" ]
	{ printf '{"sandboxes":[],"pad":"'; head -c 5000000 /dev/zero | tr '\0' x; printf '"}\n'; } >"$SBX_STUB_DIR/out.ls"
	run -1 --separate-stderr "$G"
	[[ "$stderr" == "sbx-gc: sbx ls --json: more than "*" bytes of output, refusing it" ]]
	[ -e "$SBX_STATE_DIR/pi-sbx-${D}-gone0000.created" ]
	[ "$(stub_count rm)" -eq 0 ]
}

@test "listing class: sbx ls --json as sbx prints it: notices and [sbx] lines first, pretty, a UUID, a fraction, WARN: after, null" {
	local old=pi-sbx-${D}-old00000 gone=pi-sbx-${D}-gone0000
	stub_sandbox "$old" stopped
	created "$old" 48
	created "$gone" 48
	touch -d '-1 hour' "$SBX_STATE_DIR/$gone.created"
	cat >"$SBX_STUB_DIR/out.ls" <<-EOF
	Starting sandboxd daemon...
	Daemon started (PID 4242)
	Daemon started (PID: 6927, socket: /x/sandboxd.sock)
	Logs: /home/u/.local/state/sandboxes/sandboxd/daemon.log
	[sbx] daemon ready
	Client Version:  v0.37.1 linux/amd64

	a wording nobody has seen yet
	{
	  "sandboxes": [
	    {
	      "name": "$old",
	      "id": "3f2b8c1e-9d4a-4e6f-8a1b-2c3d4e5f6a7b",
	      "agent": "shell",
	      "status": "stopped",
	      "last_used_at": "2001-01-01T08:55:17.75025Z",
	      "workspaces": [
	        "/home/u/ws"
	      ]
	    }
	  ]
	}
	WARN: mcp gateway teardown: context deadline exceeded
	EOF
	run -0 --separate-stderr "$G" -v
	[ -z "$stderr" ] || fail "$stderr"
	[[ "$(said "$old")" == "removed: stopped, no live owner, idle "* ]] || fail "$output"
	grep -qx "rm --force $old" "$SBX_STUB_DIR/calls.log"
	[ ! -e "$SBX_STATE_DIR/$gone.created" ]
	# no sandbox at all, as a nil list: the markers of one gone are swept
	created "$gone" 48
	touch -d '-1 hour' "$SBX_STATE_DIR/$gone.created"
	printf '{\n  "sandboxes": null\n}\n' >"$SBX_STUB_DIR/out.ls"
	run -0 --separate-stderr "$G"
	[ -z "$stderr" ] || fail "$stderr"
	[ ! -e "$SBX_STATE_DIR/$gone.created" ]
	# a notice that looks like a JSON array is skipped, not taken for it
	printf '[1] warm\n{"sandboxes":[]} \n' >"$SBX_STUB_DIR/out.ls"
	run -0 "$G"
}

@test "sbx-gc: an unsafe state directory is refused; a lost stdout fails" {
	chmod 777 "$SBX_STATE_DIR"
	run -1 --separate-stderr "$G"
	[[ "$stderr" == "sbx-gc: state directory $SBX_STATE_DIR: writable by group or others"* ]]
	chmod 700 "$SBX_STATE_DIR"
	chown 65534 "$SBX_STATE_DIR"
	run -1 --separate-stderr "$G"
	[[ "$stderr" == *"owned by uid 65534, not by us"* ]]
	chown "$(id -u)" "$SBX_STATE_DIR"
	[ ! -e "$SBX_STUB_DIR/calls.log" ]
	stub_sandbox pi-sbx-${D}-a0000000 running
	run -1 sh -c "'$G' -v >/dev/full"
}

@test "sbx-gc: the sbx calls get the strict environment" {
	stub_sandbox pi-sbx-${D}-old00000 stopped; created pi-sbx-${D}-old00000 48
	DOCKER_HOST=tcp://evil:2375 SECRET_TOKEN=s3 COMPOSE_FILE=x \
	    run -0 "$G"
	[ "$(stub_argv 1 | tr '\n' ' ')" = "ls --json " ]
	[ "$(stub_argv 2 | tr '\n' ' ')" = "rm --force pi-sbx-${D}-old00000 " ]
	for i in 1 2; do
		e=$(stub_env "$i")
		[[ "$e" != *DOCKER_HOST* ]] && [[ "$e" != *SECRET_TOKEN* ]] &&
		    [[ "$e" != *COMPOSE_FILE* ]]
	done
}

# ---------------------------------------------------------------- tier 2

@test "sim: -H 0 removes the idle-stopped sandbox of a dead session, never a live sibling's" {
	sim_sandbox gc1 || return
	# names of the generated shape: a live session's and a dead one's
	live=pi-sbx-$$-gclive00
	dead=pi-sbx-$D-gcdead00
	echo "$live" >>"$BATS_TEST_TMPDIR/sim-used"
	echo "$dead" >>"$BATS_TEST_TMPDIR/sim-used"
	sbx-run -s "$live" -x true && sbx-run -s "$dead" -x true
	"$SIM_SBX" stop "$live" "$dead"
	owner "$live" $$
	owner "$dead" "$(deadpid)" 12345
	c0=$(sim_calls)
	run -0 --separate-stderr "$G" -v -H 0
	[ -z "$stderr" ]
	[ "$(said "$dead")" = "removed: stopped, no live owner, any age" ]
	[ "$(said "$live")" = "kept: owner pid $$ alive" ]
	[ "$(sim_calls_since "$c0" | grep -c ' ls --json$')" -eq 1 ]
	[ "$(sim_calls_since "$c0" | grep -c " rm --force $dead\$")" -eq 1 ]
	[ "$(sim_calls_since "$c0" | wc -l)" -eq 2 ]
	"$SIM_SBX" ls -q | grep -qx "$live"
	! "$SIM_SBX" ls -q | grep -qx "$dead"
	[ ! -e "$SBX_STATE_DIR/$dead.created" ]
	[ -e "$SBX_STATE_DIR/$live.created" ]
	sed -i "/^$dead\$/d" "$BATS_TEST_TMPDIR/sim-used"
}

# ---------------------------------------------------------------- parsers

@test "sbx-gc: last_used_at is read as RFC 3339, without timegm(3)" {
	R="$TOP/test/tools/rfc3339"
	run -0 "$R" 2026-09-14T10:22:33Z 2026-09-14T10:22:33.123456789+02:00 \
	    2024-02-29t00:00:00z 1970-01-01T00:00:00Z 2026-09-14T10:22:33-09:30 \
	    "1999-12-31 23:59:60Z" 9999-12-31T23:59:59-23:59
	[ "${lines[0]}" = 1789381353 ]
	[ "${lines[1]}" = 1789374153 ]
	[ "${lines[2]}" = 1709164800 ]
	[ "${lines[3]}" = 0 ]
	[ "${lines[4]}" = 1789415553 ]
	[ "${lines[5]}" = 946684800 ]
	[ "${lines[6]}" = 253402387139 ]
	for bad in "" x 2023-02-29T00:00:00Z 2026-13-01T00:00:00Z \
	    2026-09-14T10:22:33 2026-09-14T24:00:00Z 2026-09-14T10:22:33+2:00 \
	    2026-09-14T10:22:33.Z 2026-09-14T10:22:33Zjunk 26-09-14T10:22:33Z \
	    2026-09-14T10:22:33+24:00 " 2026-09-14T10:22:33Z" 2026-00-10T00:00:00Z \
	    2026-04-31T00:00:00Z; do
		run -0 "$R" "$bad"
		[ "$output" = invalid ] || fail "accepted '$bad': $output"
	done
}

@test "sbx-gc: RFC 3339 times agree with date(1) over 2,000 random ones" {
	local n=2000 i s o
	for i in $(seq "$n"); do
		s=$(( (RANDOM << 17 | RANDOM << 2 | RANDOM & 3) % 4102444800 ))
		echo "@$s"
	done | TZ=UTC date -f - +%Y-%m-%dT%H:%M:%S >"$BATS_TEST_TMPDIR/base"
	while IFS= read -r s; do
		case $((RANDOM % 4)) in
		0) o=Z ;;
		1) o=.$RANDOM$(printf '%+03d:%02d' $((RANDOM % 47 - 23)) $((RANDOM % 4 * 15))) ;;
		*) o=$(printf '%+03d:%02d' $((RANDOM % 47 - 23)) $((RANDOM % 60))) ;;
		esac
		echo "$s$o"
	done <"$BATS_TEST_TMPDIR/base" >"$BATS_TEST_TMPDIR/stamps"
	date -f "$BATS_TEST_TMPDIR/stamps" +%s >"$BATS_TEST_TMPDIR/want"
	xargs "$TOP/test/tools/rfc3339" <"$BATS_TEST_TMPDIR/stamps" \
	    >"$BATS_TEST_TMPDIR/got"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/got")" -eq "$n" ]
	diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
}
