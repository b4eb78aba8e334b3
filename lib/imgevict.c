/*
 * imgevict.c: the image cache within its budget, after each save and at
 * each sweep: least recently used first; with SBX_IMG_STALE (sbx-gc) also
 * entries whose workspace is gone or unreadable.  An entry with no meta
 * is a fill in progress, left a day (the longest a call runs).
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

#define ENTRIES_MAX	1024	/* looked at per pass */

struct ent {
	char		 name[48];
	char		 ws[PATH_MAX];
	long long	 bytes, used;
	const char	*why;		/* set: it goes whatever the budget */
	int		 busy;		/* a fill in progress: never counted */
};

/*
 * The bytes an entry takes (its regular files), and the newest change
 * among them in *mtime.
 */
static long long
bytes(int root, const char *name, long long *mtime)
{
	struct dirent *de;
	struct stat st;
	DIR *dir;
	long long n = 0;
	int fd;

	*mtime = 0;
	if ((fd = openat(root, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return 0;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while ((de = readdir(dir)) != NULL)
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode)) {
			n += (long long)st.st_size;
			if ((long long)st.st_mtime > *mtime)
				*mtime = (long long)st.st_mtime;
		}
	closedir(dir);
	return n;
}

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
	if (!sbx_imgcache_isname(name) || strlen(name) >= sizeof(e->name))
		return -1;
	memcpy(e->name, name, strlen(name) + 1);
	e->bytes = bytes(root, name, &mtime);
	e->used = mtime;
	if ((m = malloc(sizeof(*m))) == NULL)
		return -1;
	if ((efd = sbx_imgcache_entry(root, name, 0)) == -1)
		e->why = "not a directory of the user's own";
	else if (sbx_imgmeta_read(efd, m) == -1) {
		if (errno == ENOENT && mtime > (long long)time(NULL) -
		    SBX_TIMEOUT_MAX)
			e->busy = 1;
		else
			e->why = errno == ENOENT ? "left incomplete" :
			    "unreadable";
	} else {
		snprintf(e->ws, sizeof(e->ws), "%s", m->workspace);
		e->used = m->used;
		if ((flags & SBX_IMG_STALE) && !sbx_imgmeta_current(m, name))
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

	return sbx_imgcache_aside(name) &&
	    fstatat(root, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode) &&
	    (long long)st.st_mtime < (long long)time(NULL) - SBX_TIMEOUT_MAX;
}

static void
evict(int root, const struct ent *e, unsigned flags, const char *why)
{
	if (flags & SBX_IMG_SAY)
		printf("%s image cache %s (%lld bytes): %s\n",
		    flags & SBX_IMG_DRY ? "evict" : "evicted",
		    e->ws[0] != '\0' ? e->ws : e->name, e->bytes, why);
	if (!(flags & SBX_IMG_DRY))
		(void)sbx_imgcache_drop(root, e->name);
}

/*
 * Evict as above, never keep (the entry just filled, or NULL); with
 * SBX_IMG_SAY a line of each (workspace or entry name, bytes, reason),
 * with SBX_IMG_DRY only that.  The number of entries evicted, or -1.
 */
int
sbx_imgevict(int root, long long budget, const char *keep, unsigned flags)
{
	struct dirent *de;
	struct ent *v;
	DIR *dir;
	size_t n = 0, i;
	long long total = 0;
	int fd = -1, lfd, gone = 0;

	/* under the cache's lock: no entry is replaced between look and drop */
	if ((lfd = sbx_imgcache_lock(root)) == -1)
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
			sbx_imgcache_abandon(root, de->d_name);
	closedir(dir);
	qsort(v, n, sizeof(*v), lru);
	for (i = 0; i < n; i++) {
		if (v[i].why != NULL) {
			evict(root, &v[i], flags, v[i].why);
			gone++;
		} else if (!v[i].busy)
			total += v[i].bytes;
	}
	for (i = 0; i < n && total > budget; i++) {
		if (v[i].why != NULL || v[i].busy ||
		    (keep != NULL && strcmp(v[i].name, keep) == 0))
			continue;
		evict(root, &v[i], flags, "least recently used, over the "
		    "budget");
		total -= v[i].bytes;
		gone++;
	}
	free(v);
	close(lfd);
	return gone;
}

/*
 * sbx-gc's sweep: the whole cache against DOCKER_SANDBOX_IMAGE_CACHE
 * (0 empties it), gone workspaces too, with no sbx call; flags as above.
 */
void
sbx_imgevict_sweep(unsigned flags)
{
	char path[PATH_MAX];
	long long budget = sbx_xconf_image_cache();
	int root;

	if ((root = sbx_imgcache_open(NULL, 0, path, sizeof(path))) == -1)
		return;
	(void)sbx_imgevict(root, budget, NULL, flags | SBX_IMG_STALE);
	close(root);
}
