#!/usr/bin/env bats
# Signals and orphans under attack: every signal timeout(1) passes on
# reaches the sbx process group, and when sbx-run dies by any signal,
# SIGKILL included, nothing it started survives.  Also the status of a
# wrapper that failed before its command ran (125).

load ../helpers/helper

N=pi-sbx-4242-abcd1234

setup_file() {
	# the portable build: no PR_SET_PDEATHSIG, the guardian alone
	mkdir -p "$BATS_FILE_TMPDIR/portable"
	(cd "$TOP" && ${CC:-cc} -std=c99 -O0 \
	    -D_POSIX_C_SOURCE=200809L -D_XOPEN_SOURCE=700 \
	    -DSBX_VERSION=\"portable\" -DSBX_PORTABLE_ONLY -Ilib \
	    -o "$BATS_FILE_TMPDIR/portable/sbx-run" sbx-run/*.c lib/*.c)
}

setup() {
	common_setup
	stub_sandbox "$N"
	touch "$SBX_STUB_DIR/hang.exec"
	pid=
}

# A failed test must not leave its tree holding the output bats reads.
teardown() {
	local p
	for p in $pid $(cat "$SBX_STUB_DIR/hung.pids" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null || true
	done
}

# Within a second or two (a loaded machine), no process of the hung tree is left, nor any
# other member of its process group (the guardian among them).
none_survived() {
	local p g left i
	g=$(ps -o pgid= -p "$(tail -n 1 "$SBX_STUB_DIR/hung.pids")" | tr -d ' ')
	for i in $(seq 25); do
		left=
		for p in $(cat "$SBX_STUB_DIR/hung.pids"); do
			! alive "$p" || left="$left $p"
		done
		if [ -n "$g" ]; then
			for p in $(ps -eo pid=,pgid=,stat= |
			    awk -v g="$g" '$2 == g && $3 !~ /^Z/ { print $1 }'); do
				left="$left $p"
			done
		fi
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	fail "survived:$left"
}

# Send sig to a hung sbx-run ($1: the program); it exits 128+n and takes
# its whole group along.
signal_ends_all() {
	local prog=$1 sig=$2 n status
	n=$(kill -l "$sig")
	: >"$SBX_STUB_DIR/hung.pids"
	"$prog" -s "$N" ps &
	pid=$!
	hung_started
	kill -s "$sig" "$pid"
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq $((128 + n)) ] || fail "$sig: status $status"
	none_survived
}

@test "signal class: USR1, USR2, ALRM, HUP, TERM, INT, QUIT reach the group, 128+n" {
	for sig in USR1 USR2 ALRM HUP TERM INT QUIT; do
		signal_ends_all sbx-run "$sig"
	done
}

@test "signal class: the portable build passes them on the same way" {
	for sig in USR1 TERM INT; do
		signal_ends_all "$BATS_FILE_TMPDIR/portable/sbx-run" "$sig"
	done
}

@test "orphan class: kill -KILL of sbx-run leaves nothing it started" {
	sbx-run -s "$N" ps &
	pid=$!
	hung_started
	kill -KILL "$pid"
	wait "$pid" || true
	none_survived
}

@test "orphan class: kill -KILL leaves nothing without PR_SET_PDEATHSIG (portable build)" {
	"$BATS_FILE_TMPDIR/portable/sbx-run" -s "$N" ps &
	pid=$!
	hung_started
	kill -KILL "$pid"
	wait "$pid" || true
	none_survived
}

@test "orphan class: kill -KILL of an -x command's wrapper leaves its own children neither" {
	export SBX_STUB_EXEC_RUN=1
	rm "$SBX_STUB_DIR/hang.exec"
	for prog in sbx-run "$BATS_FILE_TMPDIR/portable/sbx-run"; do
		: >"$SBX_STUB_DIR/hung.pids"
		"$prog" -x -s "$N" sh -c \
		    'sleep 1000 & echo $! >>"$SBX_STUB_DIR/hung.pids"; echo $$ >>"$SBX_STUB_DIR/hung.pids"; wait' &
		pid=$!
		hung_started
		kill -KILL "$pid"
		wait "$pid" || true
		none_survived
	done
}

@test "signal class: a stop and a continue are passed on, and the run goes on" {
	sbx-run -s "$N" ps &
	pid=$!
	hung_started
	sh_pid=$(tail -n 1 "$SBX_STUB_DIR/hung.pids")
	kill -TSTP "$pid"
	for i in $(seq 30); do
		case $(ps -o stat= -p "$sh_pid")$(ps -o stat= -p "$pid") in
		T*T*) break ;;
		esac
		sleep 0.1
	done
	[[ "$(ps -o stat= -p "$sh_pid")" == T* ]] || fail "the group did not stop"
	[[ "$(ps -o stat= -p "$pid")" == T* ]] || fail "sbx-run did not stop"
	kill -CONT "$pid"
	for i in $(seq 30); do
		[[ "$(ps -o stat= -p "$sh_pid")" != T* ]] && break
		sleep 0.1
	done
	[[ "$(ps -o stat= -p "$sh_pid")" != T* ]] || fail "the group was not continued"
	kill -TERM "$pid"
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 143 ]
	none_survived
}

@test "signal class: a normal run leaves no guardian and costs one sbx call (two when it fails)" {
	rm "$SBX_STUB_DIR/hang.exec"
	# a name of this test alone, to find a guardian left behind
	M=pinsig-$$-$RANDOM
	stub_sandbox "$M"
	echo hello >"$SBX_STUB_DIR/out.exec"
	echo 3 >"$SBX_STUB_DIR/rc.exec"
	run -3 --separate-stderr sbx-run -s "$M" ps
	[ "$output" = hello ]
	# the exec, and one look at what sbx blocked, as the command failed
	[ "$(stub_count)" -eq 2 ]
	[ -z "$(ps -eo args= | grep "[s]bx-run -s $M" || true)" ]
	# nor after a forwarded signal ended the run
	touch "$SBX_STUB_DIR/hang.exec"
	sbx-run -s "$M" ps &
	pid=$!
	hung_started
	kill -TERM "$pid"
	wait "$pid" || true
	none_survived
	[ -z "$(ps -eo args= | grep "[s]bx-run -s $M" || true)" ]
}

@test "exec class: an argv and environment too large for exec exits 125" {
	rm "$SBX_STUB_DIR/hang.exec"
	# each forwarded name costs its bytes twice for the sbx child (in the
	# environment and as -e NAME): enough of them fit sbx-run, not sbx
	long=$(printf 'X%.0s' $(seq 200))
	for i in $(seq 800); do
		export "PASS_${i}_$long=v"
	done
	export DOCKER_SANDBOX_ENV_PASSTHROUGH=1
	run --separate-stderr bash -c 'ulimit -s 1024 && exec sbx-run -s "$1" ps' _ "$N"
	[ "$status" -eq 125 ] || fail "status $status: $stderr"
	[[ "$stderr" == *"Argument list too long"* ]]
	[ "$(stub_count)" -eq 0 ]
}
