#!/usr/bin/env bats
# sbx-run against the recording stand-in sbx: argv, environment, names,
# provisioning, timeouts and exit statuses.

load ../helpers/helper

N=pi-sbx-4242-abcd1234
PIN="-H unix:///var/run/docker.sock"

setup() {
	common_setup
}

# Every process of the hung tree is gone.
# A killed process may take a moment to go on a busy host; one still
# there after five seconds survived.
none_survived() {
	local p i
	for p in $(cat "$SBX_STUB_DIR/hung.pids"); do
		for i in $(seq 50); do
			alive "$p" || continue 2
			sleep 0.1
		done
		fail "pid $p survived"
	done
}

@test "sbx-run: a bad option prints only the usage line and exits 64" {
	run -64 --separate-stderr sbx-run -Z
	[ -z "$output" ]
	[ "${stderr_lines[0]}" = "usage: sbx-run [-CeFhijLnPx] [-J count] [-O fd] [-s name] [-t seconds] [-w workspace] [argument ...]" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -64 --separate-stderr sbx-run -s "$N"
	[ "${stderr_lines[0]}" = "usage: sbx-run [-CeFhijLnPx] [-J count] [-O fd] [-s name] [-t seconds] [-w workspace] [argument ...]" ]
	run -64 sbx-run -n ps
	run -64 sbx-run -t 1x -s "$N" ps
	run -64 sbx-run -t -1 -s "$N" ps
	[ "$(stub_count)" -eq 0 ]
}

@test "sbx-run: each mode refuses every flag it does not take, and operands; the run needs a command" {
	local u="usage: sbx-run [-CeFhijLnPx] [-J count] [-O fd] [-s name] [-t seconds] [-w workspace] [argument ...]"
	local -A arg=([C]=-C [n]=-n [J]="-J 1" [P]=-P [L]=-L [F]=-F [i]=-i [x]=-x
	    [s]="-s $N" [t]="-t 5" [w]="-w $BATS_TEST_TMPDIR" [e]=-e [j]=-j
	    [h]=-h)
	# what each mode takes besides its own flag (and -O, which all take)
	local -A takes=([C]=w [n]= [J]=ehs [P]=stw [L]=j [F]=sw)
	local m f
	for m in C n J P L F; do
		for f in C n J P L F i x s t w e j h; do
			[ "$f" = "$m" ] && continue
			case ${takes[$m]} in *"$f"*) continue ;; esac
			usage_refused sbx-run "$u" "${arg[$m]} ${arg[$f]}" \
			    "${arg[$f]} ${arg[$m]}"
		done
		# -F's operands are the ids it marks seen
		[ "$m" = F ] || usage_refused sbx-run "$u" "${arg[$m]} ps"
	done
	usage_refused sbx-run "$u" "-s $N" "-i -x -s $N -t 5 -w $BATS_TEST_TMPDIR"
	# -e, -h and -j go only with -J and -L
	usage_refused sbx-run "$u" "-e ps" "-j ps" "-e -j -s $N" "-h ps" \
	    "-h -s $N" "-h -j -s $N"
	[ "$(stub_count)" -eq 0 ]
}

@test "sbx-run: each mode takes its flags and -O: none of them is a usage error" {
	stub_sandbox "$N"
	mkdir -p "$BATS_TEST_TMPDIR/ws"
	run -0 --separate-stderr sbx-run -C -O 5 -w "$BATS_TEST_TMPDIR/ws" 5>/dev/null
	run -0 --separate-stderr sbx-run -n -O 5 5>/dev/null
	run -0 --separate-stderr sbx-run -J 1 -O 5 -s "$N" 5>/dev/null
	run -0 --separate-stderr sbx-run -F -O 5 -s "$N" \
	    -w "$BATS_TEST_TMPDIR/ws" 5>/dev/null
	run -0 --separate-stderr sbx-run -J 1 -e -h -O 5 -s "$N" 5>/dev/null
	run -0 --separate-stderr sbx-run -i -O 5 -s "$N" -t 5 \
	    -w "$BATS_TEST_TMPDIR/ws" -x true 5>/dev/null
	mkdir -m 700 -p "$SBX_STATE_DIR"
	run -0 --separate-stderr sbx-run -P -O 5 -s "$N" -t 5 \
	    -w "$BATS_TEST_TMPDIR/ws" 5>/dev/null
}

@test "sbx-run: -n prints a fresh name for its parent process" {
	run -0 sh -c "'$TOP/sbx-run/sbx-run' -n; echo \$\$"
	[[ "${lines[0]}" =~ ^pi-sbx-([0-9]+)-[a-z0-9]{8}$ ]]
	[ "${BASH_REMATCH[1]}" = "${lines[1]}" ]
	first=${lines[0]}
	run -0 sbx-run -n
	[ "$output" != "$first" ]
	run sh -c "'$TOP/sbx-run/sbx-run' -n >/dev/full"
	[ "$status" -eq 1 ]
}

@test "sbx-run: -C prints the workspace it would mount and runs no sbx; a refusal is provisioning's" {
	mkdir "$WS/proj"
	ln -s "$WS/proj" "$BATS_TEST_TMPDIR/plink"
	run -0 --separate-stderr sbx-run -C -w "$BATS_TEST_TMPDIR/plink"
	[ "$output" = "$(realpath "$WS/proj")" ]
	[ -z "$stderr" ]
	cd "$WS/proj"
	run -0 sbx-run -C
	[ "$output" = "$(realpath "$WS/proj")" ]
	run -1 --separate-stderr sbx-run -C -w "$HOME"
	[ -z "$output" ]
	[ "$stderr" = "sbx-run: workspace $HOME is /, a home directory or above one, or holds the state directory; refusing to mount it (use -w)" ]
	[ "$(stub_count)" -eq 0 ]
	run -1 sh -c "'$TOP/sbx-run/sbx-run' -C >/dev/full"
	[[ "$output" == "sbx-run: stdout: "* ]]
	[ "$(stub_count)" -eq 0 ]
}

@test "sbx-run: the exact argv of a pinned docker call, one sbx invocation" {
	stub_sandbox "$N"
	run -0 sbx-run -s "$N" ps -a --format '{{json .}}'
	[ "$(stub_count)" -eq 1 ]
	[ "$(stub_argv 1 | argv_unmarked | tr '\n' ' ')" = "exec $N -- docker $PIN ps -a --format {{json .}} " ]
}

@test "sbx-run: -x runs the command verbatim, -i adds -i" {
	stub_sandbox "$N"
	run -0 sbx-run -x -s "$N" sh -c 'echo hi'
	[ "$(stub_argv 1 | argv_unmarked | tr '\n' '|')" = "exec|$N|--|sh|-c|echo hi|" ]
	run -0 sbx-run -ix -s "$N" cat
	[ "$(stub_argv 2 | argv_unmarked | tr '\n' ' ')" = "exec -i $N -- cat " ]
}

@test "sbx-run: stdin reaches the sandbox only with -i" {
	stub_sandbox "$N"
	export SBX_STUB_EXEC_RUN=1
	run -0 sh -c "echo through | '$TOP/sbx-run/sbx-run' -i -x -s $N cat"
	[ "$output" = "through" ]
	run -0 sh -c "echo through | '$TOP/sbx-run/sbx-run' -x -s $N cat"
	[ -z "$output" ]
}

@test "sbx-run: the name comes from -s, else DOCKER_SANDBOX, else it is a usage error" {
	stub_sandbox "$N"
	stub_sandbox other-box
	DOCKER_SANDBOX=$N run -0 sbx-run ps
	[ "$(stub_argv 1 | sed -n 2p)" = "$N" ]
	DOCKER_SANDBOX=$N run -0 sbx-run -s other-box ps
	[ "$(stub_argv 2 | sed -n 2p)" = "other-box" ]
	run -64 --separate-stderr sbx-run ps
	[ "$stderr" = "sbx-run: no sandbox: give -s name or set DOCKER_SANDBOX" ]
	[ "$(stub_count)" -eq 2 ]
}

@test "sbx-run: names that look like options or break the rules are refused" {
	long=$(printf 'a%.0s' $(seq 64))
	for bad in -rf --help -e default a 'a b' 'a;b' '.hidden' 'x_y' \
	    "$long" 'ünï' "$(printf 'a\nb')" 'a/b' '' 'box-' 'box.' 'a-' \
	    'b.' 'x--' "$(printf 'c%.0s' $(seq 62))-" 'default.' 'x.-' \
	    "$(printf 'a\033')" "$(printf 'a\302\233')" 'ab:' 'ab@'; do
		run -64 --separate-stderr sbx-run -s "$bad" ps
		[[ "$stderr" == "sbx-run: invalid sandbox name"* ]] ||
		    [[ -z "$bad" && "$stderr" == "sbx-run: no sandbox"* ]] ||
		    fail "name '$bad': $stderr"
		DOCKER_SANDBOX=$bad run -64 sbx-run ps
	done
	[ "$(stub_count)" -eq 0 ]
	# the longest and shortest legal names pass
	ok63=$(printf 'b%.0s' $(seq 63))
	stub_sandbox "$ok63"
	stub_sandbox ab
	run -0 sbx-run -s "$ok63" ps
	run -0 sbx-run -s ab ps
	# dots and dashes inside, ends a letter or digit: sbx's own rule
	for ok in a-b a.b 9-x-0 defaults Default a..b a--b; do
		stub_sandbox "$ok"
		run -0 sbx-run -s "$ok" ps
	done
}

@test "sbx-run: the sbx child gets only the strict set; secrets stay out of argv" {
	stub_sandbox "$N"
	SECRET=topsecret-value OPENAI_API_KEY=sk-123 DOCKER_HOST=tcp://evil:2375 \
	    DOCKER_CONTEXT=evil COMPOSE_FILE=x run -0 sbx-run -s "$N" ps
	env1=$(stub_env 1)
	for name in SECRET OPENAI_API_KEY DOCKER_HOST DOCKER_CONTEXT COMPOSE_FILE \
	    DOCKER_SANDBOX_SBX; do
		! printf '%s\n' "$env1" | grep -q "^$name=" ||
		    fail "$name reached sbx"
	done
	printf '%s\n' "$env1" | grep -q "^HOME=$HOME\$"
	printf '%s\n' "$env1" | grep -q "^PATH=$PATH\$"
	printf '%s\n' "$env1" | grep -q "^SBX_STUB_DIR="
	! stub_argv 1 | grep -q 'topsecret\|sk-123'
	! grep -q 'topsecret' "$SBX_STUB_DIR/calls.log"
}

@test "sbx-run: allow-listed names reach the sandbox as bare -e NAME" {
	stub_sandbox "$N"
	DOCKER_SANDBOX_ENV_ALLOWLIST=API_KEY,UNSET_ONE,DOCKER_HOST API_KEY=s3cr3t \
	    DOCKER_HOST=tcp://evil run -0 --separate-stderr sbx-run -s "$N" ps
	[ "$(stub_argv 1 | argv_unmarked | tr '\n' ' ')" = "exec -e API_KEY $N -- docker $PIN ps " ]
	stub_env 1 | grep -q '^API_KEY=s3cr3t$'
	! stub_env 1 | grep -q '^DOCKER_HOST='
	! grep -q s3cr3t "$SBX_STUB_DIR/calls.log"
	[[ "$stderr" == *"DOCKER_HOST: docker and compose variables are never passed"* ]]
}

@test "sbx-run: passthrough forwards every name but the host set and docker names" {
	stub_sandbox "$N"
	run -0 hostile-env PATH="$PATH" HOME="$HOME" SBX_STUB_DIR="$SBX_STUB_DIR" \
	    DOCKER_SANDBOX_SBX="$DOCKER_SANDBOX_SBX" \
	    DOCKER_SANDBOX_ENV_PASSTHROUGH=1 FOO=1 BAR=2 FOO=3 docker_host=x \
	    LC_ALL=C -- "$TOP/sbx-run/sbx-run" -s "$N" ps
	[ "$(stub_argv 1 | argv_unmarked | tr '\n' ' ')" = "exec -e FOO -e BAR $N -- docker $PIN ps " ]
	stub_env 1 | grep -q '^FOO=1$'
}

@test "sbx-run: docker global options that redirect the daemon are refused" {
	stub_sandbox "$N"
	for args in "-H tcp://x ps" "--host=tcp://x ps" "--host tcp://x ps" \
	    "-c other ps" "--context=other ps" "--context other ps" \
	    "--config /tmp/c ps" "--config=/tmp/c ps" "--tls ps" \
	    "--tlsverify ps" "--tlscacert=/c ps" "-DH tcp://x ps" \
	    "-Htcp://x ps" "-l debug -H x ps" "-D --context x ps" \
	    "compose -H tcp://x up" "compose --context x up" \
	    "compose -f c.yml --host=x up" "compose --tlsverify up"; do
		# shellcheck disable=SC2086
		run -64 --separate-stderr sbx-run -s "$N" -- $args
		[[ "$stderr" == *"would leave the sandbox's daemon; refused" ]] ||
		    fail "$args: $stderr"
	done
	[ "$(stub_count)" -eq 0 ]
	# the same letters after the subcommand are the subcommand's own
	run -0 sbx-run -s "$N" run -c 512 -h myhost busybox:local true
	run -0 sbx-run -s "$N" -- -l debug ps --host-ignored
	run -0 sbx-run -s "$N" compose -f c.yml -p proj up -d
	[ "$(stub_count)" -eq 3 ]
	# -x is not docker: nothing to refuse
	run -0 sbx-run -x -s "$N" sh -c 'echo -H'
}

@test "sbx-run: provisions a missing sandbox: exec, create, exec (create confirms it)" {
	run -0 --separate-stderr sbx-run -s "$N" ps
	[ "$(stub_count)" -eq 3 ]
	[ "$(stub_argv 1 | argv_unmarked | tr '\n' ' ')" = "exec $N -- docker $PIN ps " ]
	[ "$(stub_argv 2 | argv_unmarked | tr '\n' ' ')" = "create --quiet --name $N --cpus 2 --memory 2g shell $WS " ]
	[ "$(stub_argv 3 | argv_unmarked | tr '\n' ' ')" = "exec $N -- docker $PIN ps " ]
	grep -q '^state=ready$' "$SBX_STATE_DIR/$N.created"
	# sbx's "no sandbox" never reaches the user; the marker is written
	[[ "$stderr" != *"not found"* ]]
	grep -q "^workspace=$WS\$" "$SBX_STATE_DIR/$N.created"
	grep -q '^mode=rw$' "$SBX_STATE_DIR/$N.created"
	grep -Eq '^created=[0-9]+$' "$SBX_STATE_DIR/$N.created"
	[ "$(stat -c %a "$SBX_STATE_DIR")" = 700 ]
	[ "$(stat -c %a "$SBX_STATE_DIR/$N.created")" = 600 ]
}

@test "sbx-run: provisioning honours cpus, memory (clamped to 1g) and template" {
	for case in "512m 1g" "4g 4g" "4 4g" "1.5g 1536m" "3000m 3000m" \
	    "0.5g 1g" "2048M 2g" "1024m 1g"; do
		set -- $case
		rm -rf "$SBX_STUB_DIR" "$SBX_STATE_DIR"
		DOCKER_SANDBOX_MEMORY=$1 DOCKER_SANDBOX_CPUS=4 \
		    DOCKER_SANDBOX_TEMPLATE=docker.io/library/tpl:v1 \
		    run -0 sbx-run -s "$N" ps
		[ "$(stub_argv 2 | argv_unmarked | tr '\n' ' ')" = "create --quiet --name $N --cpus 4 --memory $2 --template docker.io/library/tpl:v1 shell $WS " ] ||
		    fail "memory $1: $(stub_argv 2 | tr '\n' ' ')"
	done
}

@test "sbx-run: bad provisioning settings are usage errors naming the variable" {
	for setting in DOCKER_SANDBOX_MEMORY=lots DOCKER_SANDBOX_MEMORY=2t \
	    DOCKER_SANDBOX_MEMORY=99999999999g DOCKER_SANDBOX_CPUS=-1 \
	    DOCKER_SANDBOX_CPUS=two DOCKER_SANDBOX_TEMPLATE=--privileged \
	    "DOCKER_SANDBOX_TEMPLATE=a b" DOCKER_SANDBOX_WORKSPACE_RO=perhaps \
	    DOCKER_SANDBOX_AUTOCREATE=2 DOCKER_SANDBOX_TIMEOUT=soon; do
		rm -rf "$SBX_STUB_DIR"
		run -64 --separate-stderr env "$setting" "$TOP/sbx-run/sbx-run" -s "$N" ps
		[[ "$stderr" == "sbx-run: ${setting%%=*}: "* ]] ||
		    fail "$setting: $stderr"
		! grep -q '^create' "$SBX_STUB_DIR/calls.log" 2>/dev/null
	done
}

@test "sbx-run: read-only mode mounts a scratch primary and the project :ro" {
	DOCKER_SANDBOX_WORKSPACE_RO=true run -0 sbx-run -s "$N" ps
	[ "$(stub_argv 2 | argv_unmarked | tr '\n' ' ')" = "create --quiet --name $N --cpus 2 --memory 2g shell $SBX_STATE_DIR/$N.prime $WS:ro " ]
	[ -d "$SBX_STATE_DIR/$N.prime" ]
	[ "$(stat -c %a "$SBX_STATE_DIR/$N.prime")" = 700 ]
	grep -q '^mode=ro$' "$SBX_STATE_DIR/$N.created"
}

@test "sbx-run: a failed create says so, leaves no marker or scratch dir" {
	echo 1 >"$SBX_STUB_DIR/rc.create"
	echo "ERROR: global network policy has not been initialized" >"$SBX_STUB_DIR/err.create"
	DOCKER_SANDBOX_WORKSPACE_RO=1 run -1 --separate-stderr sbx-run -s "$N" ps
	[[ "$stderr" == *"ERROR: global network policy has not been initialized"* ]]
	[[ "$stderr" == *"sbx-run: sandbox $N: sbx create failed (exit 1)" ]]
	[ ! -e "$SBX_STATE_DIR/$N.created" ]
	[ ! -e "$SBX_STATE_DIR/$N.prime" ]
	[ "$(stub_count exec)" -eq 1 ]
}

@test "sbx-run: a failed create the listing cannot explain keeps its intent marker" {
	echo 1 >"$SBX_STUB_DIR/rc.create"
	echo 1 >"$SBX_STUB_DIR/rc.ls"
	run -1 --separate-stderr sbx-run -s "$N" ps
	[ "$stderr" = "sbx-run: sbx ls --json failed (exit 1)" ]
	grep -q '^state=creating$' "$SBX_STATE_DIR/$N.created"
	rm "$SBX_STUB_DIR/rc.ls"
	echo 'not json at all' >"$SBX_STUB_DIR/out.ls"
	run -1 --separate-stderr sbx-run -s "$N" ps
	[ "$stderr" = "sbx-run: sbx ls --json: no JSON in the output" ]
	# listed after a failed create that did not say "already exists":
	# half made, so the intent stays for the teardown
	printf 'Starting sandboxd daemon...\n{"sandboxes":[{"name":"%s"}]}\n' "$N" >"$SBX_STUB_DIR/out.ls"
	rm "$SBX_STATE_DIR/$N.created"
	run -1 --separate-stderr sbx-run -s "$N" ps
	[[ "$stderr" == *"sbx-run: sandbox $N: sbx create failed (exit 1)" ]]
	grep -q '^state=creating$' "$SBX_STATE_DIR/$N.created"
}

@test "sbx-run: DOCKER_SANDBOX_AUTOCREATE=0 prints the create line to run instead, and exits 68" {
	DOCKER_SANDBOX_AUTOCREATE=no run -68 --separate-stderr sbx-run -s "$N" ps
	[ "${stderr_lines[0]}" = "sbx-run: sandbox $N does not exist and DOCKER_SANDBOX_AUTOCREATE is off; create it with:" ]
	[ "${stderr_lines[1]}" = "  sbx create --name $N --cpus 2 --memory 2g shell $WS" ]
	# exec, then the listing that confirms the sandbox is missing
	[ "$(stub_count)" -eq 2 ]
	[ "$(stub_count create)" -eq 0 ]
}

@test "sbx-run: refuses to mount /, \$HOME or above it, or a path sbx would misread" {
	cd "$HOME"
	run -1 --separate-stderr sbx-run -s "$N" ps
	[[ "$stderr" == "sbx-run: workspace $HOME is / or your home directory or above it; refusing it"* ]] ||
	    [[ "$stderr" == *"refusing to mount it"* ]]
	for w in / "$HOME/.." "$HOME/../"; do
		run -1 --separate-stderr sbx-run -w "$w" -s "$N" ps
		[[ "$stderr" == *"refusing to mount it (use -w)" ]] || fail "$w: $stderr"
	done
	ln -s "$HOME" "$BATS_TEST_TMPDIR/homelink"
	run -1 sbx-run -w "$BATS_TEST_TMPDIR/homelink" -s "$N" ps
	mkdir "$BATS_TEST_TMPDIR/proj:ro"
	run -1 --separate-stderr sbx-run -w "$BATS_TEST_TMPDIR/proj:ro" -s "$N" ps
	[[ "$stderr" == *"holds ':' or a control character"* ]]
	[ "$(stub_count create)" -eq 0 ]
	# a project inside $HOME is fine
	mkdir "$HOME/proj"
	run -0 sbx-run -w "$HOME/proj" -s "$N" ps
	[ "$(stub_argv "$(stub_count)" | head -1)" = exec ]
	[ "$(stub_count create)" -eq 1 ]
}

@test "sbx-run: two concurrent calls on a missing sandbox create it once" {
	echo 1 >"$SBX_STUB_DIR/delay.create"
	sbx-run -s "$N" ps >"$BATS_TEST_TMPDIR/a" 2>&1 &
	a=$!
	sbx-run -s "$N" ps >"$BATS_TEST_TMPDIR/b" 2>&1 &
	b=$!
	wait "$a"
	wait "$b"
	[ "$(stub_count create)" -eq 1 ]
	[ "$(stub_count exec)" -eq 4 ]
}

@test "sbx-run: in the steady state each call is exactly one sbx invocation" {
	run -0 sbx-run -s "$N" ps
	base=$(stub_count)
	for i in 1 2 3 4 5; do
		run -0 sbx-run -s "$N" images
	done
	[ $(( $(stub_count) - base )) -eq 5 ]
	[ "$(stub_count ls)" -eq 0 ]
}

@test "sbx-run: a stale marker does not matter: a vanished sandbox is made again" {
	run -0 sbx-run -s "$N" ps
	rm "$SBX_STUB_DIR/sandboxes/$N"
	run -0 sbx-run -s "$N" ps
	[ "$(stub_count create)" -eq 2 ]
}

@test "sbx-run: a hung sbx is killed with its process group at the timeout: 124" {
	stub_sandbox "$N"
	touch "$SBX_STUB_DIR/hang.exec"
	start=$(date +%s)
	run -124 --separate-stderr sbx-run -t 1 -s "$N" ps
	[ $(( $(date +%s) - start )) -lt 6 ]
	# the stand-in's hung exec never ran its command: nothing to end inside
	[ "$stderr" = "sbx-run: sandbox $N: timed out after 1 s; nothing it started was found inside (it had not begun there, or could not be marked)" ]
	[ "$(stub_count exec)" -eq 2 ]	# the hung exec, and the one that ends it
	sleep 0.2
	none_survived
	# DOCKER_SANDBOX_TIMEOUT sets the same
	: >"$SBX_STUB_DIR/hung.pids"
	DOCKER_SANDBOX_TIMEOUT=1 run -124 sbx-run -s "$N" ps
	none_survived
}

@test "sbx-run: SIGTERM to sbx-run reaches the whole sbx process group" {
	stub_sandbox "$N"
	touch "$SBX_STUB_DIR/hang.exec"
	sbx-run -s "$N" ps &
	pid=$!
	hung_started
	kill -TERM "$pid"
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 143 ]
	sleep 0.2
	none_survived
}

@test "sbx-run: a group that ignores the forwarded SIGTERM gets SIGKILL after a grace" {
	stub_sandbox "$N"
	echo ignore-term >"$SBX_STUB_DIR/hang.exec"
	sbx-run -s "$N" ps &
	pid=$!
	hung_started
	kill -TERM "$pid"
	start=$(date +%s)
	status=0
	wait "$pid" || status=$?
	[ $(( $(date +%s) - start )) -le 4 ]
	[ "$status" -eq 137 ]
	sleep 0.2
	none_survived
}

@test "sbx-run: the inner exit status comes back unchanged" {
	stub_sandbox "$N"
	for rc in 0 1 2 7 125 126 127 255; do
		echo "$rc" >"$SBX_STUB_DIR/rc.exec"
		rm -f "$SBX_STUB_DIR/rcused.exec"
		run sbx-run -s "$N" ps
		[ "$status" -eq "$rc" ] || fail "wanted $rc, got $status"
	done
	export SBX_STUB_EXEC_RUN=1
	run -42 sbx-run -x -s "$N" sh -c 'exit 42'
	run -137 sbx-run -x -s "$N" sh -c 'kill -9 $$'
	run -143 sbx-run -x -s "$N" sh -c 'kill -TERM $$'
}

@test "sbx-run: stdout and stderr of the sandbox pass through unchanged" {
	stub_sandbox "$N"
	printf 'line one\nline two\n' >"$SBX_STUB_DIR/out.exec"
	printf 'warning: something\n' >"$SBX_STUB_DIR/err.exec"
	run -0 --separate-stderr sbx-run -s "$N" ps
	[ "$output" = "$(printf 'line one\nline two')" ]
	[ "$stderr" = "warning: something" ]
}

@test "sbx-run: sbx not found is 127, not executable 126, a relative path 64" {
	stub_sandbox "$N"
	DOCKER_SANDBOX_SBX=/no/such/sbx run -127 --separate-stderr sbx-run -s "$N" ps
	[ "$stderr" = "sbx-run: /no/such/sbx: No such file or directory" ]
	printf 'x\n' >"$BATS_TEST_TMPDIR/sbx"
	DOCKER_SANDBOX_SBX="$BATS_TEST_TMPDIR/sbx" run -126 sbx-run -s "$N" ps
	DOCKER_SANDBOX_SBX=bin/sbx run -64 --separate-stderr sbx-run -s "$N" ps
	[ "$stderr" = "sbx-run: DOCKER_SANDBOX_SBX: not an absolute path" ]
	unset DOCKER_SANDBOX_SBX
	PATH=/usr/bin:/bin run -127 --separate-stderr "$TOP/sbx-run/sbx-run" -s "$N" ps
	[[ "$stderr" == "sbx-run: sbx: not found"* ]]
	# found on PATH
	PATH="$TOP/test/bin:/usr/bin:/bin" run -0 "$TOP/sbx-run/sbx-run" -s "$N" ps
	[ "$(stub_count)" -eq 1 ]
}

@test "sbx-run: a symlinked or group-writable state directory stops provisioning" {
	mkdir "$BATS_TEST_TMPDIR/real"
	chmod 700 "$BATS_TEST_TMPDIR/real"
	ln -s "$BATS_TEST_TMPDIR/real" "$SBX_STATE_DIR"
	run -1 --separate-stderr sbx-run -s "$N" ps
	[ "$stderr" = "sbx-run: state directory $SBX_STATE_DIR: is a symbolic link, refusing it" ]
	rm "$SBX_STATE_DIR"
	mkdir "$SBX_STATE_DIR"
	chmod 770 "$SBX_STATE_DIR"
	run -1 --separate-stderr sbx-run -s "$N" ps
	[ "$stderr" = "sbx-run: state directory $SBX_STATE_DIR: writable by group or others (mode 770), refusing it" ]
	[ "$(stub_count create)" -eq 0 ]
}

@test "sbx-run: the state directory defaults under XDG_STATE_HOME, then HOME" {
	unset SBX_STATE_DIR
	run -0 sbx-run -s "$N" ps
	[ -f "$HOME/.local/state/sbx-tools/$N.created" ]
	rm -rf "$SBX_STUB_DIR/sandboxes"
	XDG_STATE_HOME="$BATS_TEST_TMPDIR/xdg" run -0 sbx-run -s "$N" ps
	[ -f "$BATS_TEST_TMPDIR/xdg/sbx-tools/$N.created" ]
}
