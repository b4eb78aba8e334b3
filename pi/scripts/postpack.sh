#!/bin/sh
# npm postpack: drop the copy of the C tree and the bundle that
# prepack.sh made, in a checkout only (an unpacked package keeps what it
# carries).
set -eu
if [ -f ../Makefile ] && [ -f ../lib/sbx.h ]; then
	rm -rf c dist
fi
