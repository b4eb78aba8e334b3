/*
 * orphan: the spawn's parent-death check on its own.  A middle process
 * notes its pid, forks, and dies at once; its child waits until it has
 * been adopted, then does what sbx_spawn's child does with the pid its
 * parent had before the fork.  The command (touch FILE) must not run.
 * With "alive" the middle process waits instead, and the command runs:
 * the check's control.  Prints the child's exit status and the errno it
 * reported; test/lib/spawn.bats reads them.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "sbx.h"
#include "sbxchild.h"
#include "sbx-internal.h"

int
main(int argc, char *argv[])
{
	char *av[] = { "/usr/bin/touch", NULL, NULL };
	char *envp[] = { NULL };
	struct sbx_spawn s;
	struct timespec ms = { 0, 10000000L };
	sigset_t mask;
	pid_t mid, kid, parent;
	int ep[2], e = 0, ws, alive, i, status = -1;

	if (argc != 3)
		return 2;
	av[1] = argv[1];
	alive = strcmp(argv[2], "alive") == 0;
#ifdef PR_SET_CHILD_SUBREAPER
	/* the orphan comes to us, so its status can be read */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
	if (sbx_io_pipe(ep) == -1)
		return 2;
	memset(&s, 0, sizeof(s));
	s.argv = av;
	s.envp = envp;
	s.in = -1;
	sigprocmask(SIG_SETMASK, NULL, &mask);
	if ((mid = fork()) == 0) {
		parent = getpid();	/* before the fork, as sbx_spawn does */
		if ((kid = fork()) == 0) {
			for (i = 0; !alive && getppid() == parent && i < 500; i++)
				nanosleep(&ms, NULL);
			sbx_spawn_child(&s, -1, -1, parent, 0, &mask, ep[1]);
		}
		if (alive)
			(void)waitpid(kid, &ws, 0);
		_exit(alive && WIFEXITED(ws) ? WEXITSTATUS(ws) : 0);
	}
	close(ep[1]);
	(void)waitpid(mid, &ws, 0);
	if (alive)
		status = WEXITSTATUS(ws);
	/* the orphan, ours now as a subreaper's */
	while (!alive && waitpid(-1, &ws, 0) > 0)
		status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	if (read(ep[0], &e, sizeof(e)) != sizeof(e))
		e = 0;
	printf("status=%d errno=%s\n", status, e == 0 ? "none" : strerror(e));
	return sbx_io_fshut() == 0 ? 0 : 1;
}
