/*
 * loop.c: the detached half of sbx-watch: one poll(2) loop waits for the
 * session's end, runs the keepalive and the image cache's fills in
 * children, then tears the sandbox down once (teardown.c).
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxmarker.h"
#include "sbxtime.h"
#include "sbx-watch.h"

#define POLL_MS		50	/* kill(pid, 0) polling, when nothing better */
#define PORTS_MS	1000	/* how often the ports marker is looked at */
#define BACKOFF_MAX_MS	600000LL	/* between starts of a failing hold */
#define JOURNAL_MS	1000	/* how often the journal is looked at */
#define QUIET_MS	2000	/* calls quiet that long: fill the cache */
#define FILL_MAX	600	/* seconds: a fill during the session */

static const int watched[] = { SIGTERM, SIGINT, SIGCHLD };
#define NWATCHED	(sizeof(watched) / sizeof(watched[0]))

static pid_t kapid;		/* the child holding the VM up, or 0 */
static long long kastart;	/* when it started, ms */
static pid_t fillpid;		/* the child filling the image cache, or 0 */
static int fillfd = -1;		/* its answer: the image set it saved */
static unsigned long long filled;	/* the image set last saved, or 0 */

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
 * The keepalive: one exec held open in a child, since sbx stops a VM 30 s
 * after its last exec ends.  A stop or rm ends it, as does killing it.
 */
static void
keepalive(const struct watch *w)
{
	char *argv[SBX_HOLD_ARGC], path[PATH_MAX];
	struct sbx_result c;

	if (kapid > 0 ||
	    !sbx_marker_present(w->dfd, w->name, SBX_M_CREATED))
		return;
	kastart = sbx_clock_now_ms();
	if ((kapid = fork()) != 0) {
		if (kapid == -1)
			kapid = 0;
		return;
	}
	sbx_selfpipe_child();
	if (w->lifeline != -1)
		close(w->lifeline);
	memset(&c, 0, sizeof(c));
	if (teardown_sbxpath(w, path, sizeof(path), &c) == 0 &&
	    sbx_capture(&c, sbx_hold_argv(argv, path, w->name), w->envp,
	    SBX_HOLD_TIMEOUT) == -1)
		c.status = sbx_spawn_exec_status(errno);
	_exit(c.status);
}

/* Should the VM be held up now?  A deny rule lost at a stop fails open. */
static int
wanted(const struct watch *w)
{
	if (w->keepalive == SBX_KEEPALIVE_ALWAYS || rules_deny_held(w))
		return 1;
	if (w->keepalive == SBX_KEEPALIVE_NEVER)
		return 0;
	/* the first minutes after a prewarm too (warmhold.c) */
	return warmhold(w) || (w->keepalive == SBX_KEEPALIVE_PORTS &&
	    sbx_marker_present(w->dfd, w->name, SBX_M_PORTS));
}

/* The next hold may start a period after this one did; early ends back off. */
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
		sbx_clock_pause_ms(10);
	}
	(void)kill(kapid, SIGKILL);
	while (waitpid(kapid, &ws, 0) == -1 && errno == EINTR)
		;
	kapid = 0;
}

/* Did a call of the session end since the last look (the journal changed)? */
static int
called(const struct watch *w)
{
	static struct stat seen;
	char j[SBX_MARKER_MAX];
	struct stat st;
	int changed;

	if (sbx_marker_path(j, sizeof(j), w->name, SBX_M_JOURNAL) == -1 ||
	    fstatat(w->dfd, j, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return 0;
	changed = st.st_ino != seen.st_ino || st.st_size != seen.st_size ||
	    st.st_mtime != seen.st_mtime;
	seen = st;
	return changed;
}

/* A fill of the image cache, in a child; it tells the set it saved. */
static void
fill(const struct watch *w)
{
	unsigned long long ids = filled;
	int p[2];

	if (fillpid > 0 || sbx_io_pipe(p) == -1)
		return;
	if ((fillpid = fork()) != 0) {
		close(p[1]);
		if (fillpid == -1) {
			fillpid = 0;
			close(p[0]);
		} else
			fillfd = p[0];
		return;
	}
	sbx_selfpipe_child();
	close(p[0]);
	if (w->lifeline != -1)
		close(w->lifeline);
	if (imgsave(w, FILL_MAX, &ids) == 1)
		(void)sbx_io_writeall(p[1], &ids, sizeof(ids));
	_exit(SBX_EX_OK);
}

static void
fill_reaped(void)
{
	unsigned long long ids;

	if (read(fillfd, &ids, sizeof(ids)) == (ssize_t)sizeof(ids))
		filled = ids;
	close(fillfd);
	fillfd = -1;
	fillpid = 0;
}

/* The session ended during a fill: it is ended and its new entry goes. */
static void
fill_stop(const struct watch *w)
{
	int ws;

	if (fillpid <= 0)
		return;
	(void)kill(fillpid, SIGKILL);
	while (waitpid(fillpid, &ws, 0) == -1 && errno == EINTR)
		;
	imgsave_abandon(w, (long)fillpid);
	close(fillfd);
	fillfd = -1;
	fillpid = 0;
}

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
			close(*waitfd);
			*waitfd = -1;
		} else if (pidwait_ended(*waitfd))
			return 1;
	}
	return 0;
}

void
loop_run(struct watch *w)
{
	struct pollfd pfd[2];
	long long now, next_ka = 0, next_check = 0, next_ports = 0, t;
	long long delay = (long long)w->kaperiod * 1000, next_j = 0, last = 0;
	size_t i;
	int sig, waitfd = -1, end = 0, ws, want = 0, dirty = 0;
	int saving = w->mode == MODE_REMOVE && sbx_xconf_image_cache() != 0;

	for (i = 0; i < NWATCHED; i++)
		(void)sbx_selfpipe_trap(watched[i]);
	if (w->lifeline == -1)
		waitfd = pidwait_arm(w->pid, w->pidfd);
	while (!end) {
		now = sbx_clock_now_ms();
		t = -1;
		if (w->lifeline == -1) {
			/* the start time catches a reused pid */
			if (now >= next_check) {
				if (!sbx_proc_alive(w->pid, w->start))
					break;
				next_check = now + (waitfd == -1 ? POLL_MS :
				    pidwait_recheck_ms());
			}
			t = next_check - now;
		}
		if (now >= next_ports) {
			want = wanted(w);
			next_ports = now + PORTS_MS;
		}
		if (!want)
			keepalive_stop();
		else if (kapid == 0 && now >= next_ka)
			keepalive(w);
		if (w->keepalive != SBX_KEEPALIVE_ALWAYS &&
		    (t == -1 || next_ports - now < t))
			t = next_ports - now;
		if (want && kapid == 0 && (t == -1 || next_ka - now < t))
			t = next_ka - now < 0 ? 0 : next_ka - now;
		if (saving) {
			if (now >= next_j) {
				if (called(w)) {
					dirty = 1;
					last = now;
				}
				next_j = now + JOURNAL_MS;
			}
			if (dirty && fillpid == 0 && now - last >= QUIET_MS) {
				fill(w);
				dirty = 0;
			}
			if (t == -1 || next_j - now < t)
				t = next_j - now;
		}
		pfd[0].fd = sbx_selfpipe();
		pfd[0].events = POLLIN;
		pfd[1].fd = w->lifeline != -1 ? w->lifeline : waitfd;
		pfd[1].events = POLLIN;
		pfd[0].revents = pfd[1].revents = 0;
		if (poll(pfd, 2, (int)t) == -1) {
			if (errno == EINTR)
				continue;
			sbx_clock_pause_ms(POLL_MS);
			continue;
		}
		if (pfd[0].revents & POLLIN) {
			while ((sig = sbx_selfpipe_read()) > 0)
				if (sig == SIGTERM || sig == SIGINT)
					end = 1;
		}
		if (kapid > 0 && waitpid(kapid, &ws, WNOHANG) == kapid) {
			kapid = 0;
			/* the VM may have stopped, and sbx with it dropped the
			   session's rules: back before a call can start it */
			(void)rules_reapply(w);
			next_ka = next_hold(w, sbx_clock_now_ms(), &delay);
		}
		if (fillpid > 0 && waitpid(fillpid, &ws, WNOHANG) == fillpid)
			fill_reaped();
		if (ended(w, &pfd[1], &waitfd))
			end = 1;
	}
	/* a held exec alive at the end: its VM is up for a grace more */
	w->held = kapid > 0 && waitpid(kapid, &ws, WNOHANG) == 0;
	fill_stop(w);
	/* the held exec goes first: it never outlives us, nor meets the rm */
	keepalive_stop();
	for (i = 0; i < NWATCHED; i++)
		sbx_selfpipe_untrap(watched[i]);
	ignore(SIGTERM);
	ignore(SIGINT);
	(void)teardown_run(w, 0);
	(void)sbx_marker_drop(w->dfd, w->name, SBX_MB_WATCH, SBX_DROP_HELD);
}
