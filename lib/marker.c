/*
 * marker.c: the state directory's vocabulary.  Every file a program
 * keeps there for a sandbox is NAME.SUFFIX, with SUFFIX from the one
 * table below, and each suffix says what kind of file it is; the path
 * builder, the test for presence, the directory-entry parser and the
 * one drop of a sandbox's markers all read that table, never a list of
 * their own.  What each marker holds is in markerio.c.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxmarker.h"
#include "sbxname.h"
#include "sbxstate.h"

/*
 * The owner and the lock come last: sbx_marker_drop() goes in this
 * order, so a watcher holds NAME.lock until the rest is gone and a sweep
 * meanwhile sees the sandbox as watched.
 */
static const struct {
	const char	*suffix;
	unsigned	 flags;		/* SBX_MF_* */
} markers[SBX_M_COUNT] = {
	[SBX_M_CREATED] =	{ "created",	SBX_MF_OURS },
	[SBX_M_FAILED] =	{ "failed",	SBX_MF_OURS },
	[SBX_M_JOURNAL] =	{ "journal",	SBX_MF_OURS },
	[SBX_M_PRIME] =		{ "prime",	SBX_MF_DIR },
	[SBX_M_PORTS] =		{ "ports",	0 },
	[SBX_M_PREWARM] =	{ "prewarm",	0 },
	[SBX_M_IMGNOTE] =	{ "imgnote",	0 },
	[SBX_M_EGRESS] =	{ "egress",	SBX_MF_RECORD },
	[SBX_M_TRIPWIRE] =	{ "tripwire",	0 },
	[SBX_M_OWNER] =		{ "owner",	SBX_MF_OURS },
	[SBX_M_LOCK] =		{ "lock",	SBX_MF_LOCK },
	[SBX_M_VERIFY] =	{ "verify-",	SBX_MF_NONCE },
	[SBX_M_PAST] =		{ "past-",	SBX_MF_NONCE },
};

unsigned
sbx_marker_flags(enum sbx_marker m)
{
	return markers[m].flags;
}

static int
build(char *buf, size_t size, const char *name, enum sbx_marker m,
    const char *nonce)
{
	int n;

	if (!sbx_name_valid(name) || strchr(nonce, '/') != NULL ||
	    (*nonce != '\0') != ((markers[m].flags & SBX_MF_NONCE) != 0))
		return errno = EINVAL, -1;
	n = snprintf(buf, size, "%s.%s%s", name, markers[m].suffix, nonce);
	if (n < 0 || (size_t)n >= size)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

/* NAME.SUFFIX of marker m into buf; -1 with EINVAL for a bad name. */
int
sbx_marker_path(char *buf, size_t size, const char *name, enum sbx_marker m)
{
	return build(buf, size, name, m, "");
}

/* NAME.verify-NONCE, sbx-verify's mounts canary. */
int
sbx_marker_canary(char *buf, size_t size, const char *name,
    const char *nonce)
{
	return build(buf, size, name, SBX_M_VERIFY, nonce);
}

/* NAME.past-END, a past session's record (sbxrecord.h). */
int
sbx_marker_past(char *buf, size_t size, const char *name, const char *end)
{
	return build(buf, size, name, SBX_M_PAST, end);
}

/*
 * Is file NAME.past-END or NAME.past-END-K?  name gets NAME (size as for
 * sbx_marker_parse), *end END and *k K (0 without).  0, or -1.
 */
int
sbx_marker_past_parse(const char *file, char *name, size_t size,
    long long *end, long long *k)
{
	const char *p = NULL, *q, *errstr;
	char num[24];
	size_t len, n;

	/* the last: a name may hold ".past-" too */
	for (q = file; (q = strstr(q, ".past-")) != NULL; q++)
		p = q;
	if (p == NULL || file[0] == '.' || (len = (size_t)(p - file)) >
	    SBX_NAME_MAX || len >= size)
		return -1;
	p += 6;
	*k = 0;
	if ((n = strspn(p, "0123456789")) == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, p, n);
	num[n] = '\0';
	*end = sbx_strtonum(num, 0, LLONG_MAX, &errstr);
	if (errstr != NULL)
		return -1;
	if (p[n] == '-') {
		*k = sbx_strtonum(p + n + 1, 1, 1000, &errstr);
		if (errstr != NULL)
			return -1;
	} else if (p[n] != '\0')
		return -1;
	memcpy(name, file, len);
	name[len] = '\0';
	return sbx_name_valid(name) ? 0 : -1;
}

/* Is marker m of name there, whatever it is (a link counts)? */
int
sbx_marker_present(int dfd, const char *name, enum sbx_marker m)
{
	char file[SBX_MARKER_MAX];
	struct stat st;

	return sbx_marker_path(file, sizeof(file), name, m) == 0 &&
	    fstatat(dfd, file, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/*
 * Which marker is the directory entry file, and of which sandbox (to
 * name, SBX_NAME_MAX + 1 bytes or more)?  -1 for anything else, the
 * nonce-named files included: their programs remove them.
 */
int
sbx_marker_parse(const char *file, char *name, size_t size)
{
	const char *dot;
	size_t len;
	int m;

	if (file[0] == '.' || (dot = strrchr(file, '.')) == NULL)
		return -1;
	len = (size_t)(dot - file);
	if (len > SBX_NAME_MAX || len >= size)
		return -1;
	for (m = 0; m < SBX_M_COUNT; m++)
		if (!(markers[m].flags & SBX_MF_NONCE) &&
		    strcmp(dot + 1, markers[m].suffix) == 0)
			break;
	if (m == SBX_M_COUNT)
		return -1;
	memcpy(name, file, len);
	name[len] = '\0';
	return sbx_name_valid(name) ? m : -1;
}

/*
 * Remove the markers of name in which (SBX_MB bits), in table order.  A
 * scratch dir goes as a tree, a planted link in its place just goes.  A
 * lock goes only when we can take it, so never while a watcher holds it,
 * unless flags has SBX_DROP_HELD: the caller is that holder.  Returns
 * the set that could not be removed (a held lock is not counted), with
 * errno from the last failure.
 */
unsigned
sbx_marker_drop(int dfd, const char *name, unsigned which, int flags)
{
	char file[SBX_MARKER_MAX];
	unsigned failed = 0;
	int m, fd, e = 0;

	for (m = 0; m < SBX_M_COUNT; m++) {
		if (!(which & SBX_MB(m)) || (markers[m].flags & SBX_MF_NONCE))
			continue;
		if (sbx_marker_path(file, sizeof(file), name, m) == -1) {
			e = errno;
			failed |= SBX_MB(m);
			continue;
		}
		if ((markers[m].flags & SBX_MF_LOCK) &&
		    !(flags & SBX_DROP_HELD)) {
			if ((fd = sbx_lock(dfd, file, 0)) != -1) {
				(void)sbx_state_remove(dfd, file);
				close(fd);
			}
			continue;
		}
		if (sbx_state_remove(dfd, file) == 0 ||
		    ((markers[m].flags & SBX_MF_DIR) &&
		    sbx_state_rmtree(dfd, file) == 0))
			continue;
		e = errno;
		failed |= SBX_MB(m);
	}
	errno = e;
	return failed;
}
