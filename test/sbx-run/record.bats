#!/usr/bin/env bats
# The session's record (tier 1, the recording stand-in): event lines
# beside the call lines of NAME.journal, -J's output for call lines
# unchanged and -e for events, the close and keep as NAME.past-END,
# -L, sbx-gc's trim of past records, and the record files under attack:
# links, another owner, a wrong mode, huge lines, odd names, concurrent
# writers.

load ../helpers/helper
load ../helpers/lifecycle

N=pi-sbx-4242-abcd1234

setup() {
	lifecycle_setup
	J="$SBX_STATE_DIR/$N.journal"
}

teardown() {
	lifecycle_teardown
	return 0
}

# The past records of NAME, oldest first.
# watched_end NAME: a session with a watcher on NAME, killed with -9; back
# when its watcher has ended
watched_end() {
	local wp
	session
	"$TOP/sbx-watch/sbx-watch" -p "$SESSION" "$1"
	wp=$(watcher_pid "$1")
	kill -9 "$SESSION"
	until_ok dead "$wp"
}

pasts() {
	(cd "$SBX_STATE_DIR" && ls -1 | grep "^$1\.past-[0-9]" | sort -t- -k4n) || true
}

@test "record: event lines stand beside call lines; -J's call lines are unchanged by them, -e shows both" {
	stub_sandbox "$N"
	sbx-run -s "$N" ps -a
	echo 3 >"$SBX_STUB_DIR/rc.exec"
	run -3 sbx-run -s "$N" stop web
	run -0 sbx-run -s "$N" -J 10
	before=$output
	[ "${lines[0]}" = '{"calls":2}' ]
	# the stop's event, then one from another program
	grep -q '"event":"container","op":"stop","containers":\["web"\],"status":3}$' "$J"
	record event "$N" port '"op":"publish","proto":"tcp","host":8080,"vm":80'
	run -0 sbx-run -s "$N" -J 10
	[ "$output" = "$before" ]
	run -0 sbx-run -s "$N" -J 10 -e
	[ "${lines[0]}" = '{"calls":2}' ]
	[ "${#lines[@]}" -eq 5 ]
	[[ "${lines[1]}" == *'"argv":["ps","-a"]}' ]]
	[[ "${lines[3]}" == *'"event":"container"'* ]]
	[[ "${lines[4]}" =~ ^\{\"time\":\"[0-9T:.-]+Z\",\"event\":\"port\",\"op\":\"publish\",\"proto\":\"tcp\",\"host\":8080,\"vm\":80\}$ ]]
	# -e's count is of lines of either kind
	run -0 sbx-run -s "$N" -J 1 -e
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == *'"event":"port"'* ]]
}

@test "record: events come from a call's own words, and only ids and digests of its output" {
	stub_sandbox "$N"
	d=sha256:$(printf '%064d' 7)
	printf 'Digest: %s\nStatus: Downloaded newer image\n' "$d" >"$SBX_STUB_DIR/out.exec"
	sbx-run -s "$N" image pull -q --platform linux/amd64 reg.test/a:1
	printf 'Digest: sekrit-not-a-digest\n' >"$SBX_STUB_DIR/out.exec"
	sbx-run -s "$N" pull reg.test/b:1
	printf '#8 writing image %s done\n' "$d" >"$SBX_STUB_DIR/out.exec"
	sbx-run -s "$N" build -t web:1 .
	printf 'Successfully built 0123456789ab\n' >"$SBX_STUB_DIR/out.exec"
	sbx-run -s "$N" build --tag=web:2 .
	printf 'writing image sekrit\n' >"$SBX_STUB_DIR/out.exec"
	sbx-run -s "$N" build .	# neither tag nor id: no event
	printf 'pulling...\n%064d\n' 5 >"$SBX_STUB_DIR/out.exec"
	sbx-run -s "$N" run -d --name=w -e TOKEN=sekrit-arg busybox:local
	printf '%s\n' 0 >"$SBX_STUB_DIR/out.exec"
	sbx-run -s "$N" container create busybox:local
	printf '3\n' >"$SBX_STUB_DIR/out.exec"
	sbx-run -s "$N" wait w
	rm "$SBX_STUB_DIR/out.exec"
	sbx-run -s "$N" -x docker pull x	# raw: its words are not docker's
	grep '"event"' "$J" | sed 's/^{"time":"[^"]*",//' >"$BATS_TEST_TMPDIR/ev"
	cat >"$BATS_TEST_TMPDIR/want" <<-WANT
	"event":"image","op":"pull","ref":"reg.test/a:1","digest":"$d"}
	"event":"image","op":"pull","ref":"reg.test/b:1"}
	"event":"image","op":"build","tag":"web:1","id":"$d"}
	"event":"image","op":"build","tag":"web:2","id":"0123456789ab"}
	"event":"container","op":"run","name":"w","id":"$(printf '%064d' 5)","state":"running"}
	"event":"container","op":"create","state":"created"}
	"event":"container","op":"wait","containers":["w"],"exit":3}
	WANT
	diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/ev"
}

@test "record: an event with a bad kind, a newline or past a line's bound is refused with one warning" {
	stub_sandbox "$N"
	sbx-run -s "$N" ps
	cp "$J" "$BATS_TEST_TMPDIR/was"
	for k in '' BAD 'a b' '-x' "$(printf 'a\nb')" "$(head -c 40 /dev/zero | tr '\0' a)"; do
		run -1 --separate-stderr record event "$N" "$k" '"a":1'
		[ "${#stderr_lines[@]}" -eq 1 ] || fail "kind '$k': $stderr"
	done
	run -1 --separate-stderr record event "$N" port "$(printf '"a":1\n{"event":"end"}')"
	[ "$stderr" = "record: record $N: bad event" ]
	run -1 --separate-stderr record event "$N" port "\"a\":\"$(head -c 5000 /dev/zero | tr '\0' x)\""
	[ "$stderr" = "record: record $N: port event too long" ]
	cmp "$J" "$BATS_TEST_TMPDIR/was"
	# an invalid or option-like name is refused before any file is made
	run -1 record event -rf port
	run -1 record event "../$N" port
	run -1 record event "$(printf 'a\001b')" port
	[ "$(ls "$SBX_STATE_DIR")" = "$N.journal" ]
}

@test "record: an event never waits long for a record another holds: -1 and one warning within seconds" {
	stub_sandbox "$N"
	sbx-run -s "$N" ps
	python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "r+"); fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close(); time.sleep(30)' "$J" "$BATS_TEST_TMPDIR/held" 3>&- &
	BG_PIDS="$BG_PIDS $!"
	until_ok test -e "$BATS_TEST_TMPDIR/held"
	t=$(date +%s%N)
	run -1 --separate-stderr record event "$N" port '"op":"x"'
	ms=$((($(date +%s%N) - t) / 1000000))
	((ms < 5000)) || fail "it waited $ms ms"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "record: record $N: "* ]]
	! grep -q '"event"' "$J"
}

@test "record keep: an end event closes it, kept as NAME.past-END (0600); a second keep the same second gets its own name" {
	stub_sandbox "$N"
	sbx-run -s "$N" ps one
	record keep "$N" '"by":"test"'
	[ ! -e "$J" ]
	p=$(pasts "$N")
	[ "$(echo "$p" | wc -l)" -eq 1 ]
	[ "$(stat -c %a "$SBX_STATE_DIR/$p")" = 600 ]
	end=${p#"$N".past-}
	[ $(( $(date +%s) - end )) -lt 60 ]
	tail -n 1 "$SBX_STATE_DIR/$p" | grep -Eq '^\{"time":"[^"]+","event":"end","by":"test"\}$'
	# nothing live: -J reads the latest past record
	run -0 sbx-run -s "$N" -J 5
	[ "${lines[0]}" = '{"calls":1}' ]
	[[ "${lines[1]}" == *'"argv":["ps","one"]}' ]]
	# a next session of the same name, ended within the same second
	sbx-run -s "$N" ps two
	record keep "$N"
	record keep "$N"	# nothing live: nothing to do
	run -0 pasts "$N"
	[ "${#lines[@]}" -eq 2 ]
	run -0 sbx-run -s "$N" -J 5
	[[ "${lines[1]}" == *'"argv":["ps","two"]}' ]]
	# a live record is read before any past one
	sbx-run -s "$N" ps three
	run -0 sbx-run -s "$N" -J 5
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == *'"argv":["ps","three"]}' ]]
}

@test "record -L: past and live sessions, oldest first: name, start, end, calls, failures, workspace; text and JSON" {
	stub_sandbox "$N"
	stub_sandbox other-box
	run -0 sbx-run -L
	[ -z "$output" ]
	run -0 sbx-run -L -j
	[ -z "$output" ]
	record event "$N" session "\"workspace\":\"$WS\",\"mode\":\"rw\""
	sbx-run -s "$N" ps
	echo 2 >"$SBX_STUB_DIR/rc.exec"
	run -2 sbx-run -s "$N" ps bad
	record keep "$N" '"by":"test"'
	sleep 0.01
	rm "$SBX_STUB_DIR/rc.exec"
	sbx-run -s other-box ps
	calls=$(stub_count)
	run -0 sbx-run -L -j
	[ "${#lines[@]}" -eq 2 ]
	python3 - "$N" "$WS" "${lines[@]}" <<'PY'
import json, re, sys
n, ws, a, b = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
assert a["name"] == n and a["live"] is False and a["calls"] == 2 and a["failures"] == 1, a
assert a["workspace"] == ws and a["record"].startswith(n + ".past-"), a
assert a["start"] < a["end"], a
assert b["name"] == "other-box" and b["live"] is True and b["end"] is None and b["workspace"] is None, b
assert b["calls"] == 1 and b["failures"] == 0, b
for r in (a, b):
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["start"]), r
PY
	run -0 sbx-run -L
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" =~ ^NAME\ +START\ +END\ +CALLS\ +FAILED\ WORKSPACE$ ]]
	[[ "${lines[1]}" =~ ^$N\ +[0-9T:-]+Z\ +[0-9T:-]+Z\ +2\ +1\ $WS$ ]]
	[[ "${lines[2]}" =~ ^other-box\ +[0-9T:-]+Z\ +live\ +1\ +0\ -$ ]]
	# -L makes no sbx call
	[ "$(stub_count)" -eq "$calls" ]
}

@test "record files under attack: a link is never followed, another owner's file never read or kept, a wrong mode mended" {
	stub_sandbox "$N"
	echo secret-target >"$BATS_TEST_TMPDIR/target"
	chmod 600 "$BATS_TEST_TMPDIR/target"
	# a link as the live record: the event is refused, keep leaves it
	ln -s "$BATS_TEST_TMPDIR/target" "$J"
	run -1 --separate-stderr record event "$N" port '"op":"x"'
	[[ "$stderr" == "record: record $N: "* ]]
	run -0 record keep "$N"
	[ -L "$J" ]
	[ "$(cat "$BATS_TEST_TMPDIR/target")" = secret-target ]
	[ -z "$(pasts "$N")" ]
	rm "$J"
	# a link as a past record: -L and -J read nothing through it
	ln -s "$BATS_TEST_TMPDIR/target" "$SBX_STATE_DIR/$N.past-100"
	run -0 --separate-stderr sbx-run -L
	[ -z "$output" ]
	[[ "$stderr" == *"$N.past-100"* ]]
	run -1 --separate-stderr sbx-run -s "$N" -J 1
	[[ "$stderr" == *"$N.past-100"* ]]
	[ -z "$output" ]
	rm "$SBX_STATE_DIR/$N.past-100"
	# another owner's record
	sbx-run -s "$N" ps
	chown nobody "$J"
	run -0 --separate-stderr sbx-run -L
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -0 record keep "$N"
	[ -e "$J" ]
	[ -z "$(pasts "$N")" ]
	rm "$J"
	# a wrong mode: the next line puts it back to 0600
	sbx-run -s "$N" ps
	chmod 644 "$J"
	record event "$N" port '"op":"x"'
	[ "$(stat -c %a "$J")" = 600 ]
	chmod 666 "$J"
	record keep "$N"
	[ "$(stat -c %a "$SBX_STATE_DIR/$(pasts "$N")")" = 600 ]
}

@test "record files under attack: huge lines, odd bytes, option-like and look-alike names" {
	stub_sandbox "$N"
	sbx-run -s "$N" ps one
	# a huge line, and bytes no JSON has: the whole lines count
	head -c 900000 /dev/zero | tr '\0' x >>"$J"
	printf '\n\377\376{"argv":["x"\001]}\n' >>"$J"
	sbx-run -s "$N" ps two
	run -0 sbx-run -s "$N" -J 5
	[ "${lines[0]}" = '{"calls":2}' ]
	[ "${#lines[@]}" -eq 3 ]
	run -0 sbx-run -L -j
	[[ "$output" == *'"calls":2,"failures":0'* ]]
	# a past record of 3 MB in one line with no end
	record keep "$N"
	p=$(pasts "$N")
	head -c 3000000 /dev/zero | tr '\0' x >>"$SBX_STATE_DIR/$p"
	run -0 sbx-run -s "$N" -J 5
	[ "${lines[0]}" = '{"calls":2}' ]
	run -0 sbx-run -L -j
	[[ "$output" == *'"calls":2,"failures":0'* ]]
	# a record past what a reader takes is refused whole, with a warning
	head -c 9000000 /dev/zero | tr '\0' y >"$SBX_STATE_DIR/big-box.past-5"
	run -0 --separate-stderr sbx-run -L -j
	[ "${#lines[@]}" -eq 1 ]
	[[ "$stderr" == *"big-box.past-5"* ]]
	rm "$SBX_STATE_DIR/big-box.past-5"
	# names no sandbox has are no record: odd bytes, option-like, no number
	for f in "$(printf 'a\001b.past-1')" '-rf.past-1' 'x.past-' 'x.past-1x' \
	    'x.past--1' 'x.past-1-0' '.x.past-1' 'default.past-1'; do
		echo '{"argv":["planted"],"status":0}' >"$SBX_STATE_DIR/$f"
	done
	run -0 sbx-run -L -j
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" != *planted* ]]
	# a name holding ".past-" is read by its last one
	stub_sandbox a.past-5
	sbx-run -s a.past-5 ps
	record keep a.past-5
	run -0 sbx-run -L -j
	[[ "$output" == *'"name":"a.past-5","record":"a.past-5.past-'* ]]
	run -0 sbx-run -s a.past-5 -J 1
	[ "${lines[0]}" = '{"calls":1}' ]
	# an option-like -s is refused as a name
	run -64 sbx-run -J 1 -s -rf
}

@test "record concurrency class: 6 writers of calls and events, a keep among them: every line whole, none lost" {
	export DOCKER_SANDBOX_SBX=/bin/true
	for w in 1 2 3 4 5 6; do
		(
			for i in $(seq 40); do
				if [ $((i % 2)) -eq 0 ]; then
					sbx-run -s "$N" ps "w$w-$i"
				else
					record event "$N" port "\"op\":\"w$w-$i\""
				fi
			done
		) &
	done
	sleep 0.2
	record keep "$N"
	wait
	record keep "$N"
	cat "$SBX_STATE_DIR/$N".past-* >"$BATS_TEST_TMPDIR/all"
	python3 - "$BATS_TEST_TMPDIR/all" <<'PY'
import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
assert lines[-1] == b""
recs = [json.loads(l) for l in lines[:-1]]
got = sorted(r["argv"][1] if "argv" in r else r["op"] for r in recs if r.get("event") != "end")
want = sorted("w%d-%d" % (w, i) for w in range(1, 7) for i in range(1, 41))
assert got == want, (len(got), len(want))
PY
}

@test "record gc class: sbx-gc keeps DOCKER_SANDBOX_SESSIONS_KEPT past records, the newest; -n says which would go" {
	for e in 100 300 200 400-1 400; do
		echo '{"argv":["x"],"status":0}' >"$SBX_STATE_DIR/$N.past-$e"
	done
	echo '{}' >"$SBX_STATE_DIR/other.past-50"
	chown nobody "$SBX_STATE_DIR/other.past-50"
	ln -s /etc/passwd "$SBX_STATE_DIR/lnk.past-10"
	chmod 600 "$SBX_STATE_DIR"/*
	export DOCKER_SANDBOX_SESSIONS_KEPT=2
	run -0 "$TOP/sbx-gc/sbx-gc" -n
	[[ "$output" == *"would remove record $N.past-100: past the 2 sessions kept"* ]]
	[[ "$output" == *"would remove record $N.past-200: past the 2 sessions kept"* ]]
	[[ "$output" == *"would remove record $N.past-300: past the 2 sessions kept"* ]]
	[ "$(ls "$SBX_STATE_DIR" | grep -c past)" -eq 7 ]
	run -0 "$TOP/sbx-gc/sbx-gc" -v
	[[ "$output" == *"removed record $N.past-100"* ]]
	[ "$(pasts "$N" | tr '\n' ' ')" = "$N.past-400 $N.past-400-1 " ]
	# not ours, or no file: let be
	[ -e "$SBX_STATE_DIR/other.past-50" ]
	[ -L "$SBX_STATE_DIR/lnk.past-10" ]
	DOCKER_SANDBOX_SESSIONS_KEPT=0 run -0 "$TOP/sbx-gc/sbx-gc"
	[ -z "$(pasts "$N")" ]
	DOCKER_SANDBOX_SESSIONS_KEPT=x run -64 "$TOP/sbx-gc/sbx-gc"
	[[ "$output" == *DOCKER_SANDBOX_SESSIONS_KEPT* ]]
}

@test "record teardown class: sbx-watch closes and keeps it; sbx-gc closes and keeps a gone sandbox's" {
	stub_sandbox "$N"
	sbx-run -s "$N" ps
	stub_sandbox "$N" running
	printf 'created=%s\nworkspace=%s\nmode=rw\n' "$(date +%s)" "$WS" >"$SBX_STATE_DIR/$N.created"
	watched_end "$N"
	[ ! -e "$J" ]
	p=$(pasts "$N")
	tail -n 1 "$SBX_STATE_DIR/$p" | grep -q '"event":"end","by":"sbx-watch","teardown":"rm","ok":true}$'
	# a teardown that leaves the sandbox be ends the session all the same
	stub_sandbox kept-box
	sbx-run -s kept-box ps
	printf 'created=%s\nworkspace=%s\nmode=rw\n' "$(date +%s)" "$WS" >"$SBX_STATE_DIR/kept-box.created"
	session
	"$TOP/sbx-watch/sbx-watch" -m none -p "$SESSION" kept-box
	wp=$(watcher_pid kept-box)
	kill -9 "$SESSION"
	until_ok dead "$wp"
	[ -e "$SBX_STUB_DIR/sandboxes/kept-box" ]
	tail -n 1 "$SBX_STATE_DIR/$(pasts kept-box)" | grep -q '"event":"end","by":"sbx-watch","teardown":"none","ok":true}$'
	# everything killed: the live record stays until sbx-gc's sweep
	sh -c "exit 0" & d=$!
	wait "$d"
	G=pi-sbx-$d-gone0000
	stub_sandbox "$G"
	sbx-run -s "$G" ps
	rm "$SBX_STUB_DIR/sandboxes/$G"
	touch -d '-1 hour' "$SBX_STATE_DIR/$G.journal"
	run -0 sbx-run -L -j
	[[ "$output" == *"\"name\":\"$G\",\"record\":\"$G.journal\",\"live\":true"* ]]
	run -0 "$TOP/sbx-gc/sbx-gc" -v
	[ ! -e "$SBX_STATE_DIR/$G.journal" ]
	tail -n 1 "$SBX_STATE_DIR/$(pasts "$G")" | grep -q '"event":"end","by":"sbx-gc"}$'
}

@test "record teardown class: a session whose sandbox was made but whose record never began (sbx-run killed first) leaves one: session and end, by sbx-watch" {
	stub_sandbox "$N" running
	printf 'created=%s\nworkspace=%s\nmode=rw\n' "$(date +%s)" "$WS" >"$SBX_STATE_DIR/$N.created"
	[ ! -e "$J" ]
	watched_end "$N"
	[ ! -e "$J" ]
	p=$(pasts "$N")
	[ -n "$p" ] || fail "no past record: $(ls "$SBX_STATE_DIR")"
	[ "$(wc -l <"$SBX_STATE_DIR/$p")" -eq 2 ]
	head -n 1 "$SBX_STATE_DIR/$p" | grep -q '"event":"session","by":"sbx-watch"}$'
	tail -n 1 "$SBX_STATE_DIR/$p" | grep -q '"event":"end","by":"sbx-watch","teardown":"rm","ok":true}$'
	run -0 sbx-run -L -j
	[[ "$output" == *"\"name\":\"$N\""* ]] || fail "$output"
}

# The lines of -J -h after the heading, each time replaced by T.
untimed() {
	printf '%s\n' "${lines[@]:1}" |
	    sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z  /T  /'
}

@test "record -J -h: a live record, then its past one, for people: heading, calls, events, a cut call, blocked hosts" {
	stub_sandbox "$N"
	echo out >"$SBX_STUB_DIR/out.exec"
	sbx-run -s "$N" ps -a
	rm "$SBX_STUB_DIR/out.exec"
	echo 3 >"$SBX_STUB_DIR/rc.exec"
	run -3 sbx-run -s "$N" stop web
	rm "$SBX_STUB_DIR/rc.exec"
	sbx-run -s "$N" -x ls 'my dir' "it's"
	sbx-run -s "$N" -x echo "$(head -c 5000 /dev/zero | tr '\0' a)"
	record event "$N" port '"op":"publish","proto":"tcp","host":8080,"vm":80'
	# a failed call sbx blocked hosts during, as the writer puts it
	printf '%s\n' '{"time":"2026-12-05T10:00:00.250Z","status":1,"ms":20812,"bytes":34,"timeout":120,"raw":false,"blocked":["reg.test:443","x.test:80"],"argv":["pull","reg.test/a:1"]}' >>"$J"
	# without -h, the call lines as they are in the file, byte for byte
	run -0 sbx-run -s "$N" -J 10
	{ echo '{"calls":5}'; grep -v '"event"' "$J"; } >"$BATS_TEST_TMPDIR/want"
	printf '%s\n' "$output" | cmp - "$BATS_TEST_TMPDIR/want"
	run -0 sbx-run -s "$N" -J 10 -h
	[ "${lines[0]}" = "$N: live, 5 calls" ]
	[ "${#lines[@]}" -eq 6 ]
	# every line but the heading begins with its time, to the second
	[ "$(untimed | grep -c '^T  ')" -eq 5 ]
	[ "${lines[5]}" = "2026-12-05T10:00:00Z  exit 1    20.812s       34 bytes  docker pull reg.test/a:1 [blocked reg.test:443,x.test:80]" ]
	untimed | sed -E 's/^T  exit ([0-9]+) +[0-9]+\.[0-9]{3}s +([0-9]+) bytes  /T \1 D \2  /' >"$BATS_TEST_TMPDIR/got"
	cat >"$BATS_TEST_TMPDIR/want" <<-'WANT'
	T 0 D 4  docker ps -a
	T 3 D 0  docker stop web
	T 0 D 0  ls 'my dir' 'it'\''s'
	T 0 D 0  echo CUT
	T 1 D 34  docker pull reg.test/a:1 [blocked reg.test:443,x.test:80]
	WANT
	# the cut call: its argument as far as the record kept it, then the mark
	sed -n 4p "$BATS_TEST_TMPDIR/got" | grep -Eqx 'T 0 D 0  echo a{3000,} \[arguments cut\]'
	sed -i -E '4s/echo a+ \[arguments cut\]$/echo CUT/' "$BATS_TEST_TMPDIR/got"
	diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
	# -e: the events in their places, members as key=value
	run -0 sbx-run -s "$N" -J 10 -e -h
	[ "${lines[0]}" = "$N: live, 5 calls" ]
	[ "${#lines[@]}" -eq 8 ]
	[ "$(untimed | sed -n 3p)" = "T  container: op=stop containers=web status=3" ]
	[ "$(untimed | sed -n 6p)" = "T  port: op=publish proto=tcp host=8080 vm=80" ]
	# count counts lines of either kind, as for JSON
	run -0 sbx-run -s "$N" -J 2 -e -h
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[1]}" == *"  port: op=publish"* ]]
	# the past record: ended when its end event says
	record keep "$N" '"by":"test","ok":true'
	end=$(tail -n 1 "$SBX_STATE_DIR/$(pasts "$N")" | sed -E 's/^\{"time":"([^.]+)\..*/\1/')
	run -0 sbx-run -s "$N" -J 1 -e -h
	[ "${lines[0]}" = "$N: ended ${end}Z, 5 calls" ]
	[ "$(untimed)" = "T  end: by=test ok=true" ]
	# one without an end event: when its name says
	grep -v '"event":"end"' "$SBX_STATE_DIR/$(pasts "$N")" >"$BATS_TEST_TMPDIR/p"
	rm "$SBX_STATE_DIR/$(pasts "$N")"
	install -m 600 "$BATS_TEST_TMPDIR/p" "$SBX_STATE_DIR/$N.past-1796479920"
	run -0 sbx-run -s "$N" -J 0 -h
	[ "$output" = "$N: ended 2026-12-05T14:12:00Z, 5 calls" ]
	# no record at all
	run -0 sbx-run -s other-box -J 3 -h
	[ "$output" = "other-box: no record, 0 calls" ]
	run -0 sbx-run -s other-box -J 3
	[ "$output" = '{"calls":0}' ]
	# -h goes with -J alone
	run -64 sbx-run -s "$N" -h
	run -64 sbx-run -s "$N" -h ps
	run -64 sbx-run -L -h
	[ -z "$output" ] || [[ "$output" == usage:* ]]
}

@test "record -J -h: hostile bytes in argv and event members are shown escaped, never raw, and a shell reads the words back" {
	stub_sandbox "$N"
	esc=$(printf 'a\033[31mb')
	nl=$(printf 'x\ny\tz\r')
	bidi=$(printf 'r\342\200\256l')
	sbx-run -s "$N" -x printf "$esc" "$nl" "$bidi" 'back\slash' '' "q'uote" \
	    "$(head -c 1000 /dev/zero | tr '\0' '\033')"
	# planted by hand: bytes that are no UTF-8, controls in every place,
	# and 4000-byte words of them, characters across every piece shown
	big=xy$(for _ in $(seq 500); do printf '\303\251\033\377\342\202\254\t'; done)
	{
		printf '{"time":"2026-12-05T10:00:01.000Z","status":0,"ms":1,"bytes":0,"raw":true,"argv":["\377\376x","\\u001b]0;title\\u0007","'
		printf '%s' "$big" | sed 's/\x1b/\\u001b/g; s/\t/\\t/g'
		printf '"]}\n'
		printf '{"time":"2026-12-05T10:00:02.000Z","event":"k\\u001bind","v\\u001bk":"a\\u001b[2Jb\\nc\\td\377e","big":"'
		for _ in $(seq 4000); do printf '\\u001b'; done
		printf '","n":[1,"\\u009b"],"o":{"x":"\\u0001"}}\n'
		printf '{"time":"\\u001b[31m","event":"port","op":"x"}\n'
	} >>"$J"
	run -0 sbx-run -s "$N" -J 10 -e -h
	[ "${#lines[@]}" -eq 5 ]
	# no control byte but the newlines, no byte that is not UTF-8
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/out"
	python3 - "$BATS_TEST_TMPDIR/out" <<'PY'
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8")
bad = [c for c in t if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
       or 0x202a <= ord(c) <= 0x202e]
assert not bad, bad
assert t.count("\n") == 5, t.count("\n")
PY
	# the words of the calls, as bash reads them back, are those given
	[[ "${lines[1]}" == *"' [arguments cut]" ]]
	cmd=${lines[1]#*bytes  }
	eval "got=(${cmd% \[arguments cut\]})"
	want=(printf "$esc" "$nl" "$bidi" 'back\slash' '' "q'uote")
	[ "${#got[@]}" -eq 8 ]
	for i in "${!want[@]}"; do
		[ "${got[$i]}" = "${want[$i]}" ] || fail "word $i: ${lines[1]}"
	done
	[[ "${got[7]}" =~ ^$'\033'{500,}$ ]]
	[[ "${lines[1]}" == *" \$'a\\033[31mb' \$'x\\ny\\tz\\r' \$'r\\342\\200\\256l' \$'back\\\\slash' '' 'q'\\''uote' \$'\\033"* ]]
	cmd=${lines[2]#*bytes  }
	eval "got=($cmd)"
	[ "${#got[@]}" -eq 3 ]
	[ "${got[0]}" = "$(printf '\377\376x')" ]
	[ "${got[1]}" = "$(printf '\033]0;title\007')" ]
	[ "${got[2]}" = "$big" ] || fail "the 4000-byte word: ${lines[2]}"
	# its characters shown whole, none split into bytes where it is cut
	[ "$(printf '%s' "${lines[2]}" | grep -o '€' | wc -l)" -eq 500 ]
	[[ "${lines[2]}" == *"  \$'\\377\\376x' \$'\\033]0;title\\007' \$'xyé\\033\\377€\\té"* ]]
	[[ "${lines[3]}" == "2026-12-05T10:00:02Z  \$'k\\033ind': \$'v\\033k'=\$'a\\033[2Jb\\nc\\td\\377e' big=\$'\\033"* ]]
	# the 4000 ESC of the big member, all of them, none cut
	[ "$(printf '%s' "${lines[3]}" | grep -o '\\033' | wc -l)" -eq 4003 ]
	[[ "${lines[3]}" == *"' n=1,\$'\\302\\233' o={x=\$'\\001'}" ]]
	[ "${lines[4]}" = "-  port: op=x" ]
}

@test "record -L: a record's time that is no time, control bytes in it, is shown as -" {
	stub_sandbox "$N"
	printf '{"time":"\\u001b]0;x\\u0007\\u001b[2J","event":"session","workspace":"/w"}\n' >"$J"
	chmod 600 "$J"
	sbx-run -s "$N" ps
	run -0 sbx-run -L
	[[ "${lines[1]}" =~ ^$N\ +-\ +live\ +1\ +0\ /w$ ]]
	[[ "$output" != *$'\033'* ]]
	# as JSON, escaped as JSON
	run -0 sbx-run -L -j
	[[ "$output" == *'"start":"\u001b]0;x\u0007\u001b[2J"'* ]]
}
