#!/usr/bin/env bats
# Registry credentials under attack: DOCKER_SANDBOX_REGISTRY_AUTH names
# registries and where the host user keeps each credential, a file only
# they may open or a variable of theirs.  Whatever else is refused, the
# message naming the registry and the source and never a byte of the
# credential; a fifo never blocks the read.  test/tools/egress shows it.

load ../helpers/helper

N=pi-sbx-7-regauth
R=DOCKER_SANDBOX_REGISTRY_AUTH
SECRET=s3cr3t-t0ken-value

setup() {
	common_setup
	stub_sandbox "$N" running
	mkdir -m 700 -p "$SBX_STATE_DIR"
	K="$BATS_TEST_TMPDIR/keys"
	mkdir -m 700 "$K"
}

# A credential file of mode $2 holding printf's $3.
key() {
	printf "$3" >"$K/$1"
	chmod "$2" "$K/$1"
}

# unread LIST WHY: the read fails with WHY, and no byte of the secret
# shows anywhere.
unread() {
	run -1 --separate-stderr timeout 5 egress read "$1"
	[ "$stderr" = "egress: $2" ] || fail "$1: said: $stderr; want: $2"
	[ -z "$output" ]
	[[ "$stderr" != *s3cr3t* ]] || fail "$1: the value shows"
}

refused() {
	run -64 --separate-stderr egress regauth "$R" "$1"
	[ "$stderr" = "egress: $R: $2" ] || fail "$1: said: $stderr; want: $2"
	[ -z "$output" ]
}

@test "regauth: every accepted form, its host in the text sbx gets" {
	local in want
	while IFS='|' read -r in want; do
		run -0 --separate-stderr egress regauth "$R" "$in"
		[ "$output" = "$want" ] || fail "$in: $output; want $want"
	done <<-'EOS'
	ghcr.io=file:/home/u/.ghcr|ghcr.io - file /home/u/.ghcr
	GHCR.IO.=file:/k|ghcr.io - file /k
	registry.example.com:5000=env:REG_TOKEN|registry.example.com:5000 - env REG_TOKEN
	ghcr.io=octocat@env:GH_TOKEN|ghcr.io octocat env GH_TOKEN
	quay.io=org+robot@file:/k|quay.io org+robot file /k
	harbor.example=robot$ci@env:_T1|harbor.example robot$ci env _T1
	gitlab.example=me@example.com@file:/k@x|gitlab.example me@example.com file /k@x
	10.1.2.3:5000=env:T|10.1.2.3:5000 - env T
	[2001:DB8::1]:5000=env:T|[2001:db8::1]:5000 - env T
	2001:db8::2=env:T|2001:db8::2 - env T
	r.example=file:/Users/u/Library/Application Support/k|r.example - file /Users/u/Library/Application Support/k
	EOS
	# a list, in its order; the same host on other ports are other registries
	run -0 egress regauth "$R" 'a.io=env:A,a.io:5000=env:B,b.io=u@file:/b'
	[ "$output" = "$(printf '%s\n' 'a.io - env A' 'a.io:5000 - env B' 'b.io u file /b')" ]
	run -0 egress regauth "$R" ''
	[ -z "$output" ]
	# 16 registries pass, 17 do not
	run -0 egress regauth "$R" "$(seq -s, 1 16 | sed 's/[0-9]*/r&.io=env:T/g')"
	[ "${#lines[@]}" -eq 16 ]
	refused "$(seq -s, 1 17 | sed 's/[0-9]*/r&.io=env:T/g')" "more than 16 entries"
}

@test "regauth: a bad entry is refused naming the variable and the entry" {
	local in why
	while IFS='|' read -r in why; do
		refused "$in" "\"$in\": $why"
	done <<-'EOS'
	ghcr.io|expected HOST=file:/PATH or HOST=env:NAME
	ghcr.io:file:/k|expected HOST=file:/PATH or HOST=env:NAME
	ghcr.io=|expected file:/PATH or env:NAME after =
	ghcr.io=/k|expected file:/PATH or env:NAME after =
	ghcr.io=sftp:/k|expected file:/PATH or env:NAME after =
	ghcr.io=env:|expected file:/PATH or env:NAME after =
	ghcr.io=u:env:T|expected file:/PATH or env:NAME after =
	ghcr.io=file:|file: takes an absolute path
	ghcr.io=file:k|file: takes an absolute path
	ghcr.io=file:~/k|file: takes an absolute path
	ghcr.io=env:1T|env: takes a variable's name
	ghcr.io=env:A-B|env: takes a variable's name
	ghcr.io=env:A B|env: takes a variable's name
	ghcr.io=env:A=B|env: takes a variable's name
	ghcr.io=@env:T|has a user that is empty, too long or starts with -
	ghcr.io=-u@env:T|has a user that is empty, too long or starts with -
	ghcr.io=a b@env:T|has a user with a byte other than A-Z a-z 0-9 . _ @ + $ -
	ghcr.io=a:b@env:T|has a user with a byte other than A-Z a-z 0-9 . _ @ + $ -
	=env:T|has no host
	*.ghcr.io=env:T|names more than one host: a registry is one
	**.example=env:T|names more than one host: a registry is one
	10.0.0.0/8=env:T|names more than one host: a registry is one
	*=env:T|allows every host, which only the user's own sbx policy may
	localhost:5000=env:T|reaches the host
	127.0.0.1:5000=env:T|reaches the host
	host.docker.internal=env:T|reaches the host
	[::1]:5000=env:T|reaches the host
	https://ghcr.io=env:T|is a URL: give the host alone
	ghcr.io/org=env:T|has a path: give the host alone
	ghcr.io:0=env:T|port must be 1 to 65535
	ghcr.io =env:T|has a blank
	-ghcr.io=env:T|starts with -
	0x7f.1=env:T|is a number in hex, not a dotted quad
	2130706433=env:T|is a number, not a dotted quad
	EOS
	refused 'a.io=env:A,,b.io=env:B' 'entry 2 is empty'
	refused 'a.io=env:A,' 'entry 2 is empty'
	refused 'a.io=env:A,A.IO.=file:/k' '"A.IO.=file:/k": a.io has a credential already (entry 1)'
	refused $'a.io=file:/k\n' '"a.io=file:/k\n": has a control byte or a byte outside ASCII'
	refused $'a.io=file:/k\xc3\xa9' '"a.io=file:/ké": has a control byte or a byte outside ASCII'
	refused "a.io=$(printf 'u%.0s' $(seq 256))@env:T" \
	    "\"a.io=$(printf 'u%.0s' $(seq 75))...\": has a user that is empty, too long or starts with -"
	refused "a.io=file:/$(printf 'k%.0s' $(seq 1023))" \
	    "\"a.io=file:/$(printf 'k%.0s' $(seq 69))...\": has a source over 1023 bytes"
	run -0 egress regauth "$R" "a.io=file:/$(printf 'k%.0s' $(seq 1022))"
}

@test "regauth: a file of mode 0600 or 0400 the user owns is read, one trailing newline dropped" {
	key a 600 "$SECRET\n"
	key b 400 "$SECRET"
	key c 600 "$SECRET\n"
	run -0 --separate-stderr egress read "a.io=file:$K/a,b.io=u@file:$K/b"
	[ "$output" = "$(printf 'a.io 18 %s\nb.io 18 %s' "$SECRET" "$SECRET")" ]
	[ -z "$stderr" ]
	# a file of 8192 bytes passes, its newline among them
	key big 600 "$(printf 'x%.0s' $(seq 8192))"
	key bign 600 "$(printf 'x%.0s' $(seq 8191))\n"
	run -0 egress read "a.io=file:$K/big,b.io=file:$K/bign"
	[ "${lines[0]}" = "a.io 8192 $(printf 'x%.0s' $(seq 8192))" ]
	[ "${lines[1]}" = "b.io 8191 $(printf 'x%.0s' $(seq 8191))" ]
}

@test "regauth: a file anyone else could read or swap, or not one credential, is refused without a byte of it" {
	local uid
	uid=$(id -u)
	key m644 644 "$SECRET"
	unread "a.io=file:$K/m644" "a.io: file:$K/m644: has mode 0644: group or others have access (want 0600 or 0400)"
	key m640 640 "$SECRET"
	unread "a.io=file:$K/m640" "a.io: file:$K/m640: has mode 0640: group or others have access (want 0600 or 0400)"
	key m604 604 "$SECRET"
	unread "a.io=file:$K/m604" "a.io: file:$K/m604: has mode 0604: group or others have access (want 0600 or 0400)"
	key other 600 "$SECRET"
	chown nobody "$K/other"
	unread "a.io=file:$K/other" "a.io: file:$K/other: is owned by uid $(id -u nobody), not by uid $uid"
	key real 600 "$SECRET"
	ln -s "$K/real" "$K/link"
	unread "a.io=file:$K/link" "a.io: file:$K/link: is a symbolic link"
	mkfifo -m 600 "$K/fifo"
	unread "a.io=file:$K/fifo" "a.io: file:$K/fifo: is not a regular file"
	mkdir -m 700 "$K/dir"
	unread "a.io=file:$K/dir" "a.io: file:$K/dir: is not a regular file"
	unread "a.io=file:/dev/null" "a.io: file:/dev/null: is not a regular file"
	unread "a.io=file:$K/missing" "a.io: file:$K/missing: No such file or directory"
	key big 600 "s3cr3t$(printf 'x%.0s' $(seq 8994))"
	unread "a.io=file:$K/big" "a.io: file:$K/big: is over 8192 bytes"
	key big1 600 "s3cr3t$(printf 'x%.0s' $(seq 8186))\n"
	unread "a.io=file:$K/big1" "a.io: file:$K/big1: is over 8192 bytes"
	key nul 600 "s3cr3t\0more"
	unread "a.io=file:$K/nul" "a.io: file:$K/nul: holds a NUL byte"
	key two 600 "s3cr3t\nmore\n"
	unread "a.io=file:$K/two" "a.io: file:$K/two: holds more than one line"
	key twonl 600 "s3cr3t\n\n"
	unread "a.io=file:$K/twonl" "a.io: file:$K/twonl: holds more than one line"
	key empty 600 ""
	unread "a.io=file:$K/empty" "a.io: file:$K/empty: is empty"
	key nl 600 "\n"
	unread "a.io=file:$K/nl" "a.io: file:$K/nl: is empty"
	# one bad entry among good ones: the good are read, the bad named
	key good 600 "$SECRET"
	run -1 --separate-stderr egress read "a.io=file:$K/good,b.io=file:$K/m644"
	[ "$output" = "a.io 18 $SECRET" ]
	[ "$stderr" = "egress: b.io: file:$K/m644: has mode 0644: group or others have access (want 0600 or 0400)" ]
}

@test "regauth: a variable is read when set, not empty and one line of at most 8 KiB" {
	REG_T="$SECRET" run -0 egress read 'a.io=env:REG_T'
	[ "$output" = "a.io 18 $SECRET" ]
	REG_T="$SECRET"$'\n' run -0 egress read 'a.io=env:REG_T'
	[ "$output" = "a.io 18 $SECRET" ]
	unset REG_T
	unread 'a.io=env:REG_T' 'a.io: env:REG_T: is not set'
	REG_T= unread 'a.io=env:REG_T' 'a.io: env:REG_T: is empty'
	REG_T=$'\n' unread 'a.io=env:REG_T' 'a.io: env:REG_T: is empty'
	REG_T="s3cr3t$(printf 'x%.0s' $(seq 8187))" unread 'a.io=env:REG_T' 'a.io: env:REG_T: is over 8192 bytes'
	REG_T="s3cr3t$(printf 'x%.0s' $(seq 100000))" unread 'a.io=env:REG_T' 'a.io: env:REG_T: is over 8192 bytes'
	REG_T=$'s3cr3t\nmore' unread 'a.io=env:REG_T' 'a.io: env:REG_T: holds more than one line'
	# a name that only starts the same is another variable
	REG_TX="$SECRET" unread 'a.io=env:REG_T' 'a.io: env:REG_T: is not set'
	REG_T="$(printf 'y%.0s' $(seq 8192))" run -0 egress read 'a.io=env:REG_T'
	[ "${#output}" -eq $((10 + 8192)) ]
}

@test "regauth: sbx-env -c shows where each credential is kept, never a byte of it; sbx-run refuses a bad entry before any sbx call" {
	key a 600 "$SECRET"
	export REG_T="$SECRET"
	env "$R=ghcr.io=me@file:$K/a,Quay.io=env:REG_T" sbx-env -c >"$BATS_TEST_TMPDIR/out"
	grep -qxF "$R=ghcr.io=me@file:$K/a,Quay.io=env:REG_T" "$BATS_TEST_TMPDIR/out"
	! grep -q s3cr3t "$BATS_TEST_TMPDIR/out" || fail "sbx-env -c shows the value"
	env "$R=ghcr.io=me@file:$K/a" sbx-env -cj >"$BATS_TEST_TMPDIR/out"
	grep -qxF "{\"name\":\"$R\",\"value\":\"ghcr.io=me@file:$K/a\"}" "$BATS_TEST_TMPDIR/out"
	! grep -q s3cr3t "$BATS_TEST_TMPDIR/out"
	# a bad entry: exit 64 naming it, nothing printed, no sbx call
	env "$R=localhost:5000=env:REG_T" sbx-env -c >"$BATS_TEST_TMPDIR/out" \
	    2>"$BATS_TEST_TMPDIR/err" && fail "taken" || [ $? -eq 64 ]
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	[ "$(cat "$BATS_TEST_TMPDIR/err")" = "sbx-env: $R: \"localhost:5000=env:REG_T\": reaches the host" ]
	local s
	for s in "$N" pi-sbx-7-new; do
		rm -f "$SBX_STUB_DIR/calls.log"
		env "$R=ghcr.io=file:relative" sbx-run -s "$s" true \
		    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" && rc=0 || rc=$?
		[ "$rc" -eq 64 ] || fail "$s: exit $rc"
		[ "$(cat "$BATS_TEST_TMPDIR/err")" = "sbx-run: $R: \"ghcr.io=file:relative\": file: takes an absolute path" ]
		[ "$(stub_count)" -eq 0 ] || fail "$s: sbx was called"
	done
}
