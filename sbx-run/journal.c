/*
 * journal.c: NAME.journal, one JSON line per call of sbx-run (never a
 * forwarded variable's value).  Each record is one O_APPEND write under a
 * shared lock; past JOURNAL_MAX a writer takes the lock alone and keeps
 * the newest half.  A journal that cannot be written costs one warning.
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
#include "sbxstate.h"
#include "sbx-run.h"

#define JOURNAL_MAX	(1024 * 1024)
#define RECORD_MAX	4096
#define READ_MAX	(8 * JOURNAL_MAX)	/* what -J reads at most */
#define TAIL		"],\"truncated\":true}\n"
#define TRIMMED		"{\"trimmed\":"

void
journal_begin(struct jcall *j)
{
	memset(j, 0, sizeof(*j));
	clock_gettime(CLOCK_REALTIME, &j->began);
	clock_gettime(CLOCK_MONOTONIC, &j->mbegan);
}

/*
 * "blocked":[...], from "a,b": the hosts sbx blocked during the call,
 * within JOURNAL_BLOCKED_MAX bytes of the record.
 */
static size_t
blocked(char *rec, size_t len, const char *list)
{
	const char *c;
	size_t n, host, end = len + JOURNAL_BLOCKED_MAX;
	char one[JOURNAL_BLOCKED_MAX];

	if (list == NULL || *list == '\0')
		return len;
	len += (size_t)snprintf(rec + len, 16, "\"blocked\":[");
	for (; ; list = c + 1) {
		c = strchr(list, ',');
		host = c != NULL ? (size_t)(c - list) : strlen(list);
		if (host >= sizeof(one) || len + host + 8 > end)
			break;
		memcpy(one, list, host);
		one[host] = '\0';
		rec[len++] = '"';
		if (sbx_jsonout_esc(rec + len, end - len - 4, one, &n) < host) {
			len--;	/* no room for it whole: left out */
			break;
		}
		len += n;
		rec[len++] = '"';
		if (c == NULL)
			break;
		rec[len++] = ',';
	}
	if (rec[len - 1] == ',')
		len--;
	return len + (size_t)snprintf(rec + len, 4, "],");
}

static size_t
record(char *rec, const struct jcall *j, char *const *argv, int raw,
    int status)
{
	struct timespec now;
	struct tm tm;
	char when[32];
	size_t len, room = RECORD_MAX - sizeof(TAIL), used, n, i;
	long long ms;
	int cut = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(now.tv_sec - j->mbegan.tv_sec) * 1000 +
	    (now.tv_nsec - j->mbegan.tv_nsec) / 1000000;
	if (gmtime_r(&j->began.tv_sec, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		strcpy(when, "1970-01-01T00:00:00");
	len = (size_t)snprintf(rec, RECORD_MAX, "{\"time\":\"%s.%03ldZ\","
	    "\"status\":%d,\"ms\":%lld,\"bytes\":%llu,\"timeout\":%d,"
	    "\"raw\":%s,",
	    when, j->began.tv_nsec / 1000000, status, ms, j->bytes,
	    j->timeout, raw ? "true" : "false");
	len = blocked(rec, len, j->blocked);
	len += (size_t)snprintf(rec + len, 16, "\"argv\":[");
	for (i = 0; argv[i] != NULL && !cut; i++) {
		if (len + 3 > room) {
			cut = 1;
			break;
		}
		if (i > 0)
			rec[len++] = ',';
		rec[len++] = '"';
		used = sbx_jsonout_esc(rec + len, room - len - 1, argv[i], &n);
		len += n;
		rec[len++] = '"';
		cut = argv[i][used] != '\0';
	}
	memcpy(rec + len, cut ? TAIL : "]}\n", cut ? sizeof(TAIL) : 4);
	return len + (cut ? sizeof(TAIL) : 4) - 1;
}

/* Within the call's timeout: a journal lock held longer costs a warning. */
static int
setlock(int fd, short type, int timeout)
{
	return sbx_lock_setlk(fd, type, 0, 0,
	    timeout > 0 ? timeout * 1000LL : -1);
}

/*
 * Open the journal, never through a link, and lock it, again if a trim
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
		if (setlock(fd, type, timeout) == -1) {
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

static long long
trimmed(const char *text, size_t len)
{
	const char *nl = memchr(text, '\n', len), *errstr = "absent";
	const struct sbx_json *v;
	struct sbx_json *j;
	long long n = -1;

	if (nl == NULL || len < sizeof(TRIMMED) - 1 ||
	    memcmp(text, TRIMMED, sizeof(TRIMMED) - 1) != 0 ||
	    (j = sbx_json_parse(text, (size_t)(nl - text), NULL)) == NULL)
		return -1;
	if ((v = sbx_json_get(j, "trimmed")) != NULL && v->type == SBX_JNUM)
		n = sbx_strtonum(v->str, 0, LLONG_MAX, &errstr);
	sbx_json_free(j);
	return errstr == NULL ? n : -1;
}

/* Replace the journal, held alone through fd, with its newest half. */
static int
trim(int dfd, const char *file, int fd, off_t size)
{
	char chunk[65536], *text;
	off_t keep = size - JOURNAL_MAX / 2, off, cut = size;
	long long old = -1, lines = 0;
	ssize_t r = 0, i;
	int n, ret;

	for (off = 0; off < size && cut == size; off += r) {
		if ((r = pread(fd, chunk, sizeof(chunk), off)) <= 0)
			return -1;
		if (off == 0)
			old = trimmed(chunk, (size_t)r);
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
	n = snprintf(text, 64, TRIMMED "%lld}\n", lines);
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

static int
append(int dfd, const char *file, const char *rec, size_t len, int timeout)
{
	struct stat st;
	ssize_t w;
	int fd, ret = 0, e;

	if ((fd = openlocked(dfd, file, F_RDLCK, timeout)) == -1)
		return -1;
	while ((w = write(fd, rec, len)) == -1 && errno == EINTR)
		;
	if (w != (ssize_t)len) {
		e = w == -1 ? errno : ENOSPC;
		close(fd);
		return errno = e, -1;
	}
	if (fstat(fd, &st) == 0 && st.st_size > JOURNAL_MAX) {
		close(fd);
		/* the one that gets it alone trims; a trimmed file is let be */
		if ((fd = openlocked(dfd, file, F_WRLCK, timeout)) == -1)
			return errno == ENOENT ? 0 : -1;
		if (fstat(fd, &st) == 0 && st.st_size > JOURNAL_MAX)
			ret = trim(dfd, file, fd, st.st_size);
	}
	e = errno;
	close(fd);
	errno = e;
	return ret;
}

void
journal_add(const struct jcall *j, const char *name, char *const *argv,
    int raw, int status)
{
	char rec[RECORD_MAX], dir[4096], file[SBX_MARKER_MAX];
	size_t len = record(rec, j, argv, raw, status);
	int dfd;

	if (sbx_marker_path(file, sizeof(file), name, SBX_M_JOURNAL) == -1 ||
	    (dfd = sbx_xstatedir_open(dir, sizeof(dir))) == -1)
		return;
	if (append(dfd, file, rec, len, j->timeout) == -1)
		warn("journal %s/%s", dir, file);
	close(dfd);
}

/* -J: {"calls":N}, N ever journaled, then the last count records in order. */
int
journal_print(const char *name, long long count, int timeout)
{
	struct sbx_buf b = { NULL, 0, 0 };
	struct sbx_json *j;
	char dir[4096], file[SBX_MARKER_MAX], *p, *nl;
	long long calls = 0, valid = 0, seen = 0, first;
	int dfd, fd, pass;

	if (sbx_marker_path(file, sizeof(file), name, SBX_M_JOURNAL) == -1 ||
	    (dfd = sbx_xstatedir_open(dir, sizeof(dir))) == -1)
		return SBX_EX_FAIL;
	fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1 && errno != ENOENT)
		err(SBX_EX_FAIL, "%s/%s", dir, file);
	if (fd != -1 && (setlock(fd, F_RDLCK, timeout) == -1 ||
	    sbx_io_buf_readfd(&b, fd, READ_MAX) == -1))
		err(SBX_EX_FAIL, "%s/%s", dir, file);
	if (b.len > 0 && (calls = trimmed(b.data, b.len)) < 0)
		calls = 0;
	/* twice: count the whole records, then print the last of them */
	for (pass = 0; pass < 2 && b.len > 0; pass++) {
		first = valid > count ? valid - count : 0;
		for (p = b.data; (nl = memchr(p, '\n', b.len -
		    (size_t)(p - b.data))) != NULL; p = nl + 1) {
			if ((j = sbx_json_parse(p, (size_t)(nl - p), NULL)) ==
			    NULL)
				continue;
			if (sbx_json_get(j, "argv") != NULL) {
				if (pass == 0)
					valid++;
				else if (seen++ >= first) {
					sbx_jsonout_putline(stdout, p,
					    (size_t)(nl - p));
					putchar('\n');
				}
			}
			sbx_json_free(j);
		}
		if (pass == 0)
			printf("{\"calls\":%lld}\n", calls + valid);
	}
	if (b.len == 0)
		printf("{\"calls\":0}\n");
	sbx_io_buf_free(&b);
	if (fd != -1)
		close(fd);
	close(dfd);
	if (sbx_io_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return SBX_EX_OK;
}
