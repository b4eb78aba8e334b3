/*
 * spawn.c: the one place that starts children: fork+execve with an
 * explicit environment and a close-on-exec errno pipe, so an exec
 * failure is known before we return.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "sbx.h"
#include "sbxchild.h"
#include "sbx-internal.h"

int
sbx_spawn_waitstatus(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return SBX_SIGSTATUS(WTERMSIG(ws));
	return SBX_EX_FAIL;
}

/* 127: no such command; 125: out of resources; 126: not executable. */
int
sbx_spawn_exec_status(int error)
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

/*
 * The child's half: async-signal-safe calls only.  Adopted (the parent is
 * not parent any more) means the parent died: no command then.
 */
void SBX_DEAD
sbx_spawn_child(const struct sbx_spawn *s, int outfd, int errout,
    pid_t parent, pid_t pgid, const sigset_t *mask, int errfd)
{
	struct sigaction sa;
	int e;

	sbx_selfpipe_child();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	/* join the guardian's group; if it is gone, so is our parent */
	if (pgid != 0 && setpgid(0, pgid) == -1)
		goto fail;
	if (pgid != 0 && s->fgtty) {
		sa.sa_handler = SIG_IGN;
		sigaction(SIGTTOU, &sa, NULL);
		tcsetpgrp(STDIN_FILENO, pgid);
		sa.sa_handler = SIG_DFL;
		sigaction(SIGTTOU, &sa, NULL);
	}
#if defined(__linux__) && !defined(SBX_PORTABLE_ONLY)
	/* belt and braces on Linux: the command dies with its parent */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
	if (getppid() != parent) {
		errno = ESRCH;
		goto fail;
	}
	if ((s->in != -1 && dup2(s->in, STDIN_FILENO) == -1) ||
	    (outfd != -1 && dup2(outfd, STDOUT_FILENO) == -1) ||
	    (errout != -1 && dup2(errout, STDERR_FILENO) == -1))
		goto fail;
	sigprocmask(SIG_SETMASK, mask, NULL);
	execve(s->argv[0], s->argv, s->envp);
fail:
	e = errno;
	(void)write(errfd, &e, sizeof(e));
	_exit(SBX_EX_NOTFOUND);
}

/* Start s->argv in group pgid (0: ours); the pid, or -1 with errno. */
pid_t
sbx_spawn(const struct sbx_spawn *s, int outfd, int errfd, pid_t pgid)
{
	sigset_t all, old;
	pid_t pid, self = getpid();
	int ep[2], e, ws;
	ssize_t r;

	if (sbx_io_pipe(ep) == -1)
		return -1;
	/* no handler of ours runs in the child before it drops them */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if ((pid = fork()) == 0)
		sbx_spawn_child(s, outfd, errfd, self, pgid, &old, ep[1]);
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(ep[1]);
	if (pid == -1) {
		close(ep[0]);
		errno = e;
		return -1;
	}
	if (pgid != 0)
		(void)setpgid(pid, pgid);
	while ((r = read(ep[0], &e, sizeof(e))) == -1 && errno == EINTR)
		;
	close(ep[0]);
	if (r != sizeof(e))
		return pid;
	while (waitpid(pid, &ws, 0) == -1 && errno == EINTR)
		;
	errno = e;
	return -1;
}
