/*
 * spawn.c: the one place that starts children.  fork+execve with an
 * explicit environment and a close-on-exec errno pipe, so exec failure is
 * known before we return; then a single poll(2) loop that watches a
 * self-pipe for signals, the child's output and a deadline.  A timed-out
 * child is killed with its whole process group: TERM, then KILL.
 * Signals that would end us are passed on to the group first; a stop and
 * a continue are passed on too, so the group keeps our state.  The group
 * is led by a guardian (guard.c), so it dies with us even on SIGKILL.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "sbx.h"

#define GRACE_MS	2000		/* between TERM and KILL */
#define HOLD_MAX	(64 * 1024)	/* stderr held back at most */
#define CAPTURE_MAX	(64 * 1024 * 1024)

/* what timeout(1) passes on, and the job-control pair */
static const int trapped[] = {
	SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGALRM, SIGUSR1, SIGUSR2,
	SIGTSTP, SIGCONT
};
#define NTRAPPED	(sizeof(trapped) / sizeof(trapped[0]))

static volatile sig_atomic_t selfpipe_w = -1;

static void
onsignal(int signo)
{
	unsigned char c = (unsigned char)signo;
	int saved = errno;

	(void)write(selfpipe_w, &c, 1);
	errno = saved;
}

int
sbx_waitstatus(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return SBX_SIGSTATUS(WTERMSIG(ws));
	return SBX_EX_FAIL;
}

/*
 * 127: no such command; 125: we ran out of something (an argv and
 * environment too large for exec among them), so the command never had
 * its chance; 126: it is there but cannot be executed.
 */
int
sbx_exec_status(int error)
{
	switch (error) {
	case ENOENT:
	case ENOTDIR:
		return SBX_EX_NOTFOUND;
	case E2BIG:
	case ENOMEM:
	case EAGAIN:
	case EMFILE:
	case ENFILE:
		return SBX_EX_CANTRUN;
	default:
		return SBX_EX_NOEXEC;
	}
}

static int
cloexec_pipe(int fd[2])
{
	if (pipe(fd) == -1)
		return -1;
	if (fcntl(fd[0], F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(fd[1], F_SETFD, FD_CLOEXEC) == -1) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	return 0;
}

static void
closep(int *fd)
{
	if (*fd != -1) {
		close(*fd);
		*fd = -1;
	}
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* After fork: only async-signal-safe calls, and _exit. */
static void SBX_DEAD
child(const struct sbx_cmd *c, int errfd, int outfd, int errout,
    const sigset_t *oldmask, pid_t parent, pid_t pgid)
{
	struct sigaction sa;
	size_t i;
	int e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NTRAPPED; i++)
		sigaction(trapped[i], &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	/* join the guardian's group; if it is gone, so is our parent */
	if (pgid != 0 && setpgid(0, pgid) == -1)
		goto fail;
	if (pgid != 0 && c->fgtty) {
		sa.sa_handler = SIG_IGN;
		sigaction(SIGTTOU, &sa, NULL);
		tcsetpgrp(STDIN_FILENO, pgid);
		sa.sa_handler = SIG_DFL;
		sigaction(SIGTTOU, &sa, NULL);
	}
#if defined(__linux__) && !defined(SBX_PORTABLE_ONLY)
	/* belt and braces on Linux: the command dies with its parent */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(SBX_EX_FAIL);
#else
	(void)parent;
#endif
	if ((c->in != -1 && dup2(c->in, STDIN_FILENO) == -1) ||
	    (outfd != -1 && dup2(outfd, STDOUT_FILENO) == -1) ||
	    (errout != -1 && dup2(errout, STDERR_FILENO) == -1))
		goto fail;
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	execve(c->argv[0], c->argv, c->envp);
fail:
	e = errno;
	(void)write(errfd, &e, sizeof(e));
	_exit(SBX_EX_NOTFOUND);
}

/* Held stderr goes out once the predicate lets go of it. */
static void
hold_check(struct sbx_cmd *c)
{
	if (!c->holding || c->err.len == 0)
		return;
	/* asked at every piece, so a prompt without a newline goes out */
	if (c->err.len < HOLD_MAX &&
	    c->hold_err(c->err.data, c->err.len, c->hold_arg))
		return;
	(void)sbx_writeall(STDERR_FILENO, c->err.data, c->err.len);
	c->err.len = 0;
	c->holding = 0;
}

/* Read what is there; 0 at EOF, -1 on a real error. */
static int
drain(struct sbx_cmd *c, int fd, int isout)
{
	char chunk[8192];
	struct sbx_buf *b = isout ? &c->out : &c->err;
	ssize_t r;

	if ((r = read(fd, chunk, sizeof(chunk))) == -1)
		return errno == EINTR || errno == EAGAIN ? 1 : -1;
	if (r == 0)
		return 0;
	if (c->relay)
		c->relayed += (unsigned long long)r;
	if (isout ? c->capture_out : (c->capture_err || c->holding)) {
		if (b->len + (size_t)r > CAPTURE_MAX)
			return 1;	/* drop beyond the cap, keep reading */
		if (sbx_buf_add(b, chunk, (size_t)r) == -1)
			return -1;
		if (!isout && c->holding)
			hold_check(c);
	} else if (sbx_writeall(isout ? STDOUT_FILENO : STDERR_FILENO, chunk,
	    (size_t)r) == -1 && c->relay)
		return 0;	/* reader gone: the child meets EPIPE, as if direct */
	return 1;
}

static void
killgroup(pid_t pgid, pid_t pid, int signo)
{
	if (pgid != 0 && kill(-pgid, signo) == 0)
		return;
	(void)kill(pid, signo);
}

/* Pass sig on to the group; a signal meant to end us starts the grace. */
static void
forward(struct sbx_cmd *c, pid_t pgid, pid_t pid, int sig, long long *killat)
{
	killgroup(pgid, pid, sig);
	if (sig == SIGCONT)
		return;
	if (sig == SIGTSTP) {
		/* the group is stopped: stop with it, as the default would */
		(void)kill(getpid(), SIGSTOP);
		return;
	}
	c->signo = sig;
	/* a group that ignores it gets KILL after a grace */
	if (*killat == -1)
		*killat = now_ms() + GRACE_MS;
}

static int
run(struct sbx_cmd *c, int sp[2], const sigset_t *oldmask)
{
	struct sbx_guard g = { -1, -1 };
	struct pollfd pfd[3];
	int ep[2] = { -1, -1 }, op[2] = { -1, -1 }, rp[2] = { -1, -1 };
	int e, ws, done = 0, ret = -1;
	long long deadline = -1, killat = -1, t;
	unsigned char sig;
	pid_t pid, pgid = 0, self = getpid();
	ssize_t r;

	c->relayed = 0;
	/* first, so the guardian holds none of the pipes below */
	if (c->newpgrp) {
		if (sbx_guard_start(&g) == -1)
			goto out;
		pgid = g.pid;
	}
	if (cloexec_pipe(ep) == -1 ||
	    ((c->capture_out || c->relay) && cloexec_pipe(op) == -1) ||
	    ((c->capture_err || c->hold_err || c->relay) &&
	    cloexec_pipe(rp) == -1))
		goto out;
	c->holding = c->hold_err != NULL && !c->capture_err;
	if ((pid = fork()) == -1)
		goto out;
	if (pid == 0)
		child(c, ep[1], op[1], rp[1], oldmask, self, pgid);
	if (pgid != 0)
		(void)setpgid(pid, pgid);	/* the child does it too */
	closep(&ep[1]);
	closep(&op[1]);
	closep(&rp[1]);
	while ((r = read(ep[0], &e, sizeof(e))) == -1 && errno == EINTR)
		;
	if (r == sizeof(e)) {
		while (waitpid(pid, &ws, 0) == -1 && errno == EINTR)
			;
		errno = e;
		goto out;
	}
	if (c->timeout > 0)
		deadline = now_ms() + (long long)c->timeout * 1000;
	while (!done || op[0] != -1 || rp[0] != -1) {
		pfd[0].fd = sp[0];
		pfd[1].fd = op[0];
		pfd[2].fd = rp[0];
		pfd[0].events = pfd[1].events = pfd[2].events = POLLIN;
		t = -1;
		if (!done && killat != -1)
			t = killat - now_ms();
		else if (!done && deadline != -1)
			t = deadline - now_ms();
		if (done)
			t = 0;	/* the child is gone: take what is buffered */
		if (t < -1)
			t = 0;
		if (poll(pfd, 3, (int)(t > 60000 ? 60000 : t)) == -1) {
			if (errno == EINTR)
				continue;
			goto out;
		}
		if (done && !(pfd[1].revents | pfd[2].revents))
			break;
		if (pfd[1].revents && drain(c, op[0], 1) <= 0)
			closep(&op[0]);
		if (pfd[2].revents && drain(c, rp[0], 0) <= 0)
			closep(&rp[0]);
		if (pfd[0].revents & POLLIN) {
			while (read(sp[0], &sig, 1) == 1) {
				if (sig == SIGCHLD || done)
					continue;
				if (pgid != 0)
					forward(c, pgid, pid, sig, &killat);
				else if (sig == SIGTSTP)
					(void)kill(getpid(), SIGSTOP);
				else if (sig != SIGCONT)
					c->signo = sig;
			}
		}
		if (!done && waitpid(pid, &ws, WNOHANG) == pid) {
			done = 1;
			c->status = sbx_waitstatus(ws);
			if (c->timedout || c->signo)
				killgroup(pgid, pid, SIGKILL);
			continue;
		}
		t = now_ms();
		if (!done && killat != -1 && t >= killat) {
			killgroup(pgid, pid, SIGKILL);
			killat = -1;
			deadline = -1;
		} else if (!done && deadline != -1 && t >= deadline &&
		    !c->timedout) {
			c->timedout = 1;
			killgroup(pgid, pid, SIGTERM);
			killat = t + GRACE_MS;
		}
	}
	if (c->timedout)
		c->status = SBX_EX_TIMEOUT;
	ret = 0;
out:
	e = errno;
	sbx_guard_stop(&g);
	closep(&ep[0]);
	closep(&ep[1]);
	closep(&op[0]);
	closep(&op[1]);
	closep(&rp[0]);
	closep(&rp[1]);
	errno = e;
	return ret;
}

/*
 * Run c to completion.  Returns -1 with errno set if the child could not
 * be started or exec failed (see sbx_exec_status); otherwise 0 with
 * c->status set.  The signals in trapped[] received meanwhile are passed
 * on to the child's group.
 */
int
sbx_cmd_run(struct sbx_cmd *c)
{
	struct sigaction sa, old[NTRAPPED], oldpipe, ttou;
	sigset_t mask, oldmask;
	int sp[2], ret, e;
	size_t i;

	c->status = 0;
	c->timedout = 0;
	c->signo = 0;
	if (cloexec_pipe(sp) == -1)
		return -1;
	(void)fcntl(sp[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(sp[1], F_SETFL, O_NONBLOCK);
	selfpipe_w = sp[1];
	sigemptyset(&mask);
	for (i = 0; i < NTRAPPED; i++)
		sigaddset(&mask, trapped[i]);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = onsignal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < NTRAPPED; i++)
		sigaction(trapped[i], &sa, &old[i]);
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	sigaction(SIGPIPE, &sa, &oldpipe);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);

	ret = run(c, sp, &oldmask);
	e = errno;

	if (c->newpgrp && c->fgtty) {
		/* take the terminal back, as a shell does after a job */
		sa.sa_handler = SIG_IGN;
		sigaction(SIGTTOU, &sa, &ttou);
		(void)tcsetpgrp(STDIN_FILENO, getpgrp());
		sigaction(SIGTTOU, &ttou, NULL);
	}
	sigprocmask(SIG_BLOCK, &mask, NULL);
	for (i = 0; i < NTRAPPED; i++)
		sigaction(trapped[i], &old[i], NULL);
	sigaction(SIGPIPE, &oldpipe, NULL);
	selfpipe_w = -1;
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	close(sp[0]);
	close(sp[1]);
	errno = e;
	return ret;
}

void
sbx_cmd_free(struct sbx_cmd *c)
{
	sbx_buf_free(&c->out);
	sbx_buf_free(&c->err);
}
