/*
 * notfound.c: does sbx's error output say that a sandbox does not exist?
 * Two wordings are known: "Error: sandbox 'NAME' not found" (rm, stop)
 * and "ERROR: no sandbox named 'NAME'" (exec).  A teardown that meets
 * either has nothing left to do.
 */
#include <stdio.h>
#include <string.h>

#include "sbx.h"

int
sbx_notfound(const char *err, const char *name)
{
	char pat[SBX_NAME_MAX + 32];

	/* a longer name is no sandbox's, and would cut the pattern short */
	if (err == NULL || name == NULL || strlen(name) > SBX_NAME_MAX)
		return 0;
	snprintf(pat, sizeof(pat), "sandbox '%s' not found", name);
	if (strstr(err, pat) != NULL)
		return 1;
	snprintf(pat, sizeof(pat), "no sandbox named '%s'", name);
	return strstr(err, pat) != NULL;
}
