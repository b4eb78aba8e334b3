#!/bin/sh
# npm prepack: carry the C tree into the package (c/), so that the install
# script can build the programs where npm puts the package, and bundle
# the MCP server (dist/, which plain node runs).  Run by `npm pack` and
# `npm publish` in pi/ of a checkout; both are git-ignored and
# postpack.sh removes them again.  Sources are taken by
# pattern, not by list, so a new file in lib/ or a program's directory
# travels without a change here.
set -eu
top=..
if [ ! -f "$top/Makefile" ] || [ ! -f "$top/lib/sbx.h" ]; then
	# an unpacked package packed again: it carries its tree already
	[ -f c/Makefile ] && exit 0
	echo "sbx-tools-pi: prepack: no C tree at $top (pack from pi/ of a checkout)" >&2
	exit 1
fi
rm -rf c
mkdir c c/lib c/man
cp "$top"/Makefile "$top"/config.mk "$top"/LICENSE c/
cp "$top"/lib/*.c "$top"/lib/*.h c/lib/
cp "$top"/man/*.[1-8] c/man/
for d in "$top"/sbx-*/; do
	p=$(basename "$d")
	mkdir "c/$p"
	cp "$d"*.c c/"$p"/
	for h in "$d"*.h; do
		[ -f "$h" ] && cp "$h" c/"$p"/
	done
done
if [ ! -f node_modules/esbuild/package.json ]; then
	echo "sbx-tools-pi: prepack: no bundler to build dist/ (run npm ci in pi/ first)" >&2
	exit 1
fi
rm -rf dist
node scripts/build-mcp.mjs
