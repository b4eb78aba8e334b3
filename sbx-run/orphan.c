/*
 * orphan.c: a sandbox whose session ended while sbx create made it.  The
 * watcher waits for the create as long as it may run and tears down
 * after it, but a watcher can be SIGKILLed too: so the creator itself
 * looks, once its create succeeded, whether the session it made the
 * sandbox for is still there, and removes the sandbox if not.
 */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxstate.h"
#include "sbx-run.h"

/*
 * Were we started by the session the generated name belongs to, and has
 * that session ended since?  Then its watcher has torn down, or waits on
 * our lock to do so, and an sbx-run it left behind must not make a
 * sandbox nobody would remove.
 */
int
session_ended(const struct request *r)
{
	pid_t pid;

	if (!sbx_name_pid(r->name, SBX_NAME_PREFIX, &pid) || pid != r->session)
		return 0;
	return kill(pid, 0) == -1 && errno == ESRCH;
}

/* The session a watcher was armed for, from NAME.owner: 1, or 0 if none. */
static int
owner_of(const struct request *r, int dfd, pid_t *pid,
    unsigned long long *start)
{
	const char *pinned = sbx_xconf_str(SBX_CONF_PINNED);

	/* a pinned sandbox is the user's: kept whatever becomes of a session */
	if (pinned != NULL && strcmp(pinned, r->name) == 0)
		return 0;
	return sbx_owner_read(dfd, r->name, pid, start) == 0;
}

/* NAME.owner as it is before the create, and whether its session is dead. */
void
stale_read(const struct request *r, int dfd, struct stale *st)
{
	memset(st, 0, sizeof(*st));
	st->dead = owner_of(r, dfd, &st->pid, &st->start) &&
	    !sbx_proc_alive(st->pid, st->start);
}

/*
 * Did the session this sandbox is made for end while sbx create ran?
 * Its watcher's NAME.owner says which session that is, unless it is the
 * one read before the create (stale set) that was dead already, a marker
 * of an earlier session; without one, a generated name tells.
 */
int
orphaned(const struct request *r, int dfd, const struct stale *st)
{
	unsigned long long start;
	pid_t pid;

	if (owner_of(r, dfd, &pid, &start) && !sbx_proc_alive(pid, start) &&
	    !(st->dead && pid == st->pid && start == st->start))
		return 1;
	return session_ended(r);
}

/*
 * The sandbox was made for a session that has ended: remove it, and its
 * markers but the watcher's (which a waiting watcher still holds), then
 * fail.  If the removal fails, NAME.created stays for a watcher or
 * sbx-gc to finish it.
 */
void SBX_DEAD
withdraw(const struct request *r, int dfd, int timeout)
{
	char *av[] = { (char *)r->sbx, "rm", "--force", (char *)r->name, NULL };
	struct sbx_result c;
	int status;

	if (sbx_capture(&c, av, r->env, timeout) == -1)
		status = sbx_exec_status(errno);
	else
		status = c.timedout ? SBX_EX_TIMEOUT : c.status;
	if (status != 0 &&
	    !sbx_gone(&c, r->sbx, r->env, r->name, timeout, dfd))
		errx(status == SBX_EX_TIMEOUT ? SBX_EX_TIMEOUT : SBX_EX_FAIL,
		    "sandbox %s: its session ended while it was being "
		    "created, and sbx rm --force failed (exit %d)", r->name,
		    status);
	sbx_result_free(&c);
	(void)sbx_marker_drop(dfd, r->name, SBX_MB_ALL & ~SBX_MB_WATCH, 0);
	errx(SBX_EX_FAIL, "sandbox %s: its session ended while it was being "
	    "created; removed it", r->name);
}
