/*
 * imglru.c: the image cache within its budget.  Entries go least
 * recently used first (meta's used=) until all of them together fit;
 * with SBX_IMG_STALE (sbx-gc) also those whose workspace is gone or is
 * another directory now, and those that cannot be read.  An entry with
 * no meta yet is a fill in progress: left alone for a day, the longest
 * a call may run, then it is debris.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbxconf.h"
#include "sbximg.h"
#include "sbx-internal.h"

#define ENTRIES_MAX	1024	/* looked at per pass */

struct ent {
	char		 name[48];
	char		 ws[PATH_MAX];
	long long	 bytes, used;
	const char	*why;		/* set: it goes whatever the budget */
	int		 busy;		/* a fill in progress: never counted */
};

static int
lru(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used;
}

/* What one entry is; 0, or -1 when it is not one. */
static int
look(int root, const char *name, unsigned flags, struct ent *e)
{
	struct sbx_imgmeta *m;
	long long mtime;
	int efd;

	memset(e, 0, sizeof(*e));
	if (!sbx_img_isname(name) || strlen(name) >= sizeof(e->name))
		return -1;
	memcpy(e->name, name, strlen(name) + 1);
	e->bytes = sbx_img_bytes(root, name, &mtime);
	e->used = mtime;
	if ((m = malloc(sizeof(*m))) == NULL)
		return -1;
	if ((efd = sbx_img_entry(root, name, 0)) == -1)
		e->why = "not a directory of the user's own";
	else if (sbx_img_meta_read(efd, m) == -1) {
		if (errno == ENOENT && mtime > (long long)time(NULL) -
		    SBX_TIMEOUT_MAX)
			e->busy = 1;
		else
			e->why = errno == ENOENT ? "left incomplete" :
			    "unreadable";
	} else {
		snprintf(e->ws, sizeof(e->ws), "%s", m->workspace);
		e->used = m->used;
		if ((flags & SBX_IMG_STALE) && !sbx_img_current(m, name))
			e->why = access(m->workspace, F_OK) == 0 ?
			    "its workspace is another directory now" :
			    "its workspace is gone";
	}
	if (efd != -1)
		close(efd);
	free(m);
	/* only sbx-gc takes what is broken; a fill leaves it be */
	if (!(flags & SBX_IMG_STALE) && e->why != NULL)
		e->why = NULL;
	return 0;
}

/*
 * A new entry made aside whose fill died before it landed or replaced
 * one (".fill.", ".old."), untouched for a day, the longest a call may
 * run: it goes.
 */
static int
debris(int root, const char *name)
{
	struct stat st;

	return sbx_img_aside(name) &&
	    fstatat(root, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode) &&
	    (long long)st.st_mtime < (long long)time(NULL) - SBX_TIMEOUT_MAX;
}

static void
evict(int root, const struct ent *e, unsigned flags, const char *why,
    void (*say)(const char *, long long, const char *))
{
	if (say != NULL)
		say(e->ws[0] != '\0' ? e->ws : e->name, e->bytes, why);
	if (!(flags & SBX_IMG_DRY))
		(void)sbx_img_drop(root, e->name);
}

/*
 * Evict as above, never keep (the entry just filled, or NULL), telling
 * say(workspace or entry name, bytes, reason) of each; with SBX_IMG_DRY
 * only tell.  The number of entries evicted, or -1.
 */
int
sbx_img_evict(int root, long long budget, const char *keep, unsigned flags,
    void (*say)(const char *, long long, const char *))
{
	struct dirent *de;
	struct ent *v;
	DIR *dir;
	size_t n = 0, i;
	long long total = 0;
	int fd = -1, lfd, gone = 0;

	/* under the cache's lock: no entry is replaced between look and drop */
	if ((lfd = sbx_img_lock(root)) == -1)
		return -1;
	if ((fd = dup(root)) == -1 || (dir = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		close(lfd);
		return -1;
	}
	if ((v = calloc(ENTRIES_MAX, sizeof(*v))) == NULL) {
		closedir(dir);
		close(lfd);
		return -1;
	}
	rewinddir(dir);
	while (n < ENTRIES_MAX && (de = readdir(dir)) != NULL)
		if (look(root, de->d_name, flags, &v[n]) == 0)
			n++;
		else if ((flags & (SBX_IMG_STALE | SBX_IMG_DRY)) ==
		    SBX_IMG_STALE && debris(root, de->d_name))
			sbx_img_abandon(root, de->d_name);
	closedir(dir);
	qsort(v, n, sizeof(*v), lru);
	for (i = 0; i < n; i++) {
		if (v[i].why != NULL) {
			evict(root, &v[i], flags, v[i].why, say);
			gone++;
		} else if (!v[i].busy)
			total += v[i].bytes;
	}
	for (i = 0; i < n && total > budget; i++) {
		if (v[i].why != NULL || v[i].busy ||
		    (keep != NULL && strcmp(v[i].name, keep) == 0))
			continue;
		evict(root, &v[i], flags, "least recently used, over the "
		    "budget", say);
		total -= v[i].bytes;
		gone++;
	}
	free(v);
	close(lfd);
	return gone;
}
