# Shared by helper.bash and sim-helper.bash: a lock held as the tools hold it.

# hold_name_lock FILE NAME SECONDS: hold NAME's byte of the shared lock
# FILE in the state directory, as a program of the tools does (lib/lock.c's
# slot: FNV-1a, shifted right by 2), in the background (HOLDER); FILE.held
# appears once it is held.
hold_name_lock() {
	python3 - "$SBX_STATE_DIR/$1" "$2" "$3" <<-'PY' &
	import fcntl, os, sys, time
	h = 14695981039346656037
	for c in sys.argv[2].encode():
	    h = ((h ^ c) * 1099511628211) & 0xffffffffffffffff
	fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
	fcntl.lockf(fd, fcntl.LOCK_EX, 1, h >> 2)
	open(sys.argv[1] + ".held", "w").close()
	time.sleep(float(sys.argv[3]))
	PY
	HOLDER=$!
	for _ in $(seq 100); do
		[ -e "$SBX_STATE_DIR/$1.held" ] && return 0
		sleep 0.05
	done
	fail "$1 was not taken"
}
