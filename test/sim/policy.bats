#!/usr/bin/env bats
# The simulator's network policy (tier 2): `sbx policy allow|deny|rm|
# ls|check|log|init|reset` in each release's spelling, the rule file and
# the matcher the proxy shares, rules lost at a stop and at rm,
# the organisation and at-start faults, the log's envelopes, and hostile
# entries that never reach the rule file.  test/sbx-sim/README.md,
# "Network policy", gives each behaviour's source.
#
# Sandboxes pol-a and pol-b live for the whole file; tests that stop or
# remove one make their own.  Each test starts from deny-all and no rule.

load ../helpers/sim-helper

setup_file() {
	sim_setup_file
	unset SBX_SIM_PROFILE SBX_SIM_POLICY_SPELL SBX_SIM_POLICY_CHECK_RC SBX_SIM_POLICY_KEEP
	export WSP="$BATS_FILE_TMPDIR/wsp"
	mkdir -p "$WSP"
	[ -n "$SIM_MISSING" ] && return 0
	# no idle stop (it drops a sandbox's rules): on a loaded machine the
	# file outlasts the 30 s grace
	SBX_SIM_IDLE_STOP=0 "$SIM" create --quiet --name pol-a shell "$WSP" 3>&- &
	SBX_SIM_IDLE_STOP=0 "$SIM" create --quiet --name pol-b shell "$WSP" 3>&- &
	wait
}

teardown_file() {
	sim_teardown_file
}

setup() {
	sim_setup_test "$WSP"
	"$SIM" sim-reset
	P=$SBX_SIM_ROOT/policy
	: >"$P/rules"
	printf 'deny-all\n' >"$P/global"
	rm -f "$P/log"
}

# the policy verbs in the caller's words, and in the exact ones
pol() { "$SIM" policy "$@"; }
px() { SBX_SIM_WORDS=exact "$SIM" policy "$@"; }

# the JSON an answer printed, without sbx's own lines around it
jq_() {	# jq_ EXPR < answer
	sim_drop_own | json_get "$1"
}

# every line of the rule file has its seven fields and an ID
rules_sane() {
	awk -F'\t' 'NF != 7 || length($1) != 10 || $1 !~ /^r-[0-9a-f]+$/ ||
	    ($2 != "global" && $2 != "sandbox") || ($4 != "allow" && $4 != "deny") { bad = 1 }
	    END { exit bad }' "$P/rules"
}

nrules() { grep -c . "$P/rules" || true; }

# ---------------------------------------------------------------- the verb

@test "the root starts deny-all with no rule; policy and its subcommands answer as cobra does" {
	rm -rf "$P"
	run -0 "$SIM" version
	[ "$(cat "$P/global")" = deny-all ]
	[ ! -s "$P/rules" ]
	[ -e "$P/lock" ]
	run -0 px
	[[ $output == *"Available Commands:"*"allow"*"check"*"log"*"reset"* ]]
	run -0 "$SIM" --help
	[[ $output == *"  policy      "* ]]
	run -1 --separate-stderr px bogus
	[ "$stderr" = 'error: unknown command "bogus" for "sbx policy"' ]
	run -1 --separate-stderr px allow filesystem /x
	[ "$stderr" = 'error: unknown command "filesystem" for "sbx policy allow"' ]
	run -1 --separate-stderr px ls --bogus
	[ "$stderr" = 'error: unknown flag: --bogus' ]
	run -1 --separate-stderr px check network -z x.com
	[ "$stderr" = "error: unknown shorthand flag: 'z' in -z" ]
	SBX_SIM_PROFILE=0.46 run -1 --separate-stderr px init --bogus
	[ "$stderr" = 'ERROR: unknown flag: --bogus' ]
	# every call is logged as any verb's
	[ "$(tail -n 1 "$SBX_SIM_ROOT/calls.log" | cut -d' ' -f2-)" = "1 policy init --bogus" ]
}

@test "allow and deny: --sandbox on 0.47 and 0.55, the positional SANDBOX on 0.46, -g global; the other spelling fails as cobra does" {
	local p e
	for p in 0.47 0.55; do
		: >"$P/rules"
		SBX_SIM_PROFILE=$p run -0 --separate-stderr pol allow network --sandbox pol-a 'a.com,*.b.org'
		[[ $(sim_drop_own <<<"$output") =~ ^Policy\ added:\ r-[0-9a-f]{8}\ \(a\.com,\ \*\.b\.org\)$ ]] || fail "$p: $output"
		SBX_SIM_PROFILE=$p run -0 pol deny network -g ads.com:443
		SBX_SIM_PROFILE=$p run -0 pol deny network evil.com
		run -0 cut -f2-7 "$P/rules"
		[ "$output" = "$(printf 'sandbox\tpol-a\tallow\ta.com\tlocal\tactive\nsandbox\tpol-a\tallow\t*.b.org\tlocal\tactive\nglobal\t*\tdeny\tads.com:443\tlocal\tactive\nglobal\t*\tdeny\tevil.com\tlocal\tactive')" ]
		# one ID for the entries of one call
		[ "$(cut -f1 "$P/rules" | uniq | wc -l)" -eq 3 ]
		SBX_SIM_PROFILE=$p run -1 --separate-stderr px allow network pol-a c.com
		[ "$stderr" = "error: accepts 2 arg(s), received 3" ]
		SBX_SIM_PROFILE=$p run -1 --separate-stderr px allow network -g --sandbox pol-a c.com
		[ "$stderr" = "error: if any flags in the group [global sandbox] are set none of the others can be; [global sandbox] were all set" ]
		[ "$(nrules)" -eq 4 ]
		rules_sane
	done
	: >"$P/rules"
	export SBX_SIM_PROFILE=0.46
	run -0 pol allow network pol-a a.com
	run -0 pol deny network -g b.com
	run -0 pol allow network c.com
	run -0 cut -f2-4 "$P/rules"
	[ "$output" = "$(printf 'sandbox\tpol-a\tallow\nglobal\t*\tdeny\nglobal\t*\tallow')" ]
	run -1 --separate-stderr px allow network --sandbox pol-a d.com
	[ "$stderr" = "ERROR: unknown flag: --sandbox" ]
	run -1 --separate-stderr px allow network pol-a d.com e.com
	[ "$stderr" = "ERROR: accepts between 1 and 2 arg(s), received 3" ]
	run -1 --separate-stderr px deny network -g pol-a d.com
	[ "$stderr" = "ERROR: -g and a sandbox name cannot be used together" ]
	[ "$(nrules)" -eq 3 ]
	# a sandbox that does not exist is refused in the profile's words
	for p in 0.46 0.55; do
		e=(allow network nope x.com)
		[ "$p" = 0.55 ] && e=(allow network --sandbox nope x.com)
		SBX_SIM_PROFILE=$p run -1 --separate-stderr px "${e[@]}"
		[ "$stderr" = "$(SBX_SIM_PROFILE=$p sim_missing_text nope exec)" ] || fail "$p: $stderr"
	done
	[ "$(nrules)" -eq 3 ]
}

@test "SBX_SIM_POLICY_SPELL: both takes either spelling, flag and positional override the profile, another value fails" {
	SBX_SIM_POLICY_SPELL=both run -0 pol allow network pol-a a.com
	SBX_SIM_POLICY_SPELL=both run -0 pol allow network --sandbox pol-b b.com
	SBX_SIM_POLICY_SPELL=both run -1 --separate-stderr px allow network --sandbox pol-b pol-a b.com
	[ "$stderr" = "error: accepts 2 arg(s), received 3" ]
	SBX_SIM_PROFILE=0.46 SBX_SIM_POLICY_SPELL=flag run -0 pol allow network --sandbox pol-a c.com
	SBX_SIM_POLICY_SPELL=positional run -0 pol allow network pol-b d.com
	SBX_SIM_POLICY_SPELL=positional run -1 --separate-stderr px allow network --sandbox pol-b d.com
	[ "$stderr" = "error: unknown flag: --sandbox" ]
	run -0 cut -f3,5 "$P/rules"
	[ "$output" = "$(printf 'pol-a\ta.com\npol-b\tb.com\npol-a\tc.com\npol-b\td.com')" ]
	SBX_SIM_POLICY_SPELL=bogus run -1 --separate-stderr px allow network pol-a e.com
	[[ $stderr == *"SBX_SIM_POLICY_SPELL must be flag, positional or both"* ]]
}

@test "policy ls: a row and an object per rule, its entries together; NAME lists its own and the global ones" {
	run -0 --separate-stderr px ls
	[ "$output" = "No policies found." ]
	run -0 --separate-stderr pol ls --json
	[ "$(jq_ 'd' <<<"$output")" = '{"rules": []}' ]
	run -0 pol allow network --sandbox pol-a 'a.com,10.0.0.0/8'
	run -0 pol deny network --sandbox pol-b b.com
	run -0 pol deny network -g c.com:22
	run -0 --separate-stderr px ls
	[[ ${lines[0]} =~ ^NAME\ +TYPE\ +ORIGIN\ +DECISION\ +STATUS\ +RESOURCES$ ]]
	[[ ${lines[1]} =~ ^r-[0-9a-f]{8}\ +network\ +sandbox:pol-a\ +allow\ +active\ +a\.com,\ 10\.0\.0\.0/8$ ]]
	[[ ${lines[2]} =~ ^r-[0-9a-f]{8}\ +network\ +sandbox:pol-b\ +deny\ +active\ +b\.com$ ]]
	[[ ${lines[3]} =~ ^r-[0-9a-f]{8}\ +network\ +local\ +deny\ +active\ +c\.com:22$ ]]
	[ "${#lines[@]}" -eq 4 ]
	run -0 --separate-stderr pol ls pol-a --json
	[ "$(jq_ '[sorted(r) for r in d["rules"]][0]' <<<"$output")" = '["applies_to", "decision", "editable", "id", "origin", "resource_type", "resources", "scope", "status"]' ]
	[ "$(jq_ '[(r["scope"], r["applies_to"], r["decision"], r["resources"], r["origin"], r["status"], r["editable"]) for r in d["rules"]]' <<<"$output")" = \
	    '[["sandbox", "pol-a", "allow", ["a.com", "10.0.0.0/8"], "local", "active", true], ["global", "all", "deny", ["c.com:22"], "local", "active", true]]' ]
	[ "$(jq_ 'd["rules"][0]["id"]' <<<"$output")" = "$(head -n 1 "$P/rules" | cut -f1)" ]
	run -0 --separate-stderr pol ls --source org --json
	[ "$(jq_ 'd' <<<"$output")" = '{"rules": []}' ]
	run -1 --separate-stderr px ls nope
	[ "$stderr" = "$(sim_missing_text nope exec)" ]
	run -1 --separate-stderr px ls pol-a pol-b
	[ "$stderr" = "error: accepts at most 1 arg(s), received 2" ]
}

@test "policy rm: by --resource or --id in either spelling; without -f and no terminal it fails as rm does; on a terminal it asks" {
	local id
	run -0 pol allow network --sandbox pol-a 'a.com,b.com'
	run -0 pol allow network --sandbox pol-b a.com
	run -0 pol allow network -g a.com
	run -1 --separate-stderr px rm network --sandbox pol-a --resource a.com
	[ "$stderr" = "error: stdin is not a terminal" ]
	[ "$(nrules)" -eq 4 ]
	run -0 --separate-stderr pol rm network --sandbox pol-a --resource a.com -f
	[[ $(sim_drop_own <<<"$output") =~ ^Policy\ removed:\ r-[0-9a-f]{8}\ \(a\.com\)$ ]]
	run -0 cut -f3,5 "$P/rules"
	[ "$output" = "$(printf 'pol-a\tb.com\npol-b\ta.com\n*\ta.com')" ]
	# the positional spelling on 0.46; the flag spelling refused there
	SBX_SIM_PROFILE=0.46 run -1 --separate-stderr px rm network --sandbox pol-b --resource a.com -f
	[ "$stderr" = "ERROR: unknown flag: --sandbox" ]
	SBX_SIM_PROFILE=0.46 run -0 pol rm network pol-b --resource a.com -f
	run -1 --separate-stderr px rm network pol-b --resource a.com -f
	[ "$stderr" = "error: accepts 1 arg(s), received 2" ]
	# an ID alone removes the rule wherever it is
	id=$(head -n 1 "$P/rules" | cut -f1)
	run -0 pol rm network --id "$id" -f
	run -0 cut -f3,5 "$P/rules"
	[ "$output" = "$(printf '*\ta.com')" ]
	run -1 --separate-stderr px rm network --id "$id" -f
	[ "$stderr" = "error: no network rules match id=$id in global" ]
	run -1 --separate-stderr px rm network -f
	[ "$stderr" = "error: at least one of the flags in the group [resource id] is required" ]
	run -1 --separate-stderr px rm network --resource a.com --id "$id" -f
	[[ $stderr == "error: if any flags in the group [resource id] are set none of the others can be;"* ]]
	# a terminal: sbx asks; n keeps the rule, y removes it
	IN=n run -1 on_tty "$SIM" policy rm network -g --resource a.com
	[[ $output == *"Remove network rules from global (resource=a.com)? (y/N) "* ]]
	[ "$(nrules)" -eq 1 ]
	IN=y run -0 on_tty "$SIM" policy rm network -g --resource a.com
	[ "$(nrules)" -eq 0 ]
	[ "$(grep -c ' policy policy-rm$' "$SBX_SIM_ROOT/prompts.log")" -eq 2 ]
}

# ---------------------------------------------------------------- the matcher

@test "the matcher: exact, case and a trailing dot, *. one label, **. several, ports, IPv4 and IPv6 prefixes, URLs; deny beats allow; the raw verdict when nothing matched" {
	local t want
	run -0 pol allow network -g 'API.x.com.,*.one.org,**.many.net,port.io:8443,10.0.0.0/8,fd00::/16,[fd01::1]:22,1.2.3.4'
	run -0 pol deny network -g 'bad.many.net,10.9.0.0/16'
	while read -r t want; do
		run "$SIM" __policy-match "$t" pol-a
		[ "${output%%$'\t'*}" = "$want" ] || fail "$t: $output (want $want)"
		if [ "$want" = allow ]; then [ "$status" -eq 0 ]; else [ "$status" -eq 1 ]; fi
	done <<'EOF'
api.x.com allow
api.X.COM. allow
api.x.com:80 allow
x.com deny
a.one.org allow
a.b.one.org deny
one.org deny
a.b.many.net allow
many.net deny
bad.many.net deny
port.io:8443 allow
port.io deny
https://port.io:8443/x/y allow
10.1.2.3 allow
10.9.1.1 deny
11.0.0.1 deny
1.2.3.4:22 allow
fd00::5 allow
[fd00:0::7]:80 allow
fd02::1 deny
[fd01::1]:22 allow
fd01::1 deny
EOF
	run -1 "$SIM" __policy-match http://nothing.example/path ''
	[ "$output" = "$(printf 'deny\tno applicable policies for op=(action:net:connect:tcp, resource=net:domain:nothing.example:80)')" ]
	run -1 "$SIM" __policy-match 192.168.1.1:53 ''
	[ "$output" = "$(printf 'deny\tno applicable policies for op=(action:net:connect:tcp, resource=net:ip:192.168.1.1:53)')" ]
	run -0 "$SIM" __policy-match api.x.com ''
	[ "$output" = "$(printf 'allow\t%s' "$(head -n 1 "$P/rules" | cut -f1)")" ]
	run -2 "$SIM" __policy-match 'not a host' ''
	[ -z "$output" ]
	# a sandbox's rules count for it alone; allow-all allows the rest
	run -0 pol allow network --sandbox pol-a only-a.com
	run -0 "$SIM" __policy-match only-a.com pol-a
	run -1 "$SIM" __policy-match only-a.com pol-b
	run -1 "$SIM" __policy-match only-a.com ''
	printf 'allow-all\n' >"$P/global"
	run -0 "$SIM" __policy-match anything.com pol-b
	run -1 "$SIM" __policy-match bad.many.net pol-b
}

@test "policy check: Allowed or Denied and a Reason; a denial exits 1, or 0 with SBX_SIM_POLICY_CHECK_RC=0; --json parses" {
	run -0 pol allow network --sandbox pol-a a.com
	run -0 pol deny network -g d.com
	run -0 --separate-stderr px check network --sandbox pol-a a.com
	[ "$output" = "$(printf 'Allowed: a.com\nReason: allowed by rule %s (a.com)' "$(head -n 1 "$P/rules" | cut -f1)")" ]
	run -1 --separate-stderr px check network a.com
	[ "$output" = "$(printf 'Denied: a.com\nReason: no matching allow rule (default deny)')" ]
	run -1 --separate-stderr px check network https://d.com/x
	[ "$output" = "$(printf 'Denied: https://d.com/x\nReason: denied by rule %s (d.com)' "$(tail -n 1 "$P/rules" | cut -f1)")" ]
	SBX_SIM_POLICY_CHECK_RC=0 run -0 --separate-stderr px check network a.com
	[[ $output == "Denied: a.com"* ]]
	SBX_SIM_POLICY_CHECK_RC=2 run -1 --separate-stderr px check network a.com
	[[ $stderr == *"SBX_SIM_POLICY_CHECK_RC must be 0 or 1"* ]]
	run -1 --separate-stderr px check network --json --sandbox pol-b a.com
	[ "$(json_get '[d["allowed"], d["context"], d["resource_value"], d["reason"]]' <<<"$output")" = '[false, "sandbox:pol-b", "a.com:443", "no matching allow rule (default deny)"]' ] || fail "$output"
	run -0 --separate-stderr pol check network --json --sandbox pol-a a.com:8080
	[ "$(jq_ '[d["allowed"], d["resource_value"], d["rule"]]' <<<"$output")" = "[true, \"a.com:8080\", \"$(head -n 1 "$P/rules" | cut -f1)\"]" ]
	run -1 --separate-stderr px check network a.com b.com
	[ "$stderr" = "error: accepts 1 arg(s), received 2" ]
	run -1 --separate-stderr px check network --sandbox nope a.com
	[ "$stderr" = "$(sim_missing_text nope exec)" ]
	run -1 --separate-stderr px check network 'a b'
	[ "$stderr" = 'error: invalid target "a b"' ]
}

@test "policy check under SBX_SIM_WORDS=vary: the exit status of a denial and the lines around the answer vary with the seed; the answer does not" {
	local s rcs='' out
	for s in 1 2 3 4 5 6 7 8 9 10 11 12; do
		SBX_SIM_WORDS=vary SBX_SIM_SEED=$s run --separate-stderr "$SIM" policy check network x.com
		rcs+=" $status"
		out=$(SBX_SIM_WORDS=vary sim_drop_own <<<"$output" | grep -v -e '^Context: ' -e '^Governance: ')
		[[ $out =~ ^Denied:\ x\.com$'\n'Reason:\ (no\ matching\ allow\ rule\ \(default\ deny\)|no\ applicable\ policies\ for\ op=\(action:net:connect:tcp,\ resource=net:domain:x\.com:443\))$ ]] ||
		    fail "seed $s: $output"
		SBX_SIM_WORDS=vary SBX_SIM_SEED=$s SBX_SIM_POLICY_CHECK_RC=1 run -1 "$SIM" policy check network x.com
	done
	[[ $rcs == *" 0"* ]] && [[ $rcs == *" 1"* ]] || fail "statuses:$rcs"
}

# ---------------------------------------------------------------- lifetime

@test "a sandbox's rules are lost at its stop, kept over a stop with SBX_SIM_POLICY_KEEP=1, gone at rm whatever it says" {
	"$SIM" create --quiet --name pol-c shell "$WSP" 3>&-
	run -0 pol allow network --sandbox pol-c c.com
	run -0 pol allow network --sandbox pol-a a.com
	run -0 pol allow network -g g.com
	run -0 "$SIM" stop pol-c
	run -0 cut -f3,5 "$P/rules"
	[ "$output" = "$(printf 'pol-a\ta.com\n*\tg.com')" ]
	run -0 pol allow network --sandbox pol-c c.com
	SBX_SIM_POLICY_KEEP=1 run -0 "$SIM" stop pol-c
	[ "$(grep -c "	pol-c	" "$P/rules")" -eq 1 ]
	run -0 "$SIM" exec pol-c -- true
	run -0 "$SIM" __policy-match c.com pol-c
	SBX_SIM_POLICY_KEEP=1 run -0 "$SIM" rm -f pol-c
	run -0 cut -f3,5 "$P/rules"
	[ "$output" = "$(printf 'pol-a\ta.com\n*\tg.com')" ]
	rules_sane
}

@test "the idle stop loses them too" {
	"$SIM" create --quiet --name pol-d shell "$WSP" 3>&-
	run -0 pol allow network --sandbox pol-d d.com
	SBX_SIM_IDLE_STOP=1 run -0 "$SIM" exec pol-d -- true
	for _ in $(seq 100); do
		[ "$(sim_look ls --json | json_get '[s["status"] for s in d["sandboxes"] if s["name"] == "pol-d"][0]')" = stopped ] && break
		sleep 0.1
	done
	run grep -c pol-d "$P/rules"
	[ "$output" -eq 0 ] || fail "rules after the idle stop: $(cat "$P/rules")"
	run -1 "$SIM" __policy-match d.com pol-d
	"$SIM" rm -f pol-d
}

@test "fault policy-org: local allow rules list as inactive and never match; deny rules still count; the file says so" {
	export SBX_SIM_FAULT=policy-org
	run -0 pol allow network --sandbox pol-a a.com
	run -0 pol deny network --sandbox pol-a d.com
	printf 'r-0000000a\tglobal\t*\tallow\torg.com\torg\tactive\n' >>"$P/rules"
	run -0 --separate-stderr pol ls pol-a --json
	[ "$(jq_ '[(r["decision"], r["origin"], r["status"]) for r in d["rules"]]' <<<"$output")" = \
	    '[["allow", "local", "inactive"], ["deny", "local", "active"], ["allow", "org", "active"]]' ]
	run -0 cut -f4,7 "$P/rules"
	[ "$output" = "$(printf 'allow\tinactive\ndeny\tactive\nallow\tactive')" ]
	run -1 --separate-stderr px check network --sandbox pol-a a.com
	[ "$output" = "$(printf 'Denied: a.com\nReason: approval required by policy')" ]
	run -1 "$SIM" __policy-match d.com pol-a
	[[ $output == "deny	r-"* ]]
	run -0 "$SIM" __policy-match org.com pol-a
	# a rule made before the fault is marked at the next policy call
	unset SBX_SIM_FAULT
	run -0 pol allow network --sandbox pol-b b.com
	run -0 "$SIM" __policy-match b.com pol-b
	SBX_SIM_FAULT=policy-org run -0 px ls pol-b
	[[ $output == *"sandbox:pol-b   allow      inactive   b.com"* ]]
	[ "$(grep 'b\.com' "$P/rules" | cut -f7)" = inactive ]
	run -1 "$SIM" __policy-match b.com pol-b
}

@test "fault policy-at-start: a rule added to a running sandbox counts only after its next start" {
	export SBX_SIM_POLICY_KEEP=1
	"$SIM" create --quiet --name pol-e shell "$WSP" 3>&-
	run -0 pol allow network --sandbox pol-e e.com
	run -0 pol allow network -g g.com
	SBX_SIM_FAULT=policy-at-start run -1 "$SIM" __policy-match e.com pol-e
	SBX_SIM_FAULT=policy-at-start run -1 "$SIM" __policy-match g.com pol-e
	SBX_SIM_FAULT=policy-at-start run -1 --separate-stderr px check network --sandbox pol-e e.com
	[ "$output" = "$(printf 'Denied: e.com\nReason: no matching allow rule (default deny)')" ]
	# the global context has no start: every rule counts there
	SBX_SIM_FAULT=policy-at-start run -0 "$SIM" __policy-match g.com ''
	# without the fault it counts at once (the manual)
	run -0 "$SIM" __policy-match e.com pol-e
	run -0 "$SIM" stop pol-e
	run -0 "$SIM" exec pol-e -- true
	SBX_SIM_FAULT=policy-at-start run -0 "$SIM" __policy-match e.com pol-e
	SBX_SIM_FAULT=policy-at-start run -0 px check network --sandbox pol-e e.com
	"$SIM" rm -f pol-e
}

# ---------------------------------------------------------------- the log

# log_line MS SANDBOX HOST:PORT DECISION RULE: one decision, as the proxy appends it
log_line() {
	printf '%s\t%s\t%s\t%s\t%s\tforward\n' "$@" >>"$P/log"
}

@test "policy log: the envelope aggregates the proxy's lines per sandbox, host and decision; SANDBOX, --limit, --type; --sandbox refused" {
	local t=1796450000000 v='no applicable policies for op=(action:net:connect:tcp, resource=net:domain:evil.com:443)'
	run -0 --separate-stderr pol log --json
	[ "$(jq_ 'd' <<<"$output")" = '{"blocked_hosts": [], "allowed_hosts": []}' ]
	run -0 --separate-stderr px log
	[ "$output" = "No policy log entries found." ]
	log_line $((t + 1000)) pol-a evil.com:443 deny "$v"
	log_line $((t + 5000)) pol-a evil.com:443 deny "$v"
	log_line $((t + 3000)) pol-a ok.com:443 allow r-0000abcd
	log_line $((t + 2000)) pol-b evil.com:443 deny r-0000dddd
	printf 'garbage\n%s\tpol-a\tx.com:443\tmaybe\tr\tforward\n' "$t" >>"$P/log"
	TZ=UTC run -0 --separate-stderr pol log --json
	[ "$(jq_ 'sorted(d)' <<<"$output")" = '["allowed_hosts", "blocked_hosts"]' ]
	[ "$(jq_ 'd["blocked_hosts"][0]' <<<"$output")" = \
	    "{\"host\": \"evil.com:443\", \"vm_name\": \"pol-a\", \"proxy_type\": \"forward\", \"rule\": \"$v\", \"last_seen\": \"2026-12-05T05:53:25Z\", \"since\": \"2026-12-05T05:53:21Z\", \"count_since\": 2}" ]
	[ "$(jq_ '[(e["vm_name"], e["rule"], e["count_since"]) for e in d["blocked_hosts"][1:] + d["allowed_hosts"]]' <<<"$output")" = \
	    '[["pol-b", "r-0000dddd", 1], ["pol-a", "r-0000abcd", 1]]' ]
	# RFC 3339 with the local offset
	TZ=UTC-7 run -0 --separate-stderr pol log pol-b --json
	[ "$(jq_ '[d["blocked_hosts"][0]["last_seen"], len(d["allowed_hosts"])]' <<<"$output")" = '["2026-12-05T12:53:22+07:00", 0]' ]
	run -0 --separate-stderr pol log --json --limit 2 --type network
	[ "$(jq_ '[e["host"] + " " + e["vm_name"] for e in d["blocked_hosts"] + d["allowed_hosts"]]' <<<"$output")" = '["evil.com:443 pol-a", "ok.com:443 pol-a"]' ]
	run -0 --separate-stderr px log pol-a
	[ "${lines[0]}" = "Blocked requests:" ]
	[[ ${lines[1]} =~ ^SANDBOX\ +HOST\ +PROXY\ +LAST\ SEEN\ +COUNT\ +REASON$ ]]
	[[ ${lines[2]} =~ ^pol-a\ +evil\.com:443\ +forward\ +[-0-9T:Z+]+\ +2\ +no\ applicable ]]
	[ "${lines[3]}" = "Allowed requests:" ]
	run -0 --separate-stderr px log -q pol-b
	[[ $output =~ ^pol-b\ +evil\.com:443\ +forward\ +[-0-9T:Z+]+\ +1\ +r-0000dddd$ ]]
	run -1 --separate-stderr px log --sandbox pol-a
	[ "$stderr" = "error: unknown flag: --sandbox" ]
	run -1 --separate-stderr px log --limit x
	[ "$stderr" = 'error: invalid argument "x" for "--limit" flag: strconv.ParseInt: parsing "x": invalid syntax' ]
	run -1 --separate-stderr px log --type dns
	[ "$stderr" = 'error: invalid log type "dns": must be "all" or "network"' ]
}

@test "policy log faults: policy-log-array prints a bare array, policy-log-odd an envelope nobody knows" {
	log_line 1796450001000 pol-a evil.com:443 deny r-0000dddd
	log_line 1796450002000 pol-a ok.com:443 allow r-0000abcd
	SBX_SIM_FAULT=policy-log-array TZ=UTC run -0 --separate-stderr pol log --json
	[ "$(jq_ 'd' <<<"$output")" = '[{"host": "evil.com:443", "sandbox": "pol-a", "decision": "blocked", "reason": "r-0000dddd", "timestamp": "2026-12-05T05:53:21Z"}, {"host": "ok.com:443", "sandbox": "pol-a", "decision": "allowed", "reason": "r-0000abcd", "timestamp": "2026-12-05T05:53:22Z"}]' ]
	SBX_SIM_FAULT=policy-log-odd run -0 --separate-stderr pol log --json
	[ "$(jq_ 'sorted(d)' <<<"$output")" = '["data"]' ]
	[ "$(jq_ '[(e["host"], e["decision"], e["count"]) for e in d["data"]["items"]]' <<<"$output")" = '[["evil.com:443", "blocked", 1], ["ok.com:443", "allowed", 1]]' ]
}

# ---------------------------------------------------------------- init, reset, faults

@test "policy init refuses another preset; reset stops every running sandbox and drops the local rules and the preset; the policy failure kind still works" {
	run -0 --separate-stderr px init deny-all
	[ "$output" = "Default network policy is already deny-all" ]
	run -1 --separate-stderr px init allow-all
	[ "$stderr" = "$(printf 'error: default network policy is already set to deny-all\n  try: sbx policy reset')" ]
	run -1 --separate-stderr px init open
	[ "$stderr" = 'error: invalid policy "open": must be one of allow-all, balanced, deny-all' ]
	"$SIM" exec pol-a -- true
	"$SIM" exec pol-b -- true
	run -0 pol allow network -g g.com
	printf 'r-0000000b\tglobal\t*\tdeny\torg.com\torg\tactive\n' >>"$P/rules"
	n=$(sim_ncalls)
	run -0 pol reset
	[ "$(sim_calls_after "$n" | cut -d' ' -f2-)" = "0 policy reset" ]
	[ "$(sim_look ls --json | json_get 'sorted(set(s["status"] for s in d["sandboxes"]))')" = '["stopped"]' ]
	[ ! -e "$P/global" ]
	run -0 cut -f5,6 "$P/rules"
	[ "$output" = "$(printf 'org.com\torg')" ]
	run -1 --separate-stderr px allow network -g a.com
	[ "$stderr" = "$(printf 'error: global network policy has not been initialized\n  try: sbx policy init <allow-all|balanced|deny-all>')" ]
	run -1 --separate-stderr px check network a.com
	[[ $stderr == "error: global network policy has not been initialized"* ]]
	run -0 pol init allow-all
	[ "$(cat "$P/global")" = allow-all ]
	run -0 px check network a.com
	[ "$output" = "$(printf 'Allowed: a.com\nReason: allowed by the default policy (allow-all)')" ]
	# SBX_SIM_FAIL's policy kind, for this verb and for another
	SBX_SIM_FAIL=policy:1:policy run -1 --separate-stderr px ls
	[ "$stderr" = "error: global network policy has not been initialized" ]
	SBX_SIM_FAIL=ls:1:policy run -1 --separate-stderr sim_look ls
	[ "$stderr" = "error: global network policy has not been initialized" ]
}

@test "hostile entries (blanks, a newline, a tab, -x, 10000 bytes, empty ones, a scheme, port 0) never reach the rule file" {
	local big e
	run -0 pol allow network -g good.com
	cp "$P/rules" "$BATS_TEST_TMPDIR/before"
	big=$(head -c 10000 /dev/zero | tr '\0' a)
	for e in 'a b.com' $'a.com\nb.com' $'a.com\tx' "$big" "$big.com" 'a.com,' ',' '' 'http://a.com' 'a.com/x' \
	    'a.com:0' 'a.com:65536' '***.a.com' 'a..com' '-a.com' $'a.com\r' '10.0.0.0/33' 'fd00::/129' '[a.com]:1' \
	    'a"b.com' 'a\b.com'; do
		run -1 --separate-stderr px allow network -g -- "$e"
		[[ $stderr == 'error: invalid network resource "'* ]] || fail "$(printf '%q' "$e"): $stderr"
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		run -1 px rm network -g --resource "$e" -f
	done
	run -1 --separate-stderr px allow network -g -x
	[ "$stderr" = "error: unknown shorthand flag: 'x' in -x" ]
	run -1 --separate-stderr px allow network --sandbox $'pol-a\nx' a.com
	run -1 --separate-stderr px allow network --sandbox 'pol-a	*' a.com
	cmp "$BATS_TEST_TMPDIR/before" "$P/rules"
	rules_sane
	run -0 --separate-stderr pol ls --json
	[ "$(jq_ '[r["resources"] for r in d["rules"]]' <<<"$output")" = '[["good.com"]]' ]
	# lines a test (or a guest, through the proxy) wrote with controls or
	# bytes beyond ASCII are passed over, never printed
	printf 'r-0000000c\tglobal\t*\tallow\t\303\251.com\tlocal\tactive\n' >>"$P/rules"
	run -0 --separate-stderr pol ls --json
	[ "$(jq_ '[r["resources"] for r in d["rules"]]' <<<"$output")" = '[["good.com"]]' ]
	printf '1796450001000\tpol-a\t%s:443\tdeny\tr-0000dddd\tforward\n' ok.com $'\303\251.com' $'e\001.com' $'e\033[2J.com' >"$P/log"
	run -0 --separate-stderr pol log --json
	[ "$(jq_ '[e["host"] for e in d["blocked_hosts"]]' <<<"$output")" = '["ok.com:443"]' ]
}

@test "rewrites take the lock and replace by rename: ten adds at once all land, and a reader never sees a part" {
	local i
	for i in 0 1 2 3 4 5 6 7 8 9; do
		pol allow network -g "h$i.com" >/dev/null 2>&1 &
	done
	# a reader meanwhile sees whole lines only
	for i in $(seq 20); do rules_sane; done
	wait
	[ "$(nrules)" -eq 10 ]
	[ "$(cut -f5 "$P/rules" | sort | tr '\n' ' ')" = "h0.com h1.com h2.com h3.com h4.com h5.com h6.com h7.com h8.com h9.com " ]
	rules_sane
	[ -z "$(find "$P" -name 'rules.*')" ]
}
