# A docker for the stand-in sbx's execs (SBX_STUB_EXEC_RUN=1), first on
# PATH, for the image cache's fill: info prints $F/store, image ls
# $F/images, save $F/archive after running $F/save.sh when there.  F is
# a directory of the test; the defaults: overlay2, one pulled image,
# "NEW ARCHIVE".

fake_docker_setup() {
	F="$BATS_TEST_TMPDIR/fake"
	mkdir -p "$F/bin"
	cat >"$F/bin/docker" <<-EOF
	#!/bin/sh
	case " \$* " in
	*" info "*) cat "$F/store" ;;
	*" image ls "*) cat "$F/images" ;;
	*" save "*) [ -f "$F/save.sh" ] && . "$F/save.sh"; cat "$F/archive" ;;
	*) exit 1 ;;
	esac
	EOF
	chmod +x "$F/bin/docker"
	export PATH="$F/bin:$TOP/sbx-watch:$PATH" SBX_STUB_EXEC_RUN=1
	echo overlay2 >"$F/store"
	printf '127.0.0.1:5000/t/b:1 sha256:%064d sha256:%064d\n' 1 2 >"$F/images"
	printf 'NEW ARCHIVE\n' >"$F/archive"
}
