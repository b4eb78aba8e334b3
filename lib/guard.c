/*
 * guard.c: nothing a program starts outlives it, even on SIGKILL: a
 * guardian leads the group and kills it when it reads EOF on a lifeline
 * whose only write end the program holds.
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
 * Fork a child holding the lifeline's read end (the write end in *line),
 * signals blocked across the fork; child() gets the old mask.  The pid.
 */
pid_t
sbx_guard_lifeline(int *line, void (*child)(int, const sigset_t *, void *),
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
		_exit(SBX_EX_FAIL);
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
	if ((g->pid = sbx_guard_lifeline(&g->line, guardian, NULL)) == -1)
		return -1;
	/* the guardian does it too; whoever is first, the group exists */
	(void)setpgid(g->pid, g->pid);
	return 0;
}

void
sbx_guard_stop(struct sbx_guard *g)
{
	char b = 0;
	int ws;

	if (g->pid == -1)
		return;
	(void)sbx_io_writeall(g->line, &b, 1);
	close(g->line);
	while (waitpid(g->pid, &ws, 0) == -1 && errno == EINTR)
		;
	g->pid = -1;
	g->line = -1;
}
