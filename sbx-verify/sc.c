/*
 * sc.c: the self-check's sbx calls, their evidence and verdicts.
 * Every call runs as the programs run theirs (stdin /dev/null, its own
 * process group, the scrubbed environment, the timeout, lib's sbx_call),
 * is counted, and is looked at for the restart prompt.  A signal that
 * came meanwhile is kept for the driver, which then removes the sandbox.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxjson.h"
#include "sbxtime.h"
#include "result.h"
#include "selfcheck.h"

#define SHOWN	160	/* bytes of each stream quoted as evidence */

static const char *sc_esc(const char *, size_t, size_t, char *, size_t);

/* The verdict of check k, sbx's words in the evidence cut by sc_esc. */
void
sc_say(struct sc *sc, enum sccheck k, enum verdict v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	result_vsay(&sc->r[k], v, fmt, ap);
	va_end(ap);
}

/* Signals that came and were not a supervised child's to take. */
static void
drain(struct sc *sc)
{
	int sig;

	while ((sig = sbx_selfpipe_read()) > 0)
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
			sc->signo = sig;
}

/*
 * After n calls made elsewhere (lib/portcli.c): count them, take note
 * of a signal, and of the restart prompt in what the last one said.
 */
void
sc_after(struct sc *sc, int n, int status, const char *err)
{
	char e[SHOWN * 4 + 8];

	sc->calls += n;
	if (status != 0 && !sc->restart && sbx_says_restart(err)) {
		sc->restart = 1;
		sc_esc(err, strlen(err), SHOWN, e, sizeof(e));
		snprintf(sc->restartsaid, sizeof(sc->restartsaid),
		    "stderr \"%s\"", e);
	}
	drain(sc);
}

/*
 * Run av (av[0] is filled in with the sbx found) for its output.  0 with
 * c filled (sbx_supervise_result_free it), or -1 with errno when it could
 * not run.
 */
int
sc_sbx(struct sc *sc, struct sbx_result *c, char **av)
{
	int r, e;

	av[0] = sc->sbx;
	if (strcmp(av[1], "exec") == 0) {
		r = sbx_capture(c, av, sc->env, sc->timeout);
		c->tries = 1;
	} else
		r = sbx_call(c, av, sc->env, sc->timeout, sc->cdfd);
	e = errno;
	if (r == 0) {
		if (c->signo == SIGINT || c->signo == SIGTERM ||
		    c->signo == SIGHUP)
			sc->signo = c->signo;
		/* an exec's command is ours here: its stderr is sbx's */
		sc_after(sc, c->tries, c->status, c->err.data);
		sc_place(sc, c->status, &c->out, &c->err,
		    strcmp(av[1], "exec") == 0);
	} else {
		sc->cantrun = e;
		drain(sc);
	}
	errno = e;
	return r;
}

/*
 * av (av[0] is sbx) in the background, in a process group of its own,
 * all three streams on /dev/null, as a held exec of the keepalive runs.
 * Counted as one call.  The pid, or -1.
 */
pid_t
sc_spawn(struct sc *sc, char **av)
{
	pid_t pid;
	int fd;

	if ((pid = fork()) != 0) {
		if (pid != -1)
			sc->calls++;
		return pid;
	}
	(void)setpgid(0, 0);
	sbx_selfpipe_child();
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		(void)dup2(fd, STDIN_FILENO);
		(void)dup2(fd, STDOUT_FILENO);
		(void)dup2(fd, STDERR_FILENO);
	}
	execve(av[0], av, sc->env);
	_exit(SBX_EX_NOEXEC);
}

/*
 * End what sc_spawn started as sbx-run ends a call: TERM, then KILL after
 * grace ms (0: a hold, which nothing waits on, goes at once).
 */
void
sc_unspawn(pid_t pid, long long grace)
{
	struct timespec ts = { 0, 50000000 };
	long long end = sbx_clock_now_ms() + grace;
	int ws;

	(void)kill(-pid, SIGTERM);
	while (waitpid(pid, &ws, WNOHANG) == 0)
		if (sbx_clock_now_ms() > end) {
			(void)kill(-pid, SIGKILL);
			(void)waitpid(pid, &ws, 0);
			break;
		} else
			(void)nanosleep(&ts, NULL);
}

/* Wait ms, or less if a signal comes: then -1. */
int
sc_sleep(struct sc *sc, long long ms)
{
	struct pollfd p;
	long long end = sbx_clock_now_ms() + ms, left;

	p.fd = sbx_selfpipe();
	p.events = POLLIN;
	while (sc->signo == 0 && (left = end - sbx_clock_now_ms()) > 0) {
		p.revents = 0;
		if (poll(&p, 1, (int)(left > 60000 ? 60000 : left)) == -1 &&
		    errno != EINTR)
			return -1;
		if (p.revents & POLLIN)
			drain(sc);
	}
	return sc->signo != 0 ? -1 : 0;
}

/*
 * len bytes of s from its first line that is not sbx's notice or blank,
 * at most max of them (then "..."), one trailing newline dropped.  The
 * text stays as sbx wrote it: each form of the report escapes it
 * (result.c), so no output of sbx can steer a terminal.
 */
static const char *
sc_esc(const char *s, size_t len, size_t max, char *buf, size_t size)
{
	const char *nl;
	size_t n;

	if (s == NULL)
		len = 0;
	/* sbx's notices and blank lines first would fill the quote */
	while (len > 0 && (nl = memchr(s, '\n', len)) != NULL &&
	    (size_t)(nl - s) + 1 < len) {
		n = (size_t)(nl - s);
		if (n > 0 && !sbx_says_notice(s, n))
			break;
		s += n + 1;
		len -= n + 1;
	}
	if (len > 0 && s[len - 1] == '\n')
		len--;
	snprintf(buf, size, "%.*s%s", (int)(len < max ? len : max),
	    len > 0 ? s : "", len > max ? "..." : "");
	return buf;
}

/* What a call said: its status and both streams, shortened. */
const char *
sc_said(const struct sbx_result *c, char *buf, size_t size)
{
	char out[SHOWN * 4 + 8], err[SHOWN * 4 + 8], how[48];

	if (c->timedout)
		snprintf(how, sizeof(how), "timed out");
	else if (c->signo != 0)
		snprintf(how, sizeof(how), "cut short by signal %d", c->signo);
	else
		snprintf(how, sizeof(how), "exit %d", c->status);
	sc_esc(c->err.data, c->err.len, SHOWN, err, sizeof(err));
	sc_esc(c->out.data, c->out.len, SHOWN, out, sizeof(out));
	snprintf(buf, size, "%s%s%s%s%s%s%s", how,
	    *err ? ", stderr \"" : "", err, *err ? "\"" : "",
	    *out ? ", stdout \"" : "", out, *out ? "\"" : "");
	return buf;
}

/* What a call said, then the call freed: all a check keeps of it. */
const char *
sc_heard(struct sbx_result *c, char *buf, size_t size)
{
	sc_said(c, buf, size);
	sbx_supervise_result_free(c);
	return buf;
}

/* One line of sbx's, kept for the report unless it was kept already. */
static void
keep(struct sc *sc, const char *s, size_t len)
{
	int i;

	if (len >= SC_LINE)
		len = SC_LINE - 1;
	for (i = 0; i < sc->nunplaced; i++)
		if (strncmp(sc->unplaced[i], s, len) == 0 &&
		    sc->unplaced[i][len] == '\0')
			return;
	if (sc->nunplaced == SC_UNPLACED) {
		sc->moreunplaced++;
		return;
	}
	memcpy(sc->unplaced[sc->nunplaced], s, len);
	sc->unplaced[sc->nunplaced++][len] = '\0';
}

/* Does the line hold "sbxv", which each command of the checks says? */
static int
mine(const char *p, size_t n)
{
	size_t i;

	for (i = 0; i + 4 <= n; i++)
		if (memcmp(p + i, "sbxv", 4) == 0)
			return 1;
	return 0;
}

/*
 * The lines of s from byte from to byte to that no reading places: blank
 * lines, sbx's notices and its WARN: lines are placed, as the programs
 * skip them, and on an exec's stderr what the check's command said.
 */
static void
lines(struct sc *sc, const char *s, size_t from, size_t to, int exec)
{
	const char *p = s + from, *end = s + to, *nl;
	size_t n;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		n = (size_t)(nl - p);
		while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == ' '))
			n--;
		if (n > 0 && strspn(p, " \t") < n && !sbx_says_notice(p, n) &&
		    !(n >= 5 && strncasecmp(p, "warn:", 5) == 0) &&
		    !(exec && mine(p, n)))
			keep(sc, p, n);
	}
}

/*
 * What a call said that no reading of the programs could place, kept for
 * the report: on stdout, the lines around the JSON document where there
 * is one (an exec's stdout is its command's); on stderr, each line of an
 * answer that none of sbx's known answers (lib/sbxsays.c) recognises as
 * a whole, and of every answer of a call that succeeded.
 */
void
sc_place(struct sc *sc, int status, const struct sbx_buf *out,
    const struct sbx_buf *err, int exec)
{
	struct sbx_json *j;
	const char *e, *errstr;
	size_t start, end;

	if (!exec && out->len > 0 && (j = sbx_json_span(out->data, out->len,
	    &start, &end, &errstr)) != NULL) {
		sbx_json_free(j);
		lines(sc, out->data, 0, start, 0);
		lines(sc, out->data, end, out->len, 0);
	}
	if (err->len == 0)
		return;
	e = err->data;
	if (status != 0 && (sbx_says_notfound(e, sc->name) ||
	    sbx_says_exists(e) || sbx_says_stopped(e) ||
	    sbx_says_restart(e) || strstr(e, "unknown flag") != NULL ||
	    strstr(e, "unknown command") != NULL))
		return;
	lines(sc, e, 0, err->len, exec);
}

/* After the report, on stderr: the lines kept, to paste into a report. */
void
sc_unplaced_say(const struct sc *sc)
{
	char shown[SC_LINE * 4];
	int i;

	if (sc->nunplaced == 0)
		return;
	warnx("sbx %s said %d line%s that no reading of the programs could "
	    "place; please report %s with the version line and these:",
	    sc->version, sc->nunplaced + sc->moreunplaced,
	    sc->nunplaced + sc->moreunplaced == 1 ? "" : "s",
	    sc->nunplaced + sc->moreunplaced == 1 ? "it" : "them");
	for (i = 0; i < sc->nunplaced; i++)
		fprintf(stderr, "  %s\n", sbx_shown(sc->unplaced[i], shown,
		    sizeof(shown)));
	if (sc->moreunplaced > 0)
		fprintf(stderr, "  (and %d more)\n", sc->moreunplaced);
}
