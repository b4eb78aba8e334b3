#!/usr/bin/env bats
# sbx-ports -j: the schema sbx-ports(1) documents under JSON OUTPUT
# (exact members, in order, nothing else on stdout), the container of each
# mapping after sync, and status 68 for a sandbox that does not exist.

load ../helpers/helper

N=pi-sbx-1-ports002

setup() {
	common_setup
	export PATH="$TOP/sbx-ports:$PATH"
	export DOCKER_SANDBOX=$N
	stub_sandbox "$N"
}

# The member names of each JSON line of $output, one line each.
keys_of() {
	printf '%s\n' "$output" | python3 -c '
import json, sys
for l in sys.stdin:
    if l.strip():
        print(" ".join(json.loads(l)))'
}

@test "ports json: sync says which container each mapping is for" {
	cat >"$SBX_STUB_DIR/out.exec" <<-'EOF'
	{"ID":"c0ffee000001","Names":"web","Ports":"0.0.0.0:18451->8000/tcp, :::18451->8000/tcp","State":"running"}
	{"ID":"c0ffee000002","Names":"proj-dns-1","Ports":"0.0.0.0:18452->53/udp, 9000/tcp","State":"running"}
	{"ID":"c0ffee000003","Names":"plain","Ports":"","State":"running"}
	EOF
	run -0 --separate-stderr sbx-ports -j sync
	[ "${lines[0]}" = '{"url":"http://127.0.0.1:18451/","host_ip":"127.0.0.1","host_port":18451,"sandbox_port":18451,"protocol":"tcp4","ephemeral":false,"container_id":"c0ffee000001","container":"web"}' ]
	[ "${lines[1]}" = '{"url":"udp://127.0.0.1:18452","host_ip":"127.0.0.1","host_port":18452,"sandbox_port":18452,"protocol":"udp4","ephemeral":false,"container_id":"c0ffee000002","container":"proj-dns-1"}' ]
	[ "${#lines[@]}" -eq 2 ]
	# listed already: the second sync still names the containers
	echo '[{"host_ip":"127.0.0.1","host_port":18451,"sandbox_port":18451,"protocol":"tcp"},{"host_ip":"127.0.0.1","host_port":18452,"sandbox_port":18452,"protocol":"udp"}]' >"$SBX_STUB_DIR/out.port"
	run -0 --separate-stderr sbx-ports -j sync
	[ "${lines[0]}" = '{"url":"http://127.0.0.1:18451/","host_ip":"127.0.0.1","host_port":18451,"sandbox_port":18451,"protocol":"tcp","container_id":"c0ffee000001","container":"web"}' ]
	[[ "${lines[1]}" == *'"container_id":"c0ffee000002","container":"proj-dns-1"}' ]]
}

@test "ports json: schema class: every line has the documented members, in order, and no other" {
	local order='url host_ip host_port sandbox_port protocol ephemeral reason loopback container_id container'
	cat >"$SBX_STUB_DIR/out.exec" <<-'EOF'
	{"ID":"c0ffee000001","Names":"low","Ports":"[::]:80->80/tcp","State":"running"}
	{"ID":"c0ffee000002","Names":"web","Ports":"0.0.0.0:18453->8000/tcp","State":"running"}
	EOF
	echo '[{"host_ip":"0.0.0.0","host_port":18453,"sandbox_port":18453,"protocol":"tcp"}]' >"$SBX_STUB_DIR/out.port"
	for verb in ls "publish 18454 80/udp" sync; do
		# shellcheck disable=SC2086 # the words are the verb and its specs
		run -0 --separate-stderr sbx-ports -j $verb
		[ -n "$output" ]
		while read -r ks; do
			# the members are a subsequence of the documented order
			rest=" $order "
			for k in $ks; do
				[[ "$rest" == *" $k "* ]] || fail "$verb: member $k unknown or out of order: $ks"
				rest=${rest#* "$k" }
				rest=" $rest"
			done
			[[ " $ks " == *" url host_ip host_port sandbox_port protocol "* ]] ||
			    fail "$verb: required members missing: $ks"
		done < <(keys_of)
	done
	# ls knows no containers; sync names them
	run -0 sbx-ports -j ls
	[[ "$output" != *container* ]]
	run -0 sbx-ports -j sync
	[[ "$output" == *'"sandbox_port":80,"protocol":"tcp4","ephemeral":true,"reason":"sandbox port below 1024","container_id":"c0ffee000001","container":"low"}'* ]]
	[[ "$output" == *'"loopback":false,"container_id":"c0ffee000002","container":"web"}'* ]]
}

@test "ports json: a container's ID or Names that is not a short string is an error, not a guess" {
	echo '{"ID":7,"Names":"web","Ports":"0.0.0.0:18455->80/tcp"}' >"$SBX_STUB_DIR/out.exec"
	run -1 --separate-stderr sbx-ports -j sync
	[[ "$stderr" == *"ID or Names is not a string"* ]]
	[ -z "$output" ]
	printf '{"ID":"a","Names":"%s","Ports":"0.0.0.0:18455->80/tcp"}\n' "$(printf 'n%.0s' $(seq 300))" >"$SBX_STUB_DIR/out.exec"
	run -1 --separate-stderr sbx-ports -j sync
	[[ "$stderr" == *"ID or Names is too long"* ]]
}

@test "ports json: missing-sandbox class: both of sbx's wordings, every verb, exit 68" {
	echo 1 >"$SBX_STUB_DIR/rc.port"
	for said in "ERROR: no sandbox named '$N'" "Error: sandbox '$N' not found"; do
		echo "$said" >"$SBX_STUB_DIR/err.port"
		for verb in ls "publish 8080" "unpublish 8080" sync; do
			# shellcheck disable=SC2086
			run -68 --separate-stderr sbx-ports -j $verb
			[[ "$stderr" == *"sbx-ports: sandbox $N does not exist" ]]
			[ -z "$output" ]
		done
	done
	# another failure is still 1
	echo "ERROR: daemon unreachable" >"$SBX_STUB_DIR/err.port"
	run -1 sbx-ports -j ls
}
