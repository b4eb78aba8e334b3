/*
 * teardown.c: the one teardown of a sandbox, which the detached watcher
 * runs when the session ends and -n runs at once (pi's docker_sandbox_rm
 * among its callers): sbx stop or rm under the provisioning lock, a few
 * tries with a growing pause, then the markers.  Also the sbx every call
 * of the watcher's uses, the keepalive's too.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxstate.h"
#include "sbxtime.h"
#include "sbx-watch.h"

extern char **environ;

#define TRIES		5
#define RESTART_CAP	32	/* a restart's pauses: at most 32 backoffs */
#define CALL_MAX	60	/* seconds: a teardown call, whatever the timeout */
#define SAVE_MAX	30	/* seconds: the save before a removal */
#define FRESH		10	/* seconds since the last call: the VM is up */

/*
 * The sbx for this call, found again each time, since the workspace it
 * must not come from is known only once NAME.created names it.  0, or
 * -1 with the status and why in c.
 */
int
watch_sbxpath(const struct watch *w, char *buf, size_t size,
    struct sbx_result *c)
{
	char ws[PATH_MAX], *wsl[2] = { NULL, NULL };
	const char *why;

	if (sbx_created_workspace(w->dfd, w->name, ws, sizeof(ws)) == 0)
		wsl[0] = ws;
	if (sbx_cli_find(environ, wsl, buf, size) == 0)
		return 0;
	c->status = errno == EPERM ? SBX_EX_NOEXEC : SBX_EX_NOTFOUND;
	why = errno == EPERM ? "sbx: DOCKER_SANDBOX_SBX lies in the session "
	    "workspace\n" : "sbx: none found outside the session workspace\n";
	(void)sbx_buf_add(&c->err, why, strlen(why));
	return -1;
}

/*
 * Run sbx VERB [FLAG] NAME to its end, bounded by the timeout of a call;
 * the answer is its status, or 127.
 */
static int
sbx(const struct watch *w, const char *verb, const char *flag,
    struct sbx_result *c)
{
	char *argv[5], path[PATH_MAX];
	int n = 0;

	memset(c, 0, sizeof(*c));
	if (watch_sbxpath(w, path, sizeof(path), c) == -1)
		return c->status;
	argv[n++] = path;
	argv[n++] = (char *)verb;
	if (flag != NULL)
		argv[n++] = (char *)flag;
	argv[n++] = (char *)w->name;	/* after sbx's own flags */
	argv[n] = NULL;
	/* the removal's bound is the tools': no setting extends it */
	if (sbx_call(c, argv, w->envp, w->timeout > 0 && w->timeout < CALL_MAX ?
	    w->timeout : CALL_MAX, w->dfd) == -1)
		c->status = sbx_exec_status(errno);
	return c->status;
}

/* sbx said the sandbox is not there: is it unlisted too (sbxgone.c)? */
static int
gone_indeed(const struct watch *w, const struct sbx_result *c)
{
	char path[PATH_MAX];
	struct sbx_result p;

	memset(&p, 0, sizeof(p));
	if (watch_sbxpath(w, path, sizeof(path), &p) == -1) {
		sbx_result_free(&p);
		return 0;
	}
	return sbx_gone(c, path, w->envp, w->name, w->timeout, w->dfd);
}

static void
record_failure(const struct watch *w, const char *verb, int tries,
    const struct sbx_result *c)
{
	char why[200];
	const char *e = c->err.data != NULL ? c->err.data : "";

	/* the first line sbx said */
	sbx_shown(e, why, strcspn(e, "\n") + 1 < sizeof(why) ?
	    strcspn(e, "\n") + 1 : sizeof(why));
	(void)sbx_failed_write(w->dfd, w->name, verb, tries, c->status, why);
}

/*
 * Is the VM surely up?  sbx stops it 30 s after its last exec ends: the
 * last call ended less than FRESH seconds ago (the journal's time), or
 * the keepalive held it to the end.  Anything else may stop meanwhile,
 * and an exec would start it again after the session ended.
 */
static int
fresh(const struct watch *w)
{
	char j[SBX_MARKER_MAX];
	struct stat st;

	if (w->held)
		return 1;
	if (sbx_marker_path(j, sizeof(j), w->name, SBX_M_JOURNAL) == -1 ||
	    fstatat(w->dfd, j, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return 0;
	return (long long)time(NULL) - (long long)st.st_mtime < FRESH;
}

/*
 * Wait for the sandbox's provisioning lock that sbx-run holds while it
 * creates, so a removal and a creation never interleave.  The session's
 * watcher is the last guard, so it waits as long as the create may run;
 * -n (bounded) waits w->timeout seconds, 0 meaning no limit.  Returns
 * the descriptor that holds it, or -1 (errno ETIMEDOUT: still held).
 */
static int
watch_provlock(const struct watch *w, int bounded)
{
	return sbx_lock_name(w->dfd, SBX_PROVISION_LOCK, w->name,
	    bounded && w->timeout > 0 ? (long long)w->timeout * 1000 : -1);
}

/*
 * The one teardown of NAME: the sandbox, its markers and scratch dir, all
 * under the provisioning lock.  The lock and owner marker stay: they are
 * the watcher's.  Returns 0 when done, SBX_EX_NOSANDBOX when there was no
 * sandbox to tear down, SBX_EX_FAIL when it failed (NAME.failed says why),
 * SBX_EX_BUSY when a provisioning held the lock too long.  fg (-n): the
 * lock must be had, and sbx waiting for its daemon restart ends it at once
 * (SBX_EX_RESTART); the detached watcher instead keeps trying, pausing
 * longer each time up to a cap, for as long as it takes: no try counts
 * against the five until sbx can run again, and if the watcher is killed
 * meanwhile NAME.created stays for sbx-gc.
 */
int
watch_teardown(const struct watch *w, int fg)
{
	const char *verb = w->mode == MODE_STOP ? "stop" : "rm";
	const char *flag = w->mode == MODE_STOP ? NULL : "--force";
	struct sbx_result c;
	long delay = w->backoff, cap;
	int try, ok = 0, removed = 0, gone = 0, lfd;

	/* a lock not ours, or held past the bound: torn down all the same */
	if ((lfd = watch_provlock(w, fg)) == -1 && fg)
		return SBX_EX_BUSY;
	if (!sbx_marker_present(w->dfd, w->name, SBX_M_CREATED)) {
		/* never provisioned by us: no sbx call at all */
		(void)sbx_marker_drop(w->dfd, w->name, SBX_MB(SBX_M_PRIME) |
		    SBX_MB(SBX_M_JOURNAL) | SBX_MB(SBX_M_PREWARM), 0);
		if (lfd != -1)
			close(lfd);
		return SBX_EX_NOSANDBOX;
	}
	/* the images, before a removal, of a VM surely up (imgsave.c) */
	if (fresh(w))
		(void)imgsave(w, SAVE_MAX, NULL);
	for (try = 1; w->mode != MODE_NONE && try <= TRIES; try++) {
		if (sbx(w, verb, flag, &c) == 0 ||
		    (gone = gone_indeed(w, &c))) {
			/* a sandbox sbx does not know is gone all the same */
			ok = 1;
			removed = w->mode == MODE_REMOVE || gone;
			sbx_result_free(&c);
			break;
		}
		if (sbx_says_restart(c.err.data)) {
			sbx_result_free(&c);
			if (fg) {
				if (lfd != -1)
					close(lfd);
				return SBX_EX_RESTART;
			}
			/* never a spin, whatever the backoff */
			cap = (w->backoff > 10 ? w->backoff : 10) * RESTART_CAP;
			if (delay < 10)
				delay = 10;
			sbx_pause_ms(delay);
			delay = delay * 2 > cap ? cap : delay * 2;
			try--;	/* sbx did nothing: no try spent */
			continue;
		}
		if (try == TRIES) {
			record_failure(w, verb, try, &c);
			sbx_result_free(&c);
			break;
		}
		sbx_result_free(&c);
		sbx_pause_ms(delay);
		delay *= 2;
	}
	/* a stopped or failed sandbox keeps its marker and scratch dir */
	/* (a prewarm's record was the session's: it goes) */
	/* the lock and owner marker are the watcher's, dropped as it exits */
	(void)sbx_marker_drop(w->dfd, w->name, removed ?
	    SBX_MB_ALL & ~SBX_MB_WATCH : SBX_MB(SBX_M_PREWARM) |
	    (ok ? SBX_MB(SBX_M_FAILED) : 0), 0);
	if (lfd != -1)
		close(lfd);
	if (w->mode == MODE_NONE)
		return SBX_EX_OK;
	return gone ? SBX_EX_NOSANDBOX : ok ? SBX_EX_OK : SBX_EX_FAIL;
}
