# Shared by the suites that attack the state directory (lib/state.bats,
# lib/state-path.bats): every program that opens it, and the check that
# each of them refuses it before any sbx create.

N=pi-sbx-7-statetst

state_setup() {
	common_setup
	export PATH="$TOP/sbx-watch:$TOP/sbx-gc:$TOP/sbx-ports:$TOP/sbx-verify:$PATH"
	stub_sandbox "$N" running
	printf '[]\n' >"$SBX_STUB_DIR/out.ports"
}

# Each program, run where it must open the state directory; its status
# when the directory is refused.
programs() {
	cat <<-EOS
	1 sbx-run -s pi-sbx-7-missing ps
	1 sbx-watch -m none -p $$ $N
	1 sbx-gc
	1 sbx-ports -s $N sync
	1 sbx-ports -s $N ls
	2 sbx-verify -s $N
	EOS
}

# refused_by_all TEXT: every program refuses $SBX_STATE_DIR with a message
# ending in TEXT, and none calls sbx create.
refused_by_all() {
	local want cmd
	while read -r want cmd; do
		# shellcheck disable=SC2086
		run --separate-stderr $cmd
		[ "$status" -eq "$want" ] ||
		    fail "$SBX_STATE_DIR: $cmd: status $status: $stderr"
		[[ "$stderr" == *"${cmd%% *}: state directory $SBX_STATE_DIR: $1"* ]] ||
		    fail "$SBX_STATE_DIR: $cmd said: $stderr"
	done < <(programs)
	[ "$(stub_count create)" -eq 0 ] || fail "$SBX_STATE_DIR: sbx create was called"
}
