/*
 * tripseen.c: the tripwire's findings told, each once a session: on
 * standard error, in the session's record, and in the state directory's
 * tripwire-unseen, one JSON line each, where they stay until the user
 * has seen them (sbx-run -F) or newer ones push them out.  One lock,
 * .tripwire.lock, orders every reader and writer of both files.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxjson.h"
#include "sbxrecord.h"
#include "sbxstate.h"
#include "sbxtrip.h"

#define UNSEEN_MAX	(256 * 1024)	/* bytes of tripwire-unseen */
#define MEMBERS_MAX	2048		/* one finding's JSON members */

struct run {
	int		 dfd;
	const char	*name;
	struct sbx_tripstate *st;
	struct sbx_buf	 told;		/* "t CHANGE PATH" lines, grown */
	struct sbx_buf	 unseen;	/* new lines for tripwire-unseen */
	char		 time[32];
	unsigned	 n;		/* findings told before */
};

/* "key":"value", escaped; a comma first unless it is the first. */
static void
member(char *buf, size_t size, const char *key, const char *v)
{
	size_t len = strlen(buf), w;

	if (len + strlen(key) + 8 >= size)
		return;
	len += (size_t)snprintf(buf + len, size - len, "%s\"%s\":\"",
	    len > 0 ? "," : "", key);
	(void)sbx_jsonout_esc(buf + len, size - len - 3, v, &w);
	len += w;
	(void)snprintf(buf + len, size - len, "\"");
}

static const char *
typeword(char t)
{
	switch (t) {
	case 'f':	return "file";
	case 'd':	return "directory";
	case 'l':	return "link";
	case 'p':	return "fifo";
	case 'c':	return "character device";
	case 'b':	return "block device";
	case 's':	return "socket";
	default:	return "unknown";
	}
}

/* Told already this session?  Else it is now. */
static int
told(struct run *r, const struct sbx_tripfind *f)
{
	static const char hexd[] = "0123456789abcdef";
	char key[SBX_TRIP_PATH * 2 + 32];
	const char *p, *s = r->told.data != NULL ? r->told.data : "";
	size_t n, klen;

	n = (size_t)snprintf(key, sizeof(key), "t %s ", f->change);
	for (p = f->path; *p != '\0' && n + 3 < sizeof(key); p++) {
		key[n++] = hexd[(unsigned char)*p >> 4];
		key[n++] = hexd[(unsigned char)*p & 15];
	}
	key[n++] = '\n';
	key[n] = '\0';
	klen = n;
	for (p = s; (p = strstr(p, key)) != NULL; p += klen)
		if (p == s || p[-1] == '\n')
			return 1;
	(void)sbx_io_buf_add(&r->told, key, klen);
	return 0;
}

static int
finding(void *arg, const struct sbx_tripfind *f)
{
	struct run *r = arg;
	char members[MEMBERS_MAX], path[SBX_TRIP_PATH * 4], more[SBX_TRIP_PATH * 4];
	char id[SBX_NAME_MAX + 16], line[MEMBERS_MAX + sizeof(r->st->ws) * 2];
	const char *why = sbx_tripcmp_why(f->why);

	if (told(r, f))
		return 0;
	members[0] = '\0';
	member(members, sizeof(members), "path", f->path);
	member(members, sizeof(members), "change", f->change);
	member(members, sizeof(members), "runner", f->runner);
	member(members, sizeof(members), "type", typeword(f->type));
	if (f->target != NULL)
		member(members, sizeof(members), "target", f->target);
	if (*why != '\0')
		member(members, sizeof(members), "why", why);
	more[0] = '\0';
	if (f->target != NULL)
		(void)snprintf(more, sizeof(more), " to %s",
		    sbx_shown(f->target, path, 256));
	warnx("tripwire: %s: %s (%s%s%s%s): %s", sbx_shown(f->path, path,
	    sizeof(path)), f->change, sbx_tripcmp_what(f->type), more,
	    *why != '\0' ? ", " : "", why, f->runner);
	(void)sbx_record_event(r->dfd, r->name, "tripwire", members);
	(void)snprintf(id, sizeof(id), "%s-%u", r->name, ++r->n);
	line[0] = '\0';
	member(line, sizeof(line), "id", id);
	member(line, sizeof(line), "time", r->time);
	member(line, sizeof(line), "sandbox", r->name);
	member(line, sizeof(line), "workspace", r->st->ws);
	(void)sbx_io_buf_add(&r->unseen, "{", 1);
	(void)sbx_io_buf_add(&r->unseen, line, strlen(line));
	(void)sbx_io_buf_add(&r->unseen, ",", 1);
	(void)sbx_io_buf_add(&r->unseen, members, strlen(members));
	(void)sbx_io_buf_add(&r->unseen, "}\n", 2);
	return 0;
}

/* tripwire-unseen, "" when there is none; NULL with errno. */
static char *
unseen_read(int dfd)
{
	char *buf;

	if ((buf = malloc(UNSEEN_MAX + 1)) == NULL)
		return NULL;
	if (sbx_state_readmax(dfd, SBX_TRIPWIRE_UNSEEN, buf,
	    UNSEEN_MAX + 1) == -1) {
		if (errno != ENOENT) {
			free(buf);
			return NULL;
		}
		buf[0] = '\0';
	}
	return buf;
}

/* old then add, the oldest lines dropped past UNSEEN_MAX. */
static int
unseen_write(int dfd, const char *old, const char *add)
{
	struct sbx_buf b;
	size_t len = strlen(old) + strlen(add);
	const char *p = old, *nl;
	int r;

	while (len >= UNSEEN_MAX && (nl = strchr(p, '\n')) != NULL) {
		len -= (size_t)(nl + 1 - p);
		p = nl + 1;
	}
	if (len >= UNSEEN_MAX)
		return errno = EFBIG, -1;
	memset(&b, 0, sizeof(b));
	if (sbx_io_buf_add(&b, p, strlen(p)) == -1 ||
	    sbx_io_buf_add(&b, add, strlen(add)) == -1) {
		sbx_io_buf_free(&b);
		return -1;
	}
	r = *b.data == '\0' ? sbx_state_remove(dfd, SBX_TRIPWIRE_UNSEEN) :
	    sbx_state_write(dfd, SBX_TRIPWIRE_UNSEEN, b.data);
	sbx_io_buf_free(&b);
	return r;
}

static unsigned
count_told(const char *s)
{
	unsigned n = 0;

	for (; s != NULL && *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

/*
 * Compare the workspace with NAME.tripwire, if there is one, and tell
 * what is new (flags: SBX_TRIP_FULL hashes every file, else only those
 * whose stat changed; SBX_TRIP_QUIET says nothing of a fingerprint that
 * cannot be used).  0, or -1 after a warning.
 */
int
sbx_tripseen_check(int dfd, const char *name, int flags)
{
	struct sbx_tripstate st;
	struct sbx_trip now;
	struct run r;
	struct tm tm;
	time_t t = time(NULL);
	char *old;
	int lfd, wsfd, ret = -1;

	if ((lfd = sbx_lock(dfd, SBX_TRIPWIRE_LOCK, 1)) == -1) {
		warn("%s", SBX_TRIPWIRE_LOCK);
		return -1;
	}
	if (sbx_tripfile_load(dfd, name, &st) == -1) {
		if (errno == ENOENT)
			ret = 0;
		else if (!(flags & SBX_TRIP_QUIET))
			warn("%s.tripwire", name);
		close(lfd);
		return ret;
	}
	memset(&r, 0, sizeof(r));
	memset(&now, 0, sizeof(now));
	r.dfd = dfd;
	r.name = name;
	r.st = &st;
	r.n = count_told(st.told);
	(void)strftime(r.time, sizeof(r.time), "%Y-%m-%dT%H:%M:%SZ",
	    gmtime_r(&t, &tm));
	if (st.told != NULL &&
	    sbx_io_buf_add(&r.told, st.told, strlen(st.told)) == -1)
		goto out;
	if ((wsfd = open(st.ws, O_RDONLY | O_DIRECTORY | O_NONBLOCK |
	    O_CLOEXEC)) == -1) {
		if (!(flags & SBX_TRIP_QUIET))
			warn("tripwire: workspace %s", st.ws);
		goto out;
	}
	if (sbx_tripscan(wsfd, &st.list, flags & SBX_TRIP_FULL ? NULL :
	    &st.base, &now) == -1) {
		warn("tripwire");
		close(wsfd);
		goto out;
	}
	close(wsfd);
	(void)sbx_tripcmp_compare(&st.base, &now, finding, &r);
	if (r.unseen.len == 0) {
		ret = 0;
		goto out;
	}
	free(st.told);
	st.told = r.told.data;
	r.told.data = NULL;
	if (sbx_tripfile_save(dfd, name, &st) == -1)
		warn("%s.tripwire", name);
	if ((old = unseen_read(dfd)) == NULL ||
	    unseen_write(dfd, old, r.unseen.data) == -1)
		warn("%s", SBX_TRIPWIRE_UNSEEN);
	else
		ret = 0;
	free(old);
out:
	sbx_io_buf_free(&r.told);
	sbx_io_buf_free(&r.unseen);
	sbx_tripscan_free(&now);
	sbx_tripfile_free(&st);
	close(lfd);
	return ret;
}

/* Is line a finding of workspace ws, and (ids non-NULL) one of ids? */
static int
ours(const char *line, size_t len, const char *ws, char *const *ids)
{
	struct sbx_json *j;
	const char *w, *id;
	int yes;

	if ((j = sbx_json_parse(line, len, NULL)) == NULL)
		return 0;
	yes = (w = sbx_json_str(j, "workspace")) != NULL &&
	    strcmp(w, ws) == 0;
	if (yes && ids != NULL) {
		id = sbx_json_str(j, "id");
		for (yes = 0; id != NULL && *ids != NULL && !yes; ids++)
			yes = strcmp(*ids, id) == 0;
	}
	sbx_json_free(j);
	return yes;
}

/*
 * Each finding of workspace ws not seen yet, a JSON line on fp (ids
 * NULL); or those of ids marked seen (fp NULL).  0, or -1 with errno.
 */
static int
each(int dfd, const char *ws, char *const *ids, FILE *fp)
{
	struct sbx_buf keep;
	char *all, *l, *nl;
	int lfd, r = 0;

	if ((lfd = sbx_lock(dfd, SBX_TRIPWIRE_LOCK, 1)) == -1)
		return -1;
	if ((all = unseen_read(dfd)) == NULL) {
		close(lfd);
		return -1;
	}
	memset(&keep, 0, sizeof(keep));
	for (l = all; r == 0 && (nl = strchr(l, '\n')) != NULL; l = nl + 1) {
		if (fp != NULL) {
			if (ours(l, (size_t)(nl - l), ws, NULL))
				r = fwrite(l, 1, (size_t)(nl + 1 - l), fp) ==
				    (size_t)(nl + 1 - l) ? 0 : -1;
		} else if (!ours(l, (size_t)(nl - l), ws, ids))
			r = sbx_io_buf_add(&keep, l, (size_t)(nl + 1 - l));
	}
	if (r == 0 && fp == NULL)
		r = unseen_write(dfd, keep.data != NULL ? keep.data : "", "");
	sbx_io_buf_free(&keep);
	free(all);
	close(lfd);
	return r;
}

int
sbx_tripseen_list(int dfd, const char *ws, FILE *fp)
{
	return each(dfd, ws, NULL, fp);
}

int
sbx_tripseen_mark(int dfd, const char *ws, char *const *ids)
{
	return each(dfd, ws, ids, NULL);
}
