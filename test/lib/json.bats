#!/usr/bin/env bats
# Terminal control bytes under attack (issue 18 finding 12): lib's one
# JSON escaper lets no C0, DEL or C1 control, line separator or
# bidirectional control through raw, and makes every line valid UTF-8
# (an ill-formed byte becomes \ufffd), in the journal (sbx-run -J) and in
# every -j output.

load ../helpers/helper

N=pi-sbx-1-escape01

setup() {
	common_setup
	export PATH="$TOP/sbx-ports:$PATH"
	stub_sandbox "$N"
	mkdir -m 700 -p "$SBX_STATE_DIR"
}

# Every line of $output: valid UTF-8, JSON, and nothing a terminal acts
# on; with -s, the decoded strings of each line printed, one per line.
clean_json() {
	printf '%s\n' "$output" | python3 -c '
import json, sys, unicodedata
bad = set(range(0, 0x20)) | set(range(0x7f, 0xa0)) | {0x61c, 0x200e, 0x200f,
    0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067,
    0x2068, 0x2069}
def strings(v):
    if isinstance(v, str): yield v
    elif isinstance(v, list):
        for x in v: yield from strings(x)
    elif isinstance(v, dict):
        for k, x in v.items(): yield k; yield from strings(x)
for raw in sys.stdin.buffer.read().split(b"\n"):
    if not raw: continue
    text = raw.decode("utf-8")          # strict: raises on ill-formed bytes
    for ch in text:
        if ord(ch) in bad: sys.exit("raw U+%04X in %r" % (ord(ch), text))
    v = json.loads(text)
    if len(sys.argv) > 1:
        for s in strings(v): print(s.encode("unicode_escape").decode())
' "$@"
}

# Arguments no reader's terminal may get raw, and two it may.
HOSTILE=(
	$'csi\xc2\x9b31m'		# U+009B, C1 CSI, as UTF-8
	$'lone\x9b2J'			# a lone 0x9B: not UTF-8
	$'nel\xc2\x85osc\xc2\x9d'	# U+0085 NEL, U+009D OSC
	$'esc\x1b[2J\x07\x7f'		# C0 and DEL
	$'ls\xe2\x80\xa8ps\xe2\x80\xa9'	# U+2028, U+2029
	$'bidi\xe2\x80\xaeevil\xe2\x81\xa6'	# U+202E, U+2066
	$'over\xc0\xaf\xe0\x80\xaf'	# overlong forms
	$'surr\xed\xa0\x80'		# a UTF-16 surrogate
	$'big\xf4\x90\x80\x80\xf5'	# past U+10FFFF
	$'cut\xe2\x82'			# a sequence cut short
	$'fine\xc3\xa9\xe6\x97\xa5'	# e acute, a CJK character: passed as is
)

@test "escape class: the journal holds no control byte and only valid UTF-8, and -J prints it so" {
	run -0 sbx-run -x -s "$N" true "${HOSTILE[@]}"
	run -0 sbx-run -J 1 -s "$N"
	clean_json
	run -0 clean_json -s
	[[ "$output" == *'csi\x9b31m'* ]]
	[[ "$output" == *'lone\ufffd2J'* ]]
	[[ "$output" == *'nel\x85osc\x9d'* ]]
	[[ "$output" == *'esc\x1b[2J\x07\x7f'* ]]
	[[ "$output" == *'ls\u2028ps\u2029'* ]]
	[[ "$output" == *'bidi\u202eevil\u2066'* ]]
	[[ "$output" == *'over\ufffd\ufffd\ufffd\ufffd\ufffd'* ]]
	[[ "$output" == *'surr\ufffd\ufffd\ufffd'* ]]
	[[ "$output" == *'big\ufffd\ufffd\ufffd\ufffd\ufffd'* ]]
	[[ "$output" == *'cut\ufffd\ufffd'* ]]
	[[ "$output" == *'fine\xe9\u65e5'* ]]
	# and in the file itself, escaped: \u009b, never the bytes
	grep -q 'csi\\u009b31m' "$SBX_STATE_DIR/$N.journal"
	! grep -q $'\xc2\x9b' "$SBX_STATE_DIR/$N.journal"
}

@test "escape class: -J escapes what an older sbx-run wrote raw" {
	printf '{"time":"2026-01-01T00:00:00.000Z","status":0,"ms":1,"bytes":0,"timeout":0,"raw":true,"argv":["a\xc2\x9bb","c\x9bd","e\xe2\x80\xaef\x7f"]}\n' \
	    >"$SBX_STATE_DIR/$N.journal"
	run -0 sbx-run -J 5 -s "$N"
	clean_json
	run -0 clean_json -s
	[[ "$output" == *'a\x9bb'* ]] && [[ "$output" == *'c\ufffdd'* ]] &&
	    [[ "$output" == *'e\u202ef\x7f'* ]]
}

@test "escape class: container names in sbx-ports -j are escaped, raw bytes and JSON escapes alike" {
	printf '%s\n' \
	    '{"ID":"c0ffee000001","Names":"w\u009b31m\u202e","Ports":"0.0.0.0:18461->80/tcp","State":"running"}' \
	    "$(printf '{"ID":"c0ffee000002","Names":"x\x9by\xc2\x85z","Ports":"0.0.0.0:18462->81/tcp","State":"running"}')" \
	    >"$SBX_STUB_DIR/out.exec"
	DOCKER_SANDBOX=$N run -0 --separate-stderr sbx-ports -j sync
	[ "${#lines[@]}" -eq 2 ]
	clean_json
	run -0 clean_json -s
	[[ "$output" == *'w\x9b31m\u202e'* ]]
	[[ "$output" == *'x\ufffdy\x85z'* ]]
}

@test "escape class: sbx-env -c -j escapes a setting's value" {
	DOCKER_SANDBOX_ENV_ALLOWLIST=A,B run -0 sbx-env -c -j
	clean_json
	DOCKER_SANDBOX_TEMPLATE=$'img\xc2\x9b:\xe2\x80\xae1' run --separate-stderr sbx-env -c -j
	if [ "$status" -eq 0 ]; then
		clean_json
	else
		[ "$status" -eq 64 ]	# refused as a setting: also fine
	fi
}

@test "escape class: sbx-tools(7) says what becomes of ill-formed bytes" {
	grep -q 'ufffd' "$TOP/man/sbx-tools.7"
}
