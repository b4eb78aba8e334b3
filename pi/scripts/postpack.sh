#!/bin/sh
# npm postpack: drop the copy of the C tree that prepack.sh made, in a
# checkout only (an unpacked package keeps the tree it carries).
set -eu
if [ -f ../Makefile ] && [ -f ../lib/sbx.h ]; then
	rm -rf c
fi
