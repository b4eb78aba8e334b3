/*
 * orphan.c: a sandbox whose session ended while sbx create made it.  A
 * watcher can be SIGKILLed, so the creator itself removes it.
 */
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxmarker.h"
#include "sbxrecord.h"
#include "sbxname.h"
#include "sbx-run.h"

/* Has the session our generated name belongs to ended?  Then make nothing. */
int
orphan_session_ended(const struct request *r)
{
	pid_t pid;

	if (!sbx_name_pid(r->name, SBX_NAME_PREFIX, &pid) || pid != r->session)
		return 0;
	return kill(pid, 0) == -1 && errno == ESRCH;
}

static int
owner_of(const struct request *r, int dfd, pid_t *pid,
    unsigned long long *start)
{
	const char *pinned = sbx_xconf_str(SBX_CONF_PINNED);

	/* a pinned sandbox is the user's: kept whatever becomes of a session */
	if (pinned != NULL && strcmp(pinned, r->name) == 0)
		return 0;
	return sbx_markerio_owner_read(dfd, r->name, pid, start) == 0;
}

void
orphan_stale_read(const struct request *r, int dfd, struct stale *st)
{
	memset(st, 0, sizeof(*st));
	st->dead = owner_of(r, dfd, &st->pid, &st->start) &&
	    !sbx_proc_alive(st->pid, st->start);
}

/*
 * Did this sandbox's session end while sbx create ran?  NAME.owner says
 * which session, unless it is the stale one read before; else the name.
 */
int
orphaned(const struct request *r, int dfd, const struct stale *st)
{
	unsigned long long start;
	pid_t pid;

	if (owner_of(r, dfd, &pid, &start) && !sbx_proc_alive(pid, start) &&
	    !(st->dead && pid == st->pid && start == st->start))
		return 1;
	return orphan_session_ended(r);
}

/*
 * Remove a sandbox just made that must not serve (why says why), and
 * fail; NAME.created stays if the removal failed, NAME.egress always, so
 * a sweep still finds what sbx may keep of the session's rules.
 */
void SBX_DEAD
orphan_withdraw(const struct request *r, int dfd, int timeout, const char *why)
{
	char *av[] = { (char *)r->sbx, "rm", "--force", (char *)r->name, NULL };
	struct sbx_result c;
	int status;

	if (sbx_capture(&c, av, r->env, timeout) == -1)
		status = sbx_spawn_exec_status(errno);
	else
		status = c.timedout ? SBX_EX_TIMEOUT : c.status;
	if (status != 0 &&
	    !sbx_gone(&c, r->sbx, r->env, r->name, timeout, dfd))
		errx(status == SBX_EX_TIMEOUT ? SBX_EX_TIMEOUT : SBX_EX_FAIL,
		    "sandbox %s: %s, and sbx rm --force failed (exit %d)",
		    r->name, why, status);
	sbx_supervise_result_free(&c);
	(void)sbx_record_begin(dfd, r->name, "\"by\":\"sbx-run\"");
	(void)sbx_record_keep(dfd, r->name, "\"by\":\"sbx-run\"");
	(void)sbx_marker_drop(dfd, r->name, SBX_MB_ALL & ~SBX_MB_WATCH &
	    ~SBX_MB(SBX_M_EGRESS), 0);
	errx(SBX_EX_FAIL, "sandbox %s: %s; removed it", r->name, why);
}
