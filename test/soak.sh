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
# Then every session ends, and what the lifecycle promises is checked from
# the outside: no sandbox of a dead session is left, no sandbox was removed
# while its session lived, no marker or scratch directory is left without
# its sandbox, no process of the programs is left.  Prints the counts and
# one verdict line; exits 0 when everything held.
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
	session_main "$2" "$3"
	exit 1
fi

# The controls of the checks: SOAK_GC replaces the sweep, SOAK_WATCH
# adds options to sbx-watch (test/soak.bats breaks each on purpose).
SOAK_GC=${SOAK_GC:-sbx-gc -H 0}
SOAK_WATCH=${SOAK_WATCH:-}
SOAK_CHAOS=${SOAK_CHAOS:-1}
SOAK_PREWARM=${SOAK_PREWARM:-1}
export SOAK_WATCH SOAK_PREWARM

secs=${1:-60}
nsess=${2:-8}
case $secs$nsess in *[!0-9]*) echo "usage: soak.sh [seconds [sessions]]" >&2; exit 64 ;; esac

for p in sbx-run sbx-watch sbx-gc; do
	[ -x "$top/$p/$p" ] || { echo "soak: $p/$p is not built (make)" >&2; exit 1; }
done

T=$(mktemp -d /tmp/sbxsoak.XXXXXX)
export T
export SBX_SIM_ROOT=$T/sim HOME=$T/home SBX_STATE_DIR=$T/state
export DOCKER_SANDBOX_SBX=$SIM SBX_SIM_IDLE_STOP=$IDLE
export PATH="$top/sbx-run:$top/sbx-watch:$top/sbx-gc:$PATH:/usr/sbin:/sbin"
unset DOCKER_SANDBOX DOCKER_SANDBOX_WORKSPACE_RO DOCKER_SANDBOX_AUTOCREATE \
    DOCKER_SANDBOX_TEARDOWN DOCKER_SANDBOX_TIMEOUT DOCKER_SANDBOX_KEEPALIVE \
    DOCKER_SANDBOX_GC_HOURS DOCKER_SANDBOX_ENV_ALLOWLIST \
    DOCKER_SANDBOX_ENV_PASSTHROUGH XDG_STATE_HOME SBX_SIM_FAIL SBX_SIM_HANG \
    SBX_SIM_LEAK SBX_SIM_DIALECT
mkdir -p "$HOME" "$T/ws" "$T/log"
: >"$T/sessions"
: >"$T/deaths"
cd "$T/ws" || exit 1

# shellcheck disable=SC2317 # run by the trap
cleanup() {
	local p
	for p in $live; do kill -9 "$p" 2>/dev/null; done
	for p in $(ours 'sbx-*'); do kill -9 "$p" 2>/dev/null; done
	"$SIM" sim-cleanup >/dev/null 2>&1
	[ -n "${KEEP_SOAK:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

live=
for _ in $(seq "$nsess"); do start_session; done

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
	[ "$n" -ge "$nsess" ] && break
	sleep 0.1
done

ksess=0 krun=0 kcreate=0
end=$(($(date +%s) + secs))
while [ "$(date +%s)" -lt "$end" ]; do
	sleep "$((1 + RANDOM % 2)).$((RANDOM % 10))"
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

# snapshot before the end: the live sessions' sandboxes must all be there
livenames=
for p in $live; do
	n=$(awk -v p="$p" '$1 == p { print $2 }' "$T/sessions")
	livenames="$livenames $n"
done

# the end of every session, as when pi exits
for p in $live; do kill -9 "$p" 2>/dev/null && died "$p"; done
live=

# the watchers tear down; then nothing of ours runs
for _ in $(seq 600); do
	[ -z "$(ours 'sbx-*')" ] && break
	sleep 0.1
done
# the sweep after the storm: idle sandboxes stop, cron's sbx-gc runs
sleep $((IDLE + 1))
"$SIM" ls --json >/dev/null 2>&1
# shellcheck disable=SC2086
$SOAK_GC 2>>"$T/log/gc.err"

fails=0
bad() {
	printf 'soak: FAIL %s\n' "$*"
	fails=$((fails + 1))
}

# no sandbox of a dead session is left (pinned ones are kept on purpose)
listed=$("$SIM" ls --json | python3 -c '
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
done <"$SBX_SIM_ROOT/calls.log"

# no marker or scratch directory without its sandbox
for f in "$SBX_STATE_DIR"/* ; do
	[ -e "$f" ] || continue
	b=${f##*/}
	n=${b%%.*}
	case $b in soak-pin-*) continue ;; esac
	if printf '%s\n' "$listed" | grep -q "^$n "; then continue; fi
	# a lock file of a watcher that has gone is harmless but named
	bad "state $b is left without its sandbox"
done

# no process of the programs is left
for p in $(ours 'sbx-*'); do
	bad "process $p ($(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")) is left"
done

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
