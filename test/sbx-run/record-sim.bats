#!/usr/bin/env bats
# The session's record against the sbx simulator (tier 2), where a
# sandbox is a real private dockerd and the registry a real one on the
# host's loopback (test/helpers/registry.bash): a session that pulls,
# builds, runs, publishes and fails calls leaves a record that sbx-run -L
# and -J show after its teardown, and after a kill -9 of everything,
# until sbx-gc closes and keeps it; no forwarded value is in it.

load ../helpers/sim-helper
load ../helpers/lifecycle

SECRET=sekrit-record-4711

setup_file() {
	sim_setup_file
	sim_session_file
	export PATH="$TOP/sbx-watch:$TOP/sbx-gc:$TOP/sbx-ports:$PATH:/usr/sbin:/sbin"
	# shellcheck source=test/helpers/registry.bash
	. "$TOP/test/helpers/registry.bash"
	REG_MISSING=$(reg_missing)
	export REG_MISSING
	[ -z "$SIM_MISSING$REG_MISSING" ] || return 0
	export REG_DIR="$BATS_FILE_TMPDIR/reg"
	mkdir -p "$REG_DIR"
	PORT=$(reg_free_port)
	reg_start up "$PORT"
	reg_forward_all "$PORT"
	echo "${REG_PIDS[*]}" >"$BATS_FILE_TMPDIR/reg.pids"
	printf 'FROM busybox:local\nRUN echo built >/built\n' >"$WS/Dockerfile"
	# forwarded values, hostile ones: none may reach the record
	export DOCKER_SANDBOX_ENV_ALLOWLIST=REC_TOKEN REC_TOKEN="$SECRET\"},{\"event\":\"end\"}"
	export REC_OTHER="$SECRET-other"
}

teardown_file() {
	# shellcheck source=test/helpers/registry.bash
	. "$TOP/test/helpers/registry.bash"
	reg_file_end
	sim_teardown_file
}

setup() {
	sim_setup_test "$WS" || return 1
	[ -z "$REG_MISSING" ] || skip_unless_ci_reg
}

skip_unless_ci_reg() {
	if [ "${CI:-}" = true ]; then
		fail "needs: $REG_MISSING"
		return 1
	fi
	skip "needs: $REG_MISSING"
}

# A session process and its watcher for NAME: $SESSION, $WATCHER.
watched() {
	SESSION=$(sleep 1000 </dev/null >/dev/null 2>&1 3>&- & echo $!)
	sbx-watch -p "$SESSION" "$1"
	WATCHER=$(sed -n 's/^watcher=//p' "$SBX_STATE_DIR/$1.owner")
}

# The session's work: pull, build, run detached and publish, a container
# that fails, a call that fails.
work() {
	local n=$1 ref=127.0.0.1:5000/rec/img:1
	sbx-run -s "$n" tag busybox:local "$ref"
	sbx-run -s "$n" push -q "$ref" >/dev/null
	sbx-run -s "$n" rmi "$ref" >/dev/null
	sbx-run -s "$n" pull "$ref" >/dev/null
	sbx-run -s "$n" build -t rec-web . >/dev/null 2>&1
	sbx-run -s "$n" run -d --name web -e REC_TOKEN -p 8080:8080 rec-web httpd -f -p 8080 >/dev/null
	sbx-ports -s "$n" sync >/dev/null
	run -3 sbx-run -s "$n" run --rm -e REC_TOKEN busybox:local sh -c 'echo "$REC_TOKEN"; exit 3'
	[[ "$output" == *"$SECRET"* ]]
	run -1 sbx-run -s "$n" logs no-such-container
	DOCKER_SANDBOX_ENV_PASSTHROUGH=1 sbx-run -s "$n" -x env >/dev/null
}

# What the record of NAME says, checked by python over its JSON lines.
check_record() {	# name script
	sbx-run -s "$1" -J 1000 -e >"$BATS_TEST_TMPDIR/j"
	sbx-run -L -j >"$BATS_TEST_TMPDIR/l"
	python3 - "$1" "$BATS_TEST_TMPDIR/j" "$BATS_TEST_TMPDIR/l" "$2" <<'PY'
import json, sys
name, jf, lf, script = sys.argv[1:5]
j = [json.loads(x) for x in open(jf)]
head, lines = j[0], j[1:]
calls = [r for r in lines if "event" not in r]
ev = [r for r in lines if "event" in r]
kinds = [r["event"] for r in ev]
sessions = [json.loads(x) for x in open(lf)]
mine = [s for s in sessions if s["name"] == name]
assert len(mine) == 1, sessions
s = mine[0]
exec(script)
PY
}

@test "record sim: pull, build, run, publish and failures are in the record that -L and -J show after the teardown" {
	sh -c 'exit 0' & d=$!
	wait "$d"
	N=pi-sbx-$d-recorda0
	watched "$N"
	work "$N"
	# live: read as it stands
	check_record "$N" '
assert s["live"] is True and s["end"] is None and s["calls"] == head["calls"] == len(calls) == 10, (s, head)
'
	kill -9 "$SESSION"
	until_ok dead "$WATCHER"
	[ ! -e "$SBX_STATE_DIR/$N.journal" ]
	! "$SIM" ls -q | grep -qx "$N"
	check_record "$N" '
import os, re
assert s["live"] is False and s["calls"] == 10 and s["failures"] == 2, s
assert s["workspace"] == os.environ["WS"] and s["start"] < s["end"], s
assert kinds[0] == "session" and kinds[-1] == "end", kinds
assert ev[0]["workspace"] == os.environ["WS"] and ev[0]["mode"] == "rw", ev[0]
assert ev[-1]["by"] == "sbx-watch" and ev[-1]["teardown"] == "rm" and ev[-1]["ok"] is True, ev[-1]
pull = [e for e in ev if e["event"] == "image" and e["op"] == "pull"]
assert len(pull) == 1 and pull[0]["ref"] == "127.0.0.1:5000/rec/img:1", pull
assert re.fullmatch(r"sha256:[0-9a-f]{64}", pull[0]["digest"]), pull
build = [e for e in ev if e["event"] == "image" and e["op"] == "build"]
assert len(build) == 1 and build[0]["tag"] == "rec-web" and re.fullmatch(r"(sha256:)?[0-9a-f]{12,64}", build[0]["id"]), build
runs = [e for e in ev if e["event"] == "container" and e["op"] == "run"]
assert runs[0]["name"] == "web" and runs[0]["state"] == "running" and re.fullmatch(r"[0-9a-f]{64}", runs[0]["id"]), runs
assert runs[1]["state"] == "exited" and runs[1]["exit"] == 3, runs
ports = [e for e in ev if e["event"] == "port"]
assert [(p["op"], p["vm"], p["proto"]) for p in ports] == [("publish", 8080, "tcp")] and ports[0]["host"] > 0, ports
failed = [c["argv"][:2] for c in calls if c["status"] != 0]
assert failed == [["run", "--rm"], ["logs", "no-such-container"]], failed
'
	# the text form, and no forwarded value anywhere in the state directory
	run -0 sbx-run -L
	[[ "$output" =~ $N\ +[0-9T:-]+Z\ +[0-9T:-]+Z\ +10\ +2\ $WS ]]
	! grep -rq "$SECRET" "$SBX_STATE_DIR"
	[ "$(stat -c %a "$SBX_STATE_DIR/$N".past-*)" = 600 ]
}

@test "record sim: after a kill -9 of the session, its watcher and sbx-run, the record is readable; sbx-gc closes and keeps it" {
	sh -c 'exit 0' & d=$!
	wait "$d"
	N=pi-sbx-$d-recordb0
	watched "$N"
	sbx-run -s "$N" run -d --name idle busybox:local sleep 600 >/dev/null
	run -1 sbx-run -s "$N" logs no-such-container
	sbx-run -s "$N" -x sleep 600 </dev/null >/dev/null 2>&1 3>&- &
	r=$!
	until_ok pgrep -f "sbx exec.* $N .*sleep 600" >/dev/null
	kill -9 "$WATCHER" "$SESSION" "$r"
	until_ok dead "$WATCHER"
	# what was written stands: a live record, read as it stands
	check_record "$N" '
assert s["live"] is True and s["end"] is None and s["calls"] == 2 and s["failures"] == 1, s
assert kinds == ["session", "container"], kinds
'
	# the sandbox gone (as after a reboot), sbx-gc closes and keeps it
	"$SIM" rm -f "$N" >/dev/null
	touch -d '-1 minute' "$SBX_STATE_DIR/$N".*
	run -0 sbx-gc -v
	[[ "$output" == *"removed markers of $N: no such sandbox"* ]]
	[ ! -e "$SBX_STATE_DIR/$N.journal" ]
	check_record "$N" '
assert s["live"] is False and s["calls"] == 2 and s["end"] is not None, s
assert kinds[-1] == "end" and ev[-1]["by"] == "sbx-gc", ev
'
	! grep -rq "$SECRET" "$SBX_STATE_DIR"
}
