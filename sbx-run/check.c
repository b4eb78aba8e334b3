/*
 * check.c: sbx-run -C, as doas -C: which workspace would this call mount,
 * by provisioning's own rule?  Nothing is run or made.
 */
#include <err.h>
#include <limits.h>
#include <stdio.h>

#include "sbx.h"
#include "sbxstate.h"
#include "sbx-run.h"

#ifndef PATH_MAX
#define PATH_MAX	4096
#endif

int
check_workspace(const struct request *r)
{
	char statedir[PATH_MAX], ws[PATH_MAX], why[PATH_MAX + 128];

	/* provisioning cannot run without one, so no workspace is used */
	if (sbx_xstatedir_path(statedir, sizeof(statedir)) == -1) {
		warn("state directory (set SBX_STATE_DIR or HOME)");
		return SBX_EX_FAIL;
	}
	if (workspace_check(r, statedir, ws, why, sizeof(why)) == -1) {
		warnx("%s", why);
		return SBX_EX_FAIL;
	}
	printf("%s\n", ws);
	if (sbx_io_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return SBX_EX_OK;
}
