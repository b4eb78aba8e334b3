#!/bin/sh
# make demo: the whole deploy flow as a newcomer would watch it, narrated
# step by step, against the sbx simulator (test/sbx-sim/sbx), where each
# sandbox is a real private docker daemon.  Nothing of the host's docker
# is touched, and nothing is left behind.
#
# Needs root and the packages docker.io busybox-static socat curl
# docker-compose (see test/sbx-sim/README.md).  Run from the top of the
# source tree after make.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
SIM=$top/test/sbx-sim/sbx
steps=0
failed=0

say() {
	steps=$((steps + 1))
	printf '\n\033[1m==> %d. %s\033[0m\n' "$steps" "$*"
}

note() {
	printf '    %s\n' "$*"
}

# show and run a command, its output indented
run() {
	printf '    $ %s\n' "$*"
	"$@" >"$T/out" 2>&1
	rc=$?
	sed 's/^/      /' "$T/out"
	if [ "$rc" -ne 0 ]; then
		printf '      (exit status %d)\n' "$rc"
	fi
	return "$rc"
}

must() {
	run "$@" && return 0
	failed=$((failed + 1))
	return 1
}

# ---------------------------------------------------------------- checks

missing=
[ "$(id -u)" -eq 0 ] || missing="$missing root"
for c in dockerd socat curl ip ss nsenter unshare pivot_root flock docker-compose; do
	PATH="$PATH:/usr/sbin:/sbin" command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
done
[ -x /bin/busybox ] || missing="$missing busybox-static"
for p in sbx-run sbx-env; do
	[ -x "$top/$p/$p" ] || missing="$missing $p/$p(make)"
done
if [ -n "$missing" ]; then
	echo "demo: missing:$missing" >&2
	echo "demo: as root: apt-get install docker.io busybox-static socat curl docker-compose; then make" >&2
	exit 1
fi

T=$(mktemp -d /tmp/sbxdemo.XXXXXX)
SBX_SIM_ROOT=$T/sim
# the sbx release imitated: make demo SIM_PROFILE=0.46 for the oldest
SBX_SIM_PROFILE=${SBX_SIM_PROFILE:-0.55}
export SBX_SIM_ROOT SBX_SIM_PROFILE
cleanup() {
	"$SIM" sim-cleanup >/dev/null 2>&1
	[ -n "${life:-}" ] && kill "$life" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# a reader that goes away (make demo | head) must not leave daemons behind
trap 'exit 129' HUP
trap 'exit 141' PIPE

# A private HOME and state directory, so the demo touches nothing of yours.
export HOME="$T/home" SBX_STATE_DIR="$T/state" DOCKER_SANDBOX_SBX="$SIM"
export PATH="$top/sbx-run:$top/sbx-env:$top/sbx-ports:$top/sbx-verify:$top/sbx-watch:$PATH:/usr/sbin:/sbin"
mkdir -p "$HOME" "$T/app/www"
start=$(date +%s)

printf '\033[1msbx-tools demo\033[0m: an agent'"'"'s docker, confined to its own sandbox.\n'
note "Every docker command below runs inside a Docker Sandboxes microVM through"
note "'sbx exec', pinned to that VM's own daemon.  Here the microVM is simulated:"
note "each sandbox is a real dockerd in its own network namespace ($SIM)."

# ---------------------------------------------------------------- project

say "A project: a Dockerfile and a page, in a workspace of its own"
cat >"$T/app/Dockerfile" <<'EOF'
FROM busybox:local
COPY www /www
CMD ["httpd", "-f", "-v", "-p", "8080", "-h", "/www"]
EOF
echo '<h1>Hello from inside the sandbox</h1>' >"$T/app/www/index.html"
cd "$T/app" || exit 1
run cat Dockerfile

say "A session name (what the pi extension does once per session)"
name=$(sbx-run -n)
note "sbx-run -n  ->  $name"

# ---------------------------------------------------------------- provision

say "Provision on first use: the first docker call finds no sandbox and creates it"
note "sbx-run runs 'sbx exec', sees \"no sandbox named\", then 'sbx create ... shell <workspace>'"
must sbx-run -s "$name" version --format 'daemon {{.Server.Version}} in {{.Server.Os}}'
note "sbx calls so far:"
sed 's/^[^ ]* [^ ]* /      sbx /' "$SBX_SIM_ROOT/calls.log"
must "$SIM" ls

# ---------------------------------------------------------------- build, run

say "Build the image inside the sandbox (the workspace is mounted at the same path)"
must sbx-run -s "$name" build -t hello .

say "Run it: docker run -d -p 8080:8080 (port 8080 of the VM, not of your host)"
must sbx-run -s "$name" run -d --name web -p 8080:8080 hello
must sbx-run -s "$name" ps --format 'table {{.Names}}\t{{.Image}}\t{{.Ports}}'

# ---------------------------------------------------------------- publish, fetch

say "Publish: forward a host port (loopback only) to the VM's port"
url=
if [ -x "$top/sbx-ports/sbx-ports" ]; then
	note "sbx-ports sync publishes what the running containers publish inside"
	if run sbx-ports -s "$name" sync; then
		url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$T/out" | head -n 1)
	fi
fi
if [ -z "$url" ]; then
	port=$(( (($$ + $(date +%s)) % 10000) + 20000 ))
	# the port verbs of the simulated release: the group from 0.55
	case ${SBX_SIM_PROFILE:-0.55} in
	0.46 | 0.47) must "$SIM" ports "$name" --publish "$port:8080" ;;
	*) must "$SIM" port publish "$name" "$port:8080" ;;
	esac
	url=http://127.0.0.1:$port/
fi
if [ -x "$top/sbx-ports/sbx-ports" ]; then
	must sbx-ports -s "$name" ls
else
	must "$SIM" ls
fi

say "Fetch the page from the host"
ok=1
for _ in 1 2 3 4 5 6 7 8 9 10; do
	if curl -fsS --max-time 3 "$url" >"$T/page" 2>/dev/null; then ok=0; break; fi
	sleep 0.2
done
printf '    $ curl %s\n' "$url"
sed 's/^/      /' "$T/page" 2>/dev/null
[ "$ok" -eq 0 ] || { note "(the page did not come)"; failed=$((failed + 1)); }
must sbx-run -s "$name" logs web

# ---------------------------------------------------------------- audit

say "Audit the isolation live"
if [ -x "$top/sbx-verify/sbx-verify" ]; then
	if [ -x "$top/sbx-watch/sbx-watch" ]; then
		note "a watchdog for the session (here a stand-in process) arms the teardown"
		sleep 600 &
		life=$!
		run sbx-watch -p "$life" "$name"
	fi
	must sbx-verify -s "$name"
else
	note "sbx-verify/sbx-verify is not built yet: this step is skipped"
fi

# ---------------------------------------------------------------- teardown

say "Tear down"
if [ -n "${life:-}" ]; then
	note "the session ends: the watchdog removes the sandbox by itself"
	kill "$life" 2>/dev/null
	wait "$life" 2>/dev/null
	life=
	# until the sandbox is gone and the watchdog has let go of its lock
	i=0
	while [ "$i" -lt 200 ]; do
		"$SIM" ls -q | grep -qx "$name" || [ -e "$SBX_STATE_DIR/$name.lock" ] || break
		sleep 0.1
		i=$((i + 1))
	done
	note "gone after $((i / 10)).$((i % 10)) s"
fi
if "$SIM" ls -q | grep -qx "$name"; then
	must "$SIM" rm --force "$name"
fi
must "$SIM" ls

say "Nothing is left"
tag=$(cat "$SBX_SIM_ROOT/tag")
left=$(
	pgrep -af "$SBX_SIM_ROOT/|sbxsim-$tag" | grep -v pgrep
	ip netns list | grep "sbxsim-$tag"
	grep -F " $SBX_SIM_ROOT/" /proc/self/mountinfo
	ls -d /sys/fs/cgroup/*/sbxsim-"$tag"* 2>/dev/null
	for f in "$SBX_STATE_DIR/$name".*; do
		case $f in *".past-"[0-9]*) ;; *) [ -e "$f" ] && echo "$f" ;; esac
	done
)
if [ -n "$left" ]; then
	printf '%s\n' "$left" | sed 's/^/      left: /'
	failed=$((failed + 1))
else
	note "no dockerd, containerd, shim, docker-proxy or socat of this demo;"
	note "no network namespace, mount or cgroup; no marker of $name in the state directory,"
	note "but the session's record, kept: sbx-run -L lists it, sbx-run -J 20 -h -s $name reads it."
fi
must "$SIM" sim-cleanup

printf '\n%d steps in %d s, ' "$steps" "$(($(date +%s) - start))"
if [ "$failed" -eq 0 ]; then
	echo "all went as shown."
else
	echo "$failed of them failed (see above)."
	exit 1
fi
