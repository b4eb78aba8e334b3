#!/usr/bin/env bats
# The session's network rules and registry credentials against the
# simulator (tier 2): put in force at provisioning in either spelling of
# sbx's policy verbs, proven by its listing, named when sbx blocks a
# host, put back when a stop drops them, removed at the teardown and by
# sbx-gc; a private image pulls with a credential nothing inside can read.
#
# A web server and an htpasswd registry run on the host's loopback and
# are reached by name through the sandboxes' proxies (SBX_SIM_HOSTS).

load ../helpers/sim-helper
load ../helpers/registry

setup_file() {
	sim_setup_file
	sim_session_file
	export REG_DIR="$BATS_FILE_TMPDIR/reg" SBX="$SIM"
	export PATH="$TOP/sbx-ports:$TOP/sbx-watch:$TOP/sbx-gc:$PATH"
	mkdir -p "$REG_DIR" "$BATS_FILE_TMPDIR/www"
	[ -n "$SIM_MISSING" ] && return 0
	[ -z "$(reg_missing)" ] || return 0
	web_start "$BATS_FILE_TMPDIR/www"
	reg_private
	export SBX_SIM_HOSTS="web.test=127.0.0.1:$WEB,a.web.test=127.0.0.1:$WEB,b.a.web.test=127.0.0.1:$WEB,other.test=127.0.0.1:$WEB,$SBX_SIM_HOSTS"
}

teardown_file() {
	web_stop
	sim_teardown_file
}

setup() {
	sim_setup_test "$WS"
	[ -z "$(reg_missing)" ] || fail "needs: $(reg_missing)"
	unset DOCKER_SANDBOX_EGRESS_ALLOW DOCKER_SANDBOX_EGRESS_DENY \
	    DOCKER_SANDBOX_REGISTRY_AUTH SBX_SIM_FAULT SBX_SIM_PROFILE \
	    SBX_SIM_POLICY_SPELL
}

# the calls after mark N: the verb, and a policy call's own verb, in order
policy_after() {
	sim_calls_after "$1" | awk '{ printf "%s ", $3 == "policy" || $3 == "secret" ? $3 " " $4 : $3 }'
}

# the status of a fetch from inside NAME through its proxy
inside() {	# inside NAME URL
	sbx-run -s "$1" -x curl -gsS -m 10 -o /dev/null -w '%{http_code}' "$2"
}

@test "provisioning puts the rules in force before the first call: one deny, one allow, one listing (flag spelling)" {
	export DOCKER_SANDBOX_EGRESS_ALLOW="web.test,a.web.test" DOCKER_SANDBOX_EGRESS_DENY="b.a.web.test"
	n=$(sim_ncalls)
	run -0 --separate-stderr inside eg-a http://web.test/
	[ "$output" = 200 ]
	[ "$(policy_after "$n")" = "exec create policy deny policy allow policy ls exec " ] ||
	    fail "$(sim_calls_after "$n")"
	sim_calls_after "$n" | grep -q ' policy deny network --sandbox eg-a b.a.web.test$'
	sim_calls_after "$n" | grep -q ' policy allow network --sandbox eg-a web.test\\,a.web.test$'
	[ "$(cat "$SBX_STATE_DIR/eg-a.egress")" = "$(printf 'allow web.test\nallow a.web.test\ndeny b.a.web.test')" ]
	[ "$(stat -c %a "$SBX_STATE_DIR/eg-a.egress")" = 600 ]
	run -0 --separate-stderr "$SIM" policy ls eg-a --json
	output=$(grep '^{' <<<"$output" | head -n1)	# sbx's own lines dropped
	[ "$(json_get 'sorted((r["decision"], x, r["status"]) for r in d["rules"] for x in r["resources"])' <<<"$output")" = \
	    '[["allow", "a.web.test", "active"], ["allow", "web.test", "active"], ["deny", "b.a.web.test", "active"]]' ]
	# the deny beats the allow of its parent's *.; other hosts: global deny-all
	run -0 --separate-stderr inside eg-a http://a.web.test/
	[ "$output" = 200 ]
	run -0 --separate-stderr inside eg-a http://b.a.web.test/
	[ "$output" = 403 ]
}

@test "the operand spelling, on an sbx that refuses --sandbox: learned once per binary, never tried first again" {
	export SBX_SIM_PROFILE=0.46 DOCKER_SANDBOX_EGRESS_ALLOW="web.test"
	rm -f "$SBX_STATE_DIR/sbx-policy-operand"
	n=$(sim_ncalls)
	run -0 --separate-stderr inside eg-b http://web.test/
	[ "$output" = 200 ] || fail "$stderr"
	sim_calls_after "$n" | grep -q '^[0-9.]* 1 policy allow network --sandbox eg-b web.test$'
	sim_calls_after "$n" | grep -q '^[0-9.]* 0 policy allow network eg-b web.test$'
	[ -s "$SBX_STATE_DIR/sbx-policy-operand" ]
	n=$(sim_ncalls)
	run -0 --separate-stderr inside eg-b2 http://web.test/
	[ "$output" = 200 ]
	! sim_calls_after "$n" | grep -q -- '--sandbox'
	[ "$(policy_after "$n")" = "exec create policy allow policy ls exec " ] ||
	    fail "$(sim_calls_after "$n")"
}

@test "a blocked host is named on stderr, in the journal and on -O; a call that succeeds costs no log call" {
	export DOCKER_SANDBOX_EGRESS_ALLOW="web.test" DOCKER_SANDBOX_EGRESS_DENY="a.web.test"
	run -0 --separate-stderr inside eg-c http://web.test/
	n=$(sim_ncalls)
	run -0 --separate-stderr inside eg-c http://web.test/
	[ "$(policy_after "$n")" = "exec " ]
	n=$(sim_ncalls)
	run -22 --separate-stderr sbx-run -O 3 -s eg-c -x curl -fsS -m 10 -o /dev/null http://other.test/ 3>"$BATS_TEST_TMPDIR/origin"
	[ "$(policy_after "$n")" = "exec policy log " ]
	[[ $stderr == *"sbx-run: sandbox eg-c: sbx blocked other.test:80: no rule allows it"* ]] || fail "$stderr"
	[ "$(sed -n 2p "$BATS_TEST_TMPDIR/origin")" = "blocked other.test:80 no rule allows it" ]
	# sbx's log keeps whole seconds: a call a second later is another's
	sleep 1.1
	run -22 --separate-stderr sbx-run -s eg-c -x curl -fsS -m 10 -o /dev/null http://a.web.test/
	[[ $stderr == *"sbx blocked a.web.test:80: denied by rule"* ]] || fail "$stderr"
	# a host blocked by an earlier call is not this call's
	[[ $stderr != *other.test* ]] || fail "$stderr"
	run -0 sbx-run -J 1 -s eg-c
	[ "$(tail -n1 <<<"$output" | json_get 'd["blocked"]')" = '["a.web.test:80"]' ]
	# a pull: the sandbox's daemon goes through the same proxy
	sleep 1.1
	run -1 --separate-stderr sbx-run -s eg-c pull other.test/img:1
	[[ $stderr == *"sbx-run: sandbox eg-c: sbx blocked other.test:"*": no rule allows it"* ]] || fail "$stderr"
}

@test "the log's other envelope reads the same; one nobody knows costs one warning and never the status" {
	export DOCKER_SANDBOX_EGRESS_ALLOW="web.test"
	run -0 --separate-stderr inside eg-d http://web.test/
	SBX_SIM_FAULT=policy-log-array run -22 --separate-stderr sbx-run -s eg-d -x curl -fsS -m 10 -o /dev/null http://other.test/
	[[ $stderr == *"sbx blocked other.test:80: no rule allows it"* ]] || fail "$stderr"
	SBX_SIM_FAULT=policy-log-odd run -22 --separate-stderr sbx-run -s eg-d -x curl -fsS -m 10 -o /dev/null http://other.test/
	[ "$(grep -c '^sbx-run: sandbox eg-d: sbx policy log' <<<"$stderr")" -eq 1 ] || fail "$stderr"
	[[ $stderr != *"sbx blocked other.test"* ]] || fail "$stderr"
}

@test "a stop drops the session's allow rules: the denial puts them back and says to run it again" {
	export DOCKER_SANDBOX_EGRESS_ALLOW="web.test"
	run -0 --separate-stderr inside eg-e http://web.test/
	[ "$output" = 200 ]
	run -0 "$SIM" stop eg-e
	run -22 --separate-stderr sbx-run -O 3 -s eg-e -x curl -fsS -m 10 -o /dev/null http://web.test/ 3>"$BATS_TEST_TMPDIR/origin"
	[[ $stderr == *"sbx blocked web.test:80"* ]] || fail "$stderr"
	[[ $stderr == *"sandbox eg-e: the session's network rules were lost (sbx drops them when the sandbox stops); re-applied: run it again"* ]] || fail "$stderr"
	grep -qx reapplied "$BATS_TEST_TMPDIR/origin"
	n=$(sim_ncalls)
	run -0 --separate-stderr inside eg-e http://web.test/
	[ "$output" = 200 ]
	[ "$(policy_after "$n")" = "exec " ]
}

@test "a rule sbx holds as inactive (an organisation's policy): not ready, the sandbox removed, its record kept" {
	export DOCKER_SANDBOX_EGRESS_ALLOW="web.test" SBX_SIM_FAULT=policy-org
	run -1 --separate-stderr sbx-run -s eg-f -x true
	[[ $stderr == *"sandbox eg-f: sbx holds as inactive the rule allow web.test"*"not ready; removed it"* ]] || fail "$stderr"
	run -0 --separate-stderr sim_look ls --json
	[ "$(json_get '[s["name"] for s in d["sandboxes"] if s["name"] == "eg-f"]' <<<"$output")" = '[]' ]
	[ ! -e "$SBX_STATE_DIR/eg-f.created" ]
	[ -f "$SBX_STATE_DIR/eg-f.egress" ]
}

@test "sbx-ports allow and deny: checked before any call, proven by the listing, noted in rules; blocked lists sbx's log" {
	run -0 --separate-stderr inside eg-g http://web.test/
	[ "$output" = 403 ]
	n=$(sim_ncalls)
	for bad in localhost '*' 127.0.0.1 host.docker.internal -x 'http://web.test' 'web.test:0'; do
		run -64 --separate-stderr sbx-ports -s eg-g allow "$bad"
		[[ $stderr == "sbx-ports: sbx-ports allow: "* ]] || fail "$bad: $stderr"
	done
	[ "$(sim_ncalls)" -eq "$n" ]
	run -0 --separate-stderr sbx-ports -s eg-g allow web.test a.web.test
	[ "$(policy_after "$n")" = "policy ls policy allow policy ls " ]
	run -0 --separate-stderr inside eg-g http://web.test/
	[ "$output" = 200 ]
	# again: held already, one listing and nothing more
	n=$(sim_ncalls)
	run -0 --separate-stderr sbx-ports -s eg-g allow web.test
	[ "$(policy_after "$n")" = "policy ls " ]
	run -0 --separate-stderr sbx-ports -s eg-g deny a.web.test
	run -0 --separate-stderr inside eg-g http://a.web.test/
	[ "$output" = 403 ]
	run -0 --separate-stderr sbx-ports -s eg-g rules
	[[ $output == *"allow web.test (session)"* && $output == *"deny a.web.test (session)"* ]] || fail "$output"
	run -0 "$SIM" stop eg-g
	run -0 --separate-stderr sbx-ports -s eg-g rules
	[[ $output == *"allow web.test (lost: sbx no longer holds it)"* ]] || fail "$output"
	run -0 --separate-stderr sbx-ports -j -s eg-g blocked
	[ "$(head -n1 <<<"$output" | json_get 'd["host"]')" = a.web.test:80 ]
	[[ $(head -n1 <<<"$output" | json_get 'd["reason"]') == "denied by rule"* ]]
}

@test "teardown removes the session's rules and credential from sbx; sbx-gc those of a gone sandbox, never a user's rule" {
	export DOCKER_SANDBOX_EGRESS_ALLOW="web.test" DOCKER_SANDBOX_REGISTRY_AUTH="registry.test=puller@file:$REG_DIR/pass"
	run -0 --separate-stderr inside eg-h http://web.test/
	[ "$output" = 200 ] || fail "$stderr"
	"$SIM" secret ls | grep -q 'eg-h' || fail "no secret: $("$SIM" secret ls)"
	"$SIM" policy allow network --sandbox eg-h other.test	# the user's own
	n=$(sim_ncalls)
	run -0 --separate-stderr sbx-watch -n eg-h
	sim_calls_after "$n" | grep -q ' policy rm network --sandbox eg-h --resource web.test -f$'
	sim_calls_after "$n" | grep -q ' secret rm --sandbox eg-h --registry registry.test -f$'
	[ ! -e "$SBX_STATE_DIR/eg-h.egress" ]
	# a record left behind (a teardown that failed) is sbx-gc's
	printf 'allow web.test\n' >"$SBX_STATE_DIR/eg-gone.egress"
	chmod 600 "$SBX_STATE_DIR/eg-gone.egress"
	touch -d '-1 min' "$SBX_STATE_DIR/eg-gone.egress"	# a marker just written is kept
	"$SIM" policy allow network --sandbox eg-keep other.test 2>/dev/null || true
	n=$(sim_ncalls)
	run -0 --separate-stderr sbx-gc -v -H 0 -P eg-
	sim_calls_after "$n" | grep -q ' policy rm network --sandbox eg-gone --resource web.test -f$' || fail "$output $stderr $(sim_calls_after "$n")"
	! sim_calls_after "$n" | grep -q 'other.test'
	[ ! -e "$SBX_STATE_DIR/eg-gone.egress" ]
}

@test "deny rules hold the VM up, and a stop's lost rules are back before the next call" {
	export DOCKER_SANDBOX_EGRESS_DENY="a.web.test" DOCKER_SANDBOX_EGRESS_ALLOW="web.test"
	sleep 600 3>&- &
	sess=$!
	sbx-watch -p "$sess" eg-i 3>&-
	run -0 --separate-stderr inside eg-i http://web.test/
	[ "$output" = 200 ]
	# the watcher's held exec keeps the VM up (DOCKER_SANDBOX_KEEPALIVE
	# is at its default: only while ports are published)
	held() { grep "'exec' 'eg-i'" "$SBX_SIM_ROOT/starts.log" | grep -q "'sleep'"; }
	for _ in $(seq 100); do
		held && break
		sleep 0.1
	done
	held
	run -0 "$SIM" stop eg-i
	# the held exec ends with the stop, and the watcher puts the lost
	# rules back at once, before a call or the next hold starts the VM
	# the deny goes back first, then the allow: wait for the whole set
	rules() {
		"$SIM" policy ls eg-i --json | grep '^{' | head -n1 |
		    json_get 'sorted(x for r in d["rules"] for x in r["resources"])' 2>/dev/null
	}
	for _ in $(seq 100); do
		[ "$(rules)" = '["a.web.test", "web.test"]' ] && break
		sleep 0.2
	done
	[ "$(rules)" = '["a.web.test", "web.test"]' ] || fail "rules: $(rules)"
	run -0 --separate-stderr inside eg-i http://a.web.test/
	[ "$output" = 403 ]
	kill "$sess"
	for _ in $(seq 150); do
		"$SIM" ls -q | grep -qx eg-i || break
		sleep 0.2
	done
	! "$SIM" ls -q | grep -qx eg-i
}

@test "a private image pulls with a credential handed to sbx on stdin; no byte of it is anywhere inside, in an argv, a journal or a log" {
	# the image: pushed by a sandbox of the simulator's own with the secret
	"$SIM" policy allow network -g registry.test
	run -0 "$SIM" create -q --name eg-push shell "$WS"
	"$SIM" secret set --sandbox eg-push --registry registry.test --username puller --password-stdin <"$REG_DIR/pass"
	run -0 --separate-stderr "$SIM" exec eg-push sh -c 'docker run --name mk busybox:local sh -c "echo private-data >/data" &&
	    docker commit mk registry.test/priv/data:1 >/dev/null && docker push registry.test/priv/data:1 >/dev/null'
	"$SIM" rm -f eg-push
	"$SIM" policy rm network -g --resource registry.test -f
	export DOCKER_SANDBOX_EGRESS_ALLOW="registry.test" DOCKER_SANDBOX_REGISTRY_AUTH="registry.test=puller@file:$REG_DIR/pass"
	run -0 --separate-stderr sbx-run -s eg-j pull registry.test/priv/data:1
	# an allowed pull costs its one exec, no more
	n=$(sim_ncalls)
	run -0 --separate-stderr sbx-run -s eg-j pull registry.test/priv/data:1
	[ "$(policy_after "$n")" = "exec " ]
	run -0 --separate-stderr sbx-run -s eg-j run -d --name c1 registry.test/priv/data:1 sleep 300
	run -0 --separate-stderr "$SIM" exec -i eg-j sh -c '
	    cat >/root/n
	    env | grep -F -f /root/n && echo "FOUND env"
	    grep -lsaF -f /root/n /proc/[0-9]*/cmdline /proc/[0-9]*/environ && echo "FOUND proc"
	    grep -rlsF -D skip -f /root/n /home /tmp /etc /run && echo "FOUND files"
	    docker inspect c1 registry.test/priv/data:1 | grep -F -f /root/n && echo "FOUND inspect"
	    docker exec c1 env | grep -F -f /root/n && echo "FOUND container env"
	    docker exec c1 cat /data
	    rm -f /root/n' <"$REG_DIR/needles"
	[[ $output == *private-data* ]] || fail "$output"
	[[ $output != *FOUND* ]] || fail "$output"
	# nor on the host side: the calls' argv, the state directory
	! grep -F -f "$REG_DIR/needles" "$SBX_SIM_ROOT/calls.log" "$SBX_SIM_ROOT/starts.log"
	! grep -rF -f "$REG_DIR/needles" "$SBX_STATE_DIR"
	grep -q ' secret set --sandbox eg-j --registry registry.test --password-stdin --username puller$' "$SBX_SIM_ROOT/calls.log"
}

@test "a failed call whose output shows a client refusing the proxy's certificate gets the advice, and -O says so; a success never" {
	msg='tls: failed to verify certificate: x509: certificate signed by unknown authority'
	run -0 --separate-stderr sbx-run -s eg-k -x true
	run -1 --separate-stderr sbx-run -O 3 -s eg-k -x sh -c "echo '$msg' >&2; exit 1" 3>"$BATS_TEST_TMPDIR/origin"
	[[ $stderr == *"sbx-run: a container refused the certificate of the sandbox's proxy, which intercepts TLS with a CA of its own"* ]] || fail "$stderr"
	grep -qx certificate "$BATS_TEST_TMPDIR/origin"
	run -0 --separate-stderr sbx-run -O 3 -s eg-k -x sh -c "echo '$msg' >&2" 3>"$BATS_TEST_TMPDIR/origin"
	[[ $stderr != *"refused the certificate"* ]]
	! grep -qx certificate "$BATS_TEST_TMPDIR/origin"
	# only the last 4 KiB of the output are read (one stream: in order)
	run -1 --separate-stderr sbx-run -s eg-k -x sh -c "echo '$msg'; head -c 8192 /dev/zero | tr '\\0' x; exit 1"
	[[ $stderr != *"refused the certificate"* ]]
}
