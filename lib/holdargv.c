/*
 * holdargv.c: the keepalive's held exec, built here so sbx-verify -S
 * checks the very exec sbx-watch holds a VM up with.
 */
#include "sbxcli.h"

#define STR(x)	#x
#define XSTR(x)	STR(x)

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
