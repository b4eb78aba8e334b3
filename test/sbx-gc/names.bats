#!/usr/bin/env bats
# sbx-gc under attack (issue 11 finding 9, issue 13 finding 4): a listing
# that names a sandbox more than once, names that only look like ours,
# and sandboxes whose owner cannot be shown dead, whatever -H asks.

load ../helpers/helper

setup() {
	common_setup
	G="$TOP/sbx-gc/sbx-gc"
	mkdir -m 700 -p "$SBX_STATE_DIR"
	D=$(deadpid)
}

teardown() {
	[ -n "${LIVE:-}" ] && kill "$LIVE" 2>/dev/null
	return 0
}

deadpid() {
	sh -c 'exit 0' &
	local p=$!
	wait "$p"
	echo "$p"
}

# The listing, one {"name","status"} entry per pair of arguments.
listing() {
	local sep= out='{"sandboxes":['
	while [ $# -gt 1 ]; do
		out="$out$sep{\"name\":\"$1\",\"status\":\"$2\",\"last_used_at\":\"2001-01-01T00:00:00Z\"}"
		sep=,
		shift 2
	done
	printf '%s]}\n' "$out" >"$SBX_STUB_DIR/out.ls"
}

removed() {
	grep '^rm ' "$SBX_STUB_DIR/calls.log" 2>/dev/null |
	    sed 's/^rm --force //' | sort | tr '\n' ' '
}

@test "gc duplicates class: any running entry keeps a name listed twice, in every order" {
	N=pi-sbx-$D-dupl0000
	for order in "stopped running" "running stopped" \
	    "stopped stopped running" "stopped running stopped" \
	    "running stopped stopped" "stopped creating" "creating stopped" \
	    "stopped paused"; do
		rm -f "$SBX_STUB_DIR/calls.log"
		# shellcheck disable=SC2086
		set -- $order
		args=()
		for st in "$@"; do args+=("$N" "$st"); done
		listing "${args[@]}"
		run -0 --separate-stderr "$G" -v -H 0
		[ -z "$(removed)" ] || fail "$order: removed $(removed)"
		[[ "$output" == *"kept $N: status "* ]] || fail "$order: $output"
	done
	# every entry stopped: it may go
	listing "$N" stopped "$N" stopped
	run -0 "$G" -H 0
	[ "$(removed)" = "$N " ]
}

@test "gc duplicates class: an entry without a status keeps the name" {
	N=pi-sbx-$D-nostat00
	printf '{"sandboxes":[{"name":"%s","status":"stopped"},{"name":"%s"}]}\n' \
	    "$N" "$N" >"$SBX_STUB_DIR/out.ls"
	run -0 "$G" -v -H 0
	[ -z "$(removed)" ]
	printf '{"sandboxes":[{"name":"%s"},{"name":"%s","status":"stopped"}]}\n' \
	    "$N" "$N" >"$SBX_STUB_DIR/out.ls"
	run -0 "$G" -v -H 0
	[ -z "$(removed)" ]
}

@test "gc name shape class: only PREFIX + pid + - + 8 of [a-z0-9] is a candidate" {
	good=pi-sbx-$D-abcd1234
	listing pi-sbx-handmade stopped "$good" stopped \
	    "pi-sbx-$D-ABCDEFGH" stopped "pi-sbx-$D-abcdefg" stopped \
	    "pi-sbx-$D-abcdefghi" stopped pi-sbx--abcdefgh stopped \
	    "pi-sbx-0$D-abcdefgh" stopped pi-sbx-0-abcdefgh stopped \
	    "pi-sbx-$D-abc.efgh" stopped "pi-sbx-$D-abcd-fgh" stopped \
	    "pi-sbx-$D" stopped "pi-sbx-$D-" stopped \
	    pi-sbx-99999999999999999999-abcdefgh stopped \
	    pi-sbx-2147483648-abcdefgh stopped \
	    "pi-sbx-x$D-abcdefgh" stopped "Pi-sbx-$D-abcdefgh" stopped \
	    "pi-sbx-$D-abcdefgh.x" stopped
	run -0 --separate-stderr "$G" -v -H 0
	[ "$(removed)" = "$good " ] || fail "removed: $(removed)"
	[[ "$output" == *"kept pi-sbx-handmade: not a name sbx-run makes"* ]]
	[[ "$output" == *"kept pi-sbx-2147483648-abcdefgh: not a name sbx-run makes"* ]]
}

@test "gc name shape class: -P sets the prefix of the shape" {
	listing "mine-$D-abcdefgh" stopped mine-handmade stopped \
	    "pi-sbx-$D-abcdefgh" stopped
	run -0 "$G" -v -H 0 -P mine-
	[ "$(removed)" = "mine-$D-abcdefgh " ]
}

@test "gc live owner class: no markers and a live pid in the name keep it, -H 0 included" {
	sleep 300 3>&- &
	LIVE=$!
	N=pi-sbx-$LIVE-livepid0
	listing "$N" stopped "pi-sbx-1-initpid0" stopped
	for h in 0 1 24; do
		run -0 --separate-stderr "$G" -v -H "$h"
		[ -z "$(removed)" ] || fail "-H $h removed $(removed)"
		[[ "$output" == *"kept $N: no owner marker, and pid $LIVE of its name is alive"* ]]
		[[ "$output" == *"kept pi-sbx-1-initpid0: no owner marker, and pid 1 of its name is alive"* ]]
	done
	# the session ends: now it may go
	kill "$LIVE"
	wait "$LIVE" 2>/dev/null || true
	LIVE=
	run -0 "$G" -v -H 0
	[ "$(removed)" = "$N " ]
}

@test "gc live owner class: markers of a live name's session are kept in the orphan sweep too" {
	sleep 300 3>&- &
	LIVE=$!
	printf 'created=1\n' >"$SBX_STATE_DIR/pi-sbx-$LIVE-orphan00.created"
	printf 'created=1\n' >"$SBX_STATE_DIR/pi-sbx-$D-orphan00.created"
	touch -d '-1 hour' "$SBX_STATE_DIR"/*.created
	listing
	run -0 "$G" -v -H 0
	[ -e "$SBX_STATE_DIR/pi-sbx-$LIVE-orphan00.created" ]
	[ ! -e "$SBX_STATE_DIR/pi-sbx-$D-orphan00.created" ]
}

@test "gc live owner class: a dead pid in the name and no markers: removable at -H 0" {
	N=pi-sbx-$D-deadpid0
	listing "$N" stopped
	run -0 "$G" -v -H 0
	[ "$(removed)" = "$N " ]
}

@test "gc live owner class: an owner marker with a dead owner wins over a live pid in the name" {
	N=pi-sbx-1-ownedby0
	printf 'pid=%s\nstart=12345\nwatcher=1\n' "$D" >"$SBX_STATE_DIR/$N.owner"
	listing "$N" stopped
	run -0 "$G" -v -H 0
	[ "$(removed)" = "$N " ]
}
