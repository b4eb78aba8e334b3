/*
 * imgcache.c: where the image cache lives, and its entries: one a
 * project, DEV-INO of the workspace, holding `archive` and `meta`.  Each
 * level is opened O_NOFOLLOW, 0700, ours and writable by nobody else, and
 * never at or under the workspace.  An entry is replaced whole, renamed
 * in under the cache's lock.  A cache that cannot be had is one warning
 * and no cache.
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

#include "sbximg.h"
#include "sbxstate.h"
#include "sbx-internal.h"

#define DEPTH_MAX	256	/* ".." steps to the root at most */
#define LOCK_FILE	".lock"		/* the cache's lock, in the root */
#define FILL_PREFIX	".fill."	/* a new entry, made aside */
#define OLD_PREFIX	".old."		/* the entry it replaces, aside */

/*
 * Open directory name under dfd as a level of the cache: no link, ours,
 * group and other unable to write.  -1 with why set, or with why empty
 * when it is missing and create is not set (no cache yet: no warning).
 */
static int
level(int dfd, const char *name, int create, char *why, size_t size)
{
	struct stat st;
	int fd;

	why[0] = '\0';
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1 && errno == ENOENT && create &&
	    (mkdirat(dfd, name, 0700) == 0 || errno == EEXIST))
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd == -1) {
		if (errno == ENOENT && !create)
			return -1;
		snprintf(why, size, "%s: %s", name, errno == ELOOP ||
		    errno == ENOTDIR ? "a symbolic link or not a directory" :
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1 || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		snprintf(why, size, "%s: not the user's own, or writable by "
		    "others", name);
		close(fd);
		return -1;
	}
	return fd;
}

/* Is the directory fd at or under ws (by identity)?  1, 0, or -1. */
static int
under(int fd, const struct stat *ws)
{
	struct stat st, up;
	int d, n, r = -1;

	if ((d = dup(fd)) == -1)
		return -1;
	for (n = 0; n < DEPTH_MAX && fstat(d, &st) == 0; n++) {
		if (st.st_dev == ws->st_dev && st.st_ino == ws->st_ino) {
			r = 1;
			break;
		}
		if ((fd = openat(d, "..", O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1)
			break;
		close(d);
		d = fd;
		if (fstat(d, &up) == 0 && up.st_dev == st.st_dev &&
		    up.st_ino == st.st_ino) {
			r = 0;	/* the root: its ".." is itself */
			break;
		}
	}
	close(d);
	return r;
}

/*
 * The cache root: a descriptor, or -1.  ws, when not NULL, is the
 * session's workspace.  create makes the missing levels (a fill);
 * without it a missing level is silently no cache (a load, sbx-gc).
 * Any other failure is one warning.  path gets the root's path.
 */
int
sbx_imgcache_open(const char *ws, int create, char *path, size_t size)
{
	static const char *const mine[] = { "sbx-tools", "images" };
	struct stat wst;
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char why[PATH_MAX + 64];
	int fd, next, i;

	why[0] = '\0';
	if (xdg != NULL && xdg[0] == '/') {
		snprintf(path, size, "%s/sbx-tools/images", xdg);
		fd = level(AT_FDCWD, xdg, create, why, sizeof(why));
	} else if (home != NULL && home[0] == '/') {
		snprintf(path, size, "%s/.cache/sbx-tools/images", home);
		if ((next = open(home, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1) {
			snprintf(why, sizeof(why), "%s: %s", home,
			    strerror(errno));
			goto bad;
		}
		fd = level(next, ".cache", create, why, sizeof(why));
		close(next);
	} else {
		snprintf(path, size, "(no HOME)");
		snprintf(why, sizeof(why), "neither XDG_CACHE_HOME nor HOME "
		    "is an absolute path");
		goto bad;
	}
	for (i = 0; fd != -1 && i < 2; i++) {
		next = level(fd, mine[i], create, why, sizeof(why));
		close(fd);
		fd = next;
	}
	if (fd == -1)
		goto bad;
	if (ws != NULL && (stat(ws, &wst) == -1 || under(fd, &wst) != 0)) {
		snprintf(why, sizeof(why), "lies in the workspace %s, or that "
		    "cannot be told", ws);
		close(fd);
		goto bad;
	}
	return fd;
bad:
	if (why[0] != '\0')
		warnx("image cache %s: %s; images are pulled as usual", path,
		    why);
	return -1;
}

/* The entry of the workspace whose identity is st: "DEV-INO". */
void
sbx_imgcache_name(char *buf, size_t size, const struct stat *st)
{
	snprintf(buf, size, "%llu-%llu", (unsigned long long)st->st_dev,
	    (unsigned long long)st->st_ino);
}

/* Is name an entry's name (digits, '-', digits)? */
int
sbx_imgcache_isname(const char *name)
{
	size_t d = strspn(name, "0123456789");

	return d > 0 && d < 24 && name[d] == '-' &&
	    strspn(name + d + 1, "0123456789") > 0 &&
	    strspn(name + d + 1, "0123456789") < 24 &&
	    name[d + 1 + strspn(name + d + 1, "0123456789")] == '\0';
}

/* The entry's directory, as level() opens it; -1 (ENOENT: none yet). */
int
sbx_imgcache_entry(int root, const char *name, int create)
{
	char why[128];
	int fd;

	if (!sbx_imgcache_isname(name)) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = level(root, name, create, why, sizeof(why))) == -1 &&
	    why[0] != '\0')
		errno = EPERM;
	return fd;
}

/*
 * A regular file of the entry, ours, opened without following a link;
 * flags as open(2).  -1 with errno.
 */
int
sbx_imgcache_file(int efd, const char *file, int flags)
{
	struct stat st;
	int fd;

	/* O_NONBLOCK: a fifo in a file's place never holds the open */
	if ((fd = openat(efd, file, flags | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK, 0600)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* Remove the directory name of the root and the files it holds. */
static int
clear(int root, const char *name)
{
	struct dirent *de;
	DIR *dir;
	int fd, rv = 0;

	if ((fd = openat(root, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		/* a link or a file in an entry's place goes as it is */
		if (errno == ENOENT)
			return 0;
		return unlinkat(root, name, 0);
	}
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(dir)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(fd, de->d_name, 0) == -1 && errno != ENOENT)
			rv = -1;
	}
	closedir(dir);
	if (unlinkat(root, name, AT_REMOVEDIR) == -1 && errno != ENOENT)
		rv = -1;
	return rv;
}

/*
 * Remove the entry name and all it holds (files only; an entry never
 * holds a directory).  0, or -1.
 */
int
sbx_imgcache_drop(int root, const char *name)
{
	if (!sbx_imgcache_isname(name)) {
		errno = EINVAL;
		return -1;
	}
	return clear(root, name);
}

/*
 * The cache's lock, under which an entry is replaced, written back or
 * dropped: a descriptor (close it to release), or -1.
 */
int
sbx_imgcache_lock(int root)
{
	return sbx_lock(root, LOCK_FILE, 1);
}

/* Is the entry name still the directory efd (no fill replaced it)? */
int
sbx_imgcache_same(int root, const char *name, int efd)
{
	struct stat a, b;

	return fstatat(root, name, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
	    fstat(efd, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino;
}

/*
 * A new entry for name, made aside (".fill.NAME.PID", its name in tmp):
 * filled there, it replaces the entry whole (sbx_imgcache_commit) or goes
 * (sbx_imgcache_abandon), so the entry is never half of each.  A descriptor,
 * or -1.
 */
int
sbx_imgcache_fresh(int root, const char *name, char *tmp, size_t size)
{
	char why[128];

	if (!sbx_imgcache_isname(name)) {
		errno = EINVAL;
		return -1;
	}
	sbx_imgcache_fillname(tmp, size, name, (long)getpid());
	(void)clear(root, tmp);
	if (mkdirat(root, tmp, 0700) == -1)
		return -1;
	return level(root, tmp, 0, why, sizeof(why));
}

/* The name of the new entry for name that process pid makes aside. */
void
sbx_imgcache_fillname(char *buf, size_t size, const char *name, long pid)
{
	snprintf(buf, size, FILL_PREFIX "%s.%ld", name, pid);
}

/* Is name a new entry made aside, or an old one moved aside? */
int
sbx_imgcache_aside(const char *name)
{
	return strncmp(name, FILL_PREFIX, strlen(FILL_PREFIX)) == 0 ||
	    strncmp(name, OLD_PREFIX, strlen(OLD_PREFIX)) == 0;
}

/* A new entry that will not be used, or an old one aside: it goes. */
void
sbx_imgcache_abandon(int root, const char *tmp)
{
	if (sbx_imgcache_aside(tmp))
		(void)clear(root, tmp);
}

/*
 * The new entry tmp in name's place, under the cache's lock: the old one
 * is moved aside, the new one renamed in, and only then the old one goes
 * (a directory cannot be renamed over one that holds files).  On any
 * failure the old entry is put back as it was and tmp goes.  0, or -1.
 */
int
sbx_imgcache_commit(int root, const char *tmp, const char *name)
{
	char old[SBX_IMG_NAME_MAX + 32];
	int lfd, had, rv = -1, e;

	if (!sbx_imgcache_isname(name) ||
	    strncmp(tmp, FILL_PREFIX, strlen(FILL_PREFIX)) != 0) {
		errno = EINVAL;
		return -1;
	}
	if ((lfd = sbx_imgcache_lock(root)) == -1) {
		e = errno;
		sbx_imgcache_abandon(root, tmp);
		errno = e;
		return -1;
	}
	snprintf(old, sizeof(old), OLD_PREFIX "%s.%ld", name, (long)getpid());
	(void)clear(root, old);
	had = renameat(root, name, root, old) == 0;
	if (!had && errno != ENOENT)
		goto out;
	if (renameat(root, tmp, root, name) == -1) {
		if (had)
			(void)renameat(root, old, root, name);
		goto out;
	}
	rv = 0;
	if (had)
		(void)clear(root, old);
out:
	e = errno;
	if (rv == -1)
		sbx_imgcache_abandon(root, tmp);
	close(lfd);
	errno = e;
	return rv;
}
