#!/usr/bin/env bats
# sbx-ports publish with docker's "IP:host:container" form (issue 11,
# point 12): the message names the host address it does not take, and
# no sbx call is made.

load ../helpers/helper

setup() {
	common_setup
	export PATH="$TOP/sbx-ports:$PATH"
	stub_sandbox pi-sbx-7-portspec running
}

@test "portspec host address class: every address spelling is named, never 'out of range'" {
	while read -r spec addr; do
		for verb in publish unpublish; do
			run -64 --separate-stderr sbx-ports -s pi-sbx-7-portspec "$verb" "$spec"
			[[ "$stderr" == "sbx-ports: $spec: host address $addr is not supported"* ]] ||
			    fail "$verb $spec: $stderr"
			[[ "$stderr" != *"out of range"* ]]
		done
	done <<-'EOS'
	127.0.0.1:8080:80 127.0.0.1
	[::1]:8080:80 [::1]
	0.0.0.0:80:80 0.0.0.0
	127.0.0.1:8080:80/udp 127.0.0.1
	127.0.0.1:80 127.0.0.1
	[::1]:80 [::1]
	::1:8080:80 ::1
	[::]:8080:80/tcp [::]
	192.168.1.10::80 192.168.1.10
	EOS
	[ "$(stub_count)" -eq 0 ]
}

@test "portspec host address class: plain specs still parse, numbers still say out of range" {
	run -64 --separate-stderr sbx-ports -s pi-sbx-7-portspec publish 70000
	[[ "$stderr" == "sbx-ports: 70000: sandbox port is out of range"* ]]
	run -64 --separate-stderr sbx-ports -s pi-sbx-7-portspec publish 99999:80
	[[ "$stderr" == "sbx-ports: 99999:80: host port is out of range"* ]]
	printf '[]\n' >"$SBX_STUB_DIR/out.ports"
	run --separate-stderr sbx-ports -s pi-sbx-7-portspec publish 8080:80
	[ "$status" -ne 64 ] || fail "8080:80 refused: $stderr"
}
