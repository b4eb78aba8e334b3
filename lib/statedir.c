/*
 * statedir.c: where the state directory is, and opening it safely: no
 * "." or "..", ancestors root's or ours and not writable by others,
 * itself ours, 0700, no link, checked again once open.
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
#include "sbxconf.h"
#include "sbxstate.h"

#ifndef PATH_MAX
#define PATH_MAX	4096
#endif

/* SBX_STATE_DIR, else $XDG_STATE_HOME/sbx-tools, else ~/.local/state/sbx-tools */
int
sbx_xstatedir_path(char *buf, size_t size)
{
	const char *v;
	int n;

	if ((v = sbx_conf_str("SBX_STATE_DIR")) != NULL) {
		if (*v != '/')
			errx(SBX_EX_USAGE, "SBX_STATE_DIR: not an absolute path");
		n = snprintf(buf, size, "%s", v);
	} else if ((v = sbx_conf_str("XDG_STATE_HOME")) != NULL && *v == '/')
		n = snprintf(buf, size, "%s/sbx-tools", v);
	else if ((v = sbx_conf_str("HOME")) != NULL && *v == '/')
		n = snprintf(buf, size, "%s/.local/state/sbx-tools", v);
	else {
		errno = ENOENT;
		return -1;
	}
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int
dotted(const char *path)
{
	const char *p;
	size_t len;

	for (p = path; *p != '\0'; p += len) {
		p += strspn(p, "/");
		len = strcspn(p, "/");
		if ((len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return 1;
	}
	return 0;
}

/*
 * May a directory above the state directory stay?  Root's or ours and
 * not group or other writable, as OpenSSH asks; or sticky, where others
 * cannot move ours.
 */
static const char *
unsafe_dir(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return "not a directory";
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "owned by someone else";
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		return "writable by group or others";
	return NULL;
}

static int
up(char *out, struct stat *st)
{
	size_t len = strlen(out);

	while (len > 1 && out[len - 1] != '/')
		len--;
	out[len > 1 ? len - 1 : 1] = '\0';
	return stat(out, st);
}

/*
 * Walk path from /, making what is missing (0700) and checking each
 * directory; a link is followed only if root's in a directory of root's.
 * -1 with errno 0 once it has said why.
 */
static int
walk(const char *path, char *out, size_t size)
{
	char rest[PATH_MAX], link[PATH_MAX], next[PATH_MAX * 2];
	struct stat st, parent;
	const char *why;
	size_t len, dlen, skip;
	ssize_t n;
	int links = 0, last;

	if (strlen(path) >= sizeof(rest) || size < 2)
		return errno = ENAMETOOLONG, -1;
	memcpy(rest, path, strlen(path) + 1);
	memcpy(out, "/", 2);
	if (stat("/", &parent) == -1)
		return -1;
	for (;;) {
		skip = strspn(rest, "/");
		memmove(rest, rest + skip, strlen(rest + skip) + 1);
		if (rest[0] == '\0')
			return 0;
		len = strcspn(rest, "/");
		last = rest[len + strspn(rest + len, "/")] == '\0';
		if (len == 1 && rest[0] == '.') {
			memmove(rest, rest + 1, strlen(rest));
			continue;
		}
		if (len == 2 && rest[0] == '.' && rest[1] == '.') {
			memmove(rest, rest + 2, strlen(rest + 1));
			if (up(out, &parent) == -1)
				return -1;
			continue;
		}
		dlen = strlen(out);
		if (dlen + 1 + len >= size)
			return errno = ENAMETOOLONG, -1;
		snprintf(out + dlen, size - dlen, "%s%.*s",
		    dlen > 1 ? "/" : "", (int)len, rest);
		memmove(rest, rest + len, strlen(rest + len) + 1);
		if (lstat(out, &st) == -1 && (errno != ENOENT ||
		    (mkdir(out, 0700) == -1 && errno != EEXIST) ||
		    lstat(out, &st) == -1))
			return -1;
		if (S_ISLNK(st.st_mode)) {
			if (last) {
				warnx("state directory %s: is a symbolic link, "
				    "refusing it", path);
				return errno = 0, -1;
			}
			if (st.st_uid != 0 || parent.st_uid != 0 ||
			    (parent.st_mode & (S_IWGRP | S_IWOTH))) {
				warnx("state directory %s: %s is a symbolic "
				    "link that is not root's in a directory "
				    "only root may write, refusing it", path,
				    out);
				return errno = 0, -1;
			}
			if (++links > 32)
				return errno = ELOOP, -1;
			if ((n = readlink(out, link, sizeof(link) - 1)) <= 0)
				return n == 0 ? (errno = ENOENT, -1) : -1;
			link[n] = '\0';
			if (snprintf(next, sizeof(next), "%s/%s", link, rest) >=
			    (int)sizeof(rest))
				return errno = ENAMETOOLONG, -1;
			memcpy(rest, next, strlen(next) + 1);
			if (link[0] == '/')
				memcpy(out, "/", 2);
			if ((link[0] == '/' ? stat(out, &parent) :
			    up(out, &parent)) == -1)
				return -1;
			continue;
		}
		if (last)
			return 0;	/* the caller checks it through its fd */
		if ((why = unsafe_dir(&st)) != NULL) {
			warnx("state directory %s: %s: %s, refusing it", path,
			    out, why);
			return errno = 0, -1;
		}
		parent = st;
	}
}

/* Open (making) the state directory into buf; a descriptor, or -1 once said. */
int
sbx_xstatedir_open(char *buf, size_t size)
{
	char real[PATH_MAX];
	struct stat st, seen;
	int fd;

	if (sbx_xstatedir_path(buf, size) == -1) {
		warn("state directory (set SBX_STATE_DIR or HOME)");
		return -1;
	}
	while (size > 2 && strlen(buf) > 1 && buf[strlen(buf) - 1] == '/')
		buf[strlen(buf) - 1] = '\0';
	if (dotted(buf)) {
		warnx("state directory %s: has a . or .. component, refusing "
		    "it", buf);
		return -1;
	}
	if (walk(buf, real, sizeof(real)) == -1) {
		if (errno != 0)
			warn("state directory %s", buf);
		return -1;
	}
	if (lstat(real, &seen) == -1) {
		warn("state directory %s", buf);
		return -1;
	}
	fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		if (errno == ELOOP || errno == ENOTDIR) {
			if (S_ISLNK(seen.st_mode))
				warnx("state directory %s: is a symbolic link, "
				    "refusing it", buf);
			else
				warnx("state directory %s: not a directory",
				    buf);
		} else
			warn("state directory %s", buf);
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		warn("state directory %s", buf);
		close(fd);
		return -1;
	}
	if (st.st_dev != seen.st_dev || st.st_ino != seen.st_ino) {
		warnx("state directory %s: changed while it was checked, "
		    "refusing it", buf);
		close(fd);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		warnx("state directory %s: owned by uid %ld, not by us, "
		    "refusing it", buf, (long)st.st_uid);
		close(fd);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		warnx("state directory %s: writable by group or others "
		    "(mode %03o), refusing it", buf,
		    (unsigned)(st.st_mode & 0777));
		close(fd);
		return -1;
	}
	return fd;
}
