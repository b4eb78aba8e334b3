/*
 * supervise.c: run a spawned child to its end in one poll(2) loop.  Its
 * process group, led by a guardian so it dies with us, is killed on a
 * timeout and gets the signals that would end us, stop and continue.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxtime.h"
#include "sbx-internal.h"

#define SIZE_MS		100		/* how often a bounded out is measured */

/* what timeout(1) passes on, and the job-control pair */
static const int passed[] = {
	SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGUSR1, SIGUSR2,
	SIGTSTP, SIGCONT
};
#define NPASSED	(sizeof(passed) / sizeof(passed[0]))

struct sup {
	const struct sbx_spawn *s;
	struct sbx_result *res;
	struct sbx_stream st[2];	/* stdout, stderr */
	pid_t	 pid;
	pid_t	 pgid;			/* 0: the child is in our group */
	long long deadline, killat;	/* ms; -1: none */
	int	 done;
	int	 abandon;		/* a signal after the end: stop flushing */
	unsigned char later[16];	/* read here, for an outer user */
	size_t	 nlater;
};

static void
killgroup(const struct sup *u, int signo)
{
	if (u->pgid != 0 && kill(-u->pgid, signo) == 0)
		return;
	(void)kill(u->pid, signo);
}

static void
forward(struct sup *u, int sig)
{
	if (u->pgid != 0)
		killgroup(u, sig);
	if (sig == SIGCONT)
		return;
	if (sig == SIGTSTP) {
		/* the group is stopped: stop with it, as the default would */
		(void)kill(getpid(), SIGSTOP);
		return;
	}
	u->res->signo = sig;
	/* a group that ignores it gets KILL after a grace */
	if (u->pgid != 0 && u->killat == -1)
		u->killat = sbx_clock_now_ms() + SBX_KILL_GRACE_MS;
}

static void
hand_back(struct sup *u, int sig)
{
	size_t i;

	for (i = 0; i < u->nlater; i++)
		if (u->later[i] == sig)
			return;
	if (u->nlater < sizeof(u->later))
		u->later[u->nlater++] = (unsigned char)sig;
}

static void
signals(struct sup *u, const int *mine)
{
	size_t i;
	int sig;

	while ((sig = sbx_selfpipe_read()) > 0) {
		for (i = 0; i < NPASSED && passed[i] != sig; i++)
			;
		if (i == NPASSED || !mine[i])
			hand_back(u, sig);
		if (i == NPASSED || sig == SIGCHLD)
			continue;
		if (!u->done)
			forward(u, sig);
		else if (sig != SIGCONT && sig != SIGTSTP)
			u->abandon = 1;
	}
}

static int
wait_ms(const struct sup *u)
{
	long long t = -1;

	if (u->done) {
		/* take what is left, but wait for a reader only if it lives */
		if (u->abandon || u->res->timedout || u->res->signo ||
		    (!sbx_stream_pending(&u->st[0]) &&
		    !sbx_stream_pending(&u->st[1])))
			return 0;
		if (u->deadline == -1)
			return -1;
		t = u->deadline - sbx_clock_now_ms();
		return (int)(t < 0 ? 0 : t > 60000 ? 60000 : t);
	}
	if (u->killat != -1)
		t = u->killat - sbx_clock_now_ms();
	else if (u->deadline != -1)
		t = u->deadline - sbx_clock_now_ms();
	if (t < -1)
		t = 0;
	if (u->s->outmax > 0 && (t == -1 || t > SIZE_MS))
		t = SIZE_MS;
	return (int)(t > 60000 ? 60000 : t);
}

static void
clock_turn(struct sup *u)
{
	struct stat st;
	long long t = sbx_clock_now_ms();

	if (u->done)
		return;
	/* a file has no reader to stop a writer: its size is looked at */
	if (u->s->outmax > 0 && !u->res->toolarge && u->killat == -1 &&
	    fstat(u->s->out, &st) == 0 && st.st_size > u->s->outmax) {
		u->res->toolarge = 1;
		killgroup(u, SIGTERM);
		u->killat = t + SBX_KILL_GRACE_MS;
		return;
	}
	if (u->killat != -1 && t >= u->killat) {
		killgroup(u, SIGKILL);
		u->killat = -1;
		u->deadline = -1;
	} else if (u->deadline != -1 && t >= u->deadline &&
	    !u->res->timedout) {
		u->res->timedout = 1;
		killgroup(u, SIGTERM);
		u->killat = t + SBX_KILL_GRACE_MS;
	}
}

/* The loop; after a timeout or signal, no reader is waited for. */
static int
loop(struct sup *u, const int *mine)
{
	struct pollfd pfd[5];
	int i, n, ws, any, wrote;

	for (;;) {
		pfd[0].fd = sbx_selfpipe();
		pfd[0].events = POLLIN;
		any = 0;
		for (i = 0; i < 2; i++) {
			struct sbx_stream *st = &u->st[i];
			int pend = sbx_stream_pending(st);

			pfd[1 + i].fd = pend ? -1 : st->fd;
			pfd[1 + i].events = POLLIN;
			pfd[3 + i].fd = pend ? st->dst : -1;
			pfd[3 + i].events = POLLOUT;
			any |= st->fd != -1 || pend;
		}
		if (u->done && !any)
			return 0;
		for (i = 0; i < 5; i++)
			pfd[i].revents = 0;
		if ((n = poll(pfd, 5, wait_ms(u))) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (u->done && n == 0)
			return 0;	/* nothing more comes, or nobody takes it */
		wrote = 0;
		for (i = 0; i < 2; i++) {
			struct sbx_stream *st = &u->st[i];

			if (pfd[1 + i].revents && sbx_stream_read(st) <= 0) {
				close(st->fd);
				st->fd = -1;
			}
			/* one write a turn: both may share one pipe */
			if (pfd[3 + i].revents && !wrote) {
				sbx_stream_write(st);
				wrote = 1;
			}
		}
		if (pfd[0].revents & POLLIN)
			signals(u, mine);
		if (!u->done && waitpid(u->pid, &ws, WNOHANG) == u->pid) {
			u->done = 1;
			u->res->status = sbx_spawn_waitstatus(ws);
			if (u->res->timedout || u->res->signo)
				killgroup(u, SIGKILL);
			continue;
		}
		clock_turn(u);
	}
}

static int
start(struct sup *u, struct sbx_guard *g)
{
	const struct sbx_spawn *s = u->s;
	int op[2] = { -1, -1 }, rp[2] = { -1, -1 }, e;

	/* first, so the guardian holds none of the pipes below */
	if (s->newpgrp) {
		if (sbx_guard_start(g) == -1)
			return -1;
		u->pgid = g->pid;
	}
	if (((s->capture_out || s->relay) && sbx_io_pipe(op) == -1) ||
	    ((s->capture_err || s->hold_err || s->relay) &&
	    sbx_io_pipe(rp) == -1))
		goto fail;
	u->res->holding = s->hold_err != NULL && !s->capture_err;
	if ((u->pid = sbx_spawn(s, op[1] != -1 ? op[1] :
	    s->out > STDERR_FILENO ? s->out : -1, rp[1] != -1 ? rp[1] :
	    s->err > STDERR_FILENO ? s->err : -1, u->pgid)) == -1)
		goto fail;
	if (op[1] != -1)
		close(op[1]);
	if (rp[1] != -1)
		close(rp[1]);
	u->st[0].fd = op[0];
	u->st[1].fd = rp[0];
	return 0;
fail:
	e = errno;
	if (op[0] != -1) {
		close(op[0]);
		close(op[1]);
	}
	if (rp[0] != -1) {
		close(rp[0]);
		close(rp[1]);
	}
	errno = e;
	return -1;
}

/*
 * Run s to completion, filling in res: 0 with res->status, or -1 with
 * errno if the child did not start or exec (sbx_spawn_exec_status).
 */
int
sbx_supervise(const struct sbx_spawn *s, struct sbx_result *res)
{
	struct sbx_guard g = { -1, -1 };
	struct sigaction sa, oldpipe, ttou;
	struct sup u;
	int mine[NPASSED], ret = -1, e, i;
	size_t k;

	memset(res, 0, sizeof(*res));
	memset(&u, 0, sizeof(u));
	u.s = s;
	u.res = res;
	u.deadline = u.killat = -1;
	sbx_stream_init(&u.st[0], STDOUT_FILENO, s->capture_out, &res->out);
	sbx_stream_init(&u.st[1], STDERR_FILENO, s->capture_err, &res->err);
	u.st[1].holding = &res->holding;
	u.st[1].hold = s->hold_err;
	u.st[1].hold_arg = s->hold_arg;
	if (s->relay) {
		u.st[0].counted = u.st[1].counted = &res->relayed;
		u.st[0].tail = u.st[1].tail = res->tail;
		u.st[0].taillen = u.st[1].taillen = &res->taillen;
	}
	for (k = 0; k < NPASSED; k++)
		mine[k] = 0;
	for (k = 0; k < NPASSED; k++)
		if ((mine[k] = sbx_selfpipe_trap(passed[k])) == -1) {
			e = errno;
			goto out;
		}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, &oldpipe);

	if (start(&u, &g) == 0) {
		if (s->timeout > 0)
			u.deadline = sbx_clock_now_ms() +
			    (long long)s->timeout * 1000;
		ret = loop(&u, mine);
		if (res->timedout)
			res->status = SBX_EX_TIMEOUT;
	}
	e = errno;
	/* while EPIPE is still ours: the guardian may be gone with its group */
	sbx_guard_stop(&g);
	for (i = 0; i < 2; i++) {
		if (u.st[i].fd != -1)
			close(u.st[i].fd);
		sbx_io_buf_free(&u.st[i].pend);
	}
	sigaction(SIGPIPE, &oldpipe, NULL);
	if (s->newpgrp && s->fgtty) {
		/* take the terminal back, as a shell does after a job */
		sa.sa_handler = SIG_IGN;
		sigaction(SIGTTOU, &sa, &ttou);
		(void)tcsetpgrp(STDIN_FILENO, getpgrp());
		sigaction(SIGTTOU, &ttou, NULL);
	}
out:
	for (k = 0; k < NPASSED; k++)
		if (mine[k] == 1)
			sbx_selfpipe_untrap(passed[k]);
	/* what came since the loop: ours is over, the outer user's goes back */
	u.done = 1;
	signals(&u, mine);
	for (k = 0; k < u.nlater; k++)
		sbx_selfpipe_push(u.later[k]);
	errno = e;
	return ret;
}

void
sbx_supervise_result_free(struct sbx_result *res)
{
	sbx_io_buf_free(&res->out);
	sbx_io_buf_free(&res->err);
}
