#!/usr/bin/env bats
# Provisioning before the first call (issue 19, part 1), against the
# recording stand-in: sbx-run -P provisions and says how it went in
# NAME.prewarm before it lets the sandbox's lock go; a later call waits
# for a provisioning in flight before its exec, and reports a failed one
# once, with what was said, instead of provisioning a second time.

load ../helpers/helper

N=pi-sbx-4242-prewarm1

setup() {
	common_setup
	mkdir -m 700 -p "$SBX_STATE_DIR"
}

teardown() {
	local p
	for p in $(cat "$BATS_TEST_TMPDIR/pids" 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
	if [ -f "$SBX_STUB_DIR/hung.pids" ]; then
		for p in $(cat "$SBX_STUB_DIR/hung.pids"); do kill -9 "$p" 2>/dev/null; done
	fi
	return 0
}

verbs() {
	cut -d' ' -f1 "$SBX_STUB_DIR/calls.log" 2>/dev/null | tr '\n' ' '
}

record() {
	cat "$SBX_STATE_DIR/$N.prewarm"
}

@test "prewarm: -P takes no command, -i or -x, and says so before any sbx call" {
	run -64 --separate-stderr sbx-run -P -s "$N" ps
	[ "${stderr_lines[0]}" = "usage: sbx-run [-CeFhijLnPx] [-J count] [-O fd] [-s name] [-t seconds] [-w workspace] [argument ...]" ]
	run -64 sbx-run -P -i -s "$N"
	run -64 sbx-run -P -x -s "$N"
	run -64 sbx-run -P -n
	run -64 sbx-run -P -J 3 -s "$N"
	DOCKER_SANDBOX_CPUS=two run -64 sbx-run -P -s "$N"
	[ "$(stub_count)" -eq 0 ]
}

@test "prewarm: -P without a marker costs one sbx call, create, and records success; with one, an exec of true" {
	run -0 --separate-stderr sbx-run -P -s "$N"
	[ -z "$output" ] && [ -z "$stderr" ]
	[ "$(verbs)" = "create " ]
	grep -qx 'state=ready' "$SBX_STATE_DIR/$N.created"
	grep -qx 'status=0' "$SBX_STATE_DIR/$N.prewarm"
	grep -q '^time=[0-9]*$' "$SBX_STATE_DIR/$N.prewarm"
	! grep -q '^said=' "$SBX_STATE_DIR/$N.prewarm"
	run -0 sbx-run -P -s "$N"
	[ "$(verbs)" = "create exec " ]
	[ "$(stub_argv 2 | tail -n 1)" = true ]
	# a sandbox made elsewhere: its "already exists" is success too
	stub_sandbox other-box stopped
	run -0 sbx-run -P -s other-box
	[ "$(verbs)" = "create exec create " ]
	[ ! -e "$SBX_STATE_DIR/other-box.created" ]
}

@test "prewarm: -P follows DOCKER_SANDBOX_PREWARM when it is set: 0 never, 1 always, auto when the workspace's own entries show docker" {
	local nth=0 setting files want dir f
	while read -r setting want files; do
		nth=$((nth + 1))
		dir="$WS/case-$nth"
		mkdir -p "$dir"
		for f in $files; do
			mkdir -p "$(dirname "$dir/$f")"
			echo x >"$dir/$f"
		done
		rm -f "$SBX_STUB_DIR/calls.log"
		DOCKER_SANDBOX_PREWARM=$setting run -0 --separate-stderr \
		    sbx-run -P -s "pi-sbx-4242-case$nth" -w "$dir"
		[ -z "$stderr" ] || fail "$setting $files: $stderr"
		if [ "$want" = yes ]; then
			[ "$(verbs)" = "create " ] || fail "$setting $files: $(verbs)"
			grep -qx 'status=0' "$SBX_STATE_DIR/pi-sbx-4242-case$nth.prewarm"
		else
			[ "$(stub_count)" -eq 0 ] || fail "$setting $files: $(verbs)"
			[ ! -e "$SBX_STATE_DIR/pi-sbx-4242-case$nth.prewarm" ]
		fi
	done <<-'EOS'
	0 no Dockerfile
	off no compose.yaml
	auto no README.md
	auto no src/Dockerfile
	auto no compose.txt Dockerfile. dockerfilex xcompose.yml compose..yml
	AUTO yes Dockerfile
	auto yes Containerfile.dev
	auto yes api.Dockerfile
	auto yes docker-compose.yml
	auto yes compose.dev.yaml
	auto yes .devcontainer/devcontainer.json
	1 yes README.md
	on yes README.md
	EOS
	# a link counts for nothing: it may point anywhere
	mkdir -p "$WS/linked"
	ln -s "$WS/case-6/Dockerfile" "$WS/linked/Dockerfile"
	rm -f "$SBX_STUB_DIR/calls.log"
	DOCKER_SANDBOX_PREWARM=auto run -0 sbx-run -P -s pi-sbx-4242-linked -w "$WS/linked"
	[ "$(stub_count)" -eq 0 ]
	# a bad value is refused as every setting is, before any sbx call
	DOCKER_SANDBOX_PREWARM=maybe run -64 --separate-stderr sbx-run -P -s "$N"
	[ "$stderr" = "sbx-run: DOCKER_SANDBOX_PREWARM: expected auto, 1, true, yes, on, 0, false, no or off" ]
	[ "$(stub_count)" -eq 0 ]
}

@test "prewarm: a failed -P passes sbx's words on, records them, and the next call reports them once, with its status and no sbx call" {
	echo 1 >"$SBX_STUB_DIR/rc.create"
	printf 'ERROR: Not authenticated to Docker\n\nSign in with: sbx login\n' >"$SBX_STUB_DIR/err.create"
	run -1 --separate-stderr sbx-run -P -s "$N"
	[[ "$stderr" == *"ERROR: Not authenticated to Docker"*"Sign in with: sbx login"* ]]
	grep -qx 'status=1' "$SBX_STATE_DIR/$N.prewarm"
	grep -qx 'said=  ERROR: Not authenticated to Docker' "$SBX_STATE_DIR/$N.prewarm"
	grep -qx 'said=  Sign in with: sbx login' "$SBX_STATE_DIR/$N.prewarm"
	n=$(stub_count)
	run -1 --separate-stderr sbx-run -s "$N" ps
	[ "$(stub_count)" -eq "$n" ]
	[[ "${stderr_lines[0]}" == "sbx-run: sandbox $N: provisioning it ahead of this call (sbx-run -P) failed, exit 1; the next call tries again."* ]]
	[ "${stderr_lines[1]}" = "sbx-run: sbx create: sbx answered (exit 1) in words sbx-tools cannot place:" ]
	[ "${stderr_lines[2]}" = "  ERROR: Not authenticated to Docker" ]
	[ "${stderr_lines[4]}" = "  Sign in with: sbx login" ]
	[[ "${stderr_lines[-1]}" == "sbx-run: sandbox $N: sbx create failed (exit 1)" ]]
	[ ! -e "$SBX_STATE_DIR/$N.prewarm" ]
	# reported once: the next call provisions as any first call does
	rm "$SBX_STUB_DIR/rc.create" "$SBX_STUB_DIR/err.create"
	run -0 sbx-run -s "$N" ps
	[ "$(verbs)" = "create version ls exec create exec " ]
}

@test "prewarm: the status of -P is the first call's: a timed-out create is 124 at both" {
	touch "$SBX_STUB_DIR/hang.create"
	run -124 --separate-stderr sbx-run -P -t 1 -s "$N"
	[[ "$stderr" == *"sbx create timed out after 1 s"* ]]
	grep -qx 'status=124' "$SBX_STATE_DIR/$N.prewarm"
	rm "$SBX_STUB_DIR/hang.create"
	run -124 --separate-stderr sbx-run -s "$N" ps
	[[ "$stderr" == *"failed, exit 124"*"sbx create timed out after 1 s"* ]]
}

@test "prewarm: a call whose exec ran before -P took the lock finds its failure under the lock and creates nothing" {
	echo 1 >"$SBX_STUB_DIR/delay.exec"
	sbx-run -s "$N" ps >"$BATS_TEST_TMPDIR/out" 2>&1 &
	call=$!
	sleep 0.3	# its exec is on the way
	printf 'time=1\nstatus=1\nsaid=ERROR: request failed: 500 Internal Server Error\n' \
	    >"$SBX_STATE_DIR/$N.prewarm"
	rc=0
	wait "$call" || rc=$?
	[ "$rc" -eq 1 ] || fail "exit $rc: $(cat "$BATS_TEST_TMPDIR/out")"
	grep -q 'ERROR: request failed: 500 Internal Server Error' "$BATS_TEST_TMPDIR/out"
	[ "$(verbs)" = "exec " ]
}

@test "prewarm: a call waits for a provisioning in flight before its exec, within its own bound" {
	touch "$SBX_STUB_DIR/hang.create"
	sbx-run -P -s "$N" >"$BATS_TEST_TMPDIR/pout" 2>&1 &
	echo $! >>"$BATS_TEST_TMPDIR/pids"
	hung_started
	start=$(date +%s%N)
	run -124 --separate-stderr sbx-run -t 1 -s "$N" ps
	ms=$((($(date +%s%N) - start) / 1000000))
	[[ "$stderr" == *"another call is provisioning it; still waiting after 1 s"* ]]
	((ms >= 900 && ms < 5000)) || fail "waited $ms ms"
	[ "$(verbs)" = "create " ]
}

@test "prewarm: a signal ends -P with 128+n and records nothing for the next call" {
	touch "$SBX_STUB_DIR/hang.create"
	sbx-run -P -s "$N" 2>"$BATS_TEST_TMPDIR/perr" &
	p=$!
	hung_started
	kill -TERM "$p"
	rc=0
	wait "$p" || rc=$?
	[ "$rc" -eq 143 ] || fail "exit $rc"
	[ ! -e "$SBX_STATE_DIR/$N.prewarm" ]
}

@test "prewarm: stdout goes to /dev/null once -P holds the lock, long before the create ends" {
	echo 2 >"$SBX_STUB_DIR/delay.create"
	start=$(date +%s%N)
	exec {out}< <(exec sbx-run -P -s "$N")
	cat <&"$out" >"$BATS_TEST_TMPDIR/o"
	ms=$((($(date +%s%N) - start) / 1000000))
	exec {out}<&-
	((ms < 1500)) || fail "EOF after $ms ms"
	[ ! -s "$BATS_TEST_TMPDIR/o" ]
}

@test "prewarm record class: a link, garbage, another owner, a huge file or status 0 is no failure to report" {
	local f=$SBX_STATE_DIR/$N.prewarm
	stub_sandbox "$N" running
	printf 'time=1\nstatus=1\nsaid=planted\n' >"$BATS_TEST_TMPDIR/planted"
	for kind in link garbage owner huge zero range neg; do
		rm -f "$f"
		case $kind in
		link) ln -s "$BATS_TEST_TMPDIR/planted" "$f" ;;
		garbage) printf 'status=one\nsaid=planted\n' >"$f" ;;
		owner) cp "$BATS_TEST_TMPDIR/planted" "$f"; chown 65534 "$f" ;;
		huge) { cat "$BATS_TEST_TMPDIR/planted"; head -c 5000 /dev/zero | tr '\0' x; } >"$f" ;;
		zero) printf 'time=1\nstatus=0\nsaid=planted\n' >"$f" ;;
		range) printf 'time=1\nstatus=256\nsaid=planted\n' >"$f" ;;
		neg) printf 'time=1\nstatus=-1\nsaid=planted\n' >"$f" ;;
		esac
		run -0 --separate-stderr sbx-run -s "$N" ps
		[[ "$stderr" != *planted* ]] || fail "$kind: $stderr"
	done
	[ "$(stub_count exec)" -eq 7 ]
}

@test "prewarm record class: what -P said is kept to its last 2 KiB, whole lines, as -P said it" {
	echo 1 >"$SBX_STUB_DIR/rc.create"
	# sbx's first lines, each escaped by -P to four times its length
	for i in 1 2 3 4 5 6; do
		printf 'ERROR: line %d ' "$i"
		head -c 180 /dev/zero | tr '\0' '\001'
		printf '\n'
	done >"$SBX_STUB_DIR/err.create"
	run -1 sbx-run -P -s "$N"
	size=$(wc -c <"$SBX_STATE_DIR/$N.prewarm")
	((size <= 4096)) || fail "record of $size bytes"
	! grep -q 'ERROR: line 1 ' "$SBX_STATE_DIR/$N.prewarm"
	grep -q '^said=  ERROR: line 5 \\001\\001' "$SBX_STATE_DIR/$N.prewarm"
	! LC_ALL=C grep -q "$(printf '\001')" "$SBX_STATE_DIR/$N.prewarm"
	grep -v '^said=\|^time=\|^status=' "$SBX_STATE_DIR/$N.prewarm" && fail "a line that is no field"
	run -1 --separate-stderr sbx-run -s "$N" ps
	[[ "$stderr" == *'ERROR: line 5 \001'* ]]
	[[ "${stderr_lines[-1]}" == "sbx-run: sandbox $N: sbx create failed (exit 1)" ]] || fail "$stderr"
}
