#!/usr/bin/env bats
# The state directory's path under attack (issue 11 finding 8): links at
# inner components, "." and "..", ancestors that a stranger owns or that
# group or others may write.  Every program refuses them before any sbx
# call; a system link made by root in root's own directory still works.

load ../helpers/helper
load ../helpers/state

setup() {
	state_setup
	T=$BATS_TEST_TMPDIR
	mkdir -m 700 "$T/real"
}

teardown() {
	rm -f "${TMPLINK:-}"
	return 0
}

# refused DIR TEXT: every program refuses SBX_STATE_DIR=DIR, saying TEXT,
# and nothing is written into $T/real, where the links lead
refused() {
	export SBX_STATE_DIR=$1
	rm -f "$SBX_STUB_DIR/calls.log"
	refused_by_all "$2"
	[ -z "$(ls -A "$T/real")" ] || fail "wrote into $T/real: $(ls -A "$T/real")"
}

@test "state path class: . and .. components are refused, the link behind them too" {
	TMPLINK=/tmp/sbx-attack-link.$$
	ln -s "$T/real" "$TMPLINK"
	refused "$TMPLINK/." "has a . or .. component"
	refused "$TMPLINK/inner/.." "has a . or .. component"
	refused "$TMPLINK/./state" "has a . or .. component"
	refused "$T/real/../real" "has a . or .. component"
	refused "$T/./real" "has a . or .. component"
	refused "$TMPLINK" "is a symbolic link"
}

@test "state path class: a link at an inner component that others could plant is refused" {
	# in a world-writable (sticky) directory: /tmp itself
	TMPLINK=/tmp/sbx-attack-link.$$
	ln -s "$T/real" "$TMPLINK"
	refused "$TMPLINK/state" "$TMPLINK is a symbolic link"
	refused "$TMPLINK/a/b/state" "$TMPLINK is a symbolic link"
	# owned by someone else, in our own directory
	mkdir -m 700 "$T/own"
	ln -s "$T/real" "$T/own/link"
	chown -h 65534 "$T/own/link"
	refused "$T/own/link/state" "$T/own/link is a symbolic link"
	# a link two levels down, in a group-writable directory
	mkdir -p -m 775 "$T/gw"
	ln -s "$T/real" "$T/gw/link"
	refused "$T/gw/link/state" "$T/gw: writable by group or others"
	# a link whose target holds a planted link
	mkdir -m 777 "$T/open"
	ln -s "$T/real" "$T/open/inner"
	ln -s "$T/open" "$T/via"
	refused "$T/via/inner/state" "$T/open"
}

@test "state path class: an ancestor owned by a stranger is refused" {
	mkdir -m 755 "$T/foreign"
	chown 65534 "$T/foreign"
	refused "$T/foreign/state" "$T/foreign: owned by someone else"
	refused "$T/foreign/a/b/state" "$T/foreign: owned by someone else"
	[ ! -e "$T/foreign/a" ]
}

@test "state path class: an ancestor writable by group or others is refused (unless sticky)" {
	for mode in 775 757 777 770; do
		rm -rf "$T/anc"
		mkdir -m "$mode" "$T/anc"
		refused "$T/anc/state" "$T/anc: writable by group or others"
		refused "$T/anc/deep/state" "$T/anc: writable by group or others"
	done
	# a sticky one (as /tmp) of root's or ours is fine: others cannot
	# rename or remove what is in it
	rm -rf "$T/anc"
	mkdir -m 1777 "$T/anc"
	export SBX_STATE_DIR=$T/anc/state
	run -0 sbx-gc
	[ -d "$T/anc/state" ]
	# but a sticky one owned by a stranger is not
	rm -rf "$T/anc"
	mkdir -m 1777 "$T/anc"
	chown 65534 "$T/anc"
	refused "$T/anc/state" "$T/anc: owned by someone else"
}

@test "state path class: a system link (root's, in root's own directory) is followed" {
	# as macOS /tmp -> private/tmp or FreeBSD /home -> usr/home
	[ "$(id -u)" -eq 0 ] || fail "needs root to make root's links"
	mkdir -m 755 "$T/sys" "$T/sys/private"
	ln -s private "$T/sys/tmp"
	export SBX_STATE_DIR=$T/sys/tmp/me/state
	run -0 --separate-stderr sbx-gc
	[ -z "$stderr" ]
	[ -d "$T/sys/private/me/state" ]
	[ "$(stat -c %a "$T/sys/private/me/state")" = 700 ]
	# the same link owned by someone else is refused
	chown -h 65534 "$T/sys/tmp"
	refused "$T/sys/tmp/me/state" "$T/sys/tmp is a symbolic link"
}

@test "state path class: the directories made on the way are 0700 and ours" {
	export SBX_STATE_DIR=$T/made/a/b/state
	run -0 sbx-gc
	for d in "$T/made" "$T/made/a" "$T/made/a/b" "$T/made/a/b/state"; do
		[ "$(stat -c %a "$d")" = 700 ] || fail "$d: $(stat -c %a "$d")"
	done
}
