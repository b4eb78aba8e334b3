#!/usr/bin/env bats
# Which sbx runs, against the simulator (tier 2; issue 18 finding 1, the
# programs' half): a container of the session writes an sbx into the
# workspace, as an agent would, and puts it where a lookup might find it;
# sbx-run, sbx-watch -n and sbx-gc still run only the real one.

load ../helpers/sim-session

setup() {
	sim_setup_test "$WS"
	# the real sbx (the simulator), reached through PATH
	SIMBIN="$BATS_TEST_TMPDIR/simbin"
	mkdir -p "$SIMBIN"
	ln -s "$SIM" "$SIMBIN/sbx"
	export PATH="$PATH:/usr/sbin:/sbin"
}

@test "sim sbx from the workspace: an sbx a container planted there is never run, through PATH, a link or the setting" {
	run -0 sbx-run -s wsx-a -x true
	# the agent: from a container, an sbx in the workspace and a link to it
	run -0 sbx-run -s wsx-a run --rm -v "$WS:/w" busybox:local sh -c "
	    mkdir -p /w/bin && printf '#!/bin/sh\necho \"\$0 \$*\" >>$WS/pwned\n' >/w/bin/sbx &&
	    chmod +x /w/bin/sbx && ln -s $WS/bin /w/binlink"
	[ -x "$WS/bin/sbx" ] && [ -L "$WS/binlink" ]
	local p
	for p in "$WS/bin" "$WS/./bin" "$WS/binlink" .; do
		env -u DOCKER_SANDBOX_SBX PATH="$p:$SIMBIN:$PATH" \
		    sbx-run -s wsx-a -x true || fail "sbx-run failed with $p first"
	done
	[ ! -e "$WS/pwned" ]
	DOCKER_SANDBOX_SBX=$WS/binlink/sbx run -126 sbx-run -s wsx-a -x true
	# the watcher's teardown and the sweep know the workspace from the marker
	cd /
	env -u DOCKER_SANDBOX_SBX PATH="$WS/bin:$SIMBIN:$PATH" \
	    "$TOP/sbx-gc/sbx-gc" -H 0
	env -u DOCKER_SANDBOX_SBX PATH="$WS/binlink:$SIMBIN:$PATH" \
	    "$TOP/sbx-watch/sbx-watch" -n wsx-a
	[ ! -e "$WS/pwned" ]
	! "$SIM" ls -q | grep -qx wsx-a
}
