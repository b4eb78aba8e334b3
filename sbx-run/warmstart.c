/*
 * warmstart.c: provisioning ahead of the first call (-P).  It holds the
 * provisioning lock, lets standard output go (a background caller reads
 * EOF: calls now wait for it), provisions, and writes how that ended to
 * NAME.prewarm before the lock goes, so a call that waited finds a
 * failure there and reports it instead of provisioning again.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxconf.h"
#include "sbxmarker.h"
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
	status = race_exec_first(r, av, in, &absent, &held);
	if (absent) {
		if (provision(r) == PROV_RETRY)
			status = SBX_EX_OK;
		else
			(void)sbx_io_writeall(STDERR_FILENO, held.data,
			    held.len);
	}
	sbx_io_buf_free(&held);
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
		(void)sbx_io_writeall(STDERR_FILENO, buf, (size_t)got);
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

/*
 * Dockerfile or Containerfile, with a suffix (Dockerfile.dev) or without,
 * or one such as api.dockerfile; in any case.
 */
static int
dockerfile(const char *s)
{
	static const char *const stem[] = { "dockerfile", "containerfile" };
	size_t i, n, len = strlen(s);

	for (i = 0; i < sizeof(stem) / sizeof(stem[0]); i++) {
		n = strlen(stem[i]);
		if (strncasecmp(s, stem[i], n) == 0 && (s[n] == '\0' ||
		    (s[n] == '.' && s[n + 1] != '\0')))
			return 1;
		if (len > n + 1 && s[len - n - 1] == '.' &&
		    strcasecmp(s + len - n, stem[i]) == 0)
			return 1;
	}
	return 0;
}

/* compose.yaml, docker-compose.yml, compose.dev.yaml and the like. */
static int
composefile(const char *s)
{
	const char *end, *p;
	size_t len;

	if (strncasecmp(s, "docker-", 7) == 0)
		s += 7;
	if (strncasecmp(s, "compose", 7) != 0)
		return 0;
	len = strlen(s += 7);
	if (len >= 4 && strcasecmp(s + len - 4, ".yml") == 0)
		end = s + len - 4;
	else if (len >= 5 && strcasecmp(s + len - 5, ".yaml") == 0)
		end = s + len - 5;
	else
		return 0;
	if (end == s)
		return 1;
	if (*s != '.' || end == s + 1)
		return 0;
	for (p = s + 1; p < end; p++)
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && strchr("_.-", *p) == NULL)
			return 0;
	return 1;
}

/*
 * Does the workspace show docker will be used?  Its own entries only, as
 * they are (a link counts for nothing: it may point anywhere), so the
 * look costs one directory read.
 */
static int
usesdocker(const char *ws)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int found = 0;

	if ((d = opendir(ws)) == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1)
			continue;
		if (S_ISREG(st.st_mode))
			found = dockerfile(de->d_name) ||
			    composefile(de->d_name);
		else if (S_ISDIR(st.st_mode))
			found = strcmp(de->d_name, ".devcontainer") == 0;
	}
	closedir(d);
	return found;
}

/*
 * Is there a prewarm to do?  DOCKER_SANDBOX_PREWARM as the caller set it
 * (the pi extension passes its effective value at every session start):
 * 0 no, 1 yes, auto when the workspace shows docker will be used.  Unset,
 * -P does as it was asked.
 */
static int
wanted(const struct request *r)
{
	if (sbx_conf_given(SBX_CONF_PREWARM) == NULL)
		return 1;
	switch (sbx_xconf_word(SBX_CONF_PREWARM)) {
	case SBX_PREWARM_NEVER:
		return 0;
	case SBX_PREWARM_AUTO:
		return usesdocker(r->workspace ? r->workspace : ".");
	default:
		return 1;
	}
}

/* -P: provision now, if wanted; the usual statuses. */
int
warmstart(struct request *r, char **av, int in)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa;
	char statedir[PATH_MAX], said[SBX_PREWARM_SAID], file[SBX_MARKER_MAX];
	size_t len, i;
	int dfd, lfd, fd, p[2], ws, status, e;

	if (!wanted(r))
		return SBX_EX_OK;
	if ((dfd = sbx_xstatedir_open(statedir, sizeof(statedir))) == -1)
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
	if (forwarded == 0 && sbx_markerio_prewarm_write(dfd, r->name, status,
	    said, len) == -1) {
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
warmstart_await(const struct request *r)
{
	char path[PATH_MAX];
	int dfd, lfd;

	if (sbx_xstatedir_path(path, sizeof(path)) == -1 ||
	    (dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return;
	if (sbx_lock_name_holder(dfd, SBX_PROVISION_LOCK, r->name) > 0) {
		close(dfd);
		/* it will be written to: the directory's checks first */
		if ((dfd = sbx_xstatedir_open(path, sizeof(path))) == -1)
			exit(SBX_EX_FAIL);
		lfd = provision_lock(r, dfd, path);
		warmstart_report(r, dfd);
		close(lfd);
	} else
		warmstart_report(r, dfd);
	close(dfd);
}

/*
 * Under the lock, or with none held: a prewarm that failed is reported
 * once, by the call that finds it, with its status and what it said;
 * the next call provisions anew.
 */
void
warmstart_report(const struct request *r, int dfd)
{
	char said[2 * SBX_PREWARM_SAID], file[SBX_MARKER_MAX];
	long long when;
	int status;

	if (sbx_markerio_prewarm_read(dfd, r->name, &when, &status, said,
	    sizeof(said)) == -1 || status == 0)
		return;
	(void)sbx_marker_path(file, sizeof(file), r->name, SBX_M_PREWARM);
	(void)sbx_state_remove(dfd, file);
	warnx("sandbox %s: provisioning it ahead of this call (sbx-run -P) "
	    "failed, exit %d; the next call tries again.  It said:", r->name,
	    status);
	/* what -P printed, escaped there: escaping it again would double */
	(void)sbx_io_writeall(STDERR_FILENO, said, strlen(said));
	exit(status);
}
