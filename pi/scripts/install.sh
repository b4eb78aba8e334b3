#!/bin/sh
# npm install: build the six sbx-tools programs into bin/ of this package
# from the C tree it carries (c/, put there by prepack.sh), so that
# `pi install npm:sbx-tools-pi` alone gives working tools.  Needs a C
# compiler (CC, default cc) and make.  The build runs in a scratch
# directory inside the package and bin/ appears only complete, by one
# rename at the end: a failed install leaves no bin/ behind.
#
# In a checkout (pi/ without c/, e.g. `npm ci` for the tests) there is
# nothing to build here: the programs come from `make` at the top, and
# the extension finds them through DOCKER_SANDBOX_BIN or PATH.
set -u
progs="sbx-run sbx-env sbx-watch sbx-gc sbx-ports sbx-verify"
me=sbx-tools-pi

if [ ! -f c/Makefile ]; then
	echo "$me: no carried C tree (a checkout): build the programs with make at the top"
	exit 0
fi

cc=${CC:-cc}
tmp=$(mktemp -d "$PWD/.build.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# Probe by use, not by name: macOS has a /usr/bin/cc and /usr/bin/make
# that only ask for the command-line tools when they are missing.
printf 'int main(void) { return 0; }\n' >"$tmp/probe.c"
printf 'all:\n\t@:\n' >"$tmp/probe.mk"
need=
# shellcheck disable=SC2086 # CC may carry flags, as make would use it
$cc -o "$tmp/probe" "$tmp/probe.c" >"$tmp/probe.log" 2>&1 ||
    need="a working C compiler ($cc)"
make -f "$tmp/probe.mk" >>"$tmp/probe.log" 2>&1 ||
    need="${need:+$need and }make"
if [ -n "$need" ]; then
	cat >&2 <<MSG
$me: cannot build the sbx-tools programs: missing $need.
Install what is missing, then install $me again:
  macOS:          xcode-select --install
  Debian/Ubuntu:  sudo apt install gcc make
  Fedora/RHEL:    sudo dnf install gcc make
  Alpine:         sudo apk add build-base
  Arch:           sudo pacman -S gcc make
MSG
	exit 1
fi

# the project's flags without -Werror: a warning new to this compiler
# must not stop an install (CI builds with -Werror on every change)
cp -R c "$tmp/src" &&
    (cd "$tmp/src" && make CC="$cc" CFLAGS="-std=c99 -O2" all) \
    >"$tmp/build.log" 2>&1
status=$?
if [ "$status" -ne 0 ]; then
	echo "$me: building the sbx-tools programs failed; the last lines:" >&2
	tail -n 20 "$tmp/build.log" >&2
	exit 1
fi
mkdir "$tmp/bin" || exit 1
for p in $progs; do
	cp "$tmp/src/$p/$p" "$tmp/bin/$p" && chmod 755 "$tmp/bin/$p" || exit 1
done
rm -rf bin && mv "$tmp/bin" bin || exit 1
echo "$me: built $progs into $PWD/bin"
