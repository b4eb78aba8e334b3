/*
 * check.c: sbx-run -C, the question a caller asks before it acts, in the
 * manner of doas -C: which workspace would this call mount?  The answer
 * is the one provisioning would give, from the same rule (workspace.c):
 * the real path on standard output, or the refusal in its words and
 * with its status.  Nothing is run and nothing is made: no sbx, and the
 * state directory is only looked at, never created.
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
	if (sbx_xstate_path(statedir, sizeof(statedir)) == -1) {
		warn("state directory (set SBX_STATE_DIR or HOME)");
		return SBX_EX_FAIL;
	}
	if (workspace_check(r, statedir, ws, why, sizeof(why)) == -1) {
		warnx("%s", why);
		return SBX_EX_FAIL;
	}
	printf("%s\n", ws);
	if (sbx_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return SBX_EX_OK;
}
