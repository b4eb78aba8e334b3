/*
 * record.c: a session's record, NAME.journal, one JSON line per sbx-run
 * call or event of the session.  Each line is one O_APPEND write under a
 * shared lock; past SBX_RECORD_MAX a writer takes the lock alone and
 * keeps the newest half, its first line {"trimmed":N} counting the lines
 * dropped.  The file is never reached through a link.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxjson.h"
#include "sbxmarker.h"
#include "sbxrecord.h"
#include "sbxstate.h"

#define KIND_MAX	32

/* A line's time, RFC 3339 in UTC to the millisecond, into when. */
void
sbx_record_time(char *when, const struct timespec *ts)
{
	struct tm tm;
	char s[24];

	if (gmtime_r(&ts->tv_sec, &tm) == NULL ||
	    strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		strcpy(s, "1970-01-01T00:00:00");
	(void)snprintf(when, SBX_RECORD_TIME, "%s.%03ldZ", s,
	    ts->tv_nsec / 1000000);
}

/* Within timeout seconds (0: none): a lock held longer is an error. */
int
sbx_record_lock(int fd, short type, int timeout)
{
	return sbx_lock_setlk(fd, type, 0, 0,
	    timeout > 0 ? timeout * 1000LL : -1);
}

/*
 * Open the record, never through a link, and lock it, again if a trim
 * replaced it meanwhile.  Read-write: a shared lock needs a readable file.
 */
static int
openlocked(int dfd, const char *file, short type, int timeout)
{
	struct stat fst, pst;
	int fd, try;

	for (try = 0; try < 8; try++) {
		/* only an appender creates it: a trimmer finding none is done */
		fd = openat(dfd, file, O_RDWR | O_APPEND | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC | (type == F_RDLCK ? O_CREAT : 0),
		    0600);
		if (fd == -1)
			return -1;
		if (fstat(fd, &fst) == -1 || !S_ISREG(fst.st_mode) ||
		    fst.st_uid != geteuid()) {
			close(fd);
			return errno = EINVAL, -1;
		}
		/* the state directory's mode, whoever changed it */
		if ((fst.st_mode & 07777) != 0600)
			(void)fchmod(fd, 0600);
		if (sbx_record_lock(fd, type, timeout) == -1) {
			close(fd);
			return -1;
		}
		if (fstatat(dfd, file, &pst, AT_SYMLINK_NOFOLLOW) == 0 &&
		    pst.st_dev == fst.st_dev && pst.st_ino == fst.st_ino)
			return fd;
		close(fd);
	}
	return errno = EAGAIN, -1;
}

/* N of a first line {"trimmed":N}, or -1. */
long long
sbx_record_trimmed(const char *text, size_t len)
{
	const char *nl = memchr(text, '\n', len), *errstr = "absent";
	const struct sbx_json *v;
	struct sbx_json *j;
	long long n = -1;

	if (nl == NULL || len < sizeof(SBX_RECORD_TRIMMED) - 1 ||
	    memcmp(text, SBX_RECORD_TRIMMED,
	    sizeof(SBX_RECORD_TRIMMED) - 1) != 0 ||
	    (j = sbx_json_parse(text, (size_t)(nl - text), NULL)) == NULL)
		return -1;
	if ((v = sbx_json_get(j, "trimmed")) != NULL && v->type == SBX_JNUM)
		n = sbx_strtonum(v->str, 0, LLONG_MAX, &errstr);
	sbx_json_free(j);
	return errstr == NULL ? n : -1;
}

/* Replace the record, held alone through fd, with its newest half. */
static int
trim(int dfd, const char *file, int fd, off_t size)
{
	char chunk[65536], *text;
	off_t keep = size - SBX_RECORD_MAX / 2, off, cut = size;
	long long old = -1, lines = 0;
	ssize_t r = 0, i;
	int n, ret;

	for (off = 0; off < size && cut == size; off += r) {
		if ((r = pread(fd, chunk, sizeof(chunk), off)) <= 0)
			return -1;
		if (off == 0)
			old = sbx_record_trimmed(chunk, (size_t)r);
		for (i = 0; i < r && cut == size; i++) {
			if (chunk[i] != '\n')
				continue;
			lines++;
			if (off + i + 1 >= keep)
				cut = off + i + 1;
		}
	}
	/* the lines dropped, less a {"trimmed":N} line, plus its N */
	if (old >= 0)
		lines += old - 1;
	if ((text = malloc((size_t)(size - cut) + 64)) == NULL)
		return -1;
	n = snprintf(text, 64, SBX_RECORD_TRIMMED "%lld}\n", lines);
	for (off = cut; off < size; off += r)
		if ((r = pread(fd, text + n + (off - cut), (size_t)(size - off),
		    off)) <= 0) {
			free(text);
			return -1;
		}
	text[n + (size - cut)] = '\0';
	ret = sbx_state_write(dfd, file, text);
	free(text);
	return ret;
}

/*
 * Append line (len bytes, a whole line) to name's record, the lock
 * waited for within timeout seconds (0: none).  -1 with errno.
 */
int
sbx_record_append(int dfd, const char *name, const char *line, size_t len,
    int timeout)
{
	char file[SBX_MARKER_MAX];
	struct stat st;
	ssize_t w;
	int fd, ret = 0, e;

	if (sbx_marker_path(file, sizeof(file), name, SBX_M_JOURNAL) == -1)
		return -1;
	if ((fd = openlocked(dfd, file, F_RDLCK, timeout)) == -1)
		return -1;
	while ((w = write(fd, line, len)) == -1 && errno == EINTR)
		;
	if (w != (ssize_t)len) {
		e = w == -1 ? errno : ENOSPC;
		close(fd);
		return errno = e, -1;
	}
	if (fstat(fd, &st) == 0 && st.st_size > SBX_RECORD_MAX) {
		close(fd);
		/* the one that gets it alone trims; a trimmed file is let be */
		if ((fd = openlocked(dfd, file, F_WRLCK, timeout)) == -1)
			return errno == ENOENT ? 0 : -1;
		if (fstat(fd, &st) == 0 && st.st_size > SBX_RECORD_MAX)
			ret = trim(dfd, file, fd, st.st_size);
	}
	e = errno;
	close(fd);
	errno = e;
	return ret;
}

static int
kind_valid(const char *kind)
{
	size_t n = strlen(kind);

	return n > 0 && n <= KIND_MAX &&
	    strspn(kind, "abcdefghijklmnopqrstuvwxyz") == n;
}

/*
 * One event line, {"time":"...","event":"KIND",MEMBERS}, in name's
 * record.  members is JSON members text, its values escaped by the
 * caller (NULL or "": none).  0, or -1 after one warning.
 */
int
sbx_record_event(int dfd, const char *name, const char *kind,
    const char *members)
{
	struct timespec now;
	char line[SBX_RECORD_LINE], when[SBX_RECORD_TIME], sh[256];
	int n;

	if (members == NULL)
		members = "";
	clock_gettime(CLOCK_REALTIME, &now);
	sbx_record_time(when, &now);
	if (!kind_valid(kind) || strchr(members, '\n') != NULL) {
		warnx("record %s: bad event", sbx_shown(name, sh, sizeof(sh)));
		return -1;
	}
	n = snprintf(line, sizeof(line),
	    "{\"time\":\"%s\",\"event\":\"%s\"%s%s}\n", when, kind,
	    *members != '\0' ? "," : "", members);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		warnx("record %s: %s event too long",
		    sbx_shown(name, sh, sizeof(sh)), kind);
		return -1;
	}
	if (sbx_record_append(dfd, name, line, (size_t)n,
	    SBX_RECORD_EVENT_TIMEOUT) == -1) {
		warn("record %s", sbx_shown(name, sh, sizeof(sh)));
		return -1;
	}
	return 0;
}

/*
 * A session whose sandbox was made but whose record never began (its
 * sbx-run killed, or withdrawn, before the session event) begins one
 * now, so that its end is kept as any session's: 0, or -1 (said).
 */
int
sbx_record_begin(int dfd, const char *name, const char *members)
{
	char live[SBX_MARKER_MAX];
	struct stat st;

	if (sbx_marker_path(live, sizeof(live), name, SBX_M_JOURNAL) == -1)
		return -1;
	if (fstatat(dfd, live, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    errno != ENOENT)
		return 0;
	return sbx_record_event(dfd, name, "session", members);
}

/*
 * Close name's live record with an end event (members as for
 * sbx_record_event) and keep it as NAME.past-END, END the Unix seconds
 * of its end (-K after it for the K-th of the same second).  The move
 * is made holding the record alone, so a writer after it starts a new
 * record.  Nothing there, or a file not ours, is no error: the markers'
 * drop removes what is left.  0, or -1 after one warning.
 */
int
sbx_record_keep(int dfd, const char *name, const char *members)
{
	char live[SBX_MARKER_MAX], past[SBX_MARKER_MAX], end[40], sh[256];
	struct stat st;
	long long now;
	int fd, k, e;

	if (sbx_marker_path(live, sizeof(live), name, SBX_M_JOURNAL) == -1 ||
	    fstatat(dfd, live, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return 0;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return 0;
	(void)sbx_record_event(dfd, name, "end", members);
	if ((fd = openlocked(dfd, live, F_WRLCK,
	    SBX_RECORD_EVENT_TIMEOUT)) == -1) {
		if (errno == ENOENT)
			return 0;
		goto bad;
	}
	now = (long long)time(NULL);
	for (k = 0; ; k++) {
		if (k == 0)
			(void)snprintf(end, sizeof(end), "%lld", now);
		else
			(void)snprintf(end, sizeof(end), "%lld-%d", now, k);
		if (k == 1000 || sbx_marker_past(past, sizeof(past), name,
		    end) == -1) {
			close(fd);
			errno = EEXIST;
			goto bad;
		}
		if (linkat(dfd, live, dfd, past, 0) == 0)
			break;
		e = errno;
		/* a file system without links: a rename, never over one */
		if (e == EPERM || e == ENOTSUP) {
			if (fstatat(dfd, past, &st, AT_SYMLINK_NOFOLLOW) == 0)
				continue;
			if (errno == ENOENT &&
			    renameat(dfd, live, dfd, past) == 0) {
				close(fd);
				return 0;
			}
			e = errno;
		}
		if (e != EEXIST) {
			close(fd);
			errno = e;
			goto bad;
		}
	}
	(void)unlinkat(dfd, live, 0);
	close(fd);
	return 0;
bad:
	warn("record %s: kept as a past session", sbx_shown(name, sh,
	    sizeof(sh)));
	return -1;
}
