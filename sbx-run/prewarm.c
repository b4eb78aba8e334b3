/*
 * prewarm.c: provisioning ahead of the first call (-P), and what a later
 * call learns of it.
 *
 * sbx-run -P takes the sandbox's provisioning lock, then lets its
 * standard output go (a caller that started it in the background reads
 * EOF there: from now on a call waits for this one), and provisions in
 * a child whose standard error it passes on and keeps.  It writes how
 * that ended to NAME.prewarm before it lets the lock go, so a call that
 * waited on the lock finds a failure there, with what was said, and
 * reports it instead of provisioning a second time.  The watcher holds
 * the VM up for a while after a prewarm that succeeded (sbx-watch(8)).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxstate.h"
#include "sbx-run.h"

static volatile sig_atomic_t forwarded;
static pid_t child;

/* A signal to -P is the provisioning's: its sbx calls end as for any. */
static void
forward(int signo)
{
	forwarded = signo;
	if (child > 0)
		(void)kill(child, signo);
}

/*
 * The provisioning itself, in the child: the sandbox exists and is ready
 * when it returns 0.  Without a marker, sbx create is the one call (its
 * "already exists" proves the sandbox is there); with one, an exec of
 * true confirms it, or finds it missing and provisions as any call does.
 */
static int
warm(struct request *r, char **av, int in)
{
	struct sbx_buf held;
	int status, absent;

	r->prewarm = 1;
	provision_snapshot(r);		/* again, under the lock */
	if (r->before[0] == '\0') {
		(void)provision(r);	/* either answer: it is there now */
		return SBX_EX_OK;
	}
	memset(&held, 0, sizeof(held));
	status = exec_first(r, av, in, &absent, &held);
	if (absent) {
		if (provision(r) == PROV_RETRY)
			status = SBX_EX_OK;
		else
			(void)sbx_writeall(STDERR_FILENO, held.data, held.len);
	}
	sbx_buf_free(&held);
	return status;
}

/* Pass the child's words on, keeping the last SBX_PREWARM_SAID bytes. */
static size_t
pass_words(int fd, char *keep)
{
	char buf[4096];
	size_t len = 0, n;
	ssize_t got;

	for (;;) {
		if ((got = read(fd, buf, sizeof(buf))) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (got == 0)
			break;
		/* -P's own words, sbx's among them escaped already */
		(void)sbx_writeall(STDERR_FILENO, buf, (size_t)got);
		n = (size_t)got;
		if (n >= SBX_PREWARM_SAID) {
			memcpy(keep, buf + n - SBX_PREWARM_SAID,
			    SBX_PREWARM_SAID);
			len = SBX_PREWARM_SAID;
			continue;
		}
		if (len + n > SBX_PREWARM_SAID) {
			memmove(keep, keep + len + n - SBX_PREWARM_SAID,
			    SBX_PREWARM_SAID - n);
			len = SBX_PREWARM_SAID - n;
		}
		memcpy(keep + len, buf, n);
		len += n;
	}
	return len;
}

/* -P: provision now; the usual statuses. */
int
prewarm(struct request *r, char **av, int in)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa;
	char statedir[PATH_MAX], said[SBX_PREWARM_SAID], file[SBX_MARKER_MAX];
	size_t len, i;
	int dfd, lfd, fd, p[2], ws, status, e;

	if ((dfd = sbx_xstate_open(statedir, sizeof(statedir))) == -1)
		exit(SBX_EX_FAIL);
	lfd = provision_lock(r, dfd, statedir);
	/* the lock is held: whoever waits for EOF on our stdout may go on */
	if ((fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1 ||
	    dup2(fd, STDOUT_FILENO) == -1)
		err(SBX_EX_CANTRUN, "/dev/null");
	close(fd);
	if (pipe(p) == -1)
		err(SBX_EX_CANTRUN, "pipe");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		(void)sigaction(sigs[i], &sa, NULL);
	fflush(stderr);
	if ((child = fork()) == -1)
		err(SBX_EX_CANTRUN, "fork");
	if (child == 0) {
		/* the parent's lock is not ours to drop: closing lfd is safe */
		close(p[0]);
		close(lfd);
		sa.sa_handler = SIG_DFL;
		for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			(void)sigaction(sigs[i], &sa, NULL);
		if (dup2(p[1], STDERR_FILENO) == -1)
			_exit(SBX_EX_CANTRUN);
		close(p[1]);
		exit(warm(r, av, in));
	}
	close(p[1]);
	len = pass_words(p[0], said);
	close(p[0]);
	while (waitpid(child, &ws, 0) == -1 && errno == EINTR)
		;
	status = WIFEXITED(ws) ? WEXITSTATUS(ws) :
	    WIFSIGNALED(ws) ? SBX_SIGSTATUS(WTERMSIG(ws)) : SBX_EX_FAIL;
	/* an interrupted prewarm is no failure for the next call to report */
	if (forwarded == 0 && sbx_prewarm_write(dfd, r->name, status, said,
	    len) == -1) {
		e = errno;
		(void)sbx_marker_path(file, sizeof(file), r->name,
		    SBX_M_PREWARM);
		errno = e;
		warn("%s/%s", statedir, file);
	}
	close(lfd);
	close(dfd);
	return forwarded != 0 ? SBX_SIGSTATUS(forwarded) : status;
}

/*
 * Before the exec: while a provisioning of the sandbox is in flight (its
 * lock is held), wait for it, within the call's bound, so that the exec
 * finds the sandbox ready and the call costs one sbx call; then report a
 * prewarm that failed.  No state directory yet: nothing to wait for.
 */
void
prewarm_await(const struct request *r)
{
	char path[PATH_MAX];
	int dfd, lfd;

	if (sbx_xstate_path(path, sizeof(path)) == -1 ||
	    (dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return;
	if (sbx_lock_name_holder(dfd, SBX_PROVISION_LOCK, r->name) > 0) {
		close(dfd);
		/* it will be written to: the directory's checks first */
		if ((dfd = sbx_xstate_open(path, sizeof(path))) == -1)
			exit(SBX_EX_FAIL);
		lfd = provision_lock(r, dfd, path);
		prewarm_report(r, dfd);
		close(lfd);
	} else
		prewarm_report(r, dfd);
	close(dfd);
}
