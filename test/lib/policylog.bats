#!/usr/bin/env bats
# What `sbx policy log SANDBOX --json` printed, read by meaning
# (lib/policylog.c, through test/tools/policylog): the envelopes sbx used
# (blocked_hosts/allowed_hosts, a bare array, an entries/log/events list),
# an unknown one (-1 and one reason), empty outputs, sbx's reasons in
# plain words, hostile input, and the hint for a container refusing the
# sandbox proxy's certificate.

load ../helpers/helper

# 2026-07-19T14:42:00Z: the failed call's start
SINCE=1784472120
TAB=$'\t'

setup() {
	PL="$TOP/test/tools/policylog"
	[ -x "$PL" ] || fail "test/tools/policylog is not built (make test/tools/policylog)"
}

# log SANDBOX SINCE: the tool on the file $BATS_TEST_TMPDIR/in
log() {
	run "$PL" "$@" <"$BATS_TEST_TMPDIR/in"
}

# reason TEXT: the plain words for sbx's raw reason (printf %b)
reason() {
	printf '%b' "$1" | "$PL" -r
}

# hint TEXT: yes or no (printf %b)
hint() {
	printf '%b' "$1" | "$PL" -c
}

# The envelope of sbx 0.37: two sandboxes, blocked and allowed entries,
# times on both sides of SINCE, with offsets, Z and fractions.
v037() {
	cat >"$BATS_TEST_TMPDIR/in" <<'EOF'
{"blocked_hosts":[
 {"host":"registry-1.docker.io:443","vm_name":"box","proxy_type":"forward","rule":"no applicable policies for op=(action:net:connect:tcp, resource=net:domain:registry-1.docker.io:443)","last_seen":"2026-07-19T21:42:54+07:00","since":"2026-07-19T21:40:00+07:00","count_since":2},
 {"host":"evil.example:443","vm_name":"box","proxy_type":"forward","rule":"r-1a2b3c4d","last_seen":"2026-07-19T14:43:00.123456Z","since":"2026-07-19T14:43:00Z","count_since":1},
 {"host":"at.since.example:443","vm_name":"box","proxy_type":"forward-bypass","reason":"No matching allow rule (default deny)","last_seen":"2026-07-19T21:42:00+07:00","count_since":3},
 {"host":"late.example:80","vm_name":"box","proxy_type":"forward","rule":"r-0000ffff","last_seen":"2026-07-20T00:15:00.5+09:30","count_since":4},
 {"host":"before.example:443","vm_name":"box","proxy_type":"forward","rule":"r-1a2b3c4d","last_seen":"2026-07-19T14:41:59.999Z","count_since":7},
 {"host":"old.example:443","vm_name":"box","proxy_type":"forward","rule":"r-1a2b3c4d","last_seen":"2026-07-19T13:00:00-01:00","count_since":9},
 {"host":"other.example:443","vm_name":"box2","proxy_type":"forward","rule":"r-1a2b3c4d","last_seen":"2026-07-19T14:50:00Z","count_since":5}],
"allowed_hosts":[
 {"host":"ok.example:443","vm_name":"box","proxy_type":"forward","rule":"r-00000000","last_seen":"2026-07-19T14:50:00Z","since":"2026-07-19T14:00:00Z","count_since":3},
 {"host":"ok2.example:443","vm_name":"box2","proxy_type":"forward","rule":"r-00000001","last_seen":"2026-07-19T14:50:00Z","count_since":1}]}
EOF
}

@test "policylog: the 0.37 envelope: the sandbox's denials since the call, latest first, in plain words" {
	v037
	log box "$SINCE"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "shape hosts" ]
	[ "${lines[1]}" = "late.example:80${TAB}4${TAB}1784472300${TAB}denied by rule r-0000ffff" ]
	[ "${lines[2]}" = "evil.example:443${TAB}1${TAB}1784472180${TAB}denied by rule r-1a2b3c4d" ]
	[ "${lines[3]}" = "registry-1.docker.io:443${TAB}2${TAB}1784472174${TAB}no rule allows it" ]
	# at the second the call began counts; 1 ms before it does not
	[ "${lines[4]}" = "at.since.example:443${TAB}3${TAB}1784472120${TAB}no rule allows it" ]
	[ "${#lines[@]}" -eq 5 ]
	[[ "$output" != *ok.example* ]]
	[[ "$output" != *other.example* ]]
	# one second later: the entry at the start is out
	log box $((SINCE + 1))
	[ "${#lines[@]}" -eq 4 ]
	[[ "$output" != *at.since* ]]
}

@test "policylog: the other sandbox, and any sandbox, and since 0" {
	v037
	log box2 "$SINCE"
	[ "$status" -eq 0 ]
	[ "$output" = "shape hosts
other.example:443${TAB}5${TAB}1784472600${TAB}denied by rule r-1a2b3c4d" ]
	log - 0
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 8 ]
	[ "${lines[7]}" = "old.example:443${TAB}9${TAB}1784469600${TAB}denied by rule r-1a2b3c4d" ]
	log nobox 0
	[ "$output" = "shape hosts" ]
}

@test "policylog: a bare array, as older sbx printed it: its decision says which are denials" {
	cat >"$BATS_TEST_TMPDIR/in" <<'EOF'
[{"host":"a.example:443","sandbox":"box","decision":"blocked","reason":"no applicable policies for op=(action:net:connect:tcp, resource=net:domain:a.example:443)","timestamp":"2026-07-19T14:42:30Z"},
 {"host":"b.example:443","sandbox":"box","decision":"allowed","reason":"r-00000001","timestamp":"2026-07-19T14:42:31Z"},
 {"host":"c.example:443","sandbox":"box","decision":"DENY","reason":"r-12345678","timestamp":"2026-07-19T14:42:32Z"},
 {"host":"d.example:443","sandbox":"box","reason":"no decision at all","timestamp":"2026-07-19T14:42:33Z"},
 {"host":"e.example:443","sandbox":"else","decision":"blocked","timestamp":"2026-07-19T14:42:34Z"},
 {"host":"f.example:443","decision":"Denied","time":"2026-07-19T14:42:35+00:00"}]
EOF
	log box "$SINCE"
	[ "$status" -eq 0 ]
	[ "$output" = "shape array
f.example:443${TAB}1${TAB}1784472155${TAB}no rule allows it
c.example:443${TAB}1${TAB}1784472152${TAB}denied by rule r-12345678
a.example:443${TAB}1${TAB}1784472150${TAB}no rule allows it" ]
	printf '[]' >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$output" = "shape array" ]
}

@test "policylog: a list under entries, log or events, with sandbox or sandbox_name" {
	local k
	for k in entries log events; do
		cat >"$BATS_TEST_TMPDIR/in" <<EOF
{"version":2,"$k":[
 {"host":"x.example:443","sandbox_name":"box","decision":"deny","rule":"r-aaaaaaaa","since":"2026-07-19T14:43:00Z"},
 {"host":"y.example:443","sandbox_name":"box","decision":"allow","rule":"r-bbbbbbbb","since":"2026-07-19T14:43:00Z"},
 {"host":"z.example:443","sandbox":"box","decision":"block","count":6,"last_seen":"2026-07-19T14:44:00Z"}]}
EOF
		log box "$SINCE"
		[ "$status" -eq 0 ] || fail "$k: $output"
		[ "$output" = "shape list
z.example:443${TAB}6${TAB}1784472240${TAB}no rule allows it
x.example:443${TAB}1${TAB}1784472180${TAB}denied by rule r-aaaaaaaa" ] ||
		    fail "$k: $output"
	done
}

@test "policylog: sbx's notices around the JSON are passed over" {
	{
		echo "Starting sandboxd daemon..."
		echo "Daemon started (PID 4242)"
		echo '{"blocked_hosts":[{"host":"n.example:443","vm_name":"box","last_seen":"2026-07-19T14:43:00Z"}]}'
		echo "WARN: something else"
	} >"$BATS_TEST_TMPDIR/in"
	log box "$SINCE"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "n.example:443${TAB}1${TAB}1784472180${TAB}no rule allows it" ]
}

@test "policylog: an unknown envelope is -1 with one reason, never a denial" {
	local doc
	for doc in '{"data":{"items":[{"host":"a:1","decision":"deny"}]}}' \
	    '{"blocked_hosts":"a:1"}' '{"blocked_hosts":{"host":"a:1"}}' \
	    '{"entries":{"host":"a:1","decision":"deny"}}' '{"log":"text"}' \
	    '"blocked"' '42' 'Policy log: no entries' '<html>502</html>'; do
		printf '%s\n' "$doc" >"$BATS_TEST_TMPDIR/in"
		log box 0
		[ "$status" -eq 1 ] || fail "$doc: $status $output"
		[ "${lines[0]}" = "shape unknown" ] || fail "$doc: $output"
		[ "${#lines[@]}" -eq 2 ] || fail "$doc: $output"
		[[ "${lines[1]}" == "why "?* ]] || fail "$doc: $output"
	done
	printf '{"data":{"items":[]}}' >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "${lines[1]}" = "why an envelope of unknown shape (no blocked_hosts, entries, log or events list)" ]
}

@test "policylog: empty outputs are no denials, no warning" {
	local doc
	for doc in '{}' '[]' '' 'null' ' \n\t\n' 'null\n' '{"blocked_hosts":null,"allowed_hosts":null}' \
	    '{"blocked_hosts":[],"allowed_hosts":[]}' '{"allowed_hosts":[{"host":"a:1"}]}' \
	    '{"entries":null}' '{"events":[]}' '[{},[],null,1,"x"]'; do
		printf "$doc" >"$BATS_TEST_TMPDIR/in"
		log box 0
		[ "$status" -eq 0 ] || fail "$doc: $status $output"
		[ "${#lines[@]}" -eq 1 ] || fail "$doc: $output"
		[[ "${lines[0]}" == "shape "* ]] || fail "$doc: $output"
	done
	printf '' >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$output" = "shape empty" ]
	printf '{}' >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$output" = "shape empty" ]
}

@test "policylog: sbx's reasons in plain words" {
	[ "$(reason 'no applicable policies for op=(action:net:connect:tcp, resource=net:domain:example.com:443)')" = "no rule allows it" ]
	[ "$(reason 'no applicable policies for op=(action:net:connect:tcp, resource=net:ip:10.0.0.1:22)')" = "no rule allows it" ]
	[ "$(reason 'No matching allow rule (default deny)')" = "no rule allows it" ]
	[ "$(reason '')" = "no rule allows it" ]
	[ "$(reason ' \n ')" = "no rule allows it" ]
	# a rule of sbx's: its id or its resource
	[ "$(reason 'r-1a2b3c4d')" = "denied by rule r-1a2b3c4d" ]
	[ "$(reason '**.example.com')" = "denied by rule **.example.com" ]
	[ "$(reason '[2001:db8::1]:443')" = "denied by rule [2001:db8::1]:443" ]
	[ "$(reason 'denied by rule r-1a2b3c4d.')" = "denied by rule r-1a2b3c4d" ]
	[ "$(reason 'Blocked by rule: "example.com:443" (deny)')" = "denied by rule example.com:443" ]
	[ "$(reason 'matched deny rule=r-99999999, scope sandbox')" = "denied by rule r-99999999" ]
	# anything else: sbx's own words
	[ "$(reason 'proxy refused the connection')" = "proxy refused the connection" ]
	[ "$(reason 'blocked')" = "blocked" ]
	[ "$(reason 'rules changed since')" = "rules changed since" ]
	# an allow rule named is not a deny rule's name
	[ "$(reason 'allowed by rule r-1')" = "allowed by rule r-1" ]
	# ... a rule's name, or sbx's words, cleaned
	[ "$(reason 'r-1\033[31m')" = 'denied by rule r-1\033[31m' ]
	[ "$(reason 'denied by rule r-2\033]0;x\a now')" = 'denied by rule r-2\033]0' ]
	[ "$(reason '10.0.0.0/8')" = 'denied by rule 10.0.0.0/8' ]
	[ "$(reason 'refused\033[2J\nby\xe2\x80\xaeproxy')" = 'refused\033[2J\nby\342\200\256proxy' ]
	[ "$(reason 'caf\xc3\xa9 blocked')" = $'caf\xc3\xa9 blocked' ]
}

@test "policylog: reasons are bounded, and a long rule's name is cut with ..." {
	local r
	r=$(head -c 5000 /dev/zero | tr '\0' w | "$PL" -r)
	[ "${#r}" -lt 320 ]
	[ "${#r}" -gt 200 ]
	r=$( { printf 'r-'; head -c 5000 /dev/zero | tr '\0' 1; } | "$PL" -r)
	[[ "$r" == "denied by rule r-111"*"..." ]]
	[ "${#r}" -lt 320 ]
	r=$(printf 'denied by rule r-%s' "$(head -c 3000 /dev/zero | tr '\0' 9)" | "$PL" -r)
	[[ "$r" == "denied by rule r-999"*"..." ]]
	[ "${#r}" -lt 320 ]
	# 100 KB of the word rule: read no further than the bound, at once
	r=$( { printf 'denied '; head -c 102400 /dev/zero | tr '\0' r |
	    sed 's/r/rule/g'; } | timeout 10 "$PL" -r)
	[[ "$r" == "denied rulerule"* ]]
	[ "${#r}" -lt 320 ]
}

@test "policylog: hostile hosts are shown escaped, never raw" {
	cat >"$BATS_TEST_TMPDIR/in" <<'EOF'
{"blocked_hosts":[
 {"host":"esc\u001b[31m.example:443","vm_name":"box"},
 {"host":"line\nbreak.example:443","vm_name":"box"},
 {"host":"caf\u00e9.example:443","vm_name":"box"},
 {"host":"rtl\u202egpj.example:443","vm_name":"box"},
 {"host":"back\\slash\t:443","vm_name":"box"},
 {"host":"","vm_name":"box"},
 {"host":"[2001:db8::1]:443","vm_name":"box"}]}
EOF
	log box 0
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "shape hosts" ]
	[ "${#lines[@]}" -eq 7 ]
	local hosts
	hosts=$(printf '%s\n' "${lines[@]:1}" | cut -f1 | LC_ALL=C sort)
	[ "$hosts" = '[2001:db8::1]:443
back\134slash\011:443
caf\303\251.example:443
esc\033[31m.example:443
line\012break.example:443
rtl\342\200\256gpj.example:443' ] || fail "$hosts"
	# nothing but printable ASCII, and no line of its own
	LC_ALL=C grep -q '[^[:print:]]' <<<"$(printf '%s\n' "${lines[@]}" | tr -d '\t')" &&
	    fail "raw bytes: $output"
	# a NUL, escaped in the JSON, makes the reader refuse the output: one warning
	printf '{"blocked_hosts":[{"host":"nul\\u0000.example:443"}]}' >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$status" -eq 1 ]
	[ "$output" = "shape unknown
why bad string" ]
	# a raw control byte is not JSON at all
	printf '{"blocked_hosts":[{"host":"raw\033.example:443"}]}\n' >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "shape unknown" ]
}

@test "policylog: a 100 KB host is cut to fit, ending in ..." {
	{
		printf '{"blocked_hosts":[{"host":"'
		head -c 102400 /dev/zero | tr '\0' a
		printf '.example:443","vm_name":"box"},{"host":"'
		head -c 102400 /dev/zero | tr '\0' '\033' | sed 's/\x1b/\\u001b/g'
		printf '","vm_name":"box"}]}'
	} >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	local h
	h=$(printf '%s\n' "${lines[1]}" | cut -f1)
	[[ "$h" == aaaa*... ]] || [[ "$h" == '\033'*... ]] || fail "$h"
	h=$(printf '%s\n' "${lines[@]:1}" | cut -f1 | LC_ALL=C sort)
	[ "$(sed -n 1p <<<"$h" | wc -c)" -le 272 ]
	[ "$(sed -n 2p <<<"$h" | wc -c)" -le 272 ]
	[[ "$(sed -n 1p <<<"$h")" == '\033\033'*'\033...' ]] || fail "$h"
	[[ "$(sed -n 2p <<<"$h")" == aaaaa*'aaa...' ]] || fail "$h"
}

@test "policylog: 10,000 entries: 64 kept, the latest, and how many more said" {
	awk 'BEGIN {
		printf "{\"blocked_hosts\":["
		for (i = 0; i < 10000; i++)
			printf "%s{\"host\":\"h%05d.example:443\",\"vm_name\":\"box\",\"last_seen\":\"2026-07-19T%02d:%02d:%02dZ\",\"count_since\":1}",
			    i ? "," : "", i, 14 + int(i / 3600), int(i / 60) % 60, i % 60
		printf "]}\n"
	}' >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 66 ]
	[ "${lines[1]%%"$TAB"*}" = h09999.example:443 ]
	[ "${lines[64]%%"$TAB"*}" = h09936.example:443 ]
	[ "${lines[65]}" = "more 9936" ]
	# the same host 10,000 times: one denial, the counts added
	awk 'BEGIN {
		printf "{\"blocked_hosts\":["
		for (i = 0; i < 10000; i++)
			printf "%s{\"host\":\"%s.example:443\",\"vm_name\":\"box\",\"count_since\":2}",
			    i ? "," : "", i % 2 ? "same" : "SAME"
		printf "]}\n"
	}' >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == *".example:443${TAB}20000${TAB}-1${TAB}no rule allows it" ]]
}

@test "policylog: duplicates of a host merge: counts added, the latest time and reason kept" {
	cat >"$BATS_TEST_TMPDIR/in" <<'EOF'
{"blocked_hosts":[
 {"host":"dup.example:443","vm_name":"box","rule":"r-00000001","last_seen":"2026-07-19T14:43:00Z","count_since":2},
 {"host":"DUP.Example:443","vm_name":"box","rule":"r-00000002","last_seen":"2026-07-19T14:44:00Z","count_since":3},
 {"host":"dup.example:443","vm_name":"box","rule":"r-00000003","count_since":4},
 {"host":"dup.example:443","vm_name":"box","rule":"r-00000004","last_seen":"2026-07-19T14:00:00Z","count_since":100},
 {"host":"dup.example:8443","vm_name":"box","last_seen":"2026-07-19T14:43:00Z"}]}
EOF
	log box "$SINCE"
	[ "$status" -eq 0 ]
	[ "$output" = "shape hosts
DUP.Example:443${TAB}9${TAB}1784472240${TAB}denied by rule r-00000002
dup.example:8443${TAB}1${TAB}1784472180${TAB}no rule allows it" ]
}

@test "policylog: an entry without a readable time counts; numbers as times are seconds or milliseconds" {
	cat >"$BATS_TEST_TMPDIR/in" <<'EOF'
{"blocked_hosts":[
 {"host":"notime.example:443","vm_name":"box"},
 {"host":"badtime.example:443","vm_name":"box","last_seen":"yesterday"},
 {"host":"nulltime.example:443","vm_name":"box","last_seen":null},
 {"host":"pre1970.example:443","vm_name":"box","last_seen":"1969-12-31T23:59:59Z"},
 {"host":"fallback.example:443","vm_name":"box","last_seen":"soon","timestamp":"2026-07-19T14:41:00Z"},
 {"host":"secs.example:443","vm_name":"box","last_seen":1784472130},
 {"host":"ms.example:443","vm_name":"box","last_seen":1784472140123},
 {"host":"oldsecs.example:443","vm_name":"box","last_seen":1784472000.5},
 {"host":"negative.example:443","vm_name":"box","last_seen":-5}]}
EOF
	log box "$SINCE"
	[ "$status" -eq 0 ]
	[ "$output" = "shape hosts
ms.example:443${TAB}1${TAB}1784472140${TAB}no rule allows it
secs.example:443${TAB}1${TAB}1784472130${TAB}no rule allows it
badtime.example:443${TAB}1${TAB}-1${TAB}no rule allows it
negative.example:443${TAB}1${TAB}-1${TAB}no rule allows it
notime.example:443${TAB}1${TAB}-1${TAB}no rule allows it
nulltime.example:443${TAB}1${TAB}-1${TAB}no rule allows it
pre1970.example:443${TAB}1${TAB}-1${TAB}no rule allows it" ]
}

@test "policylog: duplicate keys: the first counts, as everywhere in the reader" {
	cat >"$BATS_TEST_TMPDIR/in" <<'EOF'
{"blocked_hosts":[
 {"host":"first.example:443","host":"second.example:443","vm_name":"box"},
 {"host":"theirs.example:443","vm_name":"box2","vm_name":"box"},
 {"host":"mine.example:443","vm_name":"box","vm_name":"box2","rule":"r-00000001","rule":"r-00000002"}],
 "blocked_hosts":[{"host":"shadowed.example:443","vm_name":"box"}]}
EOF
	log box 0
	[ "$status" -eq 0 ]
	[ "$output" = "shape hosts
first.example:443${TAB}1${TAB}-1${TAB}no rule allows it
mine.example:443${TAB}1${TAB}-1${TAB}denied by rule r-00000001" ]
}

@test "policylog: numbers where strings are expected" {
	cat >"$BATS_TEST_TMPDIR/in" <<'EOF'
{"blocked_hosts":[
 {"host":443,"vm_name":"box"},
 {"host":["a.example:443"],"vm_name":"box"},
 {"host":"named-by-number.example:443","vm_name":7},
 {"host":"nameless.example:443","vm_name":null,"sandbox":null},
 {"host":"rule-number.example:443","vm_name":"box","rule":42,"reason":"r-00000042"},
 {"host":"count-string.example:443","vm_name":"box","count_since":"3"},
 {"host":"count-negative.example:443","vm_name":"box","count_since":-3},
 {"host":"count-huge.example:443","vm_name":"box","count_since":99999999999999999999999},
 {"host":"count-exp.example:443","vm_name":"box","count_since":1e400},
 {"host":"count-text.example:443","vm_name":"box","count_since":"many"}]}
EOF
	log box 0
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "shape hosts" ]
	[ "${#lines[@]}" -eq 8 ]
	local all max=2147483647
	[ "$(getconf LONG_BIT)" -eq 64 ] && max=9223372036854775807
	all=$(printf '%s\n' "${lines[@]:1}" | LC_ALL=C sort)
	[ "$all" = "count-exp.example:443${TAB}1${TAB}-1${TAB}no rule allows it
count-huge.example:443${TAB}$max${TAB}-1${TAB}no rule allows it
count-negative.example:443${TAB}1${TAB}-1${TAB}no rule allows it
count-string.example:443${TAB}3${TAB}-1${TAB}no rule allows it
count-text.example:443${TAB}1${TAB}-1${TAB}no rule allows it
nameless.example:443${TAB}1${TAB}-1${TAB}no rule allows it
rule-number.example:443${TAB}1${TAB}-1${TAB}denied by rule r-00000042" ] || fail "$all"
	# the decision as a number, or true, is no denial's word
	printf '[{"host":"a:1","decision":1},{"host":"b:1","decision":true},{"host":"c:1","decision":["deny"]}]' \
	    >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$output" = "shape array" ]
}

@test "policylog: nesting 10,000 deep is refused, the stack intact" {
	local i
	{ for ((i = 0; i < 10000; i++)); do printf '['; done; } >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$status" -eq 1 ]
	[ "$output" = "shape unknown
why nested too deeply" ]
	{
		printf '{"blocked_hosts":['
		for ((i = 0; i < 10000; i++)); do printf '{"a":'; done
		printf '1'
		for ((i = 0; i < 10000; i++)); do printf '}'; done
		printf ']}'
	} >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$status" -eq 1 ]
	[ "${lines[1]}" = "why nested too deeply" ]
	# the reader's bound (64) leaves the envelope's depth far behind
	{
		printf '{"blocked_hosts":[{"host":"deep.example:443","x":'
		for ((i = 0; i < 60; i++)); do printf '['; done
		for ((i = 0; i < 60; i++)); do printf ']'; done
		printf '}]}'
	} >"$BATS_TEST_TMPDIR/in"
	log box 0
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == "deep.example:443${TAB}"* ]]
}

@test "policylog: truncated JSON: every cut is -1 or nothing, never a crash" {
	v037
	run "$PL" -p box "$SINCE" <"$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	local n
	n=$(wc -c <"$BATS_TEST_TMPDIR/in")
	[ "${#lines[@]}" -eq $((n + 1)) ]
	# the empty prefix is nothing; the whole, less its newline or not, is read
	[ "${lines[0]}" = "0 0" ]
	[ "${lines[n]}" = "0 4" ]
	[ "${lines[n - 1]}" = "0 4" ]
	# every other cut is unreadable, and gives nothing
	[ "$(printf '%s\n' "${lines[@]:1:n-2}" | sort -u)" = "-1 0" ]
}

@test "policylog: certhint: the words of each TLS stack refusing the proxy's CA" {
	local t
	for t in \
	    'Error response from daemon: Get "https://registry-1.docker.io/v2/": tls: failed to verify certificate: x509: certificate signed by unknown authority' \
	    'ERROR: failed to solve: node:22: failed to resolve source metadata for docker.io/library/node:22: failed to do request: Head "https://registry-1.docker.io/v2/library/node/manifests/22": x509: certificate signed by unknown authority' \
	    'curl: (60) SSL certificate problem: unable to get local issuer certificate\nMore details here: https://curl.se/docs/sslcerts.html' \
	    '#12 curl: (60) SSL certificate problem: self signed certificate in certificate chain' \
	    'curl: (60) SSL certificate problem: self-signed certificate in certificate chain' \
	    'SSL routines:tls_process_server_certificate:certificate verify failed' \
	    'npm ERR! code SELF_SIGNED_CERT_IN_CHAIN\nnpm ERR! errno SELF_SIGNED_CERT_IN_CHAIN' \
	    'npm error code UNABLE_TO_GET_ISSUER_CERT_LOCALLY' \
	    "Could not fetch URL https://pypi.org/simple/requests/: There was a problem confirming the ssl certificate: HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: /simple/requests/ (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate in certificate chain (_ssl.c:1006)')))" \
	    'fatal: unable to access '"'"'https://github.com/x/y/'"'"': server certificate verification failed. CAfile: none CRLfile: none' \
	    'sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid certification path to requested target' \
	    'ERROR: cannot verify deb.debian.org'"'"'s certificate, issued by '"'"'CN=Docker Sandboxes Proxy CA'"'"':\n  Unable to locally verify the issuer'"'"'s authority.' \
	    'Certificate verification failed: The certificate is NOT trusted. The certificate issuer is unknown.' \
	    'error: invalid peer certificate: UnknownIssuer' \
	    'lots of output\n\0binary\0\nx509: certificate signed by unknown authority'; do
		[ "$(hint "$t")" = yes ] || fail "not seen: $t"
	done
}

@test "policylog: certhint: near misses are not the proxy's certificate" {
	local t
	for t in \
	    '' 'ok' 'x509: certificate has expired or is not yet valid' \
	    'x509: certificate is valid for a.example, not b.example' \
	    'SSL certificate verify ok.' 'certificate verify succeeded' \
	    'self-signed certificate' 'DEPTH_ZERO_SELF_SIGNED_CERT' \
	    'x509: certificate signed by\0unknown authority' \
	    'x509: certificate signed by\nunknown authority' \
	    'unable to get issuer certificate' 'UNABLE_TO_GET_ISSUER_CERT' \
	    'XSELF_SIGNED_CERT_IN_CHAIN' 'SELF_SIGNED_CERT_IN_CHAINS' \
	    'self_signed_cert_in_chain' 'CERTIFICATE_VERIFY_FAILED_COUNT=0' \
	    'curl: (6) Could not resolve host: example.com' \
	    'curl: (56) CONNECT tunnel failed, response 403' \
	    'Error response from daemon: Get "https://registry-1.docker.io/v2/": proxyconnect tcp: dial tcp: connection refused' \
	    'certificate signed by known authority'; do
		[ "$(hint "$t")" = no ] || fail "seen: $t"
	done
	# any size, NULs anywhere: a megabyte of noise
	[ "$(head -c 1048576 /dev/urandom | tr -d 'xX' | "$PL" -c)" = no ]
}

@test "policylog: certadvice says what to do" {
	run -0 "$PL" -a
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"its own"* ]]
	[[ "$output" == *HTTPS_PROXY* ]]
	[[ "$output" == *"the CA the sandbox itself trusts"* ]]
	[[ "$output" == *"sandbox's own docker"* ]]
}
