#!/usr/bin/env bats
# The session's network rules under attack: every form of
# DOCKER_SANDBOX_EGRESS_ALLOW and _DENY that sbx takes comes out in one
# canonical text, and whatever reaches the host (its loopback, its names
# in the VM, link-local, their other spellings, a wildcard or prefix that
# covers one) is refused in either variable, naming the variable and the
# entry, with exit 64 and no sbx call.  test/tools/egress shows the parser.

load ../helpers/helper

N=pi-sbx-7-egress
A=DOCKER_SANDBOX_EGRESS_ALLOW
D=DOCKER_SANDBOX_EGRESS_DENY

setup() {
	common_setup
	stub_sandbox "$N" running
	mkdir -m 700 -p "$SBX_STATE_DIR"
}

# refused VAR ENTRY-LIST REASON: exit 64, one line naming VAR and the entry.
refused() {
	run -64 --separate-stderr egress parse "$1" "$2"
	[ -z "$output" ] || fail "$2: printed $output"
	[ "$stderr" = "egress: $1: $3" ] || fail "$2: said: $stderr; want: $3"
}

@test "egress: every accepted form comes out in the text sbx gets" {
	local in want
	while IFS='|' read -r in want; do
		run -0 --separate-stderr egress parse "$A" "$in"
		[ "$output" = "$want" ] || fail "$in: $output; want $want"
		[ -z "$stderr" ]
	done <<-'EOS'
	example.com|name 0 example.com
	Example.COM.|name 0 example.com
	api.example.com:443|name 443 api.example.com:443
	API.Example.com.:8443|name 8443 api.example.com:8443
	x:65535|name 65535 x:65535
	x:1|name 1 x:1
	*.example.org|one 0 *.example.org
	*.Example.ORG.:443|one 443 *.example.org:443
	**.example.net|any 0 **.example.net
	**.example.net:80|any 80 **.example.net:80
	*.internal|one 0 *.internal
	docker.internal|name 0 docker.internal
	a-b.c0.d-9|name 0 a-b.c0.d-9
	123.example.com|name 0 123.example.com
	xn--bcher-kva.example|name 0 xn--bcher-kva.example
	1.2.3.4|ip4 0 1.2.3.4
	1.2.3.4:443|ip4 443 1.2.3.4:443
	10.0.0.0/8|ip4 0 10.0.0.0/8
	10.1.2.3/8|ip4 0 10.0.0.0/8
	192.168.1.7/24|ip4 0 192.168.1.0/24
	8.8.8.8/32|ip4 0 8.8.8.8/32
	255.255.255.255|ip4 0 255.255.255.255
	126.255.255.255|ip4 0 126.255.255.255
	192.0.0.0/2|ip4 0 192.0.0.0/2
	169.255.0.1|ip4 0 169.255.0.1
	1.0.0.0/8|ip4 0 1.0.0.0/8
	2001:db8::1|ip6 0 2001:db8::1
	2001:DB8:0:0:0:0:0:1|ip6 0 2001:db8::1
	2001:0db8:0000:0000:0001:0000:0000:0001|ip6 0 2001:db8::1:0:0:1
	1:0:0:2:0:0:0:3|ip6 0 1:0:0:2::3
	1:0:1:1:1:1:1:1|ip6 0 1:0:1:1:1:1:1:1
	[2001:db8::1]:443|ip6 443 [2001:db8::1]:443
	[2001:DB8::0:1]|ip6 0 2001:db8::1
	2001:db8::/32|ip6 0 2001:db8::/32
	2001:db8:ffff::/32|ip6 0 2001:db8::/32
	[2001:db8::/48]|ip6 0 2001:db8::/48
	::ffff:1.2.3.4|ip6 0 ::ffff:1.2.3.4
	::ffff:102:304|ip6 0 ::ffff:1.2.3.4
	2001:db8::1.2.3.4|ip6 0 2001:db8::102:304
	fec0::1|ip6 0 fec0::1
	fe7f::1|ip6 0 fe7f::1
	EOS
	# a list: its order kept; the canonical text of each
	run -0 egress parse "$D" 'b.com,A.com.:443,[::FFFF:8.8.8.8]:53,*.x.io'
	[ "$output" = "$(printf '%s\n' 'name 0 b.com' 'name 443 a.com:443' \
	    'ip6 53 [::ffff:8.8.8.8]:53' 'one 0 *.x.io')" ]
	# empty counts as unset
	run -0 egress parse "$A" ''
	[ -z "$output" ]
}

@test "egress: whatever reaches the host is refused in either variable, naming it and the entry" {
	local var in why
	for var in "$A" "$D"; do
		while IFS='|' read -r in why; do
			refused "$var" "$in" "\"$in\": $why"
		done <<-'EOS'
		*|allows every host, which only the user's own sbx policy may
		**|allows every host, which only the user's own sbx policy may
		localhost|reaches the host
		LocalHost.|reaches the host
		localhost:8080|reaches the host
		a.localhost|reaches the host
		a.b.LOCALHOST|reaches the host
		*.localhost|covers names under localhost, which reach the host
		**.localhost|covers names under localhost, which reach the host
		*.a.localhost|covers names under localhost, which reach the host
		host.docker.internal|reaches the host
		HOST.docker.internal.:443|reaches the host
		gateway.docker.internal|reaches the host
		*.docker.internal|covers host.docker.internal, which reaches the host
		**.docker.internal|covers host.docker.internal, which reaches the host
		**.internal|covers host.docker.internal, which reaches the host
		127.0.0.1|reaches the host
		127.0.0.1:22|reaches the host
		127.255.255.254|reaches the host
		127.0.0.0/8|reaches the host
		127.1.0.0/16|reaches the host
		127.0.0.0/7|covers 127.0.0.0/8, which reaches the host
		126.0.0.0/7|covers 127.0.0.0/8, which reaches the host
		64.0.0.0/2|covers 127.0.0.0/8, which reaches the host
		0.0.0.0|reaches the host
		0.0.0.0:80|reaches the host
		0.1.2.3|reaches the host
		0.0.0.0/8|reaches the host
		0.0.0.0/0|covers 0.0.0.0/8, which reaches the host
		1.0.0.0/7|covers 0.0.0.0/8, which reaches the host
		169.254.169.254|reaches the host
		169.254.0.0/16|reaches the host
		169.254.1.0/24|reaches the host
		169.0.0.0/8|covers 169.254.0.0/16, which reaches the host
		169.254.0.0/15|covers 169.254.0.0/16, which reaches the host
		128.0.0.0/1|covers 169.254.0.0/16, which reaches the host
		::1|reaches the host
		0:0:0:0:0:0:0:1|reaches the host
		[::1]:443|reaches the host
		::|reaches the host
		::/0|covers ::/104, which reaches the host
		::/96|covers ::/104, which reaches the host
		::/8|covers ::/104, which reaches the host
		fe80::1|reaches the host
		FE80::1|reaches the host
		[fe80::1]:22|reaches the host
		fe80::/10|reaches the host
		febf:ffff::1|reaches the host
		fe80::/9|covers fe80::/10, which reaches the host
		fe00::/7|covers fe80::/10, which reaches the host
		8000::/1|covers fe80::/10, which reaches the host
		::ffff:127.0.0.1|reaches the host
		::ffff:7f00:1|reaches the host
		::FFFF:7F00:0001|reaches the host
		[::ffff:127.0.0.1]:80|reaches the host
		::ffff:0.0.0.0|reaches the host
		::ffff:169.254.169.254|reaches the host
		::ffff:a9fe:a9fe|reaches the host
		::ffff:0:0/96|covers ::ffff:0.0.0.0/104, which reaches the host
		::ffff:127.0.0.0/104|reaches the host
		::127.0.0.1|reaches the host
		::7f00:1|reaches the host
		::169.254.169.254|reaches the host
		::ffff:0:127.0.0.1|reaches the host
		::ffff:0:7f00:1|reaches the host
		2130706433|is a number, not a dotted quad
		0x7f.1|is a number in hex, not a dotted quad
		0X7F000001|is a number in hex, not a dotted quad
		0x7f.0.0.1|is a number in hex, not a dotted quad
		a.0xff.com|is a number in hex, not a dotted quad
		127.1|is a number, not a dotted quad
		127.0.1|is a number, not a dotted quad
		0177.0.0.1|is a number, not a dotted quad
		127.0.0.01|is a number, not a dotted quad
		010.0.0.1|is a number, not a dotted quad
		1.2.3.256|is a number, not a dotted quad
		1.2.3.4.5|is a number, not a dotted quad
		*.1.2.3|is a number, not a dotted quad
		example.123|is a number, not a dotted quad
		http://example.com|is a URL: give the host alone
		https://example.com:443/x|is a URL: give the host alone
		HTTP://localhost|is a URL: give the host alone
		example.com/|has a path: give the host alone
		example.com/x|has a path: give the host alone
		/|has a path: give the host alone
		/etc|has a path: give the host alone
		x:0|port must be 1 to 65535
		x:00|port must be 1 to 65535
		x:65536|port must be 1 to 65535
		x:99999999999999999999|port must be 1 to 65535
		x:080|port must be 1 to 65535
		x:+80|port must be 1 to 65535
		x:-1|port must be 1 to 65535
		x:8a|port must be 1 to 65535
		x:|port must be 1 to 65535
		1.2.3.4:0|port must be 1 to 65535
		[2001:db8::1]:0|port must be 1 to 65535
		[2001:db8::1]:|port must be 1 to 65535
		-x|starts with -
		-|starts with -
		--help|starts with -
		-1.2.3.4|starts with -
		:80|has no host
		[]:80|has no host
		[2001:db8::1|has [ without ]
		[2001:db8::1]x|has more than :PORT after ]
		[1.2.3.4]:80|is not an IPv6 address
		[example.com]|is not an IPv6 address
		1:2:3:4:5:6:7:8:9|is not an IPv6 address
		1::2::3|is not an IPv6 address
		:::1|is not an IPv6 address
		fe80::1%eth0|is not an IPv6 address
		12345::1|is not an IPv6 address
		a.b:80:90|is not an IPv6 address
		1.2.3.4/33|prefix length must be 0 to 32
		1.2.3.4/08|prefix length must be 0 to 32
		1.2.3.4/|prefix length must be 0 to 32
		1.2.3.4/-1|prefix length must be 0 to 32
		2001:db8::/129|prefix length must be 0 to 128
		10.0.0.0/8:443|is a prefix, which takes no port
		8.8.8.8/32:53|is a prefix, which takes no port
		[2001:db8::/32]:443|is a prefix, which takes no port
		a.*.com|has a * that is not a leading *. or **.
		*example.com|has a * that is not a leading *. or **.
		***.example.com|has a * that is not a leading *. or **.
		*.*.example.com|has a * that is not a leading *. or **.
		*|allows every host, which only the user's own sbx policy may
		*.|has an empty label
		**.|has an empty label
		.|has an empty label
		..|has an empty label
		a..b|has an empty label
		.example.com|has an empty label
		example.com..|has an empty label
		a_b.example.com|has '_', which no host name has
		a!b|has '!', which no host name has
		a"b|has '"', which no host name has
		-a.com|starts with -
		a-.com|has a label that starts or ends with -
		a.-b.com|has a label that starts or ends with -
		EOS
	done
}

@test "egress: empty entries, blanks, controls and bytes outside ASCII are refused, the entry shown escaped" {
	refused "$A" 'a.com,,b.com' 'entry 2 is empty'
	refused "$A" 'a.com,' 'entry 2 is empty'
	refused "$D" ',a.com' 'entry 1 is empty'
	refused "$A" ',' 'entry 1 is empty'
	refused "$A" ' ' '" ": has a blank'
	refused "$A" ' a.com' '" a.com": has a blank'
	refused "$A" 'a.com ' '"a.com ": has a blank'
	refused "$A" 'a.com, b.com' '" b.com": has a blank'
	refused "$D" $'a\tb.com' '"a\tb.com": has a blank'
	refused "$A" $'a.com\n' '"a.com\n": has a control byte'
	refused "$A" $'a\rb' '"a\rb": has a control byte'
	refused "$A" $'a\x01b' '"a\001b": has a control byte'
	refused "$A" $'a\x1b[31mb' '"a\033[31mb": has a control byte'
	refused "$A" $'a\x7fb' '"a\177b": has a control byte'
	refused "$A" $'caf\xc3\xa9.com' '"café.com": has a byte outside ASCII'
	refused "$A" $'a\xffb' '"a\377b": has a byte outside ASCII'
	refused "$D" $'a\xe2\x80\xaeb' '"a\342\200\256b": has a byte outside ASCII'
	# what is shown is cut at 80 bytes
	local long
	long=$(printf 'a%.0s' $(seq 300))
	refused "$A" "$long.com" "\"$(printf 'a%.0s' $(seq 80))...\": has a host over 253 bytes"
	refused "$A" "ok.com,$long" "\"$(printf 'a%.0s' $(seq 80))...\": has a host over 253 bytes"
	long=$(printf '\001%.0s' $(seq 100))
	refused "$A" "$long" "\"$(printf '\\001%.0s' $(seq 80))...\": has a control byte"
}

@test "egress: a name of 253 bytes and labels of 63 pass, one byte more does not" {
	local l63 l64 n253
	l63=$(printf 'a%.0s' $(seq 63))
	l64=${l63}a
	n253="$l63.$l63.$l63.$(printf 'b%.0s' $(seq 61))"
	[ "${#n253}" -eq 253 ]
	run -0 egress parse "$A" "$l63.com"
	run -0 egress parse "$A" "$n253"
	[ "$output" = "name 0 $n253" ]
	run -0 egress parse "$A" "**.$n253.:65535"
	[ "$output" = "any 65535 **.$n253:65535" ]
	refused "$A" "${n253}b" "\"${n253:0:80}...\": has a host over 253 bytes"
	refused "$A" "$l64.com" "\"$l64.com\": has a label over 63 bytes"
	refused "$A" "x.$l64" "\"x.$l64\": has a label over 63 bytes"
}

@test "egress: 64 entries pass, 65 do not; a duplicate is refused naming the first" {
	local list
	list=$(seq -s, 1 64 | sed 's/[0-9]*/h&.example.com/g')
	run -0 egress parse "$A" "$list"
	[ "${#lines[@]}" -eq 64 ]
	refused "$A" "$list,h65.example.com" "more than 64 entries"
	refused "$D" "$list,localhost" "more than 64 entries"
	refused "$A" 'a.com,b.com,A.COM.' '"A.COM.": the same as entry 1 (a.com)'
	refused "$D" 'x.io:443,y.io,x.io:443' '"x.io:443": the same as entry 1 (x.io:443)'
	refused "$A" '10.0.0.0/8,10.9.9.9/8' '"10.9.9.9/8": the same as entry 1 (10.0.0.0/8)'
	refused "$A" '2001:db8::1,[2001:DB8:0::1]' '"[2001:DB8:0::1]": the same as entry 1 (2001:db8::1)'
	# the same host with another port, or none, is another rule
	run -0 egress parse "$A" 'a.com,a.com:443,a.com:80,*.a.com,**.a.com'
	[ "${#lines[@]}" -eq 5 ]
}

@test "egress: a target is matched by the first rule that covers it" {
	local rules='example.com,*.one.org:443,**.any.net,10.0.0.0/8,2001:db8::/32,[2001:db8::1]:443,1.2.3.4:80,b.c'
	local t want
	while read -r t want; do
		run -0 egress match "$rules" "$t"
		[ "$output" = "$want" ] || fail "$t: $output; want $want"
	done <<-'EOS'
	example.com 0
	example.com:443 0
	EXAMPLE.COM.:8080 0
	a.example.com -1
	xexample.com -1
	example.co -1
	a.one.org:443 1
	A.ONE.ORG.:443 1
	a.one.org:80 -1
	a.one.org -1
	one.org:443 -1
	a.b.one.org:443 -1
	xone.org:443 -1
	any.net -1
	x.any.net 2
	a.b.c.any.net:1 2
	xany.net -1
	10.0.0.1 3
	10.255.255.255:443 3
	11.0.0.1 -1
	[2001:db8::5]:443 4
	2001:db8::5 4
	[2001:db9::1]:443 -1
	1.2.3.4:80 6
	1.2.3.4:81 -1
	1.2.3.4 -1
	b.c 7
	a.b.c -1
	c -1
	: -1
	[ -1
	[::1 -1
	x:0 -1
	x:65536 -1
	[2001:db8::1]x -1
	EOS
	# the empty target, and one past any host's length
	run -0 egress match "$rules" ''
	[ "$output" = -1 ]
	run -0 egress match "$rules" "$(printf 'a%.0s' $(seq 300)).example.com"
	[ "$output" = -1 ]
	# an address never matches a rule of the other family
	run -0 egress match '2001:db8::/32,8.8.8.8' 8.8.8.8:53 '[2001:db8:1::]:1' 9.9.9.9
	[ "$output" = "$(printf '%s\n' 1 0 -1)" ]
}

@test "egress: join makes one list for one sbx call, or fails whole when it does not fit" {
	run -0 egress join 'a.com,B.org.:443,1.2.3.4,[2001:db8::1]:443' 100
	[ "$output" = 'a.com,b.org:443,1.2.3.4,[2001:db8::1]:443' ]
	# 41 bytes and the NUL: 42 fit, 41 do not, and nothing half is left
	run -0 egress join 'a.com,B.org.:443,1.2.3.4,[2001:db8::1]:443' 42
	run -1 egress join 'a.com,B.org.:443,1.2.3.4,[2001:db8::1]:443' 41
	[ "$output" = 'needs 41, left ""' ]
	run -1 egress join 'a.com' 0
	[ "$output" = 'needs 5, left ""' ]
	run -0 egress join '' 1
	[ -z "$output" ]
	# 64 entries of the longest form fit SBX_EGRESS_JOINMAX
	local n253 list
	n253="$(printf 'a%.0s' $(seq 63)).$(printf 'b%.0s' $(seq 63)).$(printf 'c%.0s' $(seq 63)).$(printf 'd%.0s' $(seq 61))"
	list=$(for i in $(seq 10 73); do printf '**.%s%s:65535,' "$i" "${n253:2}"; done)
	list=${list%,}
	run -0 egress join "$list" 16896
	[ "${#output}" -eq $((64 * 263 - 1)) ]
}

@test "egress: sbx-env -c shows each list as sbx gets it, and a bad entry exits 64 naming it" {
	env "$A=A.com.,*.B.org:443,10.1.2.3/8" "$D=[2001:DB8::1]:443" sbx-env -c >"$BATS_TEST_TMPDIR/out"
	grep -qx "$A=a.com,\*.b.org:443,10.0.0.0/8" "$BATS_TEST_TMPDIR/out"
	grep -qx "$D=\[2001:db8::1\]:443" "$BATS_TEST_TMPDIR/out"
	run -0 sbx-env -cj
	[[ "$output" == *"{\"name\":\"$A\",\"value\":\"\"}"* ]]
	[[ "$output" == *"{\"name\":\"$D\",\"value\":\"\"}"* ]]
	for v in "$A" "$D"; do
		env "$v=example.com,localhost" sbx-env -c >"$BATS_TEST_TMPDIR/out" \
		    2>"$BATS_TEST_TMPDIR/err" && fail "$v: taken" || [ $? -eq 64 ]
		[ ! -s "$BATS_TEST_TMPDIR/out" ]
		[ "$(cat "$BATS_TEST_TMPDIR/err")" = "sbx-env: $v: \"localhost\": reaches the host" ]
		env "$v=a.com," sbx-env -cj >"$BATS_TEST_TMPDIR/out" \
		    2>"$BATS_TEST_TMPDIR/err" && fail "$v: taken" || [ $? -eq 64 ]
		[ ! -s "$BATS_TEST_TMPDIR/out" ]
		[ "$(cat "$BATS_TEST_TMPDIR/err")" = "sbx-env: $v: entry 2 is empty" ]
	done
}

@test "egress: sbx-run with a bad entry exits 64 naming it, before any sbx call, for a new sandbox and an existing one" {
	local v s
	for v in "$A" "$D"; do
		for s in "$N" pi-sbx-7-new; do
			rm -f "$SBX_STUB_DIR/calls.log"
			env "$v=ok.example.com,127.0.0.1:8080" sbx-run -s "$s" true \
			    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &&
			    rc=0 || rc=$?
			[ "$rc" -eq 64 ] || fail "$v, $s: exit $rc"
			[ "$(cat "$BATS_TEST_TMPDIR/err")" = "sbx-run: $v: \"127.0.0.1:8080\": reaches the host" ] ||
			    fail "$v, $s: $(cat "$BATS_TEST_TMPDIR/err")"
			[ "$(stub_count)" -eq 0 ] || fail "$v, $s: sbx was called"
			[ ! -s "$BATS_TEST_TMPDIR/out" ]
		done
	done
	[ ! -e "$SBX_STATE_DIR/pi-sbx-7-new.lock" ]
	# and good lists cost nothing here: the call runs
	rm -f "$SBX_STUB_DIR/calls.log"
	env "$A=example.com" "$D=**.ads.example" sbx-run -s "$N" true
	[ "$(stub_count exec)" -eq 1 ]
}
