/*
 * scremove.c: the self-check's sandbox and workspace go, however
 * sbx-verify ends.  A remover in a process group of its own holds a
 * lifeline (guard.c): one byte means the driver removed the sandbox;
 * any other end, SIGKILL included, closes the pipe and the remover runs
 * `sbx rm --force NAME` up to three times, then removes the workspace.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxstate.h"
#include "result.h"
#include "selfcheck.h"

#define TRIES		3
#define RM_TIMEOUT	120	/* seconds, when DOCKER_SANDBOX_TIMEOUT is 0 */

/* A new empty directory for the sandbox's workspace, under TMPDIR. */
int
sc_remove_workspace(struct sc *sc)
{
	const char *t = getenv("TMPDIR");
	int n;

	/* a relative TMPDIR would depend on the working directory */
	if (t == NULL || *t != '/')
		t = "/tmp";
	n = snprintf(sc->ws, sizeof(sc->ws), "%s/sbx-selfcheck.XXXXXX", t);
	if (n < 0 || (size_t)n >= sizeof(sc->ws))
		return errno = ENAMETOOLONG, -1;
	return mkdtemp(sc->ws) == NULL ? -1 : 0;
}

/* The workspace and whatever sbx left in it, no link followed. */
static void
workspace_rm(struct sc *sc)
{
	char parent[PATH_MAX], *slash;
	int dfd;

	if (sc->ws[0] == '\0')
		return;
	snprintf(parent, sizeof(parent), "%s", sc->ws);
	if ((slash = strrchr(parent, '/')) == NULL)
		return;
	*slash = '\0';
	if ((dfd = open(*parent ? parent : "/", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		return;
	(void)sbx_state_rmtree(dfd, slash + 1);
	close(dfd);
}

/* One `sbx rm --force NAME`: 0 once the sandbox is gone. */
static int
rm_once(struct sc *sc)
{
	char *av[] = { NULL, "rm", "--force", sc->name, NULL };
	struct sbx_result c;
	int gone;

	av[0] = sc->sbx;
	/* as every rm of the programs' (no cache: each call asks anew) */
	if (sbx_call(&c, av, sc->env, sc->timeout > 0 ? sc->timeout :
	    RM_TIMEOUT, -1) == -1)
		return -1;
	gone = c.status == 0 || sbx_gone(&c, sc->sbx, sc->env, sc->name,
	    sc->timeout > 0 ? sc->timeout : RM_TIMEOUT, -1);
	sbx_supervise_result_free(&c);
	return gone ? 0 : -1;
}

/* The child of sbx_guard_lifeline: after fork, until the lifeline speaks. */
static void SBX_DEAD
remover(int line, const sigset_t *old, void *arg)
{
	struct sc *sc = arg;
	struct sigaction sa;
	ssize_t r;
	char b;
	int i;

	(void)setpgid(0, 0);
	sbx_selfpipe_child();	/* our traps and self-pipe are the parent's */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGHUP, &sa, NULL);
	(void)sigaction(SIGPIPE, &sa, NULL);
	sigprocmask(SIG_SETMASK, old, NULL);
	/* nobody reads us, and a reader of our parent's output must not wait */
	sbx_detach_stdio_null();
	while ((r = read(line, &b, 1)) == -1 && errno == EINTR)
		;
	if (r == 1)
		_exit(SBX_EX_OK);
	for (i = 0; i < TRIES; i++) {
		if (rm_once(sc) == 0)
			break;
		sleep(2);
	}
	workspace_rm(sc);
	_exit(i < TRIES ? SBX_EX_OK : SBX_EX_FAIL);
}

int
sc_remover_start(struct sc *sc)
{
	sc->remover = sbx_guard_lifeline(&sc->line, remover, sc);
	return sc->remover == -1 ? -1 : 0;
}

static int
reap(struct sc *sc)
{
	int ws;

	while (waitpid(sc->remover, &ws, 0) == -1)
		if (errno != EINTR)
			return -1;
	sc->remover = -1;
	return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : -1;
}

/* Not a normal end: the remover removes; 0 once the sandbox is gone. */
int
sc_remover_fire(struct sc *sc)
{
	if (sc->remover == -1)
		return 0;
	close(sc->line);
	sc->line = -1;
	return reap(sc);
}

/* The driver removed the sandbox and saw it gone: the remover leaves. */
void
sc_remover_release(struct sc *sc)
{
	char b = 0;

	if (sc->remover == -1)
		return;
	(void)sbx_io_writeall(sc->line, &b, 1);
	close(sc->line);
	sc->line = -1;
	(void)reap(sc);
	workspace_rm(sc);
}
