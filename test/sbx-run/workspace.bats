#!/usr/bin/env bats
# What sbx-run may mount: the workspace guard compares directories by
# identity (device and inode), not by spelling, and the scratch primary
# of read-only mode is a directory sbx-run made or verified, never a
# path found in the state directory.

load ../helpers/helper

N=pi-sbx-4242-abcd1234
MOUNTS=

setup() {
	common_setup
	mkdir -m 700 -p "$SBX_STATE_DIR"
}

teardown() {
	local m
	for m in $MOUNTS; do umount -l "$m" 2>/dev/null; done
	MOUNTS=
	return 0
}

# Bind-mount $1 at a fresh directory $2 (unmounted in teardown).
bind() {
	mkdir -p "$2"
	mount --bind "$1" "$2" || fail "mount --bind $1 $2"
	MOUNTS="$2 $MOUNTS"
}

# sbx-run refuses workspace $1 with the one message, creating nothing;
# its check mode (-C) refuses it first with the same line and status,
# printing nothing and calling no sbx at all.
refused() {
	local asked
	rm -rf "$SBX_STUB_DIR"
	mkdir -p "$SBX_STUB_DIR"
	run -1 --separate-stderr sbx-run -C -w "$1"
	[ -z "$output" ] || fail "$1: -C printed $output"
	[ "$(stub_count)" -eq 0 ] || fail "$1: -C called sbx"
	asked=$stderr
	run -1 --separate-stderr sbx-run -w "$1" -s "$N" ps
	[[ "$stderr" == *"is /, a home directory or above one, or holds the state directory; refusing to mount it (use -w)" ]] ||
	    fail "$1: $status: $stderr"
	[ "$asked" = "$stderr" ] || fail "$1: -C said '$asked', provisioning '$stderr'"
	[ "$(stub_count create)" -eq 0 ] || fail "$1: created"
}

# sbx-run -C accepts workspace $1 as the real path $2, calling no sbx.
accepted() {
	rm -rf "$SBX_STUB_DIR"
	mkdir -p "$SBX_STUB_DIR"
	run -0 --separate-stderr sbx-run -C -w "$1"
	[ "$output" = "$2" ] || fail "$1: -C printed '$output', not '$2'"
	[ -z "$stderr" ] || fail "$1: -C said $stderr"
	[ "$(stub_count)" -eq 0 ] || fail "$1: -C called sbx"
}

# The account's home directory, as getpwuid(3) knows it.
pwhome() {
	getent passwd "$(id -u)" | cut -d: -f6
}

@test "workspace identity class: a bind mount of \$HOME at another path is refused" {
	bind "$HOME" "$BATS_TEST_TMPDIR/elsewhere"
	refused "$BATS_TEST_TMPDIR/elsewhere"
	refused "$BATS_TEST_TMPDIR/elsewhere/."
	mkdir "$HOME/proj"
	refused "$BATS_TEST_TMPDIR/elsewhere/proj/.."
	# a project inside it is still fine
	run -0 sbx-run -w "$BATS_TEST_TMPDIR/elsewhere/proj" -s "$N" ps
	[ "$(stub_count create)" -eq 1 ]
}

@test "workspace identity class: a bind mount of / and every home or ancestor inside it" {
	bind / "$BATS_TEST_TMPDIR/root"
	refused "$BATS_TEST_TMPDIR/root"
	refused "$BATS_TEST_TMPDIR/root$HOME"
	refused "$BATS_TEST_TMPDIR/root$(dirname "$HOME")"
	refused "$BATS_TEST_TMPDIR/root$(pwhome)"
	refused "$BATS_TEST_TMPDIR/root/tmp/.."
}

@test "workspace identity class: HOME unset, empty or relative still guards the account's home" {
	h=$(pwhome)
	[ -d "$h" ] || fail "no home directory $h"
	for how in unset empty relative; do
		rm -rf "$SBX_STUB_DIR"
		mkdir -p "$SBX_STUB_DIR"
		case $how in
		unset) run -1 --separate-stderr env -u HOME sbx-run -w "$h" -s "$N" ps ;;
		empty) run -1 --separate-stderr env HOME= sbx-run -w "$h" -s "$N" ps ;;
		relative) run -1 --separate-stderr env HOME=home sbx-run -w "$h" -s "$N" ps ;;
		esac
		[[ "$stderr" == *"refusing to mount it (use -w)" ]] ||
		    fail "HOME $how: $status: $stderr"
		[ "$(stub_count create)" -eq 0 ] || fail "HOME $how: created"
		case $how in
		unset) run -1 env -u HOME sbx-run -C -w "$h" ;;
		empty) run -1 env HOME= sbx-run -C -w "$h" ;;
		relative) run -1 env HOME=home sbx-run -C -w "$h" ;;
		esac
		[[ "$output" == *"refusing to mount it (use -w)" ]] ||
		    fail "-C, HOME $how: $status: $output"
	done
	# and the private $HOME is guarded beside it
	refused "$HOME"
}

@test "workspace identity class: a symlink to \$HOME, \$HOME/., \$HOME/x/.., the parent of \$HOME" {
	ln -s "$HOME" "$BATS_TEST_TMPDIR/homelink"
	ln -s / "$BATS_TEST_TMPDIR/rootlink"
	mkdir "$HOME/x"
	for w in "$BATS_TEST_TMPDIR/homelink" "$BATS_TEST_TMPDIR/homelink/" \
	    "$HOME/." "$HOME/./" "$HOME/x/.." "$HOME//x/../." "$HOME/.." \
	    "$(dirname "$HOME")" "$BATS_TEST_TMPDIR/rootlink" / //; do
		refused "$w"
	done
	cd "$HOME"
	refused .
}

@test "workspace identity class: a workspace holding the state directory is refused" {
	export SBX_STATE_DIR="$WS/a/b/state"
	mkdir -p "$WS/c"
	refused "$WS"
	refused "$WS/a"
	refused "$WS/a/b"
	refused "$WS/a/b/state"
	ln -s "$WS/a" "$BATS_TEST_TMPDIR/alink"
	refused "$BATS_TEST_TMPDIR/alink"
	bind "$WS/a" "$BATS_TEST_TMPDIR/abind"
	refused "$BATS_TEST_TMPDIR/abind"
	# a sibling of it is fine
	run -0 sbx-run -w "$WS/c" -s "$N" ps
	[ "$(stub_count create)" -eq 1 ]
}

@test "check mode (-C): a state directory not made yet is judged where it would be made" {
	export SBX_STATE_DIR="$WS/new/state"
	mkdir "$WS/c"
	accepted "$WS/c" "$(realpath "$WS/c")"
	run -1 --separate-stderr sbx-run -C -w "$WS"
	[[ "$stderr" == *"holds the state directory; refusing to mount it (use -w)" ]]
	[ ! -e "$WS/new" ] || fail "-C made the state directory"
	# one level exists, the rest not: the existing one is the ancestor
	mkdir "$WS/new"
	ln -s "$WS/new" "$BATS_TEST_TMPDIR/newlink"
	for w in "$WS/new" "$BATS_TEST_TMPDIR/newlink"; do
		run -1 sbx-run -C -w "$w"
		[[ "$output" == *"refusing to mount it (use -w)" ]] || fail "$w: $output"
	done
	[ ! -e "$WS/new/state" ] || fail "-C made the state directory"
	[ "$(stub_count)" -eq 0 ]
	# provisioning makes it, then refuses the same three in the same words
	refused "$WS/new"
	rm -rf "$WS/new/state"
	refused "$BATS_TEST_TMPDIR/newlink"
	rm -rf "$WS/new/state"
	refused "$WS"
}

@test "check mode (-C): hostile workspaces get provisioning's answer, and no sbx is run" {
	ws=$(realpath "$WS")
	mkdir -- "$WS/-rf" "$WS/--" "$WS/-C" "$WS/-s" "$WS/a b" "$WS/x:ro" \
	    "$WS/nl
x" "$WS/tab	x"
	# names that look like options are workspaces, taken as -w's value
	accepted -rf "$ws/-rf"
	accepted -- "$ws/--"
	accepted -C "$ws/-C"
	accepted -s "$ws/-s"
	accepted "a b" "$ws/a b"
	accepted . "$ws"
	accepted "$WS//./-rf/" "$ws/-rf"
	ln -s "$WS/-rf" "$BATS_TEST_TMPDIR/dashlink"
	accepted "$BATS_TEST_TMPDIR/dashlink" "$ws/-rf"
	cd "$WS/-rf"
	run -0 sbx-run -C
	[ "$output" = "$ws/-rf" ]
	cd "$WS"
	# what sbx would misread, a file, nothing: the programs' words
	for w in "$WS/x:ro" "$WS/nl
x" "$WS/tab	x"; do
		run -1 --separate-stderr sbx-run -C -w "$w"
		[ -z "$output" ] && [ "$stderr" = "sbx-run: workspace path holds ':' or a control character; refusing it" ] ||
		    fail "$w: $output: $stderr"
	done
	: >"$WS/file"
	run -1 --separate-stderr sbx-run -C -w "$WS/file"
	[ "$stderr" = "sbx-run: workspace $ws/file: not a directory" ]
	run -1 --separate-stderr sbx-run -C -w "$WS/none"
	[ "$stderr" = "sbx-run: workspace $WS/none: No such file or directory" ]
	ln -s "$WS/none" "$WS/dangling"
	run -1 --separate-stderr sbx-run -C -w "$WS/dangling"
	[ "$stderr" = "sbx-run: workspace $WS/dangling: No such file or directory" ]
	# /, the home, an ancestor of the state directory, links to them
	ln -s / "$BATS_TEST_TMPDIR/rootlink"
	ln -s "$HOME" "$BATS_TEST_TMPDIR/homelink"
	ln -s "$(dirname "$SBX_STATE_DIR")" "$BATS_TEST_TMPDIR/statelink"
	for w in / "$HOME" "$HOME/.." "$(dirname "$SBX_STATE_DIR")" "$SBX_STATE_DIR" \
	    "$BATS_TEST_TMPDIR/rootlink" "$BATS_TEST_TMPDIR/homelink" \
	    "$BATS_TEST_TMPDIR/statelink"; do
		refused "$w"
	done
}

@test "check mode (-C): it takes -w alone and no operand; a bad state directory is the programs' word" {
	for a in "-s $N" -i -n -P -x "-t 5" "-J 1"; do
		# shellcheck disable=SC2086 # the words of an option and its value
		run -64 --separate-stderr sbx-run -C $a
		[ "$stderr" = "usage: sbx-run [-CeFhijLnPx] [-J count] [-O fd] [-s name] [-t seconds] [-w workspace] [argument ...]" ] ||
		    fail "-C $a: $stderr"
	done
	run -64 sbx-run -C -- -rf
	run -64 sbx-run -C ps
	run -64 --separate-stderr env SBX_STATE_DIR=relative/state sbx-run -C
	[ "$stderr" = "sbx-run: SBX_STATE_DIR: not an absolute path" ]
	run -1 --separate-stderr env -u SBX_STATE_DIR -u HOME sbx-run -C
	[[ "$stderr" == "sbx-run: state directory (set SBX_STATE_DIR or HOME): "* ]]
	[ -z "$output" ]
	[ "$(stub_count)" -eq 0 ]
}

# Read-only mode with NAME.prime already there; $1: expected status.
ro_run() {
	DOCKER_SANDBOX_WORKSPACE_RO=1 run "-$1" --separate-stderr \
	    sbx-run -s "$N" ps
}

# The create call used a real, empty, 0700 directory of ours as primary.
fresh_prime() {
	local p="$SBX_STATE_DIR/$N.prime"
	[ "$(stub_argv 2 | tr '\n' ' ')" = "create --quiet --name $N --cpus 2 --memory 2g shell $p $WS:ro " ] ||
	    fail "create: $(stub_argv 2 | tr '\n' ' ')"
	[ ! -L "$p" ] && [ -d "$p" ] || fail "$p is not a real directory"
	[ "$(stat -c '%a %u' "$p")" = "700 $(id -u)" ] || fail "$(stat -c '%a %u' "$p")"
	[ -z "$(ls -A "$p")" ] || fail "$p is not empty"
}

@test "scratch primary class: a symlink to \$HOME planted as NAME.prime is removed, never followed" {
	echo keep >"$HOME/secret"
	chmod 755 "$HOME"
	ln -s "$HOME" "$SBX_STATE_DIR/$N.prime"
	ro_run 0
	fresh_prime
	[ "$(cat "$HOME/secret")" = keep ]
	[ "$(stat -c %a "$HOME")" = 755 ]
}

@test "scratch primary class: a dangling link, a file, a fifo or a link to a file are removed" {
	for kind in dangling file fifo filelink; do
		rm -rf "$SBX_STUB_DIR" "${SBX_STATE_DIR:?}"/*
		mkdir -p "$SBX_STUB_DIR"
		p="$SBX_STATE_DIR/$N.prime"
		case $kind in
		dangling) ln -s "$BATS_TEST_TMPDIR/nowhere" "$p" ;;
		file) echo planted >"$p" ;;
		fifo) mkfifo "$p" ;;
		filelink) echo x >"$HOME/f"; ln -s "$HOME/f" "$p" ;;
		esac
		ro_run 0
		fresh_prime || fail "$kind"
	done
	[ "$(cat "$HOME/f")" = x ]
}

@test "scratch primary class: a directory not ours, of another mode, or not empty is refused" {
	for kind in foreign mode755 mode0711 nonempty sublink; do
		rm -rf "$SBX_STUB_DIR" "${SBX_STATE_DIR:?}"/*
		mkdir -p "$SBX_STUB_DIR"
		p="$SBX_STATE_DIR/$N.prime"
		mkdir -m 700 "$p"
		case $kind in
		foreign) chown nobody "$p" ;;
		mode755) chmod 755 "$p" ;;
		mode0711) chmod 711 "$p" ;;
		nonempty) touch "$p/planted" ;;
		sublink) ln -s "$HOME" "$p/home" ;;
		esac
		ro_run 1
		[[ "$stderr" == *"scratch directory $p is not an empty directory of ours with mode 0700; refusing it"* ]] ||
		    fail "$kind: $stderr"
		[ "$(stub_count create)" -eq 0 ] || fail "$kind: created"
		# refused, not removed: the user decides
		[ -d "$p" ] || fail "$kind: removed"
		[ ! -e "$SBX_STATE_DIR/$N.created" ] || fail "$kind: marker"
	done
}

@test "scratch primary class: an empty 0700 directory of ours (a create cut short) is used" {
	mkdir -m 700 "$SBX_STATE_DIR/$N.prime"
	ro_run 0
	fresh_prime
}
