/*
 * workspace.c: which directory sbx-run may mount.  Never /, a home
 * directory or an ancestor of one (that would mount ~/.ssh), and never
 * one that holds the state directory (the agent could plant markers or a
 * scratch link there).  Directories are compared by identity, device and
 * inode, so a bind mount, a symlink or another spelling of the same
 * directory is refused as well.
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

/* Is ws the directory real (a real path, changed here) names, or above it? */
static int
above_real(const struct stat *ws, char *real)
{
	struct stat st;
	char *slash;

	/* a real path has no link left in it: its prefixes are the ancestors */
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

/* Is ws the directory path names, or one of its ancestors? */
static int
at_or_above(const struct stat *ws, const char *path)
{
	char real[PATH_MAX];

	if (path == NULL || *path != '/' || realpath(path, real) == NULL)
		return 0;
	return above_real(ws, real);
}

/*
 * Would ws hold the state directory?  One not made yet counts from its
 * deepest existing ancestor, since provisioning makes it before it
 * mounts, so that the answer does not depend on whether a call made it.
 */
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
			return 0;	/* only / is left: checked apart */
		*slash = '\0';
	}
	return above_real(ws, real);
}

/* Any home directory the account may be known by. */
static int
covers_home(const struct stat *ws)
{
	const struct passwd *pw;
	const char *h = getenv("HOME");

	if (h != NULL && *h == '/' && at_or_above(ws, h))
		return 1;
	return (pw = getpwuid(getuid())) != NULL && at_or_above(ws, pw->pw_dir);
}

/*
 * The workspace to mount, as an absolute path in buf (PATH_MAX bytes).
 * Returns 0, or -1 with the reason it is refused in why.  statedir is
 * the state directory in use.
 */
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

/*
 * The session workspaces this call knows, which no sbx may come from:
 * the one NAME.created records (after provision_snapshot), and the one
 * it would mount (-w or the working directory) if it may mount it.
 */
void
session_workspaces(struct request *r)
{
	char statedir[PATH_MAX], why[PATH_MAX + 128];
	size_t n = 0;

	if (sbx_state_field(r->before, "workspace", r->wsmarker,
	    sizeof(r->wsmarker)) != NULL && r->wsmarker[0] == '/')
		r->ws[n++] = r->wsmarker;
	if (sbx_xstate_path(statedir, sizeof(statedir)) == -1)
		statedir[0] = '\0';
	if (workspace_check(r, statedir, r->wscall, why, sizeof(why)) == 0)
		r->ws[n++] = r->wscall;
	r->ws[n] = NULL;
}

/* Does the directory open at fd hold nothing? */
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
 * The scratch primary of read-only mode, file (NAME.prime) in the state
 * directory dfd, shown as path.  It becomes a read-write mount, so it is
 * one this run makes, or one that is certainly ours and unused: a real
 * directory, owned by us, mode 0700, empty.  A link or a file planted
 * there is removed, never followed; a directory that fails the test is
 * refused (exit 1).  *made says whether this run made it.
 */
void
prime_dir(int dfd, const char *file, const char *path, int *made)
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
		(void)fchmod(fd, 0700);		/* whatever the umask took */
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
