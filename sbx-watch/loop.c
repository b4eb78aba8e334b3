/*
 * loop.c: the detached half of sbx-watch.  One poll(2) loop waits for
 * the end of the session (EOF on the lifeline, the death of the pid, or
 * SIGTERM/SIGINT to the watcher itself), runs the keepalive in a child
 * so the loop never blocks, then tears the sandbox down once.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbx-watch.h"

extern char **environ;

#define POLL_MS		50	/* kill(pid, 0) polling, when nothing better */
#define TRIES		5
#define PORTS_MS	1000	/* how often the ports marker is looked at */
#define BACKOFF_MAX_MS	600000LL	/* between starts of a failing hold */
#define RESTART_CAP	32	/* a restart's pauses: at most 32 backoffs */

/* what the watcher itself listens to, through the self-pipe */
static const int watched[] = { SIGTERM, SIGINT, SIGCHLD };
#define NWATCHED	(sizeof(watched) / sizeof(watched[0]))

static pid_t kapid;		/* the child holding the VM up, or 0 */
static long long kastart;	/* when it started, ms */

static void
sleep_ms(long ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static void
ignore(int signo)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(signo, &sa, NULL);
}

/*
 * The sbx for this call, found again each time, since the workspace it
 * must not come from is known only once NAME.created names it.  0, or
 * -1 with the status and why in c.
 */
static int
sbx_path(const struct watch *w, char *buf, size_t size, struct sbx_result *c)
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
 * Run one sbx call to its end; the answer is its status, or 127.  The
 * exec is the keepalive's held one (holdargv.c), no call of sbx's own
 * words, bounded by the hour it lasts.
 */
static int
sbx(const struct watch *w, const char *verb, const char *flag,
    struct sbx_result *c)
{
	char *argv[SBX_HOLD_ARGC > 5 ? SBX_HOLD_ARGC : 5], path[PATH_MAX];
	int n = 0, r;

	memset(c, 0, sizeof(*c));
	if (sbx_path(w, path, sizeof(path), c) == -1)
		return c->status;
	if (strcmp(verb, "exec") == 0)
		r = sbx_capture(c, sbx_hold_argv(argv, path, w->name),
		    w->envp, SBX_HOLD_TIMEOUT);
	else {
		argv[n++] = path;
		argv[n++] = (char *)verb;
		if (flag != NULL)
			argv[n++] = (char *)flag;
		argv[n++] = (char *)w->name;	/* after sbx's own flags */
		argv[n] = NULL;
		r = sbx_call(c, argv, w->envp, w->timeout, w->dfd);
	}
	if (r == -1)
		c->status = sbx_exec_status(errno);
	return c->status;
}

/*
 * The keepalive: one exec held open (real sbx stops a VM 30 s after its
 * last exec disconnects, whatever runs inside), in a child, so the loop
 * keeps watching meanwhile.  Its command is a sleep that a stop or rm
 * ends; killing the local exec lets the VM idle out, which ends it too.
 */
static void
keepalive(const struct watch *w)
{
	struct sbx_result c;
	int status;

	if (kapid > 0 ||
	    !sbx_marker_present(w->dfd, w->name, SBX_M_CREATED))
		return;
	kastart = sbx_now_ms();
	if ((kapid = fork()) != 0) {
		if (kapid == -1)
			kapid = 0;
		return;
	}
	sbx_selfpipe_child();	/* the sbx call below makes its own */
	if (w->lifeline != -1)
		close(w->lifeline);
	status = sbx(w, "exec", NULL, &c);
	_exit(status);
}

/* Should the VM be held up now?  Always, never, or while ports are published. */
static int
wanted(const struct watch *w)
{
	if (w->keepalive == SBX_KEEPALIVE_ALWAYS)
		return 1;
	/* the first minutes after a prewarm too (prewarm.c) */
	return watch_prewarmed(w) || (w->keepalive == SBX_KEEPALIVE_PORTS &&
	    sbx_marker_present(w->dfd, w->name, SBX_M_PORTS));
}

/*
 * The held exec ended: the next may start a period after this one did,
 * at once if it lasted longer; one that keeps ending early (the VM is
 * stopped under it, sbx fails) waits twice as long each time.
 */
static long long
next_hold(const struct watch *w, long long now, long long *delay)
{
	long long period = (long long)w->kaperiod * 1000;

	if (now - kastart >= period)
		*delay = period;
	else if ((*delay *= 2) > BACKOFF_MAX_MS)
		*delay = BACKOFF_MAX_MS > period ? BACKOFF_MAX_MS : period;
	return kastart + *delay;
}

static void
keepalive_stop(void)
{
	int i, ws;

	if (kapid <= 0)
		return;
	(void)kill(kapid, SIGTERM);
	for (i = 0; i < 200; i++) {
		if (waitpid(kapid, &ws, WNOHANG) != 0)
			return;
		sleep_ms(10);
	}
	(void)kill(kapid, SIGKILL);
	while (waitpid(kapid, &ws, 0) == -1 && errno == EINTR)
		;
	kapid = 0;
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
 * Wait for the sandbox's provisioning lock that sbx-run holds while it
 * creates, so a removal and a creation never interleave.  The session's
 * watcher is the last guard, so it waits as long as the create may run;
 * -n (bounded) waits w->timeout seconds, 0 meaning no limit.  Returns
 * the descriptor that holds it, or -1 (errno ETIMEDOUT: still held).
 */
int
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
	watch_imgsave(w);	/* the images, before a removal (imgsave.c) */
	for (try = 1; w->mode != MODE_NONE && try <= TRIES; try++) {
		if (sbx(w, verb, flag, &c) == 0 ||
		    (gone = sbx_says_notfound(c.err.data, w->name))) {
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
			sleep_ms(delay);
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
		sleep_ms(delay);
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

/* Is the session over?  Answers from the poll results and the clock. */
static int
ended(struct watch *w, struct pollfd *p, int *waitfd)
{
	char buf[512];
	ssize_t r;

	if (w->lifeline != -1 && p->revents) {
		if (!(p->revents & POLLIN))
			return 1;	/* POLLHUP, POLLERR, POLLNVAL */
		while ((r = read(w->lifeline, buf, sizeof(buf))) == -1 &&
		    errno == EINTR)
			;
		return r == 0 || (r == -1 && errno != EAGAIN);
	}
	if (w->lifeline == -1 && *waitfd != -1 && p->revents) {
		if (p->revents & (POLLERR | POLLNVAL)) {
			close(*waitfd);		/* fall back to polling */
			*waitfd = -1;
		} else if (pw_ended(*waitfd))
			return 1;
	}
	return 0;
}

void
watch_run(struct watch *w)
{
	struct pollfd pfd[2];
	long long now, next_ka = 0, next_check = 0, next_ports = 0, t;
	long long delay = (long long)w->kaperiod * 1000;
	size_t i;
	int sig, waitfd = -1, end = 0, ws, want = 0;

	for (i = 0; i < NWATCHED; i++)
		(void)sbx_selfpipe_trap(watched[i]);
	if (w->lifeline == -1)
		waitfd = pw_arm(w->pid, w->pidfd);
	while (!end) {
		now = sbx_now_ms();
		t = -1;
		if (w->lifeline == -1) {
			/* the start time catches a reused pid */
			if (now >= next_check) {
				if (!sbx_proc_alive(w->pid, w->start))
					break;
				next_check = now + (waitfd == -1 ? POLL_MS :
				    pw_recheck_ms());
			}
			t = next_check - now;
		}
		if (w->keepalive != SBX_KEEPALIVE_NEVER) {
			if (now >= next_ports) {
				want = wanted(w);
				next_ports = now + PORTS_MS;
			}
			if (!want)
				keepalive_stop();
			else if (kapid == 0 && now >= next_ka)
				keepalive(w);
			if (w->keepalive == SBX_KEEPALIVE_PORTS &&
			    (t == -1 || next_ports - now < t))
				t = next_ports - now;
			if (want && kapid == 0 && (t == -1 || next_ka - now < t))
				t = next_ka - now < 0 ? 0 : next_ka - now;
		}
		pfd[0].fd = sbx_selfpipe();
		pfd[0].events = POLLIN;
		pfd[1].fd = w->lifeline != -1 ? w->lifeline : waitfd;
		pfd[1].events = POLLIN;
		pfd[0].revents = pfd[1].revents = 0;
		if (poll(pfd, 2, (int)t) == -1) {
			if (errno == EINTR)
				continue;
			sleep_ms(POLL_MS);	/* ENOMEM: do not spin */
			continue;
		}
		if (pfd[0].revents & POLLIN) {
			while ((sig = sbx_selfpipe_read()) > 0)
				if (sig == SIGTERM || sig == SIGINT)
					end = 1;
		}
		if (kapid > 0 && waitpid(kapid, &ws, WNOHANG) == kapid) {
			kapid = 0;
			next_ka = next_hold(w, sbx_now_ms(), &delay);
		}
		if (ended(w, &pfd[1], &waitfd))
			end = 1;
	}
	/* the held exec goes first: it never outlives us, nor meets the rm */
	keepalive_stop();
	for (i = 0; i < NWATCHED; i++)
		sbx_selfpipe_untrap(watched[i]);
	ignore(SIGTERM);
	ignore(SIGINT);
	(void)watch_teardown(w, 0);
	(void)sbx_marker_drop(w->dfd, w->name, SBX_MB_WATCH, SBX_DROP_HELD);
}
