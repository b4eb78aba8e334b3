# The head of a tier-2 suite whose tests share one session of the
# simulator (sim_session_file): sim-helper, and the hooks that start that
# session for the file, end it, and give each test a fresh start in its
# workspace.  A suite that needs more redefines a hook after the load.

. "${BASH_SOURCE[0]%/*}/sim-helper.bash"

setup_file() {
	sim_setup_file
	sim_session_file
}

teardown_file() {
	sim_teardown_file
}

setup() {
	sim_setup_test "$WS"
}
