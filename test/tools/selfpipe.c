/*
 * selfpipe: exercise lib/selfpipe.c and its use by sbx_supervise on
 * their own.  Prints one line per check, "ok NAME" or "FAIL NAME: why",
 * and exits 1 if any failed.  test/lib/spawn.bats runs it.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbx-internal.h"

static int failed;

static void
check(int ok, const char *name, const char *why)
{
	if (ok)
		printf("ok %s\n", name);
	else {
		printf("FAIL %s: %s\n", name, why);
		failed = 1;
	}
}

static int
handler_is(int signo, void (*h)(int))
{
	struct sigaction sa;

	return sigaction(signo, NULL, &sa) == 0 && sa.sa_handler == h;
}

/* Many signals raised back to back come out all, in the order raised. */
static void
order(void)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGHUP, SIGALRM };
	int i, got, ok = 1;

	for (i = 0; i < 4; i++)
		ok &= sbx_selfpipe_trap(sigs[i]) == 1;
	check(ok, "trap", "a first trap does not say 1");
	for (i = 0; i < 1000; i++)
		(void)raise(sigs[i % 4]);	/* delivered before raise returns */
	for (i = 0; i < 1000; i++)
		if ((got = sbx_selfpipe_read()) != sigs[i % 4]) {
			ok = 0;
			break;
		}
	check(ok, "order", "a signal lost or out of order");
	check(sbx_selfpipe_read() == 0, "empty", "more came than was sent");
}

/* A trap nested in another leaves it; untrap gives back what was. */
static void
nesting(void)
{
	check(sbx_selfpipe_trap(SIGUSR1) == 0, "nested-trap",
	    "a second trap of one signal claims it");
	sbx_selfpipe_untrap(SIGALRM);
	check(handler_is(SIGALRM, SIG_DFL) && !sbx_selfpipe_trapped(SIGALRM),
	    "untrap", "SIGALRM is not back to its default");
	(void)signal(SIGQUIT, SIG_IGN);
	(void)sbx_selfpipe_trap(SIGQUIT);
	sbx_selfpipe_untrap(SIGQUIT);
	check(handler_is(SIGQUIT, SIG_IGN), "untrap-ignored",
	    "an ignored signal is not ignored again");
}

/*
 * The watcher's case: the caller traps USR1 itself, then a supervised
 * run gets USR1.  The run passes it on to the child, and the caller still
 * reads it afterwards.
 */
static void
shared(void)
{
	char *argv[] = { "/bin/sh", "-c",
	    "trap '' USR1; kill -USR1 $PPID; sleep 0.3; exit 7", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	struct sbx_result res;
	int r, got, more;

	r = sbx_capture(&res, argv, envp, 10);
	check(r == 0 && res.status == 7, "run", "the child did not run");
	check(res.signo == SIGUSR1, "passed-on", "USR1 was not passed on");
	got = sbx_selfpipe_read();
	more = sbx_selfpipe_read();
	if (got != SIGUSR1 || more != 0)
		printf("# got %d then %d\n", got, more);
	check(got == SIGUSR1 && more == 0, "handed-back",
	    "the caller did not get its USR1 back, once");
	check(sbx_selfpipe_trapped(SIGUSR1) && !sbx_selfpipe_trapped(SIGTERM),
	    "restored", "the run left the trapped set changed");
	sbx_supervise_result_free(&res);
}

/* A child starts with the default dispositions and no pipe. */
static void
child(void)
{
	pid_t pid;
	int ws;

	if ((pid = fork()) == 0) {
		sbx_selfpipe_child();
		_exit(handler_is(SIGUSR1, SIG_DFL) &&
		    !sbx_selfpipe_trapped(SIGUSR1) ? 0 : 1);
	}
	check(pid != -1 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) &&
	    WEXITSTATUS(ws) == 0, "child", "a child kept our handlers");
}

int
main(void)
{
	order();
	nesting();
	shared();
	child();
	return failed || sbx_io_fshut() != 0;
}
