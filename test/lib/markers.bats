#!/usr/bin/env bats
# The state directory's vocabulary: the one table of marker suffixes in
# lib/marker.c, the files of sbx-tools(7) that must name them all, and
# the one drop of a sandbox's markers that sbx-watch and sbx-gc share.

load ../helpers/helper
load ../helpers/sim-setup
load ../helpers/lifecycle

N=pi-sbx-4242-abcd1234

setup() {
	lifecycle_setup
}

teardown() {
	lifecycle_teardown
	sim_test_teardown
	return 0
}

# The table, one "suffix flags" a line, straight from the C.
table() {
	sed -n 's/^[[:space:]]*\[SBX_M_[A-Z]*\] =[[:space:]]*{ "\([^"]*\)",[[:space:]]*\([^ }]*\) *},.*/\1 \2/p' \
	    "$TOP/lib/marker.c"
}

# The FILES section of a man page, rendered, on one line.
files_of() {
	mandoc -Tascii "$TOP/man/$1" | col -b |
	    sed -n '/^FILES/,/^[A-Z]/p' | tr -s ' \n\t' '   '
}

# The value of a #define in lib/sbxstate.h: its quoted string.
define_of() {
	sed -n "s/^#define[[:space:]]*$1[[:space:]]*\"\\([^\"]*\\)\".*/\\1/p" \
	    "$TOP/lib/sbxstate.h"
}

# Every marker of the table for name, made the way its program makes it.
every_marker() {
	local s f d=$SBX_STATE_DIR
	while read -r s f; do
		case $f in
		*SBX_MF_NONCE*) continue ;;
		*SBX_MF_DIR*) mkdir -p "$d/$1.$s/deep/er"; echo x >"$d/$1.$s/deep/er/f" ;;
		*) echo "$s=1" >"$d/$1.$s" ;;
		esac
	done < <(table)
}

# What is left of name in the state directory, but its past sessions'
# records, which outlive it (past_of).
left_of() {
	ls -A "$SBX_STATE_DIR" | grep -F "$1." | grep -v "^$1\.past-" || true
}

# The past sessions' records of name.
past_of() {
	ls -A "$SBX_STATE_DIR" | grep "^$1\.past-[0-9]" || true
}

@test "markers vocabulary class: the table is there, a flag each, and no suffix twice" {
	run -0 table
	[ "${#lines[@]}" -ge 8 ]
	[ -z "$(table | cut -d' ' -f1 | sort | uniq -d)" ]
	# what each one is, as before the table: sbx-gc sweeps a name by the
	# first four only; the scratch dir, the lock and the ports record
	# alone are no proof, nor the network rules a user may record for a
	# sandbox of their own
	[ "$(table | sort | tr '\n' ' ')" = "created SBX_MF_OURS \
egress SBX_MF_RECORD failed SBX_MF_OURS imgnote 0 journal SBX_MF_OURS lock SBX_MF_LOCK \
owner SBX_MF_OURS past- SBX_MF_NONCE ports 0 prewarm 0 prime SBX_MF_DIR tripwire 0 verify- SBX_MF_NONCE " ]
	# by position nowhere: sbx-gc asks the table for what a suffix is
	[ -z "$(grep -n 'suffixes\[\|i < [0-9]' "$TOP/sbx-gc/markers.c")" ]
}

@test "markers vocabulary class: sbx-tools(7) FILES names every suffix of the table" {
	local files s f
	files=$(files_of sbx-tools.7)
	while read -r s f; do
		case $f in
		*SBX_MF_DIR*) [[ "$files" == *" name.$s/ "* ]] ||
		    fail "sbx-tools(7) FILES lacks name.$s/" ;;
		*SBX_MF_NONCE*) [[ "$files" == *" name.${s}nonce "* ]] ||
		    fail "sbx-tools(7) FILES lacks name.${s}nonce" ;;
		*) [[ "$files" == *" name.$s "* ]] ||
		    fail "sbx-tools(7) FILES lacks name.$s" ;;
		esac
	done < <(table)
}

@test "markers vocabulary class: sbx-tools(7) FILES names the directory's own files, the temporary ones too" {
	local files v
	files=$(files_of sbx-tools.7)
	for v in SBX_PROVISION_LOCK SBX_IMGLOAD_LOCK SBX_GC_LOCK SBX_DIALECT_CACHE \
	    SBX_NOINPUT_CACHE; do
		[ -n "$(define_of "$v")" ] || fail "no $v in lib/sbxstate.h"
		[[ "$files" == *" $(define_of "$v") "* ]] ||
		    fail "sbx-tools(7) FILES lacks $(define_of "$v")"
	done
	# lib/state.c's atomic writes: .FILE.PID.SEQ
	grep -q '"\.%s\.%ld\.%u"' "$TOP/lib/state.c"
	[[ "$files" == *" .file.pid.n "* ]]
}

@test "markers vocabulary class: each program's FILES names only files of sbx-tools(7)" {
	local all page f
	all=$(files_of sbx-tools.7)
	for page in sbx-run.1 sbx-ports.1 sbx-verify.1 sbx-gc.8 sbx-watch.8; do
		for f in $(files_of "$page" | grep -o '\(name\.[a-z-]*/\?\|\.[a-z]*\.lock\|sbx-port-dialect\)' |
		    sort -u); do
			[[ "$all" == *"$f"* ]] ||
			    fail "$page FILES names $f, sbx-tools(7) does not"
		done
	done
}

@test "markers drop class: sbx-watch's removing teardown leaves nothing of NAME" {
	stub_sandbox "$N" running
	every_marker "$N"
	rm -f "$SBX_STATE_DIR/$N.owner" "$SBX_STATE_DIR/$N.lock"
	session
	"$TOP/sbx-watch/sbx-watch" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	until_ok dead "$wp" || fail "watcher $wp still running"
	[ "$(stub_count rm)" -eq 1 ]
	[ -z "$(left_of "$N")" ] || fail "left behind: $(left_of "$N")"
	# but the session's record, closed
	[ "$(past_of "$N" | wc -l)" -eq 1 ]
	tail -n 1 "$SBX_STATE_DIR/$(past_of "$N")" | grep -q '"event":"end"'
}

@test "markers drop class: -m stop keeps all but the watcher's own, the failure and the prewarm's record" {
	stub_sandbox "$N" running
	every_marker "$N"
	rm -f "$SBX_STATE_DIR/$N.owner" "$SBX_STATE_DIR/$N.lock"
	session
	"$TOP/sbx-watch/sbx-watch" -m stop -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	until_ok dead "$wp" || fail "watcher $wp still running"
	[ "$(left_of "$N" | tr '\n' ' ')" = \
	    "$N.created $N.imgnote $N.ports $N.prime $N.tripwire " ]
	# the session ended: its record is closed and kept
	[ "$(past_of "$N" | wc -l)" -eq 1 ]
}

@test "markers drop class: sbx-gc's sweep leaves nothing of a gone NAME" {
	local d=$SBX_STATE_DIR g=pi-sbx-999999-gone0000
	every_marker "$g"
	printf 'pid=999999\nstart=1\nwatcher=1\n' >"$d/$g.owner"
	touch -h -d '-1 hour' "$d/$g".*
	run -0 --separate-stderr "$TOP/sbx-gc/sbx-gc" -v
	[ -z "$stderr" ]
	[[ "$output" == *"removed markers of $g: no such sandbox"* ]]
	[ -z "$(left_of "$g")" ] || fail "left behind: $(left_of "$g")"
	[ "$(past_of "$g" | wc -l)" -eq 1 ]
}

@test "markers drop class: sbx-gc drops nothing of a NAME whose lock is held" {
	local d=$SBX_STATE_DIR g=pi-sbx-999999-held0000
	every_marker "$g"
	rm -f "$d/$g.owner" "$d/$g.lock"
	session
	"$TOP/sbx-watch/sbx-watch" -m none -p "$SESSION" "$g"
	touch -h -d '-1 hour' "$d/$g".*
	before=$(left_of "$g")
	run -0 "$TOP/sbx-gc/sbx-gc" -v
	[[ "$output" == *"kept markers of $g: watched by pid "* ]]
	[ "$(left_of "$g")" = "$before" ]
}

@test "markers sweep class: a name alone with one marker is swept iff the table says it proves the sandbox ours, or records what its session made" {
	local d=$SBX_STATE_DIR s f i=0 g
	while read -r s f; do
		case $f in *SBX_MF_NONCE*) continue ;; esac
		i=$((i + 1))
		g=pi-sbx-999999-only000$i
		case $f in
		*SBX_MF_DIR*) mkdir -p "$d/$g.$s/x" ;;
		*SBX_MF_LOCK*) : >"$d/$g.$s" ;;
		*) printf 'pid=999999\nstart=1\nwatcher=1\n' >"$d/$g.$s" ;;
		esac
		touch -h -d '-1 hour' "$d/$g.$s"
		echo "$g $s $f" >>"$BATS_TEST_TMPDIR/made"
	done < <(table)
	run -0 "$TOP/sbx-gc/sbx-gc"
	while read -r g s f; do
		case $f in
		# a record of what the session made in sbx goes too: it names
		# only what its session made, never the sandbox itself
		*SBX_MF_OURS* | *SBX_MF_RECORD*) [ ! -e "$d/$g.$s" ] || fail "$g.$s kept" ;;
		*) [ -e "$d/$g.$s" ] || fail "$g.$s swept" ;;
		esac
	done <"$BATS_TEST_TMPDIR/made"
}
