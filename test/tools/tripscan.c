/*
 * tripscan: drive the tripwire's scanner for the lib suite, where a
 * session cannot: races and bounds.
 *
 *	tripscan [-u] [-r | -a] workspace	print one scan, a line an entry
 *	tripscan -t name workspace		take NAME.tripwire
 *	tripscan -k name			compare, tell what is new
 *
 * -u scans as nobody (so a mode 000 file is unreadable to it); -r
 * renames NAME.new over the first file hashed that has one, while it is
 * hashed, -a appends to that file instead.  -t and -k use the state directory of sbx-tools(7).
 */
#include <sys/stat.h>

#include <err.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxstate.h"
#include "sbxtrip.h"
#include "sbx-internal.h"

static int race;	/* 'r' or 'a' */

static void
hook(int dfd, const char *name)
{
	char tmp[PATH_MAX];
	int fd;

	/* the first file hashed with a NAME.new beside it */
	(void)snprintf(tmp, sizeof(tmp), "%s.new", name);
	if (faccessat(dfd, tmp, F_OK, AT_SYMLINK_NOFOLLOW) == -1)
		return;
	if (race == 'r') {
		if (renameat(dfd, tmp, dfd, name) == -1)
			err(1, "rename %s", tmp);
	} else if (race == 'a') {
		if ((fd = openat(dfd, name, O_WRONLY | O_APPEND)) == -1 ||
		    write(fd, "x", 1) != 1)
			err(1, "append %s", name);
		close(fd);
	}
	race = 0;	/* once */
}

static int
print(int fd)
{
	struct sbx_triplist l;
	struct sbx_trip t;
	char shown[SBX_TRIP_PATH * 4];
	size_t i;

	sbx_triplist_builtin(&l);
	if (sbx_tripscan(fd, &l, NULL, &t) == -1)
		err(1, "scan");
	for (i = 0; i < t.n; i++) {
		printf("%c %s", t.e[i].type, sbx_shown(t.e[i].path, shown,
		    sizeof(shown)));
		if (t.e[i].type == 'l')
			printf(" -> %s", sbx_shown(t.e[i].target, shown,
			    sizeof(shown)));
		if (t.e[i].why != SBX_TRIP_OK)
			printf(": %s", sbx_tripcmp_why(t.e[i].why));
		printf("\n");
	}
	printf("entries %zu bytes %llu\n", t.n, t.bytes);
	sbx_tripscan_free(&t);
	return sbx_io_fshut() == 0 ? 0 : 1;
}

int
main(int argc, char *argv[])
{
	char dir[PATH_MAX];
	int ch, dfd, fd = -1, user = 0, mode = 0;

	while ((ch = getopt(argc, argv, "akrtu")) != -1) {
		switch (ch) {
		case 'a':
		case 'r':
			race = ch;
			break;
		case 'k':
		case 't':
			mode = ch;
			break;
		case 'u':
			user = 1;
			break;
		default:
			return 64;
		}
	}
	argc -= optind;
	argv += optind;
	/* the workspace is reached before nobody takes over */
	if (mode == 0 && argc == 1 &&
	    (fd = open(argv[0], O_RDONLY | O_DIRECTORY)) == -1)
		err(1, "%s", argv[0]);
	if (user && geteuid() == 0 && (setgid(65534) == -1 ||
	    setuid(65534) == -1))
		err(1, "setuid");
	sbx_tripscan_hook = hook;
	if (fd != -1)
		return print(fd);
	if ((mode == 't' && argc != 2) || (mode == 'k' && argc != 1) ||
	    mode == 0)
		return 64;
	if ((dfd = sbx_xstatedir_open(dir, sizeof(dir))) == -1)
		return 1;
	if (mode == 't')
		return sbx_tripfile_take(dfd, argv[0], argv[1]) == 0 ? 0 : 1;
	return sbx_tripseen_check(dfd, argv[0], SBX_TRIP_FULL) == 0 ? 0 : 1;
}
