#!/usr/bin/env bash
# make soak: sessions, kills and sweeps at once, against the simulator.
#
#   test/soak.sh [seconds [sessions]]
#
# SESSIONS concurrent sessions (default 8), each a shell that names its
# sandbox, arms sbx-watch on itself and then loops over docker calls
# through sbx-run, its sandbox provisioned ahead by sbx-run -P in the
# background (SOAK_PREWARM=0: not): plain ones, read-only ones (DOCKER_SANDBOX_WORKSPACE_RO)
# and pinned ones (DOCKER_SANDBOX, kept at the end).  For SECONDS (default
# 60) a chaos loop sends SIGKILL at random to a session, an sbx-run or an
# `sbx create` in flight, and starts a new session for each one killed,
# while sbx-gc -H 0 runs every few seconds as cron would.  The simulator
# stops idle sandboxes, so the sweeps have stopped ones to judge.
#
# One more session is hostile (SOAK_HOSTILE=0 leaves it out): a pi
# session through pi's own loader (test/soak-pi.mjs) that publishes twenty
# port ranges and ports other host services own, plants programs, Makefiles,
# a package.json linked to a host secret and a .pi/ install in the shared
# workspace from a container, and calls docker_curl against a flood and a
# byte-a-second drip the whole time; runs three docker_run at once, each
# publishing its own ports, and a daemon from a docker_exec that it then
# aborts as Esc does.  Chaos never ends it (its sbx-run and sbx create
# calls are killed as everyone's are); the end does, with its sandbox's
# docker stopped (SIGSTOP, SOAK_STALL=0: not) so that the save before
# teardown stalls, and the sandbox must still go within sbx-watch(8)'s bound.
#
# Then every session ends, and what the lifecycle promises is checked from
# the outside: no sandbox of a dead session is left, no sandbox was removed
# while its session lived, no marker or scratch directory is left without
# its sandbox, no process of the programs is left, no host forwarder is
# left.  Throughout, from the simulator's own record of what it forwards:
# no sandbox held more than the bound of host ports, none was below 1024,
# in the host's ephemeral range at its own number, or beyond loopback.
# And: no planted file ran on the host, docker_init took links out for
# absence, every docker_curl returned within its timeout.  Prints the counts and one verdict line; exits 0 when
# everything held.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
SIM=$top/test/sbx-sim/sbx
IDLE=5

# the simulator's clock in its calls log: seconds with milliseconds
now_ms() { date +%s.%3N; }

# ---------------------------------------------------------------- a session

# One session: its own pid names the sandbox; runs until killed.
session_main() {	# kind index
	local kind=$1 idx=$2 name rc
	case $kind in
	pinned) name=soak-pin-$idx ;;
	*) name=$(sbx-run -n) || exit 1 ;;
	esac
	export DOCKER_SANDBOX=$name
	[ "$kind" = ro ] && export DOCKER_SANDBOX_WORKSPACE_RO=1
	printf '%s %s %s %s\n' "$$" "$name" "$kind" "$(now_ms)" >>"$T/sessions"
	# armed before the first call: nothing provisions without a teardown
	# shellcheck disable=SC2086
	sbx-watch -p "$$" $SOAK_WATCH "$name" 2>>"$T/log/watch.err" || exit 1
	# provisioned ahead, as pi does when the workspace shows docker: the
	# first call waits for it (SOAK_PREWARM=0: the first call provisions)
	if [ "$SOAK_PREWARM" = 1 ]; then
		sbx-run -P >/dev/null 2>>"$T/log/$$.err" </dev/null &
	fi
	while :; do
		case $((RANDOM % 4)) in
		0) set -- ps -q ;;
		1) set -- -x true ;;
		2) set -- run --rm busybox:local true ;;
		*) set -- images -q ;;
		esac
		sbx-run "$@" >/dev/null 2>>"$T/log/$$.err" </dev/null
		rc=$?
		printf '%s\n' "$rc" >>"$T/log/$$.calls"
	done
}

# ---------------------------------------------------------------- helpers

# pids of processes whose environment names our state directory or root
# (one grep over every environ, so a victim is still there when picked)
ours() {	# ours comm-pattern
	local f p
	# shellcheck disable=SC2013 # file names from /proc, no blanks
	for f in $(grep -lzxF -e "SBX_STATE_DIR=$SBX_STATE_DIR" \
	    -e "SBX_SIM_ROOT=$SBX_SIM_ROOT" /proc/[0-9]*/environ 2>/dev/null); do
		p=${f#/proc/}
		p=${p%/environ}
		# shellcheck disable=SC2254 # the argument is a pattern
		case $(cat "/proc/$p/comm" 2>/dev/null) in
		$1) printf '%s\n' "$p" ;;
		esac
	done
}

# the simulator's `create` calls in flight
creates() {
	local p
	for p in $(ours 'sbx'); do
		tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" |
		    grep -q "sbx-sim/sbx create " && printf '%s\n' "$p"
	done
}

# What the simulator forwards now, from its own record (README "State
# layout"): one line "sample sandbox protocol hostip hostport vmport pid"
# a mapping, in $T/log/ports.
nsample=0
sample_ports() {
	local d f b n ip sp pid
	nsample=$((nsample + 1))
	for d in "$SBX_SIM_ROOT"/s/*/; do
		[ -d "${d}ports" ] || continue
		read -r n 2>/dev/null <"${d}name" || continue
		for f in "${d}"ports/*; do
			[ -f "$f" ] || continue
			b=${f##*/}
			ip=${b#*_}
			read -r sp pid 2>/dev/null <"$f" || continue
			printf '%s %s %s %s %s %s %s\n' "$nsample" "$n" "${b%%_*}" \
			    "${ip%_*}" "${b##*_}" "$sp" "$pid"
		done
	done >>"$T/log/ports"
}

pick() {	# a random word of the arguments
	[ $# -gt 0 ] || return 1
	shift $((RANDOM % $#))
	printf '%s\n' "$1"
}

kinds=(plain plain ro pinned)
nstarted=0
start_session() {
	local kind=${kinds[$((nstarted % ${#kinds[@]}))]}
	nstarted=$((nstarted + 1))
	# pinned sessions come back under the same names
	"$top/test/soak.sh" --session "$kind" "$((nstarted % nsess))" \
	    </dev/null >/dev/null 2>>"$T/log/session.err" &
	live="$live $!"
	disown "$!"
}

died() {	# pid: record when the session ended
	printf '%s %s\n' "$1" "$(now_ms)" >>"$T/deaths"
}

# ---------------------------------------------------------------- main

if [ "${1:-}" = --session ]; then
	[ "$2" = hostile ] && exec node "$top/test/soak-pi.mjs"
	session_main "$2" "$3"
	exit 1
fi

# The controls of the checks: SOAK_GC replaces the sweep, SOAK_WATCH
# adds options to sbx-watch (test/e2e/soak.bats breaks each on purpose).
SOAK_GC=${SOAK_GC:-sbx-gc -H 0}
SOAK_WATCH=${SOAK_WATCH:-}
SOAK_CHAOS=${SOAK_CHAOS:-1}
# SOAK_BUILD: the checkout whose programs and pi/ are soaked (another
# build, to show the checks fail on it); SOAK_HOSTILE_PORTS_MAX: the port
# bound the hostile session's programs are given (the checks keep the
# default, PORTS_BOUND)
SOAK_BUILD=${SOAK_BUILD:-$top}
SOAK_HOSTILE=${SOAK_HOSTILE:-1}
SOAK_CURL_TIMEOUT=${SOAK_CURL_TIMEOUT:-15}
PORTS_BOUND=64
# how late a docker_curl may return past its timeoutSec (a loaded machine)
CURL_SLACK=2
SOAK_PREWARM=${SOAK_PREWARM:-1}
# SOAK_STALL=0: the hostile sandbox's docker keeps answering at the end;
# TEARDOWN_BOUND: sbx-watch(8)'s bound from a session's end to its removal
SOAK_STALL=${SOAK_STALL:-1}
TEARDOWN_BOUND=355
export SOAK_WATCH SOAK_PREWARM SOAK_BUILD SOAK_CURL_TIMEOUT SOAK_SIM=$SIM

secs=${1:-60}
nsess=${2:-8}
case $secs$nsess in *[!0-9]*) echo "usage: soak.sh [seconds [sessions]]" >&2; exit 64 ;; esac

for p in sbx-run sbx-watch sbx-gc sbx-ports sbx-env; do
	[ -x "$SOAK_BUILD/$p/$p" ] ||
	    { echo "soak: $SOAK_BUILD/$p/$p is not built (make)" >&2; exit 1; }
done
if [ "$SOAK_HOSTILE" = 1 ] && { ! command -v node >/dev/null ||
    [ ! -d "$top/pi/node_modules/@mariozechner/pi-coding-agent" ]; }; then
	echo "soak: the hostile session needs node and pi's packages (npm ci in pi/); SOAK_HOSTILE=0 leaves it out" >&2
	exit 1
fi

T=$(mktemp -d /tmp/sbxsoak.XXXXXX)
export T
export SBX_SIM_ROOT=$T/sim HOME=$T/home SBX_STATE_DIR=$T/state
export DOCKER_SANDBOX_SBX=$SIM SBX_SIM_IDLE_STOP=$IDLE
export SBX_PI_TEST_BASE=$T
export PATH="$SOAK_BUILD/sbx-run:$SOAK_BUILD/sbx-watch:$SOAK_BUILD/sbx-gc:$PATH:/usr/sbin:/sbin"
unset DOCKER_SANDBOX DOCKER_SANDBOX_WORKSPACE_RO DOCKER_SANDBOX_AUTOCREATE \
    DOCKER_SANDBOX_TEARDOWN DOCKER_SANDBOX_TIMEOUT DOCKER_SANDBOX_KEEPALIVE \
    DOCKER_SANDBOX_GC_HOURS DOCKER_SANDBOX_ENV_ALLOWLIST \
    DOCKER_SANDBOX_ENV_PASSTHROUGH XDG_STATE_HOME SBX_SIM_FAIL SBX_SIM_HANG \
    SBX_SIM_LEAK SBX_SIM_DIALECT DOCKER_SANDBOX_PORTS_MAX DOCKER_SANDBOX_BIN
mkdir -p "$HOME/.ssh" "$T/ws" "$T/log"
: >"$T/sessions"
: >"$T/deaths"
# the host secret a planted package.json links to
echo "soak: a host secret" >"$HOME/.ssh/id_ed25519"
chmod 600 "$HOME/.ssh/id_ed25519"
read -r eph_lo eph_hi </proc/sys/net/ipv4/ip_local_port_range
cd "$T/ws" || exit 1

# a tampered image cache entry of the workspace, there before any session:
# a tar whose first member's name is bzip2's magic (docker load would read
# a bzip2 stream from byte 0); the host must refuse it, and load nothing
cache_entry=$HOME/.cache/sbx-tools/images/$(stat -c '%d-%i' "$T/ws")
(umask 077 && mkdir -p "$cache_entry")
python3 - "$cache_entry" "$T/ws" <<'EOF'
import io, os, sys, tarfile, time
e, ws = sys.argv[1], sys.argv[2]
b = io.BytesIO()
with tarfile.open(fileobj=b, mode="w", format=tarfile.USTAR_FORMAT) as t:
    for name, data in (("BZh91AY&SY", b"naming nothing"), ("manifest.json", b"[]")):
        i = tarfile.TarInfo(name)
        i.size = len(data)
        t.addfile(i, io.BytesIO(data))
a = b.getvalue()
now = int(time.time())
for f, data in (("archive", a), ("meta", ("workspace=%s\nstore=overlay2\nsize=%d\nsaved=%d\nused=%d\nref=docker.io/library/alpine:3.19\n" % (ws, len(a), now, now)).encode())):
    fd = os.open(os.path.join(e, f), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, data)
    os.close(fd)
EOF
cp "$cache_entry/archive" "$T/tampered"

# shellcheck disable=SC2317 # run by the trap
cleanup() {
	local p
	for p in $live $hostile; do kill -9 "$p" 2>/dev/null; done
	[ -z "${stalled:-}" ] || kill -CONT "$stalled" 2>/dev/null
	for p in $(ours 'sbx-*'); do kill -9 "$p" 2>/dev/null; done
	"$SIM" sim-cleanup >/dev/null 2>&1
	[ -n "${KEEP_SOAK:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

live=
hostile=
for _ in $(seq "$nsess"); do start_session; done
if [ "$SOAK_HOSTILE" = 1 ]; then
	"$top/test/soak.sh" --session hostile 0 \
	    </dev/null >/dev/null 2>>"$T/log/hostile.err" &
	hostile=$!
	disown "$!"
fi

# sbx-gc as cron would run it
(
	while :; do
		sleep 2
		$SOAK_GC 2>>"$T/log/gc.err"
		printf '%s\n' "$?" >>"$T/log/gc.status"
	done
) &
gcloop=$!

# warm-up: the clock starts once every first session made a call (or
# after 120 s), so a slow machine still soaks for SECONDS
for _ in $(seq 1200); do
	n=0
	for p in $live; do grep -qx 0 "$T/log/$p.calls" 2>/dev/null && n=$((n + 1)); done
	if [ -n "$hostile" ] && kill -0 "$hostile" 2>/dev/null &&
	    ! grep -qx ready "$T/hostile.ready" 2>/dev/null; then
		n=0
	fi
	[ "$n" -ge "$nsess" ] && break
	sleep 0.1
done

ksess=0 krun=0 kcreate=0
end=$(($(date +%s) + secs))
while [ "$(date +%s)" -lt "$end" ]; do
	sleep "$((1 + RANDOM % 2)).$((RANDOM % 10))"
	sample_ports
	[ "$SOAK_CHAOS" = 1 ] || continue
	case $((RANDOM % 3)) in
	0)
		# shellcheck disable=SC2086
		victim=$(pick $live) || continue
		kill -9 "$victim" 2>/dev/null && died "$victim"
		ksess=$((ksess + 1))
		rest=
		for p in $live; do [ "$p" = "$victim" ] || rest="$rest $p"; done
		live=$rest
		start_session
		;;
	1)
		# shellcheck disable=SC2046
		victim=$(pick $(ours sbx-run)) || continue
		kill -9 "$victim" 2>/dev/null && krun=$((krun + 1))
		;;
	2)
		# shellcheck disable=SC2046
		victim=$(pick $(creates)) || continue
		kill -9 "$victim" 2>/dev/null && kcreate=$((kcreate + 1))
		;;
	esac
done
kill "$gcloop" 2>/dev/null
wait "$gcloop" 2>/dev/null

# the hostile session's first round of docker_curl (a call held past its
# timeout is given up at twice it and 5 s) is in before the end, and a
# second one when the first drip ended early (the machine, not the tools)
if [ -n "$hostile" ]; then
	for _ in $(seq $(((SOAK_CURL_TIMEOUT * 2 + 15) * 20))); do
		awk '$1 == "flood" { f = 1 } $1 == "drip" { d++; if ($2 >= $3 - 0.5) h = 1 }
		    END { exit !(f && (h || d >= 2)) }' "$T/log/curl" 2>/dev/null && break
		kill -0 "$hostile" 2>/dev/null || break
		sleep 0.1
	done
fi

# snapshot before the end: the live sessions' sandboxes must all be there
livenames=
for p in $live $hostile; do
	n=$(awk -v p="$p" '$1 == p { print $2 }' "$T/sessions")
	livenames="$livenames $n"
done
sample_ports
snap=$nsample
hostname_=
if [ -n "$hostile" ]; then
	hostname_=$(awk -v p="$hostile" '$1 == p { print $2 }' "$T/sessions")
	kill -0 "$hostile" 2>/dev/null || hostile_dead=1
fi

# the hostile session's docker stops answering at its end (SIGSTOP): its
# save before teardown stalls, and the sandbox must still go within the
# bound sbx-watch(8) gives
stalled=
if [ -n "$hostname_" ] && [ "$SOAK_STALL" = 1 ]; then
	for d in "$SBX_SIM_ROOT"/s/*/; do
		read -r n 2>/dev/null <"${d}name" || continue
		[ "$n" = "$hostname_" ] || continue
		# (the pid file has no newline at its end)
		stalled=$(cat "${d}dockerd.pid" 2>/dev/null)
		kill -STOP "$stalled" 2>/dev/null || stalled=
	done
fi

# the end of every session, as when pi exits
for p in $live $hostile; do kill -9 "$p" 2>/dev/null && died "$p"; done
live=
hostile=

# the watchers tear down; then nothing of ours runs (a stalled save's
# within its bound)
for _ in $(seq $((${stalled:+TEARDOWN_BOUND * 10 - 540} + 600))); do
	[ -z "$(ours 'sbx-*')" ] && break
	sleep 0.1
done
# the sweep after the storm: idle sandboxes stop (each within IDLE s of
# its last exec, which ended with its session), cron's sbx-gc runs
for _ in $(seq $(((IDLE + 1) * 4))); do
	"$SIM" ls --json 2>/dev/null | grep -q '"status": *"running"' || break
	sleep 0.25
done
# shellcheck disable=SC2086
$SOAK_GC 2>>"$T/log/gc.err"

fails=0
bad() {
	printf 'soak: FAIL %s\n' "$*"
	fails=$((fails + 1))
}

# no sandbox of a dead session is left (pinned ones are kept on purpose)
listed=$(SBX_SIM_WORDS=exact "$SIM" ls --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for s in d["sandboxes"] if isinstance(d, dict) else d:
    print(s["name"], s.get("status", ""))')
while read -r n st; do
	[ -n "$n" ] || continue
	case $n in
	soak-pin-*) ;;
	*) bad "sandbox $n ($st) of a dead session is left" ;;
	esac
done <<EOF
$listed
EOF

# no sandbox was removed while its session lived; pinned ones never
while read -r ms rc verb rest; do
	if [ "$verb" != rm ] || [ "$rc" != 0 ]; then continue; fi
	n=${rest##* }
	case $n in
	soak-pin-*)
		bad "pinned sandbox $n was removed"
		continue
		;;
	esac
	p=$(awk -v n="$n" '$2 == n { print $1 }' "$T/sessions")
	if [ -z "$p" ]; then
		bad "rm of $n, which no session made"
		continue
	fi
	d=$(awk -v p="$p" '$1 == p { print $2 }' "$T/deaths")
	if [ -z "$d" ] || awk -v a="$ms" -v b="$d" 'BEGIN { exit !(a < b) }'; then
		bad "sandbox $n was removed while its session $p lived"
	fi
	# a session's record outlives its sandbox, closed and kept
	ls "$SBX_STATE_DIR/$n".past-* >/dev/null 2>&1 ||
	    bad "the session of $n left no record (no $n.past-*)"
done <"$SBX_SIM_ROOT/calls.log"

# no marker or scratch directory without its sandbox
for f in "$SBX_STATE_DIR"/* ; do
	[ -e "$f" ] || continue
	b=${f##*/}
	n=${b%%.*}
	# sbx-ports' cache of the dialect is the host's, of no sandbox; a
	# past session's record and the findings the user has not seen are
	# kept on purpose
	case $b in soak-pin-* | sbx-port-dialect | *.past-* | tripwire-unseen) continue ;; esac
	if printf '%s\n' "$listed" | grep -q "^$n "; then continue; fi
	# a lock file of a watcher that has gone is harmless but named
	bad "state $b is left without its sandbox"
done

# no process of the programs is left
for p in $(ours 'sbx-*'); do
	bad "process $p ($(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")) is left"
done

# ---------------------------------------------------------------- ports

# the bound, at every sample, for every sandbox: host ports held (a
# dual-stack mapping's two rows are one port), none below 1024, none in
# the host's ephemeral range at its own number, none beyond loopback
touch "$T/log/ports"
while IFS= read -r l; do
	[ -n "$l" ] && bad "$l"
done <<EOF
$(awk -v lo="$eph_lo" -v hi="$eph_hi" -v max="$PORTS_BOUND" '
{
	p = $3; sub(/[46]$/, "", p)
	if (!(($1, $2, p, $5) in seen)) {
		seen[$1, $2, p, $5]
		if (++held[$1, $2] > most[$2]) most[$2] = held[$1, $2]
	}
	m = "host port " $5 " -> " $6 "/" $3 " of " $2
	if ($5 < 1024 && !(m in low)) { low[m]; print m " is below 1024" }
	if ($5 == $6 && $5 >= lo && $5 <= hi && !(m in eph)) {
		eph[m]; print m " is in the ephemeral range " lo "-" hi " at its own number"
	}
	if ($4 != "127.0.0.1" && $4 != "::1" && !(m in wide)) {
		wide[m]; print m " is bound on " $4
	}
}
END {
	for (n in most) if (most[n] > max)
		print "sandbox " n " held " most[n] " host ports at once (the bound is " max ")"
}' "$T/log/ports" | head -n 20)
EOF

# nothing of a dead session is forwarded: no mapping of a sandbox that
# is not kept, no forwarder process
for d in "$SBX_SIM_ROOT"/s/*/; do
	read -r n 2>/dev/null <"${d}name" || continue
	case $n in soak-pin-*) continue ;; esac
	set -- "${d}"ports/*
	[ -f "$1" ] || continue
	bad "$# host ports of sandbox $n are still forwarded: $(printf '%s\n' "$@" | sed 's/.*_//' | sort -n | head -n 5 | tr '\n' ' ')..."
done
# shellcheck disable=SC2046 # pids, one a word
set -- $(ours socat)
[ $# -eq 0 ] ||
    bad "$# forwarders are left, the first: $1 ($(tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline"))"

# ---------------------------------------------------------------- hostile

if [ "$SOAK_HOSTILE" = 1 ]; then
	touch "$T/hostile.ready" "$T/log/curl"
	grep -qx ready "$T/hostile.ready" ||
	    bad "the hostile session did not get ready: $(tr '\n' ';' <"$T/hostile.ready") $(tail -n 3 "$T/log/hostile.err" 2>/dev/null | tr '\n' ';')"
	# the stalled save: the sandbox went within the bound of its end
	if [ -n "$stalled" ]; then
		hdeath=$(awk -v p="$(awk -v n="$hostname_" '$2 == n { print $1 }' "$T/sessions")" '$1 == p { print $2 }' "$T/deaths")
		gone=$(awk -v n="$hostname_" '$3 == "rm" && $2 == 0 && $NF == n { print $1; exit }' "$SBX_SIM_ROOT/calls.log")
		saves=$(awk -v n="$hostname_" -v d="$hdeath" '$1 > d && $3 == "exec" && index($0, " " n " ")' "$SBX_SIM_ROOT/calls.log" | wc -l)
		if [ -z "$gone" ]; then
			bad "the hostile sandbox $hostname_, its docker stopped, was not removed"
		elif awk -v a="$gone" -v b="$hdeath" -v k="$TEARDOWN_BOUND" 'BEGIN { exit !(a - b > k) }'; then
			bad "the hostile sandbox $hostname_, its docker stopped, was removed $(awk -v a="$gone" -v b="$hdeath" 'BEGIN { printf "%.1f", a - b }') s after its session's end (the bound is $TEARDOWN_BOUND s)"
		fi
		stall="its docker stopped at the end, removed $(awk -v a="${gone:-0}" -v b="$hdeath" 'BEGIN { printf "%.1f", a - b }') s after (bound $TEARDOWN_BOUND s), $saves exec(s) into it after the end"
		kill -CONT "$stalled" 2>/dev/null
	fi
	# the tampered cache entry: refused on the host (deleted, said), and
	# no load was tried into any sandbox
	tamper=$(cat "$T"/log/*.err 2>/dev/null | grep -c "image cache entry of $T/ws: .*bzip2")
	loads=$(grep -c ' exec -i ' "$SBX_SIM_ROOT/calls.log")
	! cmp -s "$cache_entry/archive" "$T/tampered" ||
	    bad "the tampered image cache entry $cache_entry is still there"
	[ "$loads" -eq 0 ] ||
	    bad "$loads image cache load(s) were tried: $(grep -m 1 ' exec -i ' "$SBX_SIM_ROOT/calls.log")"
	[ "$tamper" -ge 1 ] ||
	    bad "no session said the tampered image cache entry was refused for its bzip2 magic: $(grep -h 'image cache' "$T"/log/*.err | head -n 2 | tr '\n' ';')"
	[ -z "${hostile_dead:-}" ] ||
	    bad "the hostile session died before the end: $(tail -n 3 "$T/log/hostile.err" | tr '\n' ';')"
	# what ran of the plants (each appends a line to the canary)
	[ ! -e "$T/canary" ] ||
	    bad "planted files ran on the host ($(wc -l <"$T/canary") times): $(sort "$T/canary" | uniq -c | head -n 4 | tr -s ' \n' ' ')"
	# a link out read as absence: init/package.json leads to the host
	# secret, init/go.mod to nothing, so nothing is detected
	grep -q '^init: lang=generic ' "$T/hostile.ready" ||
	    bad "docker_init read links out of the workspace: $(grep '^init:' "$T/hostile.ready")"
	# parallel docker_run with different ports: the bound and sbx-ports'
	# record held under their racing syncs (and the runs ran, or this
	# proves nothing); what they published goes with the sandbox (above)
	par=$(grep '^parallel:' "$T/hostile.ready")
	if [[ $par =~ parallel:\ ([0-9]+)\ of\ 3\ runs,\ held\ ([0-9]+)\ host\ ports,\ recorded\ ([0-9]+),\ listed\ not\ recorded\ ([0-9]+).*recorded\ not\ listed\ ([0-9]+) ]]; then
		[ "${BASH_REMATCH[1]}" -gt 0 ] ||
		    bad "no parallel docker_run ran: $par"
		[ "${BASH_REMATCH[2]}" -le "$PORTS_BOUND" ] ||
		    bad "parallel docker_run left ${BASH_REMATCH[2]} host ports at once (the bound is $PORTS_BOUND): $par"
		[ "$((BASH_REMATCH[4] + BASH_REMATCH[5]))" -eq 0 ] ||
		    bad "after parallel docker_run sbx's listing and sbx-ports' record differ: $par"
	else
		bad "the parallel docker_run were not made: ${par:-no line}"
	fi
	# a daemon a docker_exec started, then Esc: none lives after, or the
	# answer said it could not end or look for it
	dmn=$(grep '^daemon:' "$T/hostile.ready")
	case $dmn in
	"daemon: started yes, after Esc none lives;"*) ;;
	"daemon: started yes,"*"still run"* | "daemon: started yes,"*"not looked for"* | \
	    "daemon: started yes,"*"could be checked"* | "daemon: started yes,"*unknown*) ;;
	"daemon: started yes,"*)
		bad "a daemon of a docker_exec outlived Esc and the answer did not say so: $dmn" ;;
	*) bad "the daemon of the docker_exec never started: ${dmn:-no line}" ;;
	esac
	# nothing of the live hostile session was taken: its service's mapping
	awk -v s="$snap" -v n="$hostname_" '$1 == s && $2 == n && $6 == 8080' \
	    "$T/log/ports" | grep -q . ||
	    bad "the live hostile session's mapping of VM port 8080 was gone before the end"
	# every docker_curl within its timeout; and the service reached, or
	# this proves nothing
	late=$(awk -v k="$CURL_SLACK" '$2 > $3 + k || $4 == "held"' "$T/log/curl" | wc -l)
	longest=$(sort -k2,2n "$T/log/curl" | tail -n 1 | awk '{ print $2 }')
	[ "$late" -eq 0 ] ||
	    bad "$late docker_curl call(s) outlived timeoutSec $SOAK_CURL_TIMEOUT by more than $CURL_SLACK s (the longest: ${longest} s)"
	nflood=$(awk '$1 == "flood" && $4 == "answered"' "$T/log/curl" | wc -l)
	ndrip=$(awk '$1 == "drip" && $2 >= $3 - 0.5' "$T/log/curl" | wc -l)
	[ "$nflood" -gt 0 ] ||
	    bad "no docker_curl of the flood was answered: the service was never reached"
	[ "$ndrip" -gt 0 ] ||
	    bad "no docker_curl of the drip lasted to its timeout: the drip was never reached"
	most=$(awk -v n="$hostname_" '$2 == n { c[$1]++ } END { m = 0; for (s in c) if (c[s] > m) m = c[s]; print m }' "$T/log/ports")
	[ "$most" -ge 32 ] ||
	    bad "the hostile sandbox never held more than $most host ports: its ranges were not published"
	[ -z "$stalled" ] || echo "soak: hostile: $stall"
	echo "soak: hostile: a tampered image cache entry: refused with its reason $tamper time(s), $loads load(s) tried"
	printf 'soak: hostile: %s\nsoak: hostile: %s\n' "$(p=${par#parallel: }; echo "${p% \[*}")" "${dmn% \[*}" | cut -c 1-300
	printf 'soak: hostile: %d docker_curl calls (%d floods answered, %d drips held to the timeout), the longest %s s (timeoutSec %d); its sandbox held at most %d host ports (bound %d); %d files planted, %s\n' \
	    "$(wc -l <"$T/log/curl")" "$nflood" "$ndrip" "${longest:-0}" \
	    "$SOAK_CURL_TIMEOUT" "$most" "$PORTS_BOUND" \
	    "$(grep -c '^cat >' "$T/hostile.plant" 2>/dev/null)" \
	    "$([ -e "$T/canary" ] && echo "some ran" || echo "none ran")"
fi

# the counts
nsessions=$(wc -l <"$T/sessions")
ncalls=$(cat "$T"/log/*.calls 2>/dev/null | wc -l)
nok=$(cat "$T"/log/*.calls 2>/dev/null | grep -c '^0$')
made=$(awk '$2 == 0 && $3 == "create"' "$SBX_SIM_ROOT/calls.log" | wc -l)
removed=$(awk '$2 == 0 && $3 == "rm"' "$SBX_SIM_ROOT/calls.log" | wc -l)
ngc=$(wc -l <"$T/log/gc.status" 2>/dev/null || echo 0)
printf 'soak: %d s, %d sessions (%d at once), %d calls (%d ok), kills: %d sessions, %d sbx-run, %d sbx create; sandboxes made %d, removed %d; %d sweeps\n' \
    "$secs" "$nsessions" "$nsess" "$ncalls" "$nok" "$ksess" "$krun" \
    "$kcreate" "$made" "$removed" "$ngc"
[ -n "$livenames" ] || bad "no session was alive at the end"
[ "$nok" -gt 0 ] || bad "no call succeeded"
# what failed calls said, for the reader (a killed call fails by design)
if cat "$T"/log/[0-9]*.err >"$T/errs" 2>/dev/null && [ -s "$T/errs" ]; then
	echo "soak: what failed calls said (count, line):"
	sed 's/pi-sbx-[0-9]*-[a-z0-9]*/NAME/g; s/soak-pin-[0-9]*/NAME/g' "$T/errs" |
	    sort | uniq -c | sort -rn | head -8
fi

# the pinned sandboxes go now, by hand, as their owner would
for n in $(printf '%s\n' "$listed" | awk '$1 ~ /^soak-pin-/ { print $1 }'); do
	"$SIM" rm --force "$n" >/dev/null 2>&1
done

if [ "$fails" -eq 0 ]; then
	echo "soak: everything held"
	exit 0
fi
echo "soak: $fails failure(s)"
exit 1
