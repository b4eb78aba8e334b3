/* now.c: sbx-watch -n, the teardown now. */
#include <err.h>
#include <errno.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxmarker.h"
#include "sbxstate.h"
#include "sbx-watch.h"

/* Does `sbx ls --json` list the sandbox?  1 yes, 0 no, -1 unknown. */
static int
listed(const struct watch *w)
{
	char *av[] = { (char *)w->sbx, "ls", "--json", NULL };
	struct sbx_result c;
	const char *errstr;
	int found = -1;

	if (sbx_capture(&c, av, w->envp, w->timeout) == -1)
		return -1;
	if (c.status == 0)
		found = sbx_ls_listed(c.out.data ? c.out.data : "", c.out.len,
		    w->name, &errstr);
	sbx_supervise_result_free(&c);
	return found;
}

/*
 * -n: tear down now, in the foreground, with the watcher's own teardown.
 * An armed watcher keeps its lock and owner marker, and keeps watching.
 * A sandbox the tools did not make is never touched, but one the
 * listing shows gets its own answer: it is there, and stays.
 */
int
now_teardown(const struct watch *w, const char *statedir)
{
	char lock[SBX_MARKER_MAX], owner[SBX_MARKER_MAX], file[SBX_MARKER_MAX];
	int lfd, ours, rv;

	(void)sbx_marker_path(lock, sizeof(lock), w->name, SBX_M_LOCK);
	(void)sbx_marker_path(owner, sizeof(owner), w->name, SBX_M_OWNER);
	if ((lfd = sbx_lock(w->dfd, lock, 0)) == -1 && errno != EAGAIN)
		err(SBX_EX_FAIL, "%s/%s", statedir, lock);
	ours = sbx_marker_present(w->dfd, w->name, SBX_M_CREATED);
	rv = teardown_run(w, 1);
	if (rv == SBX_EX_NOSANDBOX && !ours && listed(w) == 1)
		rv = SBX_EX_NOTOURS;
	if (lfd != -1) {
		/* no watcher: what one left behind goes too */
		(void)sbx_state_remove(w->dfd, owner);
		(void)sbx_state_remove(w->dfd, lock);
		close(lfd);
	}
	if (rv == SBX_EX_NOSANDBOX)
		warnx("%s: no sandbox to tear down", w->name);
	else if (rv == SBX_EX_NOTOURS) {
		(void)sbx_marker_path(file, sizeof(file), w->name,
		    SBX_M_CREATED);
		warnx("%s: not made by these tools (no %s); not removed",
		    w->name, file);
	}
	else if (rv == SBX_EX_BUSY)
		warnx("%s/%s: still held after %d seconds", statedir,
		    SBX_PROVISION_LOCK, w->timeout);
	else if (rv == SBX_EX_FAIL) {
		(void)sbx_marker_path(file, sizeof(file), w->name,
		    SBX_M_FAILED);
		warnx("%s: the teardown failed; %s/%s says why", w->name,
		    statedir, file);
	}
	else if (rv == SBX_EX_RESTART)
		sbx_says_restart_exit();
	return rv;
}
