/*
 * record: record.c's writers on a session's record in the state
 * directory, for the suites.  "record event NAME KIND [MEMBERS]" adds an
 * event line; "record keep NAME [MEMBERS]" closes and keeps the record.
 * Exits 0, or 1 when the call returned -1 (after its warning).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxrecord.h"
#include "sbxstate.h"

int
main(int argc, char *argv[])
{
	char dir[4096];
	int dfd, r;

	if (argc < 3 || (strcmp(argv[1], "event") == 0 && argc < 4)) {
		fprintf(stderr, "usage: record event name kind [members]\n"
		    "       record keep name [members]\n");
		return SBX_EX_USAGE;
	}
	if ((dfd = sbx_xstatedir_open(dir, sizeof(dir))) == -1)
		return SBX_EX_FAIL;
	if (strcmp(argv[1], "event") == 0)
		r = sbx_record_event(dfd, argv[2], argv[3], argv[4]);
	else if (strcmp(argv[1], "keep") == 0)
		r = sbx_record_keep(dfd, argv[2], argc > 3 ? argv[3] : "");
	else
		return SBX_EX_USAGE;
	close(dfd);
	return r == 0 ? SBX_EX_OK : SBX_EX_FAIL;
}
