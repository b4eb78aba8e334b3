#!/usr/bin/env bats
# sbx-run's journal, NAME.journal: a record per call, no forwarded value,
# whole lines under concurrent writers, the bounds, no link followed,
# -J, and removal by teardown and gc.

load ../helpers/helper
load ../helpers/lifecycle

N=pi-sbx-4242-abcd1234

setup() {
	common_setup
	mkdir -m 700 -p "$SBX_STATE_DIR"
	J="$SBX_STATE_DIR/$N.journal"
}

teardown() {
	lifecycle_teardown
	return 0
}

# Run python3 on the journal (or on file $2): the script gets the records.
records() {
	python3 -c '
import json, sys
lines = open(sys.argv[2], "rb").read().split(b"\n")
assert lines[-1] == b"", "the last line is whole"
recs = [json.loads(l.decode("utf-8")) for l in lines[:-1]]
exec(sys.argv[1])' "$1" "${2:-$J}"
}

@test "journal: one record per call: RFC 3339 time, argv, status, ms, output bytes" {
	stub_sandbox "$N"
	printf 'hello\n' >"$SBX_STUB_DIR/out.exec"
	printf 'oops\n' >"$SBX_STUB_DIR/err.exec"
	printf '3\n0\n' >"$SBX_STUB_DIR/rc.exec"
	echo 0.3 >"$SBX_STUB_DIR/delay.exec"
	run -3 --separate-stderr sbx-run -s "$N" ps -a --format '{{json .}}'
	# the streams pass through unchanged
	[ "$output" = hello ]
	[ "$stderr" = oops ]
	run -0 sbx-run -s "$N" -x sh -c 'echo "a	b"'
	records '
import calendar, re, time
assert len(recs) == 2, recs
a, b = recs
for r in recs:
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["time"]), r
    t = calendar.timegm(time.strptime(r["time"][:19], "%Y-%m-%dT%H:%M:%S"))
    assert abs(time.time() - t) < 60, r["time"]
    assert r["bytes"] == 11 and r["ms"] >= 300 and r["ms"] < 10000, r
    assert "truncated" not in r
assert a["argv"] == ["ps", "-a", "--format", "{{json .}}"] and a["status"] == 3 and a["raw"] is False, a
assert b["argv"] == ["sh", "-c", "echo \"a\tb\""] and b["status"] == 0 and b["raw"] is True, b
'
	[ "$(stat -c %a "$J")" = 600 ]
}

@test "journal: the bytes of output are counted, and pass through byte for byte" {
	stub_sandbox "$N"
	export SBX_STUB_EXEC_RUN=1
	head -c 300000 /dev/urandom >"$BATS_TEST_TMPDIR/blob"
	sbx-run -s "$N" -x cat "$BATS_TEST_TMPDIR/blob" >"$BATS_TEST_TMPDIR/got"
	cmp "$BATS_TEST_TMPDIR/blob" "$BATS_TEST_TMPDIR/got"
	sbx-run -s "$N" -x sh -c 'printf 12345; printf 678 >&2' >/dev/null 2>&1
	records 'assert [r["bytes"] for r in recs] == [300000, 8], recs'
	# a reader that goes away ends the call as it would without us
	run -0 timeout 20 sh -c "sbx-run -s $N -x yes | head -n 1"
	[ "$output" = y ]
}

@test "journal: the value of a forwarded variable never appears (allow-list, passthrough, host set)" {
	stub_sandbox "$N"
	MY_TOKEN=sekrit-allow-1 DOCKER_SANDBOX_ENV_ALLOWLIST=MY_TOKEN \
	    sbx-run -s "$N" run --rm -e MY_TOKEN busybox:local env
	OTHER_TOKEN=sekrit-pass-2 DOCKER_SANDBOX_ENV_PASSTHROUGH=1 \
	    sbx-run -s "$N" -x env
	LANG=sekrit-host-3 sbx-run -s "$N" ps
	# forwarded, as bare names
	stub_argv 1 | grep -qx MY_TOKEN
	stub_argv 2 | grep -qx OTHER_TOKEN
	[ "$(grep -c "\"argv\"" "$J")" -eq 3 ]
	! grep -q sekrit "$J"
	records 'assert recs[0]["argv"] == ["run", "--rm", "-e", "MY_TOKEN", "busybox:local", "env"], recs[0]'
}

@test "journal concurrency class: 8 writers x 50 calls give 400 whole, parseable records" {
	stub_sandbox "$N"
	# 400 records of about 2 KiB: below the bound, so all are kept
	big=$(head -c 2000 /dev/zero | tr '\0' x)
	for w in 1 2 3 4 5 6 7 8; do
		(
			for i in $(seq 50); do
				sbx-run -s "$N" ps "w$w-$i" "$big" ||
				    echo "call $w $i failed" >>"$BATS_TEST_TMPDIR/bad"
			done
		) &
	done
	wait
	[ ! -e "$BATS_TEST_TMPDIR/bad" ]
	records '
assert len(recs) == 400, len(recs)
got = sorted(r["argv"][1] for r in recs)
want = sorted("w%d-%d" % (w, i) for w in range(1, 9) for i in range(1, 51))
assert got == want
'
}

# Records of about 200 bytes, enough of them for $1 bytes, ending at $2.
prefill() {
	python3 -c '
import json, sys
size, start = int(sys.argv[1]), int(sys.argv[2])
out, n = [], 0
while sum(map(len, out)) < size:
    out.append(json.dumps({"time": "2026-01-01T00:00:00.000Z", "status": 0, "ms": 1, "bytes": 0, "raw": False, "argv": ["pre", str(start + n), "y" * 100]}, separators=(",", ":")) + "\n")
    n += 1
sys.stdout.write("".join(out))
print(n, file=sys.stderr)' "$1" "${2:-0}"
}

@test "journal bound class: past 1 MiB it keeps its newest half and counts the dropped" {
	stub_sandbox "$N"
	pre=$(prefill $((1024 * 1024 + 100)) 2>&1 >"$J")
	sbx-run -s "$N" ps last-one
	size=$(stat -c %s "$J")
	[ "$size" -le $((512 * 1024 + 4096)) ]
	[ "$size" -ge $((500 * 1024)) ]
	records "
assert list(recs[0]) == ['trimmed'], recs[0]
assert recs[0]['trimmed'] + len(recs) - 1 == $pre + 1
assert recs[-1]['argv'] == ['ps', 'last-one']
assert [int(r['argv'][1]) for r in recs[1:-1]] == list(range($pre - len(recs) + 2, $pre))
"
	run -0 sbx-run -s "$N" -J 2
	[ "${lines[0]}" = "{\"calls\":$((pre + 1))}" ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[2]}" == *'"argv":["ps","last-one"]}' ]]
	# a second trim adds to the count
	more=$(prefill $((600 * 1024)) 100000 2>&1 >>"$J")
	sbx-run -s "$N" ps second
	run -0 sbx-run -s "$N" -J 0
	[ "$output" = "{\"calls\":$((pre + more + 2))}" ]
	[ "$(stat -c %s "$J")" -le $((512 * 1024 + 4096)) ]
	[ -z "$(find "$SBX_STATE_DIR" -name '.*')" ]
}

@test "journal bound class: writers racing a trim lose no record" {
	# an sbx that answers at once, so the writers spend their time here:
	# 2,000 records of 3.9 KiB make about fifteen trims
	export DOCKER_SANDBOX_SBX=/bin/true
	pre=$(prefill $((1024 * 1024 - 20000)) 2>&1 >"$J")
	big=$(head -c 3900 /dev/zero | tr '\0' x)
	for w in 1 2 3 4 5 6 7 8; do
		(
			for i in $(seq 250); do
				sbx-run -s "$N" ps "w$w-$i" "$big"
			done
		) &
	done
	wait
	run -0 sbx-run -s "$N" -J 1000
	[ "${lines[0]}" = "{\"calls\":$((pre + 2000))}" ]
	records "
assert list(recs[0]) == ['trimmed']
assert recs[0]['trimmed'] + len(recs) - 1 == $pre + 2000
"
	[ "$(stat -c %s "$J")" -le $((1024 * 1024 + 8 * 4096)) ]
}

@test "journal bound class: a record is at most 4 KiB, cut at a character boundary and marked" {
	stub_sandbox "$N"
	# two- and three-byte characters at every offset mod 3: some cut
	# must fall inside a character unless it is kept at a boundary
	for pre in "" a ab; do
		sbx-run -s "$N" ps "$pre$(python3 -c 'print("\u00e9\u20ac" * 2000)')"
	done
	# many short arguments, and control characters, escaped
	sbx-run -s "$N" ps $(seq 3000)
	sbx-run -s "$N" ps "$(printf 'a\001b\tc\\d"e')"
	awk '{ if (length($0) + 1 > 4096) exit 1 }' "$J"
	LC_ALL=C awk '{ if (length($0) + 1 > 4096) exit 1 }' "$J"
	records '
for a in recs[:3]:
    assert a["truncated"] is True and a["argv"][0] == "ps" and set(a["argv"][1].lstrip("ab")) == {"\u00e9", "\u20ac"}, a
    assert len(a["argv"][1]) > 1000
b, c = recs[3:]
assert b["truncated"] is True and b["argv"][:3] == ["ps", "1", "2"] and len(b["argv"]) < 3000, len(b["argv"])
n = len(b["argv"])
assert b["argv"][:-1] == ["ps"] + [str(i) for i in range(1, n - 1)] and str(n - 1).startswith(b["argv"][-1]), b["argv"][-3:]
assert c["argv"][1] == "a\x01b\tc\\d\"e" and "truncated" not in c, c
'
}

@test "journal: a planted link, FIFO or directory is not followed, and the call is unchanged" {
	stub_sandbox "$N"
	echo out >"$SBX_STUB_DIR/out.exec"
	echo 5 >"$SBX_STUB_DIR/rc.exec"
	: >"$BATS_TEST_TMPDIR/target"
	ln -s "$BATS_TEST_TMPDIR/target" "$J"
	run -5 --separate-stderr sbx-run -s "$N" ps
	[ "$output" = out ]
	[[ "$stderr" == "sbx-run: journal $SBX_STATE_DIR/$N.journal: "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ ! -s "$BATS_TEST_TMPDIR/target" ]
	[ -L "$J" ]
	run -1 sbx-run -s "$N" -J 5
	# a dangling link is not created through either
	rm "$BATS_TEST_TMPDIR/target"
	run -5 sbx-run -s "$N" ps
	[ ! -e "$BATS_TEST_TMPDIR/target" ]
	rm "$J"
	mkfifo "$J"
	run -5 --separate-stderr timeout 10 sbx-run -s "$N" ps
	[ "$output" = out ]
	[[ "$stderr" == "sbx-run: journal $SBX_STATE_DIR/$N.journal: "* ]]
	[ -p "$J" ]
	rm "$J"
	mkdir "$J"
	run -5 --separate-stderr sbx-run -s "$N" ps
	[ "$output" = out ]
	[ -d "$J" ]
	# an unsafe state directory: a warning, the same status and output
	rmdir "$J"
	chmod 777 "$SBX_STATE_DIR"
	run -5 --separate-stderr sbx-run -s "$N" ps
	[ "$output" = out ]
	[[ "$stderr" == *"writable by group or others"* ]]
	[ ! -e "$J" ]
}

@test "journal: -J prints the count, then the last records; its usage" {
	stub_sandbox "$N"
	run -0 sbx-run -s "$N" -J 5
	[ "$output" = '{"calls":0}' ]
	for i in 1 2 3; do sbx-run -s "$N" ps "n$i"; done
	echo 'not json' >>"$J"
	printf '{"argv":["half"' >>"$J"
	run -0 --separate-stderr sbx-run -s "$N" -J 2
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = '{"calls":3}' ]
	[[ "${lines[1]}" == *'"argv":["ps","n2"]}' ]]
	[[ "${lines[2]}" == *'"argv":["ps","n3"]}' ]]
	DOCKER_SANDBOX=$N run -0 sbx-run -J 0
	[ "$output" = '{"calls":3}' ]
	run -64 sbx-run -s "$N" -J x
	[[ "$output" == *"-J: count is invalid"* ]]
	run -64 sbx-run -s "$N" -J -1
	run -64 --separate-stderr sbx-run -s "$N" -J 1 ps
	[ "$stderr" = "usage: sbx-run [-CeFhijLnPx] [-J count] [-O fd] [-s name] [-t seconds] [-w workspace] [argument ...]" ]
	run -64 sbx-run -s "$N" -J 1 -x
	run -64 sbx-run -n -J 1
	run -64 sbx-run -J 1
	# -J makes no sbx call and journals nothing
	[ "$(stub_count)" -eq 3 ]
	run -1 sh -c "sbx-run -s $N -J 1 >/dev/full"
}

# A sandbox sbx-run made: known to the stand-in, with its marker and journal.
journaled() {
	stub_sandbox "$1"
	sbx-run -s "$1" ps
	[ -s "$SBX_STATE_DIR/$1.journal" ]
	stub_sandbox "$1" "${2:-running}"
	printf 'created=%s\nworkspace=%s\nmode=rw\n' "${3:-$(date +%s)}" "$WS" \
	    >"$SBX_STATE_DIR/$1.created"
}

@test "journal teardown class: sbx-watch removes it with the sandbox, and when it never made one" {
	journaled "$N"
	session
	"$TOP/sbx-watch/sbx-watch" -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	until_ok dead "$wp"
	[ ! -e "$SBX_STUB_DIR/sandboxes/$N" ]
	[ ! -e "$J" ]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
	# a sandbox sbx-run never created (no NAME.created): the journal goes too
	stub_sandbox "$N"
	sbx-run -s "$N" ps
	[ -s "$J" ]
	session
	"$TOP/sbx-watch/sbx-watch" -m none -p "$SESSION" "$N"
	wp=$(watcher_pid "$N")
	kill -9 "$SESSION"
	until_ok dead "$wp"
	[ ! -e "$J" ]
}

@test "journal gc class: sbx-gc removes it with a stale sandbox and as an orphan, not a fresh one" {
	now=$(date +%s)
	# generated names whose session pid is gone, as sbx-gc wants them
	sh -c "exit 0" & d=$!
	wait "$d"
	S=pi-sbx-$d-stale000 G=pi-sbx-$d-gone0000 F=pi-sbx-$d-new00000
	journaled "$S" stopped $((now - 48 * 3600))
	# the sandbox is gone, its journal is left: an orphan
	stub_sandbox "$G"
	sbx-run -s "$G" ps
	rm "$SBX_STUB_DIR/sandboxes/$G"
	touch -d '-1 hour' "$SBX_STATE_DIR/$G.journal"
	# an orphan journal written just now may belong to a call under way
	stub_sandbox "$F"
	sbx-run -s "$F" ps
	rm "$SBX_STUB_DIR/sandboxes/$F"
	touch -d '+1 minute' "$SBX_STATE_DIR/$F.journal"
	run -0 "$TOP/sbx-gc/sbx-gc" -v
	[[ "$output" == *"removed markers of $G: no such sandbox"* ]]
	[ ! -e "$SBX_STATE_DIR/$S.journal" ]
	[ ! -e "$SBX_STATE_DIR/$S.created" ]
	[ ! -e "$SBX_STATE_DIR/$G.journal" ]
	[ -e "$SBX_STATE_DIR/$F.journal" ]
}
