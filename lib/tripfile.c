/*
 * tripfile.c: NAME.tripwire, the fingerprint sbx-run takes when it
 * provisions the session's sandbox, the paths it watched and the
 * findings told since.  Paths are kept in hex: a workspace name may hold
 * any byte.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxconf.h"
#include "sbxmarker.h"
#include "sbxstate.h"
#include "sbxtrip.h"

#define MAGIC		"tripwire 1\n"
#define LOAD_MAX	(4 * 1024 * 1024)
#define TOLD_MAX	(64 * 1024)	/* bytes of findings told kept */

static const char hexd[] = "0123456789abcdef";

static int
addhex(struct sbx_buf *b, const char *s)
{
	char two[2];
	int r = 0;

	if (*s == '\0')
		return sbx_io_buf_add(b, "-", 1);
	for (; *s != '\0' && r == 0; s++) {
		two[0] = hexd[(unsigned char)*s >> 4];
		two[1] = hexd[(unsigned char)*s & 15];
		r = sbx_io_buf_add(b, two, 2);
	}
	return r;
}

static int
unhex(const char *h, char *out, size_t size)
{
	const char *p, *q;
	size_t n = 0;

	if (strcmp(h, "-") == 0) {
		*out = '\0';
		return 0;
	}
	for (; h[0] != '\0'; h += 2) {
		if (h[1] == '\0' || (p = strchr(hexd, h[0])) == NULL ||
		    (q = strchr(hexd, h[1])) == NULL || n + 1 >= size ||
		    (p == hexd && q == hexd))
			return -1;
		out[n++] = (char)((p - hexd) << 4 | (q - hexd));
	}
	out[n] = '\0';
	return 0;
}

int
sbx_tripfile_save(int dfd, const char *name, const struct sbx_tripstate *st)
{
	char file[SBX_MARKER_MAX];
	const struct sbx_tripent *e;
	struct sbx_buf b;
	char line[320];
	size_t i;
	int r = 0;

	if (sbx_marker_path(file, sizeof(file), name, SBX_M_TRIPWIRE) == -1)
		return -1;
	memset(&b, 0, sizeof(b));
	r |= sbx_io_buf_add(&b, MAGIC, strlen(MAGIC));
	r |= sbx_io_buf_add(&b, "w ", 2);
	r |= addhex(&b, st->ws);
	(void)snprintf(line, sizeof(line), "\ni %llu %llu\n", st->base.wsdev,
	    st->base.wsino);
	r |= sbx_io_buf_add(&b, line, strlen(line));
	for (i = st->list.builtin; i < st->list.n; i++) {
		r |= sbx_io_buf_add(&b, "x ", 2);
		r |= addhex(&b, st->list.r[i].path);
		r |= sbx_io_buf_add(&b, "\n", 1);
	}
	for (i = 0; i < st->base.n && r == 0; i++) {
		e = &st->base.e[i];
		(void)snprintf(line, sizeof(line), "e %c %d %d %d %u %lld %lld "
		    "%lld %lld %lld %llu %llu %016llx ", e->type, e->why,
		    e->runner, e->hashed, e->mode, e->size, e->mtime,
		    e->mtimens, e->ctime, e->ctimens, e->ino, e->dev,
		    (unsigned long long)e->hash);
		r |= sbx_io_buf_add(&b, line, strlen(line));
		r |= addhex(&b, e->path);
		r |= sbx_io_buf_add(&b, " ", 1);
		r |= addhex(&b, e->target);
		r |= sbx_io_buf_add(&b, "\n", 1);
	}
	if (st->told != NULL)
		r |= sbx_io_buf_add(&b, st->told, strlen(st->told));
	if (r == 0)
		r = sbx_state_write(dfd, file, b.data);
	sbx_io_buf_free(&b);
	return r == 0 ? 0 : -1;
}

#define NFIELDS	15	/* of an "e" line, after the "e" */

/* A number of a line, whole, in min..max; -1 for another word. */
static int
field(const char *w, long long min, long long max, long long *v)
{
	const char *errstr;

	*v = sbx_strtonum(w, min, max, &errstr);
	return errstr == NULL ? 0 : -1;
}

/*
 * One "e" line into e: type, why, runner, hashed, mode, size, mtime and
 * its ns, ctime and its ns, inode, device, hash, path, target; -1 for a
 * line not ours.
 */
static int
entline(char *l, struct sbx_tripent *e)
{
	char *w[NFIELDS], *p = l + 2;
	long long v[NFIELDS];
	unsigned long long h = 0;
	const char *c, *d;
	size_t i;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < NFIELDS; i++) {
		w[i] = p;
		p = strchr(p, ' ');
		if ((p == NULL) != (i == NFIELDS - 1))
			return -1;
		if (p != NULL)
			*p++ = '\0';
	}
	if (strlen(w[0]) != 1 || strlen(w[12]) != 16)
		return -1;
	for (i = 1; i < 12; i++)
		if (field(w[i], i >= 6 && i <= 9 ? LLONG_MIN : 0, i == 2 ?
		    SBX_TRIP_ROWS - 1 : LLONG_MAX, &v[i]) == -1)
			return -1;
	for (c = w[12]; *c != '\0'; c++) {
		if ((d = strchr(hexd, *c)) == NULL)
			return -1;
		h = h << 4 | (unsigned long long)(d - hexd);
	}
	e->type = w[0][0];
	e->why = (int)v[1];
	e->runner = (int)v[2];
	e->hashed = (int)v[3];
	e->mode = (unsigned)v[4];
	e->size = v[5];
	e->mtime = v[6];
	e->mtimens = v[7];
	e->ctime = v[8];
	e->ctimens = v[9];
	e->ino = (unsigned long long)v[10];
	e->dev = (unsigned long long)v[11];
	e->hash = (uint64_t)h;
	if (unhex(w[13], e->path, sizeof(e->path)) == -1 ||
	    e->path[0] == '\0' ||
	    unhex(w[14], e->target, sizeof(e->target)) == -1)
		return -1;
	return 0;
}

static int
loadline(struct sbx_tripstate *st, char *l, struct sbx_buf *told)
{
	char path[SBX_TRIP_PATH], why[64], *sp;
	long long dev, ino;

	if (strncmp(l, "w ", 2) == 0)
		return unhex(l + 2, st->ws, sizeof(st->ws));
	if (strncmp(l, "i ", 2) == 0) {
		if ((sp = strchr(l + 2, ' ')) == NULL)
			return -1;
		*sp = '\0';
		if (field(l + 2, 0, LLONG_MAX, &dev) == -1 ||
		    field(sp + 1, 0, LLONG_MAX, &ino) == -1)
			return -1;
		st->base.wsdev = (unsigned long long)dev;
		st->base.wsino = (unsigned long long)ino;
		return 0;
	}
	if (strncmp(l, "x ", 2) == 0)
		return unhex(l + 2, path, sizeof(path)) == -1 ? -1 :
		    sbx_triplist_add(&st->list, path, why, sizeof(why));
	if (strncmp(l, "t ", 2) == 0)
		return told->len + strlen(l) + 1 > TOLD_MAX ? 0 :
		    sbx_io_buf_add(told, l, strlen(l)) == -1 ||
		    sbx_io_buf_add(told, "\n", 1) == -1 ? -1 : 0;
	if (strncmp(l, "e ", 2) == 0) {
		if (st->base.n >= SBX_TRIP_ENTRIES + 4 * SBX_TRIP_ROWS)
			return -1;
		return entline(l, &st->base.e[st->base.n++]);
	}
	return -1;
}

/*
 * NAME.tripwire into st: 0; -1 with errno (ENOENT: none was taken,
 * EINVAL: not one of ours).
 */
int
sbx_tripfile_load(int dfd, const char *name, struct sbx_tripstate *st)
{
	char file[SBX_MARKER_MAX], *buf, *l, *nl;
	struct sbx_buf told;
	int n;

	memset(st, 0, sizeof(*st));
	memset(&told, 0, sizeof(told));
	sbx_triplist_builtin(&st->list);
	if (sbx_marker_path(file, sizeof(file), name, SBX_M_TRIPWIRE) == -1 ||
	    (buf = malloc(LOAD_MAX)) == NULL)
		return -1;
	if ((n = sbx_state_readmax(dfd, file, buf, LOAD_MAX)) == -1 ||
	    strncmp(buf, MAGIC, strlen(MAGIC)) != 0 ||
	    (st->base.e = calloc(SBX_TRIP_ENTRIES + 4 * SBX_TRIP_ROWS,
	    sizeof(*st->base.e))) == NULL) {
		if (n != -1)
			errno = EINVAL;
		goto bad;
	}
	for (l = buf + strlen(MAGIC); *l != '\0'; l = nl + 1) {
		if ((nl = strchr(l, '\n')) == NULL)
			break;
		*nl = '\0';
		if (loadline(st, l, &told) == -1) {
			errno = EINVAL;
			goto bad;
		}
	}
	free(buf);
	st->told = told.data;
	st->ntold = told.len;
	return 0;
bad:
	n = errno;
	free(buf);
	sbx_io_buf_free(&told);
	sbx_tripscan_free(&st->base);
	errno = n;
	return -1;
}

void
sbx_tripfile_free(struct sbx_tripstate *st)
{
	sbx_tripscan_free(&st->base);
	free(st->told);
	st->told = NULL;
}

/*
 * Fingerprint workspace ws (absolute) as NAME.tripwire: the list and
 * DOCKER_SANDBOX_TRIPWIRE's paths.  0, or -1 with errno.
 */
int
sbx_tripfile_take(int dfd, const char *name, const char *ws)
{
	struct sbx_tripstate st;
	const char *v, *p;
	char one[SBX_TRIP_PATH], why[64];
	size_t len;
	int wsfd, r, e;

	memset(&st, 0, sizeof(st));
	sbx_triplist_builtin(&st.list);
	if ((v = sbx_xconf_str(SBX_CONF_TRIPWIRE)) != NULL)
		for (p = v; ; p += len + 1) {
			len = strcspn(p, ",");
			if (len < sizeof(one)) {
				memcpy(one, p, len);
				one[len] = '\0';
				(void)sbx_triplist_add(&st.list, one, why,
				    sizeof(why));
			}
			if (p[len] == '\0')
				break;
		}
	if (snprintf(st.ws, sizeof(st.ws), "%s", ws) >= (int)sizeof(st.ws))
		return errno = ENAMETOOLONG, -1;
	if ((wsfd = open(ws, O_RDONLY | O_DIRECTORY | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return -1;
	r = sbx_tripscan(wsfd, &st.list, NULL, &st.base);
	close(wsfd);
	if (r == 0)
		r = sbx_tripfile_save(dfd, name, &st);
	e = errno;
	sbx_tripscan_free(&st.base);
	errno = e;
	return r;
}
