# sbx-tools build settings; every one can be overridden on the make line.
VERSION = 0.1

PREFIX = /usr/local
MANPREFIX = $(PREFIX)/share/man

CC = cc
AR = ar
CPPFLAGS = -D_POSIX_C_SOURCE=200809L -D_XOPEN_SOURCE=700 -DSBX_VERSION=\"$(VERSION)\"
CFLAGS = -std=c99 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wformat=2
LDFLAGS =
