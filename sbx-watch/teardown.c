/*
 * teardown.c: the one teardown of a sandbox, run by the watcher at the
 * session's end and by -n at once: sbx stop or rm under the provisioning
 * lock, retried with a growing pause, then the markers.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxmarker.h"
#include "sbxrecord.h"
#include "sbxstate.h"
#include "sbxtime.h"
#include "sbxtrip.h"
#include "sbx-watch.h"

extern char **environ;

#define TRIES		5
#define RESTART_CAP	32	/* a restart's pauses: at most 32 backoffs */
#define CALL_MAX	60	/* seconds: a teardown call, whatever the timeout */
#define SAVE_MAX	30	/* seconds: the save before a removal */
#define FRESH		10	/* seconds since the last call: the VM is up */

/* The sbx for this call: its workspace is known once NAME.created names it. */
int
teardown_sbxpath(const struct watch *w, char *buf, size_t size,
    struct sbx_result *c)
{
	char ws[PATH_MAX], *wsl[2] = { NULL, NULL };
	const char *why;

	if (sbx_markerio_created_workspace(w->dfd, w->name, ws,
	    sizeof(ws)) == 0)
		wsl[0] = ws;
	if (sbx_cli_find(environ, wsl, buf, size) == 0)
		return 0;
	c->status = errno == EPERM ? SBX_EX_NOEXEC : SBX_EX_NOTFOUND;
	why = errno == EPERM ? "sbx: DOCKER_SANDBOX_SBX lies in the session "
	    "workspace\n" : "sbx: none found outside the session workspace\n";
	(void)sbx_io_buf_add(&c->err, why, strlen(why));
	return -1;
}

/* Run sbx VERB [FLAG] NAME within a call's bound; its status, or 127. */
static int
sbx(const struct watch *w, const char *verb, const char *flag,
    struct sbx_result *c)
{
	char *argv[5], path[PATH_MAX];
	int n = 0;

	memset(c, 0, sizeof(*c));
	if (teardown_sbxpath(w, path, sizeof(path), c) == -1)
		return c->status;
	argv[n++] = path;
	argv[n++] = (char *)verb;
	if (flag != NULL)
		argv[n++] = (char *)flag;
	argv[n++] = (char *)w->name;
	argv[n] = NULL;
	/* the removal's bound is the tools': no setting extends it */
	if (sbx_call(c, argv, w->envp, w->timeout > 0 && w->timeout < CALL_MAX ?
	    w->timeout : CALL_MAX, w->dfd) == -1)
		c->status = sbx_spawn_exec_status(errno);
	return c->status;
}

static int
gone_indeed(const struct watch *w, const struct sbx_result *c)
{
	char path[PATH_MAX];
	struct sbx_result p;

	memset(&p, 0, sizeof(p));
	if (teardown_sbxpath(w, path, sizeof(path), &p) == -1) {
		sbx_supervise_result_free(&p);
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

	sbx_shown(e, why, strcspn(e, "\n") + 1 < sizeof(why) ?
	    strcspn(e, "\n") + 1 : sizeof(why));
	(void)sbx_markerio_failed_write(w->dfd, w->name, verb, tries, c->status,
	    why);
}

/*
 * Is the VM surely up?  sbx stops it 30 s after its last exec, so an
 * exec now could start it again after the session ended.
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
 * The provisioning lock, so a removal and a creation never interleave:
 * the watcher waits as long as a create may run, -n w->timeout seconds.
 * The descriptor, or -1 (ETIMEDOUT).
 */
static int
watch_provlock(const struct watch *w, int bounded)
{
	return sbx_lock_name(w->dfd, SBX_PROVISION_LOCK, w->name,
	    bounded && w->timeout > 0 ? (long long)w->timeout * 1000 : -1);
}

/*
 * The one teardown of NAME and its markers, under the provisioning lock.
 * 0, SBX_EX_NOSANDBOX, SBX_EX_FAIL (NAME.failed says why) or SBX_EX_BUSY.
 * -n stops when sbx awaits its daemon restart (69, SBX_RESTART_FIX); the
 * watcher waits it out, spending no try; killed, it leaves NAME.created
 * for sbx-gc.
 */
int
teardown_run(const struct watch *w, int fg)
{
	const char *verb = w->mode == MODE_STOP ? "stop" : "rm";
	const char *flag = w->mode == MODE_STOP ? NULL : "--force";
	struct sbx_result c;
	char end[80];
	long delay = w->backoff, cap;
	int try, ok = 0, removed = 0, gone = 0, lfd;
	unsigned kept;

	/* a lock not ours, or held past the bound: torn down all the same */
	if ((lfd = watch_provlock(w, fg)) == -1 && fg)
		return SBX_EX_BUSY;
	/* what the session left in the workspace for the host to run */
	if (sbx_marker_present(w->dfd, w->name, SBX_M_TRIPWIRE))
		(void)sbx_tripseen_check(w->dfd, w->name, SBX_TRIP_FULL);
	if (!sbx_marker_present(w->dfd, w->name, SBX_M_CREATED)) {
		(void)sbx_record_keep(w->dfd, w->name,
		    "\"by\":\"sbx-watch\",\"teardown\":\"none\"");
		(void)sbx_marker_drop(w->dfd, w->name, SBX_MB(SBX_M_PRIME) |
		    SBX_MB(SBX_M_JOURNAL) | SBX_MB(SBX_M_PREWARM) |
		    SBX_MB(SBX_M_TRIPWIRE), 0);
		if (lfd != -1)
			close(lfd);
		return SBX_EX_NOSANDBOX;
	}
	/* the images of a VM surely up, before a removal (imgsave.c) */
	if (fresh(w))
		(void)imgsave(w, SAVE_MAX, NULL);
	/* the session's rules go with it, kept or not; a failure keeps
	   NAME.egress for sbx-gc */
	kept = rules_remove(w) == -1 ? SBX_MB(SBX_M_EGRESS) : 0;
	for (try = 1; w->mode != MODE_NONE && try <= TRIES; try++) {
		if (sbx(w, verb, flag, &c) == 0 ||
		    (gone = gone_indeed(w, &c))) {
			ok = 1;
			removed = w->mode == MODE_REMOVE || gone;
			sbx_supervise_result_free(&c);
			break;
		}
		if (sbx_says_restart(c.err.data)) {
			sbx_supervise_result_free(&c);
			if (fg) {
				if (lfd != -1)
					close(lfd);
				return SBX_EX_RESTART;
			}
			/* never a spin, whatever the backoff */
			cap = (w->backoff > 10 ? w->backoff : 10) * RESTART_CAP;
			if (delay < 10)
				delay = 10;
			sbx_clock_pause_ms(delay);
			delay = delay * 2 > cap ? cap : delay * 2;
			try--;	/* sbx did nothing: no try spent */
			continue;
		}
		if (try == TRIES) {
			record_failure(w, verb, try, &c);
			sbx_supervise_result_free(&c);
			break;
		}
		sbx_supervise_result_free(&c);
		sbx_clock_pause_ms(delay);
		delay *= 2;
	}
	/* the session's record is kept, whatever became of its sandbox */
	(void)sbx_record_begin(w->dfd, w->name, "\"by\":\"sbx-watch\"");
	(void)snprintf(end, sizeof(end), "\"by\":\"sbx-watch\","
	    "\"teardown\":\"%s\",\"ok\":%s", w->mode == MODE_NONE ? "none" :
	    verb, ok || w->mode == MODE_NONE ? "true" : "false");
	(void)sbx_record_keep(w->dfd, w->name, end);
	/* a stopped or failed sandbox keeps its marker and scratch dir; */
	/* a prewarm's record goes; the lock and owner are the watcher's */
	(void)sbx_marker_drop(w->dfd, w->name, removed ?
	    SBX_MB_ALL & ~SBX_MB_WATCH & ~kept : SBX_MB(SBX_M_PREWARM) |
	    (ok ? SBX_MB(SBX_M_FAILED) : 0) | (kept ? 0 : SBX_MB(SBX_M_EGRESS)),
	    0);
	if (lfd != -1)
		close(lfd);
	if (w->mode == MODE_NONE)
		return SBX_EX_OK;
	return gone ? SBX_EX_NOSANDBOX : ok ? SBX_EX_OK : SBX_EX_FAIL;
}
