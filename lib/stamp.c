/*
 * stamp.c: ending exactly what one sbx exec started in the sandbox.  A
 * killed local `sbx exec` leaves its command running inside, so each
 * exec runs under a prologue that records it (stampsh.c), and a timeout
 * or signal is followed by one short exec that ends what the record
 * names.  Nothing extra runs in the steady state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxstamp.h"
#include "sbx-internal.h"

/* A fresh stamp: SBX_STAMP_LEN hex digits, from /dev/urandom. */
int
sbx_stamp_new(char *id, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char r[SBX_STAMP_LEN / 2];
	size_t i;

	if (size < SBX_STAMP_LEN + 1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (sbx_name_urandom(r, sizeof(r)) == -1)
		return -1;
	for (i = 0; i < sizeof(r); i++) {
		id[2 * i] = hex[r[i] >> 4];
		id[2 * i + 1] = hex[r[i] & 0xf];
	}
	id[SBX_STAMP_LEN] = '\0';
	return 0;
}

/* The SBX_STAMP_NWORDS words that, put before a command, run it stamped. */
void
sbx_stamp_words(char **w, const char *id)
{
	w[0] = "sh";
	w[1] = "-c";
	w[2] = (char *)sbx_stamp_prologue;
	w[3] = "sbx-run";
	w[4] = (char *)id;
}

/*
 * "ended N left K" and the three single words, into state and counts;
 * the first two end in " cg" when the exec's cgroup was searched too,
 * " nocg" when it had none.
 */
static int
parse(char *l, int *found, int *left, int *cg)
{
	char *end;
	size_t len;
	long n, k;

	*found = *left = *cg = 0;
	len = strlen(l);
	if (len > 3 && strcmp(l + len - 3, " cg") == 0) {
		*cg = 1;
		l[len - 3] = '\0';
	} else if (len > 5 && strcmp(l + len - 5, " nocg") == 0)
		l[len - 5] = '\0';
	if (strcmp(l, "none") == 0)
		return SBX_END_NONE;
	if (strcmp(l, "unmarked") == 0)
		return SBX_END_UNSTAMPED;
	if (strcmp(l, "rebooted") == 0)
		return SBX_END_REBOOTED;
	if (strncmp(l, "ended ", 6) != 0)
		return SBX_END_UNREACHED;
	errno = 0;
	n = strtol(l + 6, &end, 10);
	if (errno != 0 || end == l + 6 || strncmp(end, " left ", 6) != 0 ||
	    n < 1 || n > 1000000)
		return SBX_END_UNREACHED;
	l = end + 6;
	k = strtol(l, &end, 10);
	if (errno != 0 || end == l || *end != '\0' || k < 0 || k > n)
		return SBX_END_UNREACHED;
	*found = (int)n;
	*left = (int)k;
	return k == 0 ? SBX_END_ENDED : SBX_END_LEFT;
}

/* The lines of the ender's output: "inner ..." and then its own. */
static void
read_lines(char *out, struct sbx_ended *e)
{
	char *l, *nl;

	e->state = SBX_END_UNREACHED;
	(void)snprintf(e->why, sizeof(e->why), "no answer from inside");
	for (l = out; l != NULL && *l != '\0'; l = nl) {
		if ((nl = strchr(l, '\n')) != NULL)
			*nl++ = '\0';
		if (strncmp(l, "inner ", 6) == 0)
			e->inner = parse(l + 6, &e->ifound, &e->ileft,
			    &e->icg);
		else
			e->state = parse(l, &e->found, &e->left, &e->cg);
	}
}

/* The first line of text, at most 100 bytes of it, into why. */
static void
first_line(struct sbx_ended *e, const char *text, size_t len)
{
	size_t n;

	for (n = 0; n < len && n < 100 && text[n] != '\n'; n++)
		;
	(void)snprintf(e->why, sizeof(e->why), "%.*s", (int)n, text);
}

/*
 * End, with one `sbx exec`, what the exec stamped id started in sandbox
 * name; with inner non-NULL (the words that run a command in its
 * container, NULL-terminated), end the container's part first.  Fills e.
 * Returns -1 with errno set only if the ending exec could not be started.
 */
int
sbx_stamp_end(const char *sbx, char *const *env, const char *name,
    const char *id, char *const *inner, int timeout, struct sbx_ended *e)
{
	struct sbx_result res;
	char **av;
	size_t n, i, ni;

	memset(e, 0, sizeof(*e));
	e->inner = inner != NULL ? SBX_END_UNREACHED : SBX_END_NOINNER;
	for (ni = 0; inner != NULL && inner[ni] != NULL; ni++)
		;
	if ((av = calloc(ni + 12, sizeof(*av))) == NULL)
		return -1;
	n = 0;
	av[n++] = (char *)sbx;
	av[n++] = "exec";
	av[n++] = (char *)name;
	av[n++] = "--";
	av[n++] = "sh";
	av[n++] = "-c";
	av[n++] = (char *)sbx_stamp_ender;
	av[n++] = "sbx-run-end";
	av[n++] = (char *)id;
	if (inner != NULL)
		av[n++] = (char *)sbx_stamp_ender;
	for (i = 0; i < ni; i++)
		av[n++] = inner[i];
	av[n] = NULL;
	if (sbx_capture(&res, av, env, timeout) == -1) {
		free(av);
		return -1;
	}
	free(av);
	if (res.timedout) {
		e->state = SBX_END_UNREACHED;
		(void)snprintf(e->why, sizeof(e->why),
		    "the ending exec timed out after %d s", timeout);
	} else if (res.status != 0) {
		/* words from inside could say it too: sbx's listing decides */
		e->state = sbx_gone(&res, sbx, env, name, timeout, -1) ?
		    SBX_END_GONE : SBX_END_UNREACHED;
		if (res.err.len > 0)
			first_line(e, res.err.data, res.err.len);
		else
			(void)snprintf(e->why, sizeof(e->why),
			    "the ending exec exited %d", res.status);
	} else if (res.out.data != NULL)
		read_lines(res.out.data, e);
	sbx_supervise_result_free(&res);
	return 0;
}

/*
 * Without a cgroup only the process tree of the stamp was searched: the
 * words say so, and that what left it (a daemon) was not looked for.
 */
static void
part(char *buf, size_t size, int state, int found, int left, int cg,
    const char *where, const char *why)
{
	const char *tree = cg ? "" : " in its process tree";
	size_t len;

	switch (state) {
	case SBX_END_ENDED:
		(void)snprintf(buf, size, "ended what it started %s%s "
		    "(%d process%s)", where, tree, found,
		    found == 1 ? "" : "es");
		break;
	case SBX_END_LEFT:
		(void)snprintf(buf, size, "of the %d processes it started %s%s, "
		    "%d still run", found, where, tree, left);
		break;
	case SBX_END_NONE:
		(void)snprintf(buf, size, "nothing it started %s%s was still "
		    "running", where, tree);
		break;
	case SBX_END_UNSTAMPED:
		(void)snprintf(buf, size, "nothing it started was found %s "
		    "(it had not begun there, or could not be marked)", where);
		break;
	case SBX_END_REBOOTED:
		(void)snprintf(buf, size, "the sandbox stopped since it began, "
		    "which ended it");
		break;
	case SBX_END_GONE:
		(void)snprintf(buf, size, "the sandbox is gone: nothing could "
		    "be checked %s", where);
		break;
	default:
		(void)snprintf(buf, size, "what it started %s could not be "
		    "reached and may still run (%s)", where, why);
		break;
	}
	if (cg || (state != SBX_END_ENDED && state != SBX_END_LEFT &&
	    state != SBX_END_NONE))
		return;
	len = strlen(buf);
	if (len < size)
		(void)snprintf(buf + len, size - len, "; no cgroup could be "
		    "made for it there, so what left that tree (a daemon) was "
		    "not looked for");
}

/* What e says, in words, into buf: "ended what it started ..." */
void
sbx_stamp_said(const struct sbx_ended *e, const char *container, char *buf,
    size_t size)
{
	char in[320], where[96];
	size_t len;

	part(buf, size, e->state, e->found, e->left, e->cg, "inside",
	    e->why);
	if (e->inner == SBX_END_NOINNER || e->state == SBX_END_GONE ||
	    e->state == SBX_END_REBOOTED)
		return;
	(void)snprintf(where, sizeof(where), "in container %.60s",
	    container != NULL ? container : "?");
	part(in, sizeof(in), e->inner, e->ifound, e->ileft, e->icg, where,
	    "its ending failed");
	len = strlen(buf);
	if (len < size)
		(void)snprintf(buf + len, size - len, "; %s", in);
}

/* Did the ending leave nothing of what it found running? */
int
sbx_stamp_done(const struct sbx_ended *e)
{
	int ok;

	ok = e->state == SBX_END_ENDED || e->state == SBX_END_NONE ||
	    e->state == SBX_END_REBOOTED;
	if (e->inner != SBX_END_NOINNER && e->state != SBX_END_REBOOTED)
		ok = ok && (e->inner == SBX_END_ENDED ||
		    e->inner == SBX_END_NONE);
	return ok;
}

/*
 * Did the exec stamped id begin its command in sandbox name?  One short
 * exec of the asker (stampsh.c), which ends nothing.  0 only when it
 * answers that no record names id and one could have been written; 1
 * for every other answer or failure, as a command that may have begun
 * must never be run again.
 */
int
sbx_stamp_began(const char *sbx, char *const *env, const char *name,
    const char *id, int timeout)
{
	char *av[] = { (char *)sbx, "exec", (char *)name, "--", "sh", "-c",
	    (char *)sbx_stamp_asker, "sbx-run-ask", (char *)id, NULL };
	struct sbx_result res;
	int began;

	if (sbx_capture(&res, av, env, timeout) == -1)
		return 1;
	began = res.status != 0 || res.timedout || res.signo != 0 ||
	    res.out.data == NULL || strcmp(res.out.data, "unbegun\n") != 0;
	sbx_supervise_result_free(&res);
	return began;
}
