/*
 * holdargv.c: the argv of the keepalive's held exec.  Real sbx stops a
 * VM 30 s after its last exec disconnects, so sbx-watch keeps one exec
 * open; sbx-verify -S checks that this very exec holds a VM up, so both
 * build it here.  The command is a sleep, which a stop or rm ends.
 */
#include "sbxcli.h"

#define STR(x)	#x
#define XSTR(x)	STR(x)

/* Fill av (SBX_HOLD_ARGC slots) with the held exec of name; returns av. */
char **
sbx_hold_argv(char **av, const char *sbx, const char *name)
{
	av[0] = (char *)sbx;
	av[1] = "exec";
	av[2] = (char *)name;	/* always after sbx's own flags */
	av[3] = "--";
	av[4] = "sleep";
	av[5] = XSTR(SBX_HOLD_SECONDS);
	av[6] = NULL;
	return av;
}
