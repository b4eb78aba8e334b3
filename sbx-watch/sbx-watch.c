/*
 * sbx-watch: tear a session's sandbox down once, when the session ends.
 * What can fail is checked while stderr works; then it detaches as
 * daemon(8) does, takes NAME.lock, writes NAME.owner and tells the first
 * process through a pipe, so on return the sandbox is armed (or another
 * watcher had it: exit 0).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxenv.h"
#include "sbxmarker.h"
#include "sbxname.h"
#include "sbxstate.h"
#include "sbx-watch.h"

#define PREWARM_HOLD	300	/* seconds the VM is held after a prewarm */

extern char **environ;

/* What the detached watcher tells the first process. */
struct ready {
	int	 code;		/* READY_* */
	int	 error;		/* errno, for READY_FAILED */
	char	 what[64];
};
enum { READY_WATCHING, READY_WATCHED, READY_FAILED };

static void SBX_DEAD
usage(void)
{
	fprintf(stderr, "usage: sbx-watch [-k | -n] [-m remove|stop|none] "
	    "[-f fd | -p pid] name\n");
	exit(SBX_EX_USAGE);
}

/* -m, else DOCKER_SANDBOX_TEARDOWN, else none when pinned, else remove. */
static int
teardownmode(const char *mflag)
{
	char buf[84];
	int m;

	if (mflag != NULL) {
		if ((m = sbx_conf_word(SBX_CONF_TEARDOWN, mflag)) == -1)
			errx(SBX_EX_USAGE, "-m %s: expected remove, stop or none",
			    sbx_shown(mflag, buf, 80));
		return m;
	}
	return sbx_xconf_teardown();
}

/* A daemon must not mistake a later open(2) for its stdin or stdout. */
static void
stdio_open(void)
{
	int fd;

	do {
		if ((fd = open("/dev/null", O_RDWR)) == -1)
			err(SBX_EX_FAIL, "/dev/null");
	} while (fd <= STDERR_FILENO);
	close(fd);
}

static void
tell(int fd, int code, int error, const char *what)
{
	struct ready r;

	memset(&r, 0, sizeof(r));
	r.code = code;
	r.error = error;
	if (what != NULL)
		snprintf(r.what, sizeof(r.what), "%s", what);
	(void)sbx_io_writeall(fd, &r, sizeof(r));
}

/* The detached watcher: take the lock, write the owner, say so, watch. */
static void SBX_DEAD
watcher(struct watch *w, int readyfd, pid_t owner,
    unsigned long long ownerstart)
{
	char lock[SBX_MARKER_MAX];
	int keep[4];

	keep[0] = w->dfd;
	keep[1] = w->lifeline;
	keep[2] = w->pidfd;
	keep[3] = readyfd;
	(void)chdir("/");
	sbx_detach_stdio_null();
	sbx_detach_close_others(keep, 4);
	(void)sbx_marker_path(lock, sizeof(lock), w->name, SBX_M_LOCK);
	if (sbx_lock(w->dfd, lock, 0) == -1) {
		if (errno == EAGAIN) {
			tell(readyfd, READY_WATCHED, 0, NULL);
			_exit(SBX_EX_OK);
		}
		tell(readyfd, READY_FAILED, errno, lock);
		_exit(SBX_EX_FAIL);
	}
	if (sbx_markerio_owner_write(w->dfd, w->name, owner, ownerstart,
	    getpid()) == -1) {
		tell(readyfd, READY_FAILED, errno, "owner marker");
		(void)sbx_state_remove(w->dfd, lock);
		_exit(SBX_EX_FAIL);
	}
	tell(readyfd, READY_WATCHING, 0, NULL);
	close(readyfd);
	loop_run(w);
	_exit(SBX_EX_OK);
}

/* fork, setsid, fork; the first process waits for the watcher's word. */
static void
detach(struct watch *w, pid_t owner, unsigned long long ownerstart)
{
	struct ready r;
	int rp[2], ws;
	pid_t pid;
	ssize_t n;
	size_t got = 0;

	if (pipe(rp) == -1)
		err(SBX_EX_FAIL, "pipe");
	(void)fcntl(rp[0], F_SETFD, FD_CLOEXEC);
	(void)fcntl(rp[1], F_SETFD, FD_CLOEXEC);
	fflush(stderr);
	if ((pid = fork()) == -1)
		err(SBX_EX_FAIL, "fork");
	if (pid == 0) {
		close(rp[0]);
		if (setsid() == -1)
			_exit(SBX_EX_FAIL);
		if ((pid = fork()) == -1)
			_exit(SBX_EX_FAIL);
		if (pid == 0)
			watcher(w, rp[1], owner, ownerstart);
		_exit(SBX_EX_OK);
	}
	close(rp[1]);
	while (got < sizeof(r)) {
		n = read(rp[0], (char *)&r + got, sizeof(r) - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(rp[0]);
	while (waitpid(pid, &ws, 0) == -1 && errno == EINTR)
		;
	if (got < sizeof(r))
		errx(SBX_EX_FAIL, "%s: the watcher ended before it was armed",
		    w->name);
	if (r.code == READY_FAILED) {
		errno = r.error;
		r.what[sizeof(r.what) - 1] = '\0';
		err(SBX_EX_FAIL, "%s", r.what);
	}
}

/* A name fit for a message: printable ASCII, at most 80 characters. */
static const char *
shown(const char *s)
{
	static char buf[81];

	sbx_shown(s, buf, sizeof(buf));
	if (strlen(s) > 80)
		memcpy(buf + 77, "...", 4);
	return buf;
}

/* One call of sbx-watch: its flags, and what both modes set up. */
struct call {
	struct watch	 w;
	unsigned long long given;	/* SBX_OPT of each flag given */
	const char	*mflag;		/* -m, or NULL */
	int		 fd;		/* -f, or -1 */
	pid_t		 owner;		/* the session; -1 for -n */
	unsigned long long ownerstart;
	char		 statedir[PATH_MAX];
};

/* The lifeline -f names: a descriptor of 0 to 2 must outlive stdio's. */
static void
lifeline_take(struct call *c)
{
	int flags;

	if ((flags = fcntl(c->fd, F_GETFL)) == -1)
		errx(SBX_EX_FAIL, "descriptor %d: not open", c->fd);
	if ((flags & O_ACCMODE) == O_WRONLY)
		errx(SBX_EX_FAIL, "descriptor %d: not open for reading", c->fd);
	if ((c->w.lifeline = fcntl(c->fd, F_DUPFD_CLOEXEC,
	    STDERR_FILENO + 1)) == -1)
		err(SBX_EX_FAIL, "descriptor %d", c->fd);
	if (c->fd > STDERR_FILENO)
		close(c->fd);
}

/* The session: -p pid, the lifeline's holder, or our parent. */
static void
owner_find(struct call *c)
{
	struct watch *w = &c->w;

	if (w->lifeline == -1) {
		if (w->pid == -1)
			w->pid = getppid();
		if (sbx_proc_start(w->pid, &w->start) == -1)
			errx(SBX_EX_FAIL, "pid %ld: no such process",
			    (long)w->pid);
		w->pidfd = pidwait_open(w->pid);
		c->owner = w->pid;
		c->ownerstart = w->start;
	} else {
		c->owner = getppid();
		if (sbx_proc_start(c->owner, &c->ownerstart) == -1)
			c->ownerstart = 0;
	}
}

/* What both modes need, checked while stderr still works. */
static void
call_prepare(struct call *c, const char *name)
{
	struct sbx_envpolicy pol;
	struct sigaction sa;
	struct watch *w = &c->w;
	char wsbuf[PATH_MAX], *ws[2];
	int nflag = (c->given & SBX_OPT('n')) != 0;

	sbx_xconf_check(SBX_CONF_TEARDOWN | SBX_CONF_KEEPALIVE |
	    SBX_CONF_TIMEOUT | SBX_CONF_IMAGE_CACHE);
	/* -n is a removal unless -m says stop; keeping is no teardown */
	w->mode = nflag && c->mflag == NULL ? MODE_REMOVE :
	    teardownmode(c->mflag);
	if (nflag && w->mode == MODE_NONE)
		usage();
	if (!sbx_name_valid(name))
		errx(SBX_EX_USAGE, "%s: invalid sandbox name", shown(name));
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->keepalive = c->given & SBX_OPT('k') ? SBX_KEEPALIVE_ALWAYS :
	    sbx_xconf_keepalive();
	w->kaperiod = (int)sbx_xconf_num("SBX_WATCH_KEEPALIVE_SECONDS", 30,
	    1, 86400);
	w->prewarmhold = (int)sbx_xconf_num("SBX_WATCH_PREWARM_HOLD_SECONDS",
	    PREWARM_HOLD, 0, 86400);
	w->timeout = sbx_xconf_timeout();
	w->backoff = (long)sbx_xconf_num("SBX_WATCH_BACKOFF_MS", 1000, 0,
	    60000);
	if (c->fd != -1)
		lifeline_take(c);
	stdio_open();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);	/* a closing terminal is no end */
	sigaction(SIGPIPE, &sa, NULL);
	c->owner = -1;	/* -n does not watch */
	if (!nflag)
		owner_find(c);
	if (w->mode != MODE_NONE || w->keepalive > 0)
		sbx_xcli_find(environ, sbx_xmarkerio_session_ws(w->name, wsbuf,
		    sizeof(wsbuf), ws), w->sbx, sizeof(w->sbx));
	memset(&pol, 0, sizeof(pol));	/* strict: the host set only */
	if ((w->envp = sbx_env_build(environ, &pol)) == NULL)
		err(SBX_EX_FAIL, "environment");
	if ((w->dfd = sbx_xstatedir_open(c->statedir,
	    sizeof(c->statedir))) == -1)
		exit(SBX_EX_FAIL);
}

/* -n: the teardown, now, in the foreground */
static int
tear_down_now(struct call *c, const char *name)
{
	int rv;

	call_prepare(c, name);
	rv = now_teardown(&c->w, c->statedir);
	free(c->w.envp);
	return rv;
}

/* Arm a watcher, unless one already holds NAME.lock. */
static int
watch_session(struct call *c, const char *name)
{
	char lock[SBX_MARKER_MAX];
	pid_t holder;

	call_prepare(c, name);
	(void)sbx_marker_path(lock, sizeof(lock), c->w.name, SBX_M_LOCK);
	if ((holder = sbx_lock_holder(c->w.dfd, lock)) == -1) {
		if (errno == EINVAL)
			errx(SBX_EX_FAIL, "%s/%s: not a lock file of ours",
			    c->statedir, lock);
		err(SBX_EX_FAIL, "%s/%s", c->statedir, lock);
	}
	if (holder == 0)
		detach(&c->w, c->owner, c->ownerstart);
	/* else: already watched */
	free(c->w.envp);
	return SBX_EX_OK;
}

/* The modes, the first whose flag is given, on the one name. */
static const struct {
	struct sbx_mode	 m;
	int		(*run)(struct call *, const char *);
} modes[] = {
	{ { 'n', "m", "", 1, 1 }, tear_down_now },
	{ { 0, "fkmp", "fp", 1, 1 }, watch_session },
};

int
main(int argc, char *argv[])
{
	static struct call c;
	const char *errstr;
	long long n;
	int ch, i;

	c.w.lifeline = c.w.pidfd = c.w.dfd = -1;
	c.w.pid = -1;
	c.fd = -1;
	opterr = 0;
	while ((ch = getopt(argc, argv, "+f:km:np:")) != -1) {
		switch (ch) {
		case 'f':
			n = sbx_strtonum(optarg, 0, 1 << 20, &errstr);
			if (errstr != NULL)
				errx(SBX_EX_USAGE, "-f: descriptor is %s", errstr);
			c.fd = (int)n;
			break;
		case 'k':	/* these say which mode, or how: c.given */
			break;
		case 'm':
			c.mflag = optarg;
			break;
		case 'n':
			break;
		case 'p':
			n = sbx_strtonum(optarg, 1, 0x7fffffff, &errstr);
			if (errstr != NULL)
				errx(SBX_EX_USAGE, "-p: pid is %s", errstr);
			c.w.pid = (pid_t)n;
			break;
		default:
			usage();
		}
		c.given |= SBX_OPT(ch);
	}
	argc -= optind;
	argv += optind;
	if ((i = sbx_mode_pick(modes, sizeof(modes[0]), c.given, argc)) == -1)
		usage();
	return modes[i].run(&c, argv[0]);
}
