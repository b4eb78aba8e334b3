/*
 * state.c: the state directory's files, reached with O_NOFOLLOW and
 * written atomically, so a planted link or half-written marker is never
 * followed or read.
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
#include "sbxstate.h"

#ifndef PATH_MAX
#define PATH_MAX	4096
#endif
#define MARKER_MAX	4096
#define RMTREE_DEPTH	64

int
sbx_state_write(int dfd, const char *file, const char *content)
{
	static unsigned seq;
	char tmp[256];
	int fd, n, e;

	for (;;) {
		n = snprintf(tmp, sizeof(tmp), ".%s.%ld.%u", file,
		    (long)getpid(), seq++);
		if (n < 0 || (size_t)n >= sizeof(tmp))
			return errno = ENAMETOOLONG, -1;
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
		if (fd != -1)
			break;
		if (errno != EEXIST)
			return -1;
	}
	if (sbx_io_writeall(fd, content, strlen(content)) == -1 ||
	    fsync(fd) == -1 || close(fd) == -1 ||
	    renameat(dfd, tmp, dfd, file) == -1) {
		e = errno;
		(void)unlinkat(dfd, tmp, 0);
		errno = e;
		return -1;
	}
	return 0;
}

/* A marker into buf: its length, or -1 (ENOENT, ELOOP, EINVAL, EFBIG). */
int
sbx_state_read(int dfd, const char *file, char *buf, size_t size)
{
	return sbx_state_readmax(dfd, file, buf, size < MARKER_MAX + 1 ?
	    size : MARKER_MAX + 1);
}

/* The same, bounded by size alone (a record larger than a marker). */
int
sbx_state_readmax(int dfd, const char *file, char *buf, size_t size)
{
	struct stat st;
	size_t got = 0;
	ssize_t r;
	int fd, e;

	fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1)
		goto bad;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		errno = EINVAL;
		goto bad;
	}
	if (st.st_size >= (off_t)size) {
		errno = EFBIG;
		goto bad;
	}
	while (got < size - 1) {
		if ((r = read(fd, buf + got, size - 1 - got)) == -1) {
			if (errno == EINTR)
				continue;
			goto bad;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	close(fd);
	return (int)got;
bad:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

int
sbx_state_remove(int dfd, const char *file)
{
	if (unlinkat(dfd, file, 0) == -1 && errno != ENOENT)
		return -1;
	return 0;
}

static int
rmtree(int dfd, const char *dir, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd, ret = 0, e;

	if (depth > RMTREE_DEPTH)
		return errno = ELOOP, -1;
	fd = openat(dfd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return errno == ENOENT ? 0 : -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(fd, de->d_name, 0) == 0)
			continue;
		/* a directory (EISDIR on Linux, EPERM elsewhere): descend */
		if (rmtree(fd, de->d_name, depth + 1) == -1)
			ret = -1;
	}
	e = errno;
	closedir(d);
	if (unlinkat(dfd, dir, AT_REMOVEDIR) == -1 && errno != ENOENT)
		return -1;
	errno = e;
	return ret;
}

int
sbx_state_rmtree(int dfd, const char *dir)
{
	return rmtree(dfd, dir, 0);
}

const char *
sbx_state_field(const char *content, const char *key, char *buf, size_t size)
{
	const char *p, *end;
	size_t klen = strlen(key), vlen;

	for (p = content; *p != '\0'; p = *end ? end + 1 : end) {
		if ((end = strchr(p, '\n')) == NULL)
			end = p + strlen(p);
		if ((size_t)(end - p) > klen && strncmp(p, key, klen) == 0 &&
		    p[klen] == '=') {
			vlen = (size_t)(end - p) - klen - 1;
			if (vlen >= size)
				return NULL;
			memcpy(buf, p + klen + 1, vlen);
			buf[vlen] = '\0';
			return buf;
		}
	}
	return NULL;
}
