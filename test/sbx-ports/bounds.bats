#!/usr/bin/env bats
# Host ports under attack (issue 18 finding 11): sync publishes what the
# VM's docker ps claims, and the VM is the agent's.  Must hold: at most
# DOCKER_SANDBOX_PORTS_MAX host ports per sandbox, no port below 1024 or
# in the host's ephemeral range at its own number, ranges bounded, and a
# refusal naming what was not published; garbage from a replaced docker
# CLI publishes nothing.  Against the recording stand-in; the simulator
# case is in verbs.bats.

load ../helpers/helper

N=pi-sbx-1-attackpt

setup() {
	common_setup
	export PATH="$TOP/sbx-ports:$PATH"
	export DOCKER_SANDBOX=$N
	stub_sandbox "$N"
	mkdir -m 0700 -p "$SBX_STATE_DIR"
}

# The specs of the last publish call, one a line.
published() {
	grep '^port publish ' "$SBX_STUB_DIR/calls.log" | tail -n 1 |
	    cut -d' ' -f4- | tr ' ' '\n' | grep .
}

# docker ps lines of one container per argument (its Ports text).
ps_says() {
	: >"$SBX_STUB_DIR/out.exec"
	for p in "$@"; do
		printf '{"ID":"c%s","Names":"n","Ports":"%s"}\n' "$RANDOM" "$p" >>"$SBX_STUB_DIR/out.exec"
	done
}

@test "ports bound class: -p 20000-20999:20000-20999 takes 64 host ports and names the other 936" {
	ps_says "0.0.0.0:20000-20999->20000-20999/tcp, :::20000-20999->20000-20999/tcp"
	run -1 --separate-stderr sbx-ports sync
	[ "${#lines[@]}" -eq 64 ]
	[ "$(published | wc -l)" -eq 64 ]
	[ "$(published | head -n 1)" = "127.0.0.1:20000:20000/tcp4" ]
	[ "$(published | tail -n 1)" = "127.0.0.1:20063:20063/tcp4" ]
	[ "$stderr" = "sbx-ports: sandbox $N: not published (a sandbox holds at most 64 host ports: DOCKER_SANDBOX_PORTS_MAX): 20064-20999/tcp" ]
	# sbx lists them now: the next sync publishes nothing more, says it again
	published | awk -F'[:/]' '{ printf "%s{\"host_ip\":\"127.0.0.1\",\"host_port\":%s,\"sandbox_port\":%s,\"protocol\":\"tcp4\"}", (NR > 1 ? "," : "["), $2, $3 } END { print "]" }' >"$SBX_STUB_DIR/out.port"
	n=$(stub_count)
	run -1 --separate-stderr sbx-ports sync
	[ "$(stub_count)" -eq $((n + 2)) ]
	[[ $stderr == *": 20064-20999/tcp" ]]
	# and nothing it published is taken away for being over the bound
	[ "$(stub_count port)" -eq 3 ]
}

@test "ports bound class: twenty ranges in one line, fast, bounded, the refusal merged and cut short" {
	local ranges='' i
	for i in $(seq 0 19); do
		ranges+="${ranges:+, }0.0.0.0:$((20000 + i * 1000))-$((20999 + i * 1000))->$((20000 + i * 1000))-$((20999 + i * 1000))/tcp"
	done
	ranges+=", 0.0.0.0:30000-30100->30000-30100/udp"
	ps_says "$ranges"
	start=$(date +%s%N)
	run -1 --separate-stderr sbx-ports sync
	ms=$((($(date +%s%N) - start) / 1000000))
	echo "# twenty ranges: ${ms} ms" >&3
	[ "$ms" -lt 5000 ]
	[ "$(published | wc -l)" -eq 64 ]
	[[ $stderr == *"): 20064-39999/tcp, 30000-30100/udp" ]]
	# a range wider than 1024 is never expanded, and named whole
	ps_says "0.0.0.0:1-65535->1-65535/tcp"
	run -1 --separate-stderr sbx-ports sync
	! grep -q '^port publish .*:1:1/' "$SBX_STUB_DIR/calls.log"
	[[ $stderr == *"): 1-65535/tcp" ]]
}

@test "ports bound class: DOCKER_SANDBOX_PORTS_MAX counts every listed mapping, hand-made ones too; 0 publishes none" {
	ps_says "0.0.0.0:18601->18601/tcp" "0.0.0.0:18602->18602/tcp" "0.0.0.0:18603->18603/tcp"
	echo '[{"host_ip":"127.0.0.1","host_port":3000,"sandbox_port":3000,"protocol":"tcp"}]' >"$SBX_STUB_DIR/out.port"
	DOCKER_SANDBOX_PORTS_MAX=3 run -1 --separate-stderr sbx-ports sync
	[ "$(published | tr '\n' ' ')" = "127.0.0.1:18601:18601/tcp4 127.0.0.1:18602:18602/tcp4 " ]
	[[ $stderr == *"at most 3 host ports"*"): 18603/tcp" ]]
	n=$(stub_count)
	DOCKER_SANDBOX_PORTS_MAX=0 run -1 --separate-stderr sbx-ports sync
	! tail -n +$((n + 1)) "$SBX_STUB_DIR/calls.log" | grep -q '^port publish'
	[[ $stderr == *"): 18601-18603/tcp" ]]
	# publish is bound the same way
	DOCKER_SANDBOX_PORTS_MAX=2 run -1 --separate-stderr sbx-ports publish 18611 18612 18613/udp
	[ "$(published | tr '\n' ' ')" = "127.0.0.1:18611:18611/tcp4 " ]
	[[ $stderr == *"at most 2 host ports"*"): 18612/tcp, 18613/udp" ]]
	run -0 sbx-env -c
	[[ $output == *"DOCKER_SANDBOX_PORTS_MAX=64"* ]]
}

@test "ports number class: below 1024 and in the host's ephemeral range never at their own number" {
	read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
	in=$((lo + 7)) edge=$hi below=$((lo - 1))
	ps_says "0.0.0.0:22->22/tcp" "0.0.0.0:443->443/tcp" "0.0.0.0:$in->80/tcp" "0.0.0.0:$edge->80/udp" "0.0.0.0:$below->1/tcp"
	run -0 --separate-stderr sbx-ports -j sync
	[ "${#lines[@]}" -eq 5 ]
	while read -r spec; do
		h=${spec#*:} h=${h%%:*} v=${spec##*:} v=${v%%/*}
		[ "$h" != "$v" ] || [ "$v" -eq "$below" ] || fail "own number: $spec"
		[ "$h" -ge 1024 ] || fail "below 1024: $spec"
	done < <(published)
	published | grep -qx "127.0.0.1:$below:$below/tcp4"
	[[ $output == *"\"sandbox_port\":$in,\"protocol\":\"tcp4\",\"ephemeral\":true,\"reason\":\"sandbox port in the host's ephemeral range\""* ]]
	[[ $output == *"\"sandbox_port\":22,\"protocol\":\"tcp4\",\"ephemeral\":true,\"reason\":\"sandbox port below 1024\""* ]]
}

# sbx-ports with the kernel's range file replaced by $1's text (root,
# util-linux): the range as another host, or none, would have it.
with_range() {
	local text=$1
	shift
	printf '%s' "$text" >"$BATS_TEST_TMPDIR/range"
	unshare -m sh -c 'mount --bind "$1" /proc/sys/net/ipv4/ip_local_port_range && shift && exec "$@"' \
	    sh "$BATS_TEST_TMPDIR/range" "$@"
}

@test "ports number class: the host's range as read, and the documented fallback 49152-65535 when it cannot be read" {
	[ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null ||
	    skip_unless_ci "needs root and unshare to replace the kernel's range file"
	ps_says "0.0.0.0:20500->80/tcp" "0.0.0.0:50000->80/tcp" "0.0.0.0:62000->80/tcp"
	# another range: 20000-20999
	run -0 --separate-stderr with_range "20000 20999" sbx-ports sync
	! published | grep -qx '127.0.0.1:20500:20500/tcp4'
	published | grep -qx '127.0.0.1:50000:50000/tcp4'
	published | grep -qx '127.0.0.1:62000:62000/tcp4'
	# unreadable, garbage, reversed, out of range: the fallback, on Linux too
	for text in "" "garbage" "60000 50000" "0 70000"; do
		run -0 --separate-stderr with_range "$text" sbx-ports sync
		! published | grep -qx '127.0.0.1:50000:50000/tcp4' || fail "'$text': 50000 at its own number"
		! published | grep -qx '127.0.0.1:62000:62000/tcp4' || fail "'$text': 62000 at its own number"
		published | grep -qx '127.0.0.1:20500:20500/tcp4' || fail "'$text': 20500 not at its own number"
	done
}

@test "ports input class: a replaced docker CLI's garbage, huge numbers and odd bytes publish nothing" {
	for bad in 'not json at all' '{"Ports":"0.0.0.0:99999999999999999999->80/tcp"}' \
	    '{"Ports":"0.0.0.0:65536->80/tcp"}' '{"Ports":"0.0.0.0:0->80/tcp"}' \
	    '{"Ports":"0.0.0.0:-5->80/tcp"}' '{"Ports":"0.0.0.0:80->80/tcp\u0000, 1.1.1.1:9->9/tcp"}' \
	    "$(printf '\x9b\xff\xfe')" '{"Ports":"0.0.0.0:20-10->20-10/tcp"}' \
	    '{"Ports":"0.0.0.0:20000-20005->80/tcp"}' '[{"Ports":["x"]}]'; do
		printf '%s\n' "$bad" >"$SBX_STUB_DIR/out.exec"
		run -1 --separate-stderr sbx-ports sync
		[ -z "$output" ] || fail "$bad: printed $output"
		! grep -q '^port publish' "$SBX_STUB_DIR/calls.log" || fail "$bad: published"
		[[ $stderr == "sbx-ports: sandbox $N: docker ps: "* ]] || fail "$bad: $stderr"
	done
}

@test "ports input class: duplicate rows once, option-like text never reaches sbx's argv" {
	: >"$SBX_STUB_DIR/out.exec"
	for _ in $(seq 200); do
		echo '{"ID":"d","Names":"--publish=0.0.0.0:22:22","Ports":"0.0.0.0:18620->18620/tcp, [::]:18620->18620/tcp, 0.0.0.0:18620->18620/tcp"}' >>"$SBX_STUB_DIR/out.exec"
	done
	echo '{"ID":"--unpublish","Names":"-p","Ports":"--publish=0.0.0.0:18621->18621/tcp"}' >>"$SBX_STUB_DIR/out.exec"
	run -0 --separate-stderr sbx-ports -j sync
	[ "${#lines[@]}" -eq 2 ]
	[ "$(published | tr '\n' ' ')" = "127.0.0.1:18620:18620/tcp4 127.0.0.1:18621:18621/tcp4 " ]
	# every word sbx was given is ours: verbs, the name, and built specs
	while IFS= read -r -d '' w; do
		# sbx-run's mark of its exec (lib/stampsh.c): the prologue, its
		# name and the 16 hex of the mark
		[[ $w =~ ^[0-9a-f]{16}$ ]] && continue
		case $w in
		sh | -c | 'm=$1;shift;'* | sbx-run) ;;
		port | publish | ls | --json | --no-input | exec | -- | "$N" | 127.0.0.1:*:*/tcp4) ;;
		docker | -H | unix:///var/run/docker.sock | ps | --format | '{{json .}}') ;;
		*) fail "sbx was given '$w'" ;;
		esac
	done < <(cat "$SBX_STUB_DIR"/calls/*.argv)
	[[ ${lines[0]} == *'"container_id":"d","container":"--publish=0.0.0.0:22:22"}' ]]
}

@test "stopped class: a listing refused with 409 starts the sandbox with one exec and asks again" {
	printf '1\n0\n' >"$SBX_STUB_DIR/rc.port"
	echo 'ERROR: request failed: 409 Conflict: sandbox is not running' >"$SBX_STUB_DIR/err.port"
	echo '[{"host_ip":"127.0.0.1","host_port":3000,"sandbox_port":3000,"protocol":"tcp4"}]' >"$SBX_STUB_DIR/out.port"
	run -0 --separate-stderr sbx-ports ls
	[ "$output" = "http://127.0.0.1:3000/ -> 3000/tcp4" ]
	[ "$(stub_count)" -eq 3 ]
	[ "$(stub_argv 2 | tr '\n' ' ')" = "exec $N -- true " ]
	# refused again after the start: exit 1, sbx's words shown, once only
	printf '1\n' >"$SBX_STUB_DIR/rc.port"
	rm -f "$SBX_STUB_DIR/rcused.port"
	n=$(stub_count)
	run -1 --separate-stderr sbx-ports ls
	[[ $stderr == *"409 Conflict"* ]]
	# ls, exec, ls, and the version of an answer no reader placed
	[ "$(stub_count)" -eq $((n + 4)) ]
	[ "$(stub_argv $((n + 4)) | tr '\n' ' ')" = "version " ]
	# another failure starts nothing
	echo 'ERROR: boom' >"$SBX_STUB_DIR/err.port"
	n=$(stub_count)
	run -1 sbx-ports ls
	[ "$(stub_count exec)" -eq 2 ]
}

# hold_ports SECONDS: hold this sandbox's byte of .ports.lock, as another
# sbx-ports changing its ports does.
hold_ports() {
	rm -f "$SBX_STATE_DIR/.ports.lock.held"
	hold_name_lock .ports.lock "$N" "$1"
}

@test "ports concurrency class: a verb that changes ports waits for the sandbox's lock, and says who holds it when it waited five call timeouts" {
	ps_says "0.0.0.0:18701->18701/tcp"
	hold_ports 30
	start=$(date +%s)
	DOCKER_SANDBOX_TIMEOUT=1 run -75 --separate-stderr sbx-ports sync
	s=$(($(date +%s) - start))
	[ "$s" -ge 4 ] && [ "$s" -le 10 ] || fail "waited $s s"
	[ "$stderr" = "sbx-ports: sandbox $N: its ports are being changed by process $HOLDER, still after 5 s ($SBX_STATE_DIR/.ports.lock)" ]
	# nothing read, nothing published while it waited
	[ "$(stub_count)" -eq 0 ]
	DOCKER_SANDBOX_TIMEOUT=1 run -75 sbx-ports publish 18702
	DOCKER_SANDBOX_TIMEOUT=1 run -75 sbx-ports unpublish 18702
	# ls changes nothing and does not wait
	run -0 sbx-ports ls
	# once the holder is gone, the sync goes on at once
	kill "$HOLDER"
	wait "$HOLDER" || true
	run -0 sbx-ports sync
	[ "$(published)" = "127.0.0.1:18701:18701/tcp4" ]
	# another sandbox's byte is another lock
	hold_ports 30
	stub_sandbox pi-sbx-1-otherpt
	DOCKER_SANDBOX_TIMEOUT=1 run -0 sbx-ports -s pi-sbx-1-otherpt sync
	kill "$HOLDER"
}

@test "ports concurrency class: a .ports.lock that is a link, a fifo or not the user's is refused, nothing published" {
	ps_says "0.0.0.0:18703->18703/tcp"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$SBX_STATE_DIR/.ports.lock"
	run -1 --separate-stderr sbx-ports sync
	[[ $stderr == "sbx-ports: $SBX_STATE_DIR/.ports.lock: "* ]] || fail "$stderr"
	[ ! -e "$BATS_TEST_TMPDIR/elsewhere" ]
	[ "$(stub_count)" -eq 0 ]
	rm "$SBX_STATE_DIR/.ports.lock"
	mkfifo "$SBX_STATE_DIR/.ports.lock"
	run -1 --separate-stderr timeout 10 sbx-ports sync
	[ "$(stub_count)" -eq 0 ]
	rm "$SBX_STATE_DIR/.ports.lock"
	: >"$SBX_STATE_DIR/.ports.lock"
	chmod 0600 "$SBX_STATE_DIR/.ports.lock"
	chown 65534 "$SBX_STATE_DIR/.ports.lock"
	run -1 --separate-stderr sbx-ports sync
	[[ $stderr == "sbx-ports: $SBX_STATE_DIR/.ports.lock: "* ]] || fail "$stderr"
	[ "$(stub_count)" -eq 0 ]
}
