/*
 * tripwire.c: the tripwire's part in sbx-run: a cheap comparison at a
 * call's end (a file whose stat is unchanged is not read again), and
 * -F, the findings of a workspace the user has not seen yet, or those
 * of them marked seen.
 */
#include <err.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxmarker.h"
#include "sbxstate.h"
#include "sbxtrip.h"
#include "sbx-run.h"

/* The state directory, when there is one; -1 otherwise. */
static int
statedir(void)
{
	char path[PATH_MAX];

	if (sbx_xstatedir_path(path, sizeof(path)) == -1)
		return -1;
	return open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* At a call's end: what the call changed, told once. */
void
tripwire_after(const char *name)
{
	int dfd;

	if ((dfd = statedir()) == -1)
		return;
	if (sbx_marker_present(dfd, name, SBX_M_TRIPWIRE))
		(void)sbx_tripseen_check(dfd, name, 0);
	close(dfd);
}

/*
 * -F: with no ids, compare the sandbox name's fingerprint first (NULL:
 * none named) and print the unseen findings of workspace, a JSON line
 * each; with ids, mark those seen.
 */
int
tripwire_findings(const char *name, const char *workspace, char *const *ids)
{
	char ws[PATH_MAX], dir[PATH_MAX];
	int dfd, r;

	if (realpath(workspace != NULL ? workspace : ".", ws) == NULL)
		err(SBX_EX_FAIL, "workspace %s", workspace != NULL ?
		    workspace : ".");
	if ((dfd = sbx_xstatedir_open(dir, sizeof(dir))) == -1)
		return SBX_EX_FAIL;
	if (*ids != NULL)
		r = sbx_tripseen_mark(dfd, ws, ids);
	else {
		if (name != NULL &&
		    sbx_marker_present(dfd, name, SBX_M_TRIPWIRE))
			(void)sbx_tripseen_check(dfd, name, 0);
		r = sbx_tripseen_list(dfd, ws, stdout);
	}
	if (r == -1)
		err(SBX_EX_FAIL, "%s/%s", dir, SBX_TRIPWIRE_UNSEEN);
	close(dfd);
	if (sbx_io_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return SBX_EX_OK;
}
