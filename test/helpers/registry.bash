# registry.bash: a real registry for the simulator's sandboxes, and the
# blob bytes it serves (issue 19 section 2).  Sourced by
# test/lib/imgcache.bats, test/sim/proxy.bats and
# test/bench/imgcache-probe.
#
# The registry is Debian's docker-registry on this host's loopback.  A
# sandbox reaches it through a forwarder that listens on 127.0.0.1:5000
# inside the sandbox's network namespace and connects back to the host's
# loopback: the sandbox's daemon sees a loopback registry, which docker
# takes as insecure by default, so the simulator needs no new setting.
#
# A registry may instead be reached by name through each sandbox's proxy
# (reg_named: SBX_SIM_HOSTS), with htpasswd authentication (reg_htpasswd,
# REG_HTPASSWD), the credential put in by the proxy (test/sim/proxy.bats).
#
# The caller sets REG_DIR (a work directory) and SBX_SIM_ROOT, and runs
# reg_stop at its end; every process started here is in REG_PIDS and is
# ended by its pid.  Needs: root, docker-registry, socat, nsenter, curl, ss.

REGISTRY=${REGISTRY:-/usr/bin/docker-registry}
REG_PIDS=()
REG_HOSTNS=/proc/$$/ns/net

reg_fail() {
	printf 'registry.bash: %s\n' "$*" >&2
	return 1
}

# What this machine lacks for a registry, as one line.
reg_missing() {
	local c m=''
	[ -x "$REGISTRY" ] || m="docker-registry"
	for c in socat nsenter curl ss; do
		PATH="$PATH:/usr/sbin:/sbin" command -v "$c" >/dev/null 2>&1 ||
		    m="$m $c"
	done
	printf '%s' "${m# }"
}

reg_free_port() {	# a TCP port nobody listens on in 21000-29999 (sim-helper.bash)
	local p
	for _ in $(seq 200); do
		p=$((21000 + RANDOM % 9000))
		ss -Hltn | awk '{print $4}' | grep -q ":$p\$" || {
			echo "$p"
			return 0
		}
	done
	return 1
}

reg_wait_http() {	# reg_wait_http URL: until it answers, at most 10 s
	for _ in $(seq 100); do
		curl -fs -o /dev/null "$1" && return 0
		sleep 0.1
	done
	reg_fail "$1 does not answer"
}

# reg_start NAME PORT [UPSTREAM_PORT]: a registry in $REG_DIR/NAME on
# 127.0.0.1:PORT (a pull-through cache of UPSTREAM_PORT when given); its
# access log, one line per request with the bytes sent, is
# $REG_DIR/NAME/access.log.  With REG_HTPASSWD set (a file of
# reg_htpasswd's) it asks for basic authentication.
reg_start() {
	local d="$REG_DIR/$1"
	mkdir -p "$d/data"
	{
		printf 'version: 0.1\nlog:\n  level: info\n'
		printf '  accesslog:\n    disabled: false\n'
		printf 'storage:\n  filesystem:\n    rootdirectory: %s\n' "$d/data"
		printf 'http:\n  addr: 127.0.0.1:%s\n  secret: sbx-tools-test\n' "$2"
		if [ -n "${3:-}" ]; then
			printf 'proxy:\n  remoteurl: http://127.0.0.1:%s\n' "$3"
		fi
		if [ -n "${REG_HTPASSWD:-}" ]; then
			printf 'auth:\n  htpasswd:\n    realm: sbx-sim\n    path: %s\n' "$REG_HTPASSWD"
		fi
	} >"$d/config.yml"
	# its own session: no signal meant for the caller's group reaches it
	setsid "$REGISTRY" serve "$d/config.yml" >>"$d/access.log" 2>>"$d/app.log" </dev/null &
	REG_PIDS+=("$!")
	if [ -n "${REG_HTPASSWD:-}" ]; then
		reg_wait_401 "http://127.0.0.1:$2/v2/"
	else
		reg_wait_http "http://127.0.0.1:$2/v2/"
	fi
}

reg_wait_401() {	# reg_wait_401 URL: until it asks for authentication, at most 10 s
	for _ in $(seq 100); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "$1")" = 401 ] && return 0
		sleep 0.1
	done
	reg_fail "$1 does not ask for authentication"
}

# reg_htpasswd USER PASSFILE OUT: an htpasswd file (bcrypt) for USER
# with the password in PASSFILE (one line), so the password is never
# on a command line; Debian's python3 (crypt, deprecated from 3.11 and
# gone in 3.13) makes the hash
reg_htpasswd() {
	/usr/bin/python3 -W ignore -c '
import crypt, sys
pw = open(sys.argv[2]).read().rstrip("\n")
h = crypt.crypt(pw, crypt.mksalt(crypt.METHOD_BLOWFISH))
open(sys.argv[3], "w").write("%s:%s\n" % (sys.argv[1], h))
' "$1" "$2" "$3"
}

# reg_named NAME PORT: SBX_SIM_HOSTS gets NAME for the host's
# 127.0.0.1:PORT, so a sandbox reaches the registry by that name
# through its proxy (test/sbx-sim/README.md, "Network")
reg_named() {
	export SBX_SIM_HOSTS="${SBX_SIM_HOSTS:+$SBX_SIM_HOSTS,}$1=127.0.0.1:$2"
}

# reg_netns SANDBOX: the network namespace file of a simulated sandbox
reg_netns() {
	local f
	for f in "$SBX_SIM_ROOT"/s/*/name; do
		[ -f "$f" ] || continue
		if [ "$(cat "$f")" = "$1" ]; then
			f=${f%/name}
			echo "/run/netns/sbxsim-$(cat "$SBX_SIM_ROOT/tag")-${f##*/}"
			return 0
		fi
	done
	reg_fail "no sandbox $1"
}

# reg_forward NS PORT: a forwarder from NS's 127.0.0.1:5000 to the host's
# 127.0.0.1:PORT; its pid in REG_FWD (and REG_PIDS)
reg_forward() {
	nsenter --net="$1" socat TCP-LISTEN:5000,bind=127.0.0.1,fork,reuseaddr \
	    "EXEC:nsenter --net=$REG_HOSTNS socat STDIO TCP\\:127.0.0.1\\:$2" \
	    </dev/null >>"$REG_DIR/forward.log" 2>&1 &
	REG_FWD=$!
	REG_PIDS+=("$REG_FWD")
}

# reg_session NAME PORT: a fresh sandbox (made here) whose 127.0.0.1:5000
# reaches the host's 127.0.0.1:PORT; the forwarder's pid in REG_FWD
reg_session() {
	local ns
	"$SBX" create -q --name "$1" shell "$REG_DIR/ws" || reg_fail "create $1 failed" || return 1
	ns=$(reg_netns "$1") || return 1
	reg_forward "$ns" "$2"
	for _ in $(seq 50); do
		"$SBX" exec "$1" curl -fs -o /dev/null http://127.0.0.1:5000/v2/ && return 0
		sleep 0.1
	done
	reg_fail "$1 cannot reach the registry"
}

reg_end_session() {	# reg_end_session NAME: the forwarder first (it holds the netns)
	kill "$REG_FWD" 2>/dev/null
	wait "$REG_FWD" 2>/dev/null
	"$SBX" rm -f "$1" >/dev/null || reg_fail "rm $1 failed"
}

# reg_forward_all PORT: in the background, a forwarder for every sandbox
# of $SBX_SIM_ROOT as soon as its network namespace exists (before its
# daemon starts, so before any exec can pull), ended when the sandbox
# goes.  For sandboxes that sbx-run makes; its pid in REG_PIDS.
reg_forward_all() {
	(
		# keyed by the namespace's inode: a sandbox made again under the
		# same id gets a new namespace at the same path
		# none of the caller's error handling (bats: set -eE, an ERR
		# trap) may end the loop on a probe that fails
		set +eE
		trap - ERR
		declare -A fwd=()
		local ns key
		# the host's namespace by a process that lives as long as the
		# forwarders: this one
		REG_HOSTNS=/proc/$BASHPID/ns/net
		trap 'kill "${fwd[@]}" 2>/dev/null; exit 0' TERM
		while :; do
			for ns in /run/netns/sbxsim-"$(cat "$SBX_SIM_ROOT/tag" 2>/dev/null)"-*; do
				key=$ns@$(stat -L -c %i "$ns" 2>/dev/null) || continue
				[ -n "${fwd[$key]:-}" ] && continue
				reg_forward "$ns" "$1"
				fwd[$key]=$REG_FWD
			done
			for key in "${!fwd[@]}"; do
				[ "${key#*@}" = "$(stat -L -c %i "${key%@*}" 2>/dev/null)" ] && continue
				kill "${fwd[$key]}" 2>/dev/null || true
				unset "fwd[$key]"
			done
			sleep 0.05
		done
	) &
	REG_PIDS+=("$!")
}

reg_mark() { wc -l <"$REG_DIR/$1/access.log"; }	# reg_mark NAME: a position in its log

# reg_settle NAME: wait until the registry's log stops growing (the pull
# through cache stores blobs in the background after serving them)
reg_settle() {
	local a b=-1
	for _ in $(seq 40); do
		a=$(reg_mark "$1")
		[ "$a" = "$b" ] && return 0
		b=$a
		sleep 0.25
	done
}

# reg_count NAME MARK: "bytes gets manifests" of blob GETs (status 200)
# and manifest requests logged after line MARK
reg_count() {
	tail -n +"$(($2 + 1))" "$REG_DIR/$1/access.log" | awk '
	    $6 == "\"GET" && $7 ~ /\/blobs\/sha256:/ && $9 == 200 { n++; s += $10 }
	    $7 ~ /\/manifests\// { m++ }
	    END { printf "%d %d %d\n", s, n, m }'
}

# reg_bytes NAME MARK: the blob bytes alone
reg_bytes() {
	local b
	read -r b _ <<<"$(reg_count "$1" "$2")"
	echo "$b"
}

reg_stop() {	# end every process started here, by pid
	local p
	for p in "${REG_PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${REG_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	REG_PIDS=()
}

# reg_file_end: a suite's teardown_file, for the processes a setup_file
# started and kept in $BATS_FILE_TMPDIR/reg.pids: their children, then them
reg_file_end() {
	local p
	for p in $(cat "$BATS_FILE_TMPDIR/reg.pids" 2>/dev/null); do
		pkill -TERM -P "$p" 2>/dev/null
		kill "$p" 2>/dev/null
	done
}

# web_start DIR: a web server on the host's loopback serving DIR (an
# index.html saying hello-web), its port in WEB, its pid in
# $BATS_FILE_TMPDIR/web.pid (web_stop ends it)
web_start() {
	mkdir -p "$1"
	echo hello-web >"$1/index.html"
	sim_free_port
	export WEB=$SIM_PORT
	(
		cd "$1" || exit 1
		exec setsid /usr/bin/python3 -m http.server "$WEB" --bind 127.0.0.1
	) </dev/null >"$BATS_FILE_TMPDIR/web.log" 2>&1 3>&- &
	echo "$!" >"$BATS_FILE_TMPDIR/web.pid"
	reg_wait_http "http://127.0.0.1:$WEB/" >&2
}

# reg_private: a registry "priv" that wants the login puller with a random
# password, kept only in files and pipes: $REG_DIR/pass (mode 0600, one
# line), and $REG_DIR/needles, what a sandbox must never show (the
# password and the header value that carries it); its port in REGPORT,
# reached as registry.test through SBX_SIM_HOSTS
reg_private() {
	(umask 077 && od -An -N12 -tx1 /dev/urandom | tr -d ' \n' |
	    sed 's/^/pw-/' >"$REG_DIR/pass" && echo >>"$REG_DIR/pass")
	reg_htpasswd puller "$REG_DIR/pass" "$REG_DIR/htpasswd"
	{
		head -n1 "$REG_DIR/pass"
		printf 'puller:%s' "$(head -n1 "$REG_DIR/pass")" | base64 -w0
		echo
	} >"$REG_DIR/needles"
	REGPORT=$(reg_free_port)
	export REGPORT
	REG_HTPASSWD="$REG_DIR/htpasswd" reg_start priv "$REGPORT" 3>&-
	printf '%s\n' "${REG_PIDS[@]}" >"$BATS_FILE_TMPDIR/reg.pids"
	reg_named registry.test "$REGPORT"
}

# web_stop: the web server and the registries of web_start and reg_private
web_stop() {
	local p
	for p in $(cat "$BATS_FILE_TMPDIR/web.pid" "$BATS_FILE_TMPDIR/reg.pids" 2>/dev/null); do
		kill "$p" 2>/dev/null
	done
}
