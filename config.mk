# sbx-tools build settings; every one can be overridden on the make line.
VERSION = 0.1

PREFIX = /usr/local
MANPREFIX = $(PREFIX)/share/man

CC = cc
AR = ar
# The feature-test macros, chosen here once for every platform and every
# file.  POSIX.1-2008 with XSI is the interface the code is written to.
# macOS's headers only know POSIX up to 2001: under a strict
# _POSIX_C_SOURCE they hide 2008 interfaces (O_NOFOLLOW, O_DIRECTORY,
# mkdtemp) and long-standing ones (INADDR_LOOPBACK, u_int), so
# _DARWIN_C_SOURCE asks for them back.  No other libc reads that name, so
# it costs nothing on Linux (glibc, musl) and the BSDs, and one line serves
# them all instead of a guarded #define in each file.  What stays per file
# is a platform's own system call (syscall(2) for pidfd on Linux; kinfo_proc
# on FreeBSD), beside the code that needs it.
# SBX_PORTABLE_ONLY (add -DSBX_PORTABLE_ONLY) makes a Linux build take the
# fallbacks of platforms it cannot run: no /proc start times, no pidfd.
# The suites build it so that those paths run here too.
CPPFLAGS = -D_POSIX_C_SOURCE=200809L -D_XOPEN_SOURCE=700 -D_DARWIN_C_SOURCE \
	-DSBX_VERSION=\"$(VERSION)\"
CFLAGS = -std=c99 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wformat=2
LDFLAGS =
