#!/usr/bin/env bats
# The simulator's way out (test/sbx-sim/README.md, "Network", "Secrets"):
# each sandbox's forward proxy judges by the rules under
# $SBX_SIM_ROOT/policy (written here directly, in the file format the
# policy verbs keep), answers a denied request 403 naming the rule,
# closes a denied tunnel, logs each decision, refuses the host's
# loopback, lives and dies with the sandbox, and puts a sandbox's
# registry credential into its pulls, where nothing inside can read it.
#
# A web server and an htpasswd registry run on the host's loopback and
# are reached by name through SBX_SIM_HOSTS.  Sandbox px lives for the
# whole file; pa pushes the private image, pb pulls it.

load ../helpers/sim-helper
load ../helpers/registry

GW=http://gateway.docker.internal:3128

setup_file() {
	sim_setup_file
	# the registry is needed as much as the simulator (CI=true fails)
	SIM_MISSING=$(printf '%s %s' "$SIM_MISSING" "$(reg_missing)" | xargs)
	export SIM_MISSING
	export WS="$BATS_FILE_TMPDIR/ws" REG_DIR="$BATS_FILE_TMPDIR/reg"
	export SBX="$SIM"
	mkdir -p "$WS" "$REG_DIR" "$BATS_FILE_TMPDIR/www"
	[ -n "$SIM_MISSING" ] && return 0
	web_start "$BATS_FILE_TMPDIR/www"
	reg_private
	export SBX_SIM_HOSTS="web.test=127.0.0.1:$WEB,a.web.test=127.0.0.1:$WEB,b.a.web.test=127.0.0.1:$WEB,$SBX_SIM_HOSTS"
	# the root's preset until the policy verbs write it: nothing passes
	# that no rule allows
	mkdir -p "$SBX_SIM_ROOT/policy"
	echo deny-all >"$SBX_SIM_ROOT/policy/global"
	"$SIM" create -q --name px shell "$WS" 3>&-
}

teardown_file() {
	web_stop
	sim_teardown_file
}

setup() {
	sim_setup_test "$WS"
	rules_set
}

teardown() {
	[ ! -d "$SBX_SIM_ROOT/policy" ] || echo deny-all >"$SBX_SIM_ROOT/policy/global"
	if [ -n "${EXTRA_ROOT:-}" ] && [ -d "$EXTRA_ROOT" ]; then
		SBX_SIM_ROOT=$EXTRA_ROOT "$SIM" sim-cleanup
	fi
}

# rules_set "ID SCOPE APPLIES DECISION RESOURCE [STATUS]"...: the rules
# file as the policy verbs keep it (under its lock, replaced by rename)
rules_set() {
	local l id sc ap de res st f=$SBX_SIM_ROOT/policy/rules
	mkdir -p "$SBX_SIM_ROOT/policy"
	(
		flock 9
		for l in "$@"; do
			read -r id sc ap de res st <<<"$l"
			printf '%s\t%s\t%s\t%s\t%s\tlocal\t%s\n' "$id" "$sc" "$ap" "$de" "$res" "${st:-active}"
		done >"$f.new"
		mv -f "$f.new" "$f"
	) 9>>"$SBX_SIM_ROOT/policy/lock"
}

# fetch NAME CURL-ARGS...: curl in the sandbox through its proxy
# variables; stdout the body, then the status code on a line of its own
fetch() {
	local n=$1
	shift
	run --separate-stderr "$SIM" exec "$n" curl -gsS -m 10 -w '\n%{http_code}' "$@"
}

log_lines() {	# log_lines MARK: the log's lines after line MARK
	tail -n +"$(($1 + 1))" "$SBX_SIM_ROOT/policy/log"
}

log_mark() {
	if [ -f "$SBX_SIM_ROOT/policy/log" ]; then wc -l <"$SBX_SIM_ROOT/policy/log"; else echo 0; fi
}

sbdir() {	# sbdir NAME: the sandbox's state directory
	local f
	f=$(grep -lx "$1" "$SBX_SIM_ROOT"/s/*/name) || return 1
	echo "${f%/name}"
}

@test "an exec has sbx's proxy variables and resolves the gateway; its containers get neither" {
	run -0 --separate-stderr "$SIM" exec px env
	for v in HTTP_PROXY HTTPS_PROXY http_proxy https_proxy; do
		[[ $output == *$'\n'"$v=$GW"$'\n'* || $output == "$v=$GW"$'\n'* ]] || fail "no $v: $output"
	done
	[[ $output == *"NO_PROXY=localhost,127.0.0.1,::1"* ]]
	run -0 --separate-stderr "$SIM" exec px getent hosts gateway.docker.internal
	[[ $output == "10.254.0.1 "*gateway.docker.internal ]]
	# the host's loopback stays out of reach without the proxy
	run -0 --separate-stderr "$SIM" exec px sh -c "curl -sS -m 3 http://127.0.0.1:$WEB/ >/dev/null 2>&1; echo \$?"
	[ "$output" != 0 ]
	run -0 --separate-stderr "$SIM" exec px docker run --rm busybox:local env
	[[ $output != *PROXY* && $output != *proxy* ]] || fail "a container got: $output"
}

@test "an allowed fetch passes and a denied one answers 403 naming the rule; each decision is one log line" {
	rules_set "r-0000000a sandbox px allow web.test"
	m=$(log_mark)
	fetch px http://web.test/index.html
	[ "${lines[0]}" = hello-web ]
	[ "${lines[-1]}" = 200 ]
	# a deny of the same host beats the allow; a global rule counts
	rules_set "r-0000000a sandbox px allow web.test" "r-0000000b global * deny web.test:80"
	fetch px http://web.test/index.html
	[ "${lines[-1]}" = 403 ]
	[[ ${lines[0]} == "Blocked by network policy: domain web.test:80: rule r-0000000b (web.test:80)" ]] || fail "$output"
	# no rule: the engine's raw verdict
	fetch px http://nowhere.test:8080/
	[ "${lines[-1]}" = 403 ]
	[[ $output == *"no applicable policies for op=(action:net:connect:tcp, resource=net:domain:nowhere.test:8080)"* ]]
	mapfile -t l < <(log_lines "$m")
	[ "${#l[@]}" -eq 3 ] || fail "log: ${l[*]}"
	IFS=$'\t' read -r t1 s1 h1 d1 r1 p1 <<<"${l[0]}"
	[[ $t1 =~ ^[0-9]{13}$ ]]
	[ "$s1|$h1|$d1|$r1|$p1" = "px|web.test:80|allow|r-0000000a|forward" ]
	[ "$(cut -f2- <<<"${l[1]}")" = $'px\tweb.test:80\tdeny\tr-0000000b\tforward' ]
	[ "$(cut -f2- <<<"${l[2]}")" = $'px\tnowhere.test:8080\tdeny\tno applicable policies for op=(action:net:connect:tcp, resource=net:domain:nowhere.test:8080)\tforward' ]
}

@test "rules changed between two fetches take effect at once" {
	rules_set "r-00000001 sandbox px allow web.test"
	fetch px http://web.test/
	[ "${lines[-1]}" = 200 ]
	rules_set
	fetch px http://web.test/
	[ "${lines[-1]}" = 403 ]
	rules_set "r-00000002 global * allow web.test"
	fetch px http://web.test/
	[ "${lines[-1]}" = 200 ]
	# another sandbox's rule and an inactive one do not count
	rules_set "r-00000003 sandbox other allow web.test" "r-00000004 sandbox px allow web.test inactive"
	fetch px http://web.test/
	[ "${lines[-1]}" = 403 ]
	# the preset decides what no rule matched
	echo allow-all >"$SBX_SIM_ROOT/policy/global"
	fetch px http://web.test/
	[ "${lines[-1]}" = 200 ]
}

@test "a tunnel: CONNECT passes where allowed; a denied CONNECT is closed with no answer" {
	rules_set "r-00000005 sandbox px allow web.test"
	fetch px -p http://web.test/index.html
	[ "${lines[0]}" = hello-web ]
	m=$(log_mark)
	rules_set
	fetch px -p -v http://web.test/index.html
	[ "${lines[-1]}" = 000 ]
	# curl saw the connection end before any answer to its CONNECT
	[[ $stderr != *"< HTTP/1."* ]] || fail "an answer came: $stderr"
	[[ $stderr == *"CONNECT"* ]]
	[ "$(log_lines "$m" | cut -f2-4)" = $'px\tweb.test:80\tdeny' ]
}

@test "the host's loopback is refused whatever the rules say" {
	rules_set "r-00000006 global * allow 127.0.0.0/8" "r-00000007 global * allow localhost" \
	    "r-00000008 global * allow ::1" "r-00000009 global * allow 0.0.0.0"
	echo allow-all >"$SBX_SIM_ROOT/policy/global"
	m=$(log_mark)
	for u in "http://127.0.0.1:$WEB/" "http://localhost:$WEB/" "http://[::1]:$WEB/" "http://0.0.0.0:$WEB/" "http://127.1.2.3:$WEB/"; do
		fetch px --noproxy '' -x "$GW" "$u"
		[ "${lines[-1]}" = 403 ] || fail "$u: $output"
		[[ ${lines[0]} == *"loopback"* ]]
	done
	fetch px --noproxy '' -p -x "$GW" "http://127.0.0.1:$WEB/"
	[ "${lines[-1]}" = 000 ]
	[ "$(log_lines "$m" | cut -f4 | sort -u)" = deny ]
	[ "$(log_lines "$m" | wc -l)" -eq 6 ]
}

@test "the proxy judges as the rules file says: exact, *., **., ports, prefixes, deny over allow" {
	rules_set "r-00000010 sandbox px allow *.web.test" "r-00000011 sandbox px allow **.b.test" \
	    "r-00000012 sandbox px allow api.c.test:443" "r-00000013 global * allow 10.1.0.0/16" \
	    "r-00000014 global * allow [2001:db8::1]:8443" "r-00000015 sandbox px deny x.b.test" \
	    "r-00000016 sandbox px allow EXACT.test."
	# what each target comes to, from the matching rules of the contract
	local cases=(
		"a.web.test:80 allow r-00000010" "b.a.web.test:80 deny -" "web.test:80 deny -"
		"x.y.b.test:443 allow r-00000011" "b.test:443 deny -" "x.b.test:443 deny r-00000015"
		"api.c.test:443 allow r-00000012" "api.c.test:80 deny -" "10.1.2.3:22 allow r-00000013"
		"10.2.0.1:22 deny -" "[2001:db8::1]:8443 allow r-00000014" "[2001:db8::1]:443 deny -"
		"exact.test:80 allow r-00000016" "Exact.Test.:80 allow r-00000016"
	)
	local c t want rule got check=0
	if SBX_SIM_WORDS=exact "$SIM" policy check network --sandbox px a.web.test:80 2>/dev/null |
	    grep -q '^Allowed: '; then
		check=1
	fi
	for c in "${cases[@]}"; do
		read -r t want rule <<<"$c"
		got=$(/usr/bin/python3 -B "$TOP/test/sbx-sim/verdict.py" "$SBX_SIM_ROOT" px "$t")
		[ "${got%%$'\t'*}" = "$want" ] || fail "$t: $got, not $want"
		if [ "$rule" = - ]; then
			[[ ${got#*$'\t'} == "no applicable policies for op="* ]] || fail "$t: $got"
		else
			[ "${got#*$'\t'}" = "$rule" ] || fail "$t: $got, not $rule"
		fi
		# the policy verbs judge alike (README.md, "Network": the two
		# must agree), once the simulator has them
		((check)) || continue
		run --separate-stderr sim_look policy check network --sandbox px "$t"
		case $want in
		allow) [[ $output == "Allowed: "* ]] || fail "policy check $t: $output" ;;
		deny) [[ $output == "Denied: "* ]] || fail "policy check $t: $output" ;;
		esac
	done
	# and the proxy itself, for the names it can reach
	fetch px http://a.web.test/
	[ "${lines[-1]}" = 200 ]
	fetch px http://b.a.web.test/
	[ "${lines[-1]}" = 403 ]
}

@test "the proxy ends with a stop and comes back with the next start, the sandbox's rules gone" {
	rules_set "r-00000017 sandbox px allow web.test"
	fetch px http://web.test/
	[ "${lines[-1]}" = 200 ]
	d=$(sbdir px)
	pp=$(cat "$d/proxy.pid") gp=$(cat "$d/gw.pid")
	sim_alive "$pp"
	sim_alive "$gp"
	run -0 "$SIM" stop px
	run ! sim_alive "$pp"
	run ! sim_alive "$gp"
	[ ! -e "$d/proxy.sock" ]
	ns=/run/netns/sbxsim-$(sim_tag)-${d##*/}
	run ! grep -q ':3128 ' <<<"$(nsenter --net="$ns" ss -Hltn)"
	# the stop dropped the sandbox's rule (policy.sh, #311): denied now
	fetch px http://web.test/
	[ "${lines[-1]}" = 403 ]
	rules_set "r-00000017 sandbox px allow web.test"
	fetch px http://web.test/
	[ "${lines[-1]}" = 200 ]
	sim_alive "$(cat "$d/proxy.pid")"
	[ "$(cat "$d/proxy.pid")" != "$pp" ]
}

@test "secrets: set from stdin (0600 under 0700), listed masked, removed with -f; sbx rm takes them" {
	run -0 "$SIM" create -q --name ps shell "$WS"
	run -0 --separate-stderr "$SIM" secret set --sandbox ps --registry Registry.Test --username u1 --password-stdin <"$REG_DIR/pass"
	f=$SBX_SIM_ROOT/secrets/ps/registry.test
	[ "$(stat -c %a "$f")" = 600 ]
	[ "$(stat -c %a "${f%/*}")" = 700 ]
	[ "$(sed -n 1p "$f")" = u1 ]
	[ "$(sed -n 2p "$f")" = "$(cat "$REG_DIR/pass")" ]
	run -0 --separate-stderr sim_look secret ls --json
	[ "$(json_get '[(s["scope"], s["type"], s["name"], s["username"]) for s in d["secrets"] if s["scope"] == "ps"]' <<<"$output")" = '[["ps", "registry", "registry.test", "u1"]]' ]
	run -0 --separate-stderr "$SIM" secret ls
	[[ $output == *"u1/*****"* ]]
	run ! grep -qF -f "$REG_DIR/needles" "$SBX_SIM_ROOT/calls.log" "$SBX_SIM_ROOT/starts.log"
	# a missing sandbox, an empty password, no stdin flag
	run -1 --separate-stderr "$SIM" secret set --sandbox nosuch --registry r.test --password-stdin <"$REG_DIR/pass"
	run -1 --separate-stderr "$SIM" secret set --sandbox ps --registry r.test --password-stdin </dev/null
	[[ $stderr == *"assword is empty"* ]]
	run -1 --separate-stderr "$SIM" secret set --sandbox ps --registry r.test <"$REG_DIR/pass"
	# rm wants -f without a terminal
	run -1 --separate-stderr "$SIM" secret rm --registry registry.test --sandbox ps </dev/null
	[[ $stderr == *"tdin is not a terminal"* ]]
	[ -e "$f" ]
	run -0 --separate-stderr "$SIM" secret rm --registry registry.test --sandbox ps -f
	[ ! -e "$f" ]
	run -0 --separate-stderr "$SIM" secret set --sandbox ps --registry registry.test --password-stdin <"$REG_DIR/pass"
	[ -e "$f" ]
	run -0 "$SIM" rm -f ps
	[ ! -e "${f%/*}" ]
}

@test "a private image pulls only with a sandbox-scoped secret: none, or a host-only one, gets no credential" {
	rules_set "r-00000018 global * allow registry.test"
	# pa pushes the private image (a layer of its own) with its secret
	run -0 "$SIM" create -q --name pa shell "$WS"
	"$SIM" secret set --sandbox pa --registry registry.test --username puller --password-stdin <"$REG_DIR/pass"
	run -0 --separate-stderr "$SIM" exec pa sh -c 'docker run --name mk busybox:local sh -c "echo private-data >/data" &&
	    docker commit mk registry.test/priv/data:1 >/dev/null && docker push registry.test/priv/data:1 >/dev/null'
	# pb has none: the registry wants a login nobody gives
	run -0 "$SIM" create -q --name pb shell "$WS"
	run -1 --separate-stderr "$SIM" exec pb docker pull registry.test/priv/data:1
	[[ $stderr == *"no basic auth credentials"* || $stderr == *unauthorized* || $stderr == *401* ]] || fail "$stderr"
	# a host-only secret is never injected
	"$SIM" secret set --registry registry.test --username puller --password-stdin <"$REG_DIR/pass"
	run -1 --separate-stderr "$SIM" exec pb docker pull registry.test/priv/data:1
	[[ $stderr == *"no basic auth credentials"* || $stderr == *unauthorized* || $stderr == *401* ]] || fail "$stderr"
	# scoped to pb: the pull works, the layer comes from the registry
	"$SIM" secret set --sandbox pb --registry registry.test --username puller --password-stdin <"$REG_DIR/pass"
	run -0 --separate-stderr "$SIM" exec pb docker pull registry.test/priv/data:1
	run -0 --separate-stderr "$SIM" exec pb docker run --rm registry.test/priv/data:1 cat /data
	[ "$output" = private-data ]
	grep -q 'GET /v2/priv/data/blobs/sha256:' "$REG_DIR/priv/access.log"
}

@test "the credential is found nowhere a sandbox or its containers can read, nor in the simulator's logs" {
	"$SIM" secret ls | grep -q '^pb ' || skip "needs the pull test before it"
	rules_set "r-00000019 global * allow registry.test"
	run -0 --separate-stderr "$SIM" exec pb sh -c 'docker rm -f c1 >/dev/null 2>&1; docker pull -q registry.test/priv/data:1 >/dev/null &&
	    docker run -d --name c1 registry.test/priv/data:1 sleep 300 >/dev/null'
	# the needles come on stdin into the exec's private /root, so no
	# argv or environment holds them; each search prints what it finds
	run -0 --separate-stderr "$SIM" exec -i pb sh -c '
	    cat >/root/n
	    env | grep -F -f /root/n && echo "FOUND env"
	    grep -lsaF -f /root/n /proc/[0-9]*/cmdline /proc/[0-9]*/environ && echo "FOUND proc"
	    grep -rlsF -D skip -f /root/n /home /tmp /etc /run && echo "FOUND files"
	    docker inspect c1 registry.test/priv/data:1 | grep -F -f /root/n && echo "FOUND inspect"
	    docker exec c1 env | grep -F -f /root/n && echo "FOUND container env"
	    docker exec -i c1 sh -c "cat >/n
	        cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline | tr \"\\\\0\" \"\\\\n\" | grep -F -f /n && echo FOUND-proc
	        find / -xdev -type f ! -path /n -exec grep -lF -f /n {} + && echo FOUND-fs
	        rm -f /n" </root/n
	    echo searched' <"$REG_DIR/needles"
	[ "$output" = searched ] || fail "$output"
	"$SIM" exec pb docker rm -f c1 >/dev/null
	# nor anywhere in the root but the secrets' own files: the policy
	# log, the proxy's log, the calls logs, the daemons' logs and data
	run ! grep -rlsF -D skip -f "$REG_DIR/needles" --exclude-dir=secrets "$SBX_SIM_ROOT"
}

@test "after rm, the proxy and its gateway are gone and sim-check finds nothing of a root" {
	local root=$SBX_SIM_ROOT
	EXTRA_ROOT=$(mktemp -d /tmp/sbxsim.XXXXXX)
	export SBX_SIM_ROOT=$EXTRA_ROOT
	mkdir -p "$SBX_SIM_ROOT/policy"
	printf 'r-0000001a\tglobal\t*\tallow\tweb.test\tlocal\tactive\n' >"$SBX_SIM_ROOT/policy/rules"
	run -0 "$SIM" create -q --name pr shell "$WS"
	fetch pr http://web.test/
	[ "${lines[-1]}" = 200 ]
	d=$(sbdir pr)
	pp=$(cat "$d/proxy.pid") gp=$(cat "$d/gw.pid")
	run -0 "$SIM" rm -f pr
	run ! sim_alive "$pp"
	run ! sim_alive "$gp"
	run -0 "$SIM" sim-check
	run -0 "$SIM" sim-cleanup
	[ ! -e "$EXTRA_ROOT" ]
	SBX_SIM_ROOT=$root
}
