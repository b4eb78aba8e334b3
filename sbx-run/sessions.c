/*
 * sessions.c: the sessions whose records the state directory keeps: a
 * live one's NAME.journal, a past one's NAME.past-END (sbxrecord.h).
 * -L lists them; -J reads a name's live record, else its latest past one.
 * A record is read only as a regular file of ours, never through a link.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxjson.h"
#include "sbxmarker.h"
#include "sbxname.h"
#include "sbxrecord.h"
#include "sbxstate.h"
#include "sbx-run.h"

#define LIST_MAX	100000	/* records listed at most */
#define LOCK_WAIT	2	/* seconds a live record's lock is waited for */

struct session {
	char	 name[SBX_NAME_MAX + 1];
	char	 file[SBX_MARKER_MAX];
	int	 live;
	char	 start[SBX_RECORD_TIME];
	char	 end[SBX_RECORD_TIME];
	char	*workspace;
	long long calls, failures;
};

/* Open a record file: regular and ours, else -1 (EINVAL). */
int
sessions_openat(int dfd, const char *file)
{
	struct stat st;
	int fd;

	fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid()) {
		close(fd);
		return errno = EINVAL, -1;
	}
	return fd;
}

/*
 * The record -J reads for name into file: its live record, else its
 * latest past one.  Its descriptor, or -1 (ENOENT for none).
 */
int
sessions_open(int dfd, const char *name, char *file, size_t size)
{
	char n[SBX_NAME_MAX + 1], best[SBX_MARKER_MAX];
	long long end, k, bend = -1, bk = -1;
	struct dirent *de;
	DIR *d;
	int fd;

	if (sbx_marker_path(file, size, name, SBX_M_JOURNAL) == -1)
		return -1;
	if ((fd = sessions_openat(dfd, file)) != -1 || errno != ENOENT)
		return fd;
	if ((fd = dup(dfd)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL)
		if (sbx_marker_past_parse(de->d_name, n, sizeof(n), &end,
		    &k) == 0 && strcmp(n, name) == 0 &&
		    (end > bend || (end == bend && k > bk)) &&
		    strlen(de->d_name) < sizeof(best)) {
			bend = end;
			bk = k;
			(void)snprintf(best, sizeof(best), "%s", de->d_name);
		}
	closedir(d);
	if (bend == -1 || strlen(best) >= size)
		return errno = ENOENT, -1;
	(void)snprintf(file, size, "%s", best);
	return sessions_openat(dfd, file);
}

/* What -L shows of one record's lines. */
static void
summarize(struct session *s, const char *text, size_t len)
{
	const struct sbx_json *v;
	struct sbx_json *j;
	const char *p, *nl, *t, *ev, *ws;
	long long n;

	if ((n = sbx_record_trimmed(text, len)) > 0)
		s->calls = n;
	for (p = text; (nl = memchr(p, '\n', len - (size_t)(p - text))) !=
	    NULL; p = nl + 1) {
		if ((j = sbx_json_parse(p, (size_t)(nl - p), NULL)) == NULL)
			continue;
		t = sbx_json_str(j, "time");
		if (t != NULL && s->start[0] == '\0' &&
		    strlen(t) < sizeof(s->start))
			(void)snprintf(s->start, sizeof(s->start), "%s", t);
		ev = sbx_json_str(j, "event");
		if (sbx_json_get(j, "argv") != NULL && ev == NULL) {
			s->calls++;
			if ((v = sbx_json_get(j, "status")) != NULL &&
			    v->type == SBX_JNUM && strcmp(v->str, "0") != 0)
				s->failures++;
		} else if (ev != NULL && strcmp(ev, "end") == 0 && t != NULL &&
		    strlen(t) < sizeof(s->end))
			(void)snprintf(s->end, sizeof(s->end), "%s", t);
		else if (ev != NULL && strcmp(ev, "session") == 0 &&
		    s->workspace == NULL &&
		    (ws = sbx_json_str(j, "workspace")) != NULL)
			s->workspace = strdup(ws);
		sbx_json_free(j);
	}
}

static int
take(int dfd, struct session *s, const char *dir)
{
	struct sbx_buf b = { NULL, 0, 0 };
	int fd;

	if ((fd = sessions_openat(dfd, s->file)) == -1 ||
	    (s->live && sbx_record_lock(fd, F_RDLCK, LOCK_WAIT) == -1) ||
	    sbx_io_buf_readfd(&b, fd, SESSIONS_READ_MAX) == -1) {
		warn("%s/%s", dir, s->file);
		if (fd != -1)
			close(fd);
		sbx_io_buf_free(&b);
		return -1;
	}
	close(fd);
	if (b.len > 0)
		summarize(s, b.data, b.len);
	sbx_io_buf_free(&b);
	return 0;
}

static int
order(const void *a, const void *b)
{
	const struct session *x = a, *y = b;
	int c;

	if ((c = strcmp(x->start, y->start)) != 0)
		return c;
	if (x->live != y->live)
		return x->live - y->live;
	return strcmp(x->file, y->file);
}

/*
 * A record's time as text shows it, to the second, into buf
 * (SESSIONS_TIME); "-" when it is none, or not a time a writer of the
 * record wrote.
 */
const char *
sessions_time(const char *t, char *buf)
{
	static const char form[] = "dddd-dd-ddTdd:dd:dd";
	size_t i;

	for (i = 0; form[i] != '\0'; i++)
		if (form[i] == 'd' ? t[i] < '0' || t[i] > '9' : t[i] != form[i])
			return "-";
	(void)snprintf(buf, SESSIONS_TIME, "%.19sZ", t);
	return buf;
}

static void
print_json(const struct session *s)
{
	printf("{\"name\":\"%s\",\"record\":", s->name);
	sbx_jsonout_puts(stdout, s->file);
	printf(",\"live\":%s,\"start\":", s->live ? "true" : "false");
	if (s->start[0] != '\0')
		sbx_jsonout_puts(stdout, s->start);
	else
		fputs("null", stdout);
	fputs(",\"end\":", stdout);
	if (s->end[0] != '\0')
		sbx_jsonout_puts(stdout, s->end);
	else
		fputs("null", stdout);
	printf(",\"calls\":%lld,\"failures\":%lld,\"workspace\":", s->calls,
	    s->failures);
	if (s->workspace != NULL)
		sbx_jsonout_puts(stdout, s->workspace);
	else
		fputs("null", stdout);
	fputs("}\n", stdout);
}

static void
print_text(const struct session *s)
{
	char a[SESSIONS_TIME], b[SESSIONS_TIME], ws[1024];

	printf("%-32s %-20s %-20s %6lld %6lld %s\n", s->name,
	    sessions_time(s->start, a), s->live && s->end[0] == '\0' ? "live" :
	    sessions_time(s->end, b), s->calls, s->failures,
	    s->workspace != NULL ? sbx_shown(s->workspace, ws, sizeof(ws)) :
	    "-");
}

/* -L: each record, oldest session first; -j: as JSON lines. */
int
sessions_list(int json)
{
	struct session *v = NULL, *nv, *s;
	struct dirent *de;
	char dir[4096], name[SBX_NAME_MAX + 1];
	long long end, k;
	size_t n = 0, cap = 0, i;
	DIR *d;
	int dfd, fd, live;

	if ((dfd = sbx_xstatedir_open(dir, sizeof(dir))) == -1)
		return SBX_EX_FAIL;
	if ((fd = dup(dfd)) == -1 || (d = fdopendir(fd)) == NULL)
		err(SBX_EX_FAIL, "%s", dir);
	while ((de = readdir(d)) != NULL && n < LIST_MAX) {
		live = sbx_marker_parse(de->d_name, name, sizeof(name)) ==
		    SBX_M_JOURNAL;
		if (!live && sbx_marker_past_parse(de->d_name, name,
		    sizeof(name), &end, &k) == -1)
			continue;
		if (n == cap) {
			cap = cap * 2 + 16;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
				err(SBX_EX_FAIL, NULL);
			v = nv;
		}
		s = &v[n];
		memset(s, 0, sizeof(*s));
		(void)snprintf(s->name, sizeof(s->name), "%s", name);
		if (strlen(de->d_name) >= sizeof(s->file))
			continue;
		(void)snprintf(s->file, sizeof(s->file), "%s", de->d_name);
		s->live = live;
		if (take(dfd, s, dir) == 0)
			n++;
	}
	closedir(d);
	close(dfd);
	if (n > 0)
		qsort(v, n, sizeof(*v), order);
	if (!json && n > 0)
		printf("%-32s %-20s %-20s %6s %6s %s\n", "NAME", "START", "END",
		    "CALLS", "FAILED", "WORKSPACE");
	for (i = 0; i < n; i++) {
		(json ? print_json : print_text)(&v[i]);
		free(v[i].workspace);
	}
	free(v);
	if (sbx_io_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return SBX_EX_OK;
}
