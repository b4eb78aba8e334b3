/*
 * tripscan.c: a fingerprint of the listed paths of a workspace (type,
 * mode, size, times, inode, FNV-1a of the content), each reached from the
 * workspace's descriptor a component at a time, O_NOFOLLOW|O_NONBLOCK: a
 * link is recorded with its text, never followed; a fifo or device is
 * never opened; nothing outside is read.  A bound that cut, a file that
 * could not be read or changed while hashed, is marked on its entry.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxtrip.h"
#include "sbx-internal.h"

/* the nanoseconds of a time: POSIX's st_mtim, macOS's st_mtimespec */
#if defined(__APPLE__)
#define MTIM(st)	((st)->st_mtimespec)
#define CTIM(st)	((st)->st_ctimespec)
#else
#define MTIM(st)	((st)->st_mtim)
#define CTIM(st)	((st)->st_ctim)
#endif

#define FNV_PRIME	0x100000001b3ULL
#define RESERVE		(4 * SBX_TRIP_ROWS)	/* the watched paths' own */
#define CUT_FULL	(-1)	/* SBX_TRIP_ENTRIES reached */
#define CUT_DIRENTS	(-2)	/* SBX_TRIP_DIRENTS read below one path */

/* test/tools/tripscan: called once a file's hash has begun */
void	(*sbx_tripscan_hook)(int, const char *);

struct scan {
	int		 wsfd;
	const struct sbx_trip *prev;	/* its stat-equal files keep their hash */
	struct sbx_trip	*t;
	size_t		 cap;		/* entries: the watched paths have more */
	size_t		 dirents;	/* read below the watched path */
};

uint64_t
sbx_tripscan_fnv(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len-- > 0) {
		h ^= *b++;
		h *= FNV_PRIME;
	}
	return h;
}

static int
bypath(const void *a, const void *b)
{
	return strcmp(((const struct sbx_tripent *)a)->path,
	    ((const struct sbx_tripent *)b)->path);
}

const struct sbx_tripent *
sbx_tripscan_find(const struct sbx_trip *t, const char *path)
{
	struct sbx_tripent key;

	if (t == NULL || t->n == 0 || strlen(path) >= sizeof(key.path))
		return NULL;
	memset(&key, 0, sizeof(key));
	memcpy(key.path, path, strlen(path) + 1);
	return bsearch(&key, t->e, t->n, sizeof(*t->e), bypath);
}

void
sbx_tripscan_free(struct sbx_trip *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

static char
typeof_mode(mode_t m)
{
	return S_ISREG(m) ? 'f' : S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' :
	    S_ISFIFO(m) ? 'p' : S_ISCHR(m) ? 'c' : S_ISBLK(m) ? 'b' :
	    S_ISSOCK(m) ? 's' : '?';
}

/* The entry of path taken so far, or NULL. */
static struct sbx_tripent *
lookup(struct scan *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->t->n; i++)
		if (strcmp(s->t->e[i].path, path) == 0)
			return &s->t->e[i];
	return NULL;
}

/* The entry of path, added if new; NULL once cap entries are taken. */
static struct sbx_tripent *
entry(struct scan *s, const char *path, int runner, size_t cap)
{
	struct sbx_trip *t = s->t;
	struct sbx_tripent *e;

	if ((e = lookup(s, path)) != NULL)
		return e;
	if (t->n >= cap)
		return NULL;
	e = &t->e[t->n++];
	memset(e, 0, sizeof(*e));
	(void)snprintf(e->path, sizeof(e->path), "%s", path);
	e->type = '?';
	e->runner = runner;
	return e;
}

static void
fill(struct sbx_tripent *e, const struct stat *st)
{
	e->type = typeof_mode(st->st_mode);
	e->mode = (unsigned)(st->st_mode & 07777);
	e->size = (long long)st->st_size;
	e->mtime = (long long)MTIM(st).tv_sec;
	e->mtimens = (long long)MTIM(st).tv_nsec;
	e->ctime = (long long)CTIM(st).tv_sec;
	e->ctimens = (long long)CTIM(st).tv_nsec;
	e->ino = (unsigned long long)st->st_ino;
	e->dev = (unsigned long long)st->st_dev;
}

static int
samestat(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size && a->st_mode == b->st_mode &&
	    MTIM(a).tv_sec == MTIM(b).tv_sec &&
	    MTIM(a).tv_nsec == MTIM(b).tv_nsec &&
	    CTIM(a).tv_sec == CTIM(b).tv_sec &&
	    CTIM(a).tv_nsec == CTIM(b).tv_nsec;
}

/* Did the scan before see this file as it is (the change time too)? */
static int
unchanged(const struct sbx_tripent *p, const struct sbx_tripent *e)
{
	return p->type == e->type && p->mode == e->mode && p->size == e->size &&
	    p->mtime == e->mtime && p->mtimens == e->mtimens &&
	    p->ctime == e->ctime && p->ctimens == e->ctimens &&
	    p->ino == e->ino && p->dev == e->dev;
}

/*
 * Hash the regular file name of dfd, as lstat found it (st), within
 * the bounds; opened afresh, a fifo or device in its place is never
 * read, and a file replaced or written meanwhile is said to be so.
 */
static void
hash(struct scan *s, int dfd, const char *name, const struct stat *st,
    struct sbx_tripent *e)
{
	const struct sbx_tripent *p = sbx_tripscan_find(s->prev, e->path);
	struct stat a, b, c;
	char buf[8192];
	uint64_t h = SBX_TRIP_FNV0;
	long long left;
	ssize_t r;
	int fd, first = 1;

	if (p != NULL && p->hashed && p->why == SBX_TRIP_OK &&
	    unchanged(p, e)) {
		e->hash = p->hash;
		e->hashed = 1;
		return;
	}
	if (s->t->bytes >= SBX_TRIP_BYTES)
		return;		/* its stat alone is compared */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC);
	if (fd == -1) {
		e->why = errno == EACCES || errno == EPERM ?
		    SBX_TRIP_UNREADABLE : SBX_TRIP_RACED;
		return;
	}
	if (fstat(fd, &a) == -1 || !S_ISREG(a.st_mode) ||
	    a.st_dev != st->st_dev || a.st_ino != st->st_ino) {
		e->why = SBX_TRIP_RACED;
		close(fd);
		return;
	}
	left = SBX_TRIP_FILEBYTES;
	if ((long long)(SBX_TRIP_BYTES - s->t->bytes) < left)
		left = (long long)(SBX_TRIP_BYTES - s->t->bytes);
	while (left > 0) {
		r = read(fd, buf, left < (long long)sizeof(buf) ?
		    (size_t)left : sizeof(buf));
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			e->why = SBX_TRIP_UNREADABLE;
			break;
		}
		if (r == 0)
			break;
		h = sbx_tripscan_fnv(h, buf, (size_t)r);
		left -= r;
		s->t->bytes += (unsigned long long)r;
		if (first && sbx_tripscan_hook != NULL)
			sbx_tripscan_hook(dfd, name);
		first = 0;
	}
	/* the same file, unwritten, and still at its name */
	if (e->why == SBX_TRIP_OK && (fstat(fd, &b) == -1 ||
	    !samestat(&a, &b) || fstatat(dfd, name, &c,
	    AT_SYMLINK_NOFOLLOW) == -1 || !samestat(&a, &c)))
		e->why = SBX_TRIP_RACED;
	close(fd);
	if (e->why == SBX_TRIP_OK) {
		e->hash = h;
		e->hashed = 1;
	}
}

static int	one(struct scan *, int, const char *, const char *, int, int);

/* The entries of directory name of dfd (its entry e), depth levels down. */
static int
walk(struct scan *s, int dfd, const char *name, struct sbx_tripent *e,
    int depth)
{
	char child[SBX_TRIP_PATH];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd, n, ret = 0;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC);
	if (fd == -1) {
		e->why = errno == EACCES || errno == EPERM ?
		    SBX_TRIP_UNREADABLE : SBX_TRIP_RACED;
		return 0;
	}
	if (fstat(fd, &st) == -1 || (unsigned long long)st.st_ino != e->ino ||
	    (unsigned long long)st.st_dev != e->dev) {
		e->why = SBX_TRIP_RACED;
		close(fd);
		return 0;
	}
	s->cap = SBX_TRIP_ENTRIES;
	if ((d = fdopendir(fd)) == NULL) {
		e->why = SBX_TRIP_STAT;
		close(fd);
		return 0;
	}
	while (ret == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (++s->dirents > SBX_TRIP_DIRENTS) {
			ret = CUT_DIRENTS;
			break;
		}
		n = snprintf(child, sizeof(child), "%s/%s", e->path,
		    de->d_name);
		if (n < 0 || (size_t)n >= sizeof(child)) {
			e->why = SBX_TRIP_LONG;
			continue;
		}
		ret = one(s, dirfd(d), de->d_name, child, e->runner, depth);
	}
	closedir(d);
	return ret;
}

/*
 * Fingerprint name of dfd as path; a directory is walked depth levels
 * down (-1: not walked).  0, or a CUT_* bound reached.
 */
static int
one(struct scan *s, int dfd, const char *name, const char *path, int runner,
    int depth)
{
	struct sbx_tripent *e;
	struct stat st;
	char target[4096];
	ssize_t n;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		if ((e = entry(s, path, runner, s->cap)) == NULL)
			return CUT_FULL;
		e->why = errno == EACCES ? SBX_TRIP_UNREADABLE : SBX_TRIP_STAT;
		return 0;
	}
	if ((e = entry(s, path, runner, s->cap)) == NULL)
		return CUT_FULL;
	fill(e, &st);
	switch (e->type) {
	case 'f':
		hash(s, dfd, name, &st, e);
		break;
	case 'l':
		/* its text, hashed whole, kept cut; never followed */
		if ((n = readlinkat(dfd, name, target, sizeof(target))) == -1) {
			e->why = SBX_TRIP_RACED;
			break;
		}
		e->hash = sbx_tripscan_fnv(SBX_TRIP_FNV0, target, (size_t)n);
		e->hashed = 1;
		if ((size_t)n >= sizeof(e->target))
			n = sizeof(e->target) - 1;
		memcpy(e->target, target, (size_t)n);
		e->target[n] = '\0';
		break;
	case 'd':
		if (depth == 0)
			e->why = SBX_TRIP_TOODEEP;
		else if (depth > 0)
			return walk(s, dfd, name, e, depth - 1);
		break;
	default:	/* a fifo, device or socket: its stat is all */
		break;
	}
	return 0;
}

/*
 * One watched path: each directory on the way is opened without
 * following a link; anything else there is what gets recorded.  Past a
 * bound, what lies below the path is dropped and the path is marked.
 */
static void
row(struct scan *s, const struct sbx_triprow *r)
{
	char path[SBX_TRIP_PATH], *c, *slash;
	struct sbx_tripent *e;
	size_t mark = s->t->n;
	int fd, next, ret, why;

	(void)snprintf(path, sizeof(path), "%s", r->path);
	s->dirents = 0;
	s->cap = SBX_TRIP_ENTRIES + RESERVE;
	if ((fd = dup(s->wsfd)) == -1)
		return;
	for (c = path; (slash = strchr(c, '/')) != NULL; c = slash + 1) {
		*slash = '\0';
		next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC);
		if (next == -1) {
			/* a link or a file in the way, or a closed door */
			why = errno == EACCES || errno == EPERM ?
			    SBX_TRIP_UNREADABLE : SBX_TRIP_OK;
			if (one(s, fd, c, path, r->runner, -1) == 0 &&
			    (e = lookup(s, path)) != NULL &&
			    e->type == 'd' && e->why == SBX_TRIP_OK)
				e->why = why;
			close(fd);
			return;
		}
		close(fd);
		fd = next;
		*slash = '/';
	}
	ret = one(s, fd, c, path, r->runner, r->dir ? SBX_TRIP_DEPTH : -1);
	close(fd);
	if (ret == 0)
		return;
	/* mark is the path's own entry, unless an earlier path took it */
	s->cap = SBX_TRIP_ENTRIES + RESERVE;
	if ((e = entry(s, path, r->runner, s->cap)) != NULL) {
		e->why = SBX_TRIP_TOOMANY;
		if (e == &s->t->e[mark])
			s->t->n = mark + 1;
	}
}

/*
 * Fingerprint the listed paths of the workspace wsfd into t; a file
 * prev saw as it is keeps prev's hash (prev may be NULL: hash all).
 * 0, or -1 with errno.
 */
int
sbx_tripscan(int wsfd, const struct sbx_triplist *l,
    const struct sbx_trip *prev, struct sbx_trip *t)
{
	struct scan s;
	struct stat st;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (fstat(wsfd, &st) == -1)
		return -1;
	t->wsdev = (unsigned long long)st.st_dev;
	t->wsino = (unsigned long long)st.st_ino;
	if ((t->e = calloc(SBX_TRIP_ENTRIES + RESERVE, sizeof(*t->e))) == NULL)
		return -1;
	s.wsfd = wsfd;
	s.prev = prev;
	s.t = t;
	for (i = 0; i < l->n; i++)
		row(&s, &l->r[i]);
	qsort(t->e, t->n, sizeof(*t->e), bypath);
	return 0;
}
