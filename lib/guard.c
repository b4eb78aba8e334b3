/*
 * guard.c: nothing a program starts outlives it, even when it is killed
 * with SIGKILL, which it cannot catch.  A guardian child leads the new
 * process group and holds the read end of a lifeline pipe whose only
 * write end stays with the program.  When the program ends, however it
 * ends, the kernel closes that write end: the guardian reads EOF and
 * kills its whole group.  A program that finishes normally writes one
 * byte first, and the guardian leaves quietly.  This needs only POSIX;
 * Linux adds PR_SET_PDEATHSIG on the command itself (spawn.c).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbx-internal.h"

/*
 * Fork a child that holds the read end of a lifeline whose only write
 * end stays with the caller, in *line: when the caller ends, however it
 * ends, the child reads EOF.  Every signal is blocked across the fork, so
 * no handler of ours runs in the child; child() is given the mask from
 * before and does not return.  The pid, or -1.
 */
pid_t
sbx_lifeline(int *line, void (*child)(int, const sigset_t *, void *),
    void *arg)
{
	sigset_t all, old;
	pid_t pid;
	int fd[2], e;

	if (pipe(fd) == -1)
		return -1;
	/* the write end must not leak into what the program runs */
	if (fcntl(fd[0], F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(fd[1], F_SETFD, FD_CLOEXEC) == -1)
		goto fail;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if ((pid = fork()) == 0) {
		close(fd[1]);
		child(fd[0], &old, arg);
		_exit(SBX_EX_FAIL);	/* child() does not return */
	}
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid == -1) {
		errno = e;
		goto fail;
	}
	close(fd[0]);
	*line = fd[1];
	return pid;
fail:
	e = errno;
	close(fd[0]);
	close(fd[1]);
	errno = e;
	return -1;
}

/* After fork: only async-signal-safe calls, and _exit. */
static void SBX_DEAD
guardian(int line, const sigset_t *old, void *arg)
{
	char b;
	ssize_t r;

	(void)old;
	(void)arg;
	/* every signal stays blocked: those sent to the group are the command's */
	(void)setpgid(0, 0);
	while ((r = read(line, &b, 1)) == -1 && errno == EINTR)
		;
	if (r != 1)
		(void)kill(0, SIGKILL);	/* the program is gone: so is all it ran */
	_exit(SBX_EX_OK);
}

int
sbx_guard_start(struct sbx_guard *g)
{
	g->line = -1;
	if ((g->pid = sbx_lifeline(&g->line, guardian, NULL)) == -1)
		return -1;
	/* the guardian does it too; whoever is first, the group exists */
	(void)setpgid(g->pid, g->pid);
	return 0;
}

/*
 * A normal end: release the guardian (it may already be dead, killed
 * with its group on a timeout) and reap it.
 */
void
sbx_guard_stop(struct sbx_guard *g)
{
	char b = 0;
	int ws;

	if (g->pid == -1)
		return;
	(void)sbx_writeall(g->line, &b, 1);
	close(g->line);
	while (waitpid(g->pid, &ws, 0) == -1 && errno == EINTR)
		;
	g->pid = -1;
	g->line = -1;
}
