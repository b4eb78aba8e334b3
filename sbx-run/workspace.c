/*
 * workspace.c: which directory sbx-run may mount: never /, a home or an
 * ancestor of one, nor one holding the state directory; compared by
 * device and inode, so another spelling is refused as well.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxstate.h"
#include "sbx-run.h"

static int
above_real(const struct stat *ws, char *real)
{
	struct stat st;
	char *slash;

	for (;;) {
		if (stat(real, &st) == 0 && st.st_dev == ws->st_dev &&
		    st.st_ino == ws->st_ino)
			return 1;
		if ((slash = strrchr(real, '/')) == NULL || slash == real)
			break;
		*slash = '\0';
	}
	return stat("/", &st) == 0 && st.st_dev == ws->st_dev &&
	    st.st_ino == ws->st_ino;
}

static int
at_or_above(const struct stat *ws, const char *path)
{
	char real[PATH_MAX];

	if (path == NULL || *path != '/' || realpath(path, real) == NULL)
		return 0;
	return above_real(ws, real);
}

/* Would ws hold the state directory, made or not yet? */
static int
holds_state(const struct stat *ws, const char *statedir)
{
	char p[PATH_MAX], real[PATH_MAX], *slash;

	if (statedir == NULL || *statedir != '/' ||
	    strlen(statedir) >= sizeof(p))
		return 0;
	memcpy(p, statedir, strlen(statedir) + 1);
	while (realpath(p, real) == NULL) {
		if (errno != ENOENT || (slash = strrchr(p, '/')) == NULL ||
		    slash == p)
			return 0;
		*slash = '\0';
	}
	return above_real(ws, real);
}

static int
covers_home(const struct stat *ws)
{
	const struct passwd *pw;
	const char *h = getenv("HOME");

	if (h != NULL && *h == '/' && at_or_above(ws, h))
		return 1;
	return (pw = getpwuid(getuid())) != NULL && at_or_above(ws, pw->pw_dir);
}

/* The workspace to mount into buf (PATH_MAX); 0, or -1 with why. */
int
workspace_check(const struct request *r, const char *statedir, char *buf,
    char *why, size_t size)
{
	const char *w = r->workspace ? r->workspace : ".", *p;
	struct stat st;

	if (realpath(w, buf) == NULL) {
		snprintf(why, size, "workspace %s: %s", w, strerror(errno));
		return -1;
	}
	/* sbx reads "PATH:ro"; a ':' or a control byte would be misread */
	for (p = buf; *p != '\0'; p++)
		if (*p == ':' || (unsigned char)*p < ' ' || *p == 0x7f) {
			snprintf(why, size, "workspace path holds ':' or a "
			    "control character; refusing it");
			return -1;
		}
	if (stat(buf, &st) == -1 || !S_ISDIR(st.st_mode)) {
		snprintf(why, size, "workspace %s: not a directory", buf);
		return -1;
	}
	if (at_or_above(&st, "/") || covers_home(&st) ||
	    holds_state(&st, statedir)) {
		snprintf(why, size, "workspace %s is /, a home directory or "
		    "above one, or holds the state directory; refusing to "
		    "mount it (use -w)", buf);
		return -1;
	}
	return 0;
}

/* The workspaces no sbx may come from: NAME.created's and the one to mount. */
void
workspace_session(struct request *r)
{
	char statedir[PATH_MAX], why[PATH_MAX + 128];
	size_t n = 0;

	if (sbx_state_field(r->before, "workspace", r->wsmarker,
	    sizeof(r->wsmarker)) != NULL && r->wsmarker[0] == '/')
		r->ws[n++] = r->wsmarker;
	if (sbx_xstatedir_path(statedir, sizeof(statedir)) == -1)
		statedir[0] = '\0';
	if (workspace_check(r, statedir, r->wscall, why, sizeof(why)) == 0)
		r->ws[n++] = r->wscall;
	r->ws[n] = NULL;
}

static int
empty(int fd)
{
	struct dirent *de;
	DIR *d;
	int dup_fd, n = 0;

	if ((dup_fd = dup(fd)) == -1)
		return 0;
	if ((d = fdopendir(dup_fd)) == NULL) {
		close(dup_fd);
		return 0;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n == 0;
}

static int
opendir_at(int dfd, const char *file)
{
	return openat(dfd, file, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC);
}

/*
 * The scratch primary of read-only mode, which becomes a read-write
 * mount: made by this run, or ours, 0700 and empty.  A link or file there
 * is removed, never followed; *made says whether this run made it.
 */
void
workspace_prime_dir(int dfd, const char *file, const char *path, int *made)
{
	struct stat st;
	int fd;

	*made = 0;
	if ((fd = opendir_at(dfd, file)) == -1) {
		/* ELOOP, or EMLINK on FreeBSD: a link; ENOTDIR: not a dir */
		if (errno == ELOOP || errno == EMLINK || errno == ENOTDIR) {
			if (unlinkat(dfd, file, 0) == -1)
				err(SBX_EX_FAIL, "%s", path);
		} else if (errno != ENOENT)
			err(SBX_EX_FAIL, "%s", path);
		if (mkdirat(dfd, file, 0700) == -1)
			err(SBX_EX_FAIL, "%s", path);
		*made = 1;
		if ((fd = opendir_at(dfd, file)) == -1)
			err(SBX_EX_FAIL, "%s", path);
		(void)fchmod(fd, 0700);
	}
	if (fstat(fd, &st) == -1)
		err(SBX_EX_FAIL, "%s", path);
	if (st.st_uid != geteuid() || (st.st_mode & 07777) != 0700 ||
	    !empty(fd))
		errx(SBX_EX_FAIL, "scratch directory %s is not an empty "
		    "directory of ours with mode 0700; refusing it (remove it "
		    "if it is stale)", path);
	close(fd);
}
