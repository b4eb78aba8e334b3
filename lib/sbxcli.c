/*
 * sbxcli.c: which sbx to run: DOCKER_SANDBOX_SBX, the first on PATH, or
 * where its installers put it.  Never one from inside a session
 * workspace, which the sandbox can write: candidates are resolved and
 * compared by device and inode, and the resolved path is what runs.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbxenv.h"
#include "sbx-internal.h"

#ifndef PATH_MAX
#define PATH_MAX	4096
#endif
#define WS_MAX		64	/* workspaces compared; more are not looked at */
#define TARBALL		"/.docker/sbx/bin/sbx"

struct wset {
	dev_t	 dev[WS_MAX];
	ino_t	 ino[WS_MAX];
	const char *path[WS_MAX];
	size_t	 n;
	const char *hit;	/* the workspace of the last refusal */
	char	 skipped[PATH_MAX];	/* that candidate, resolved */
};

int
sbx_cli_runnable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

static void
wset_init(struct wset *w, char *const *ws)
{
	struct stat st;
	size_t i;

	memset(w, 0, sizeof(*w));
	for (i = 0; ws != NULL && ws[i] != NULL && w->n < WS_MAX; i++) {
		if (*ws[i] != '/' || stat(ws[i], &st) == -1 ||
		    !S_ISDIR(st.st_mode))
			continue;
		w->dev[w->n] = st.st_dev;
		w->ino[w->n] = st.st_ino;
		w->path[w->n++] = ws[i];
	}
}

/* Is real (resolved) a workspace or below one?  0, or its number from 1. */
static int
wset_holds(struct wset *w, const char *real)
{
	char p[PATH_MAX], *slash;
	struct stat st;
	size_t i;

	if (w->n == 0)
		return 0;
	if (strlen(real) >= sizeof(p))
		return 1;	/* cannot tell: not run */
	memcpy(p, real, strlen(real) + 1);
	for (;;) {
		if (stat(p, &st) == 0)
			for (i = 0; i < w->n; i++)
				if (st.st_dev == w->dev[i] &&
				    st.st_ino == w->ino[i])
					return (int)i + 1;
		if ((slash = strrchr(p, '/')) == NULL || slash == p)
			return 0;
		*slash = '\0';
	}
}

static int
refuse(struct wset *w, int i, const char *path)
{
	w->hit = w->path[i - 1];
	(void)snprintf(w->skipped, sizeof(w->skipped), "%s", path);
	return -1;
}

/* Candidate path, resolved into buf, if runnable outside every workspace. */
static int
candidate(struct wset *w, const char *path, char *buf, size_t size)
{
	char real[PATH_MAX];

	int i;

	if (!sbx_cli_runnable(path) || realpath(path, real) == NULL ||
	    strlen(real) >= size)
		return -1;
	if ((i = wset_holds(w, real)) != 0)
		return refuse(w, i, real);
	memcpy(buf, real, strlen(real) + 1);
	return 0;
}

/* The first prog on the PATH of env that may run; 0, or -1. */
static int
search(struct wset *w, char *const *env, const char *prog, char *buf,
    size_t size)
{
	char dir[PATH_MAX], real[PATH_MAX], file[PATH_MAX];
	const char *p, *end;
	size_t len;
	int n, i;

	if ((p = sbx_env_get(env, "PATH")) == NULL)
		return -1;
	for (; *p != '\0'; p = *end ? end + 1 : end) {
		if ((end = strchr(p, ':')) == NULL)
			end = p + strlen(p);
		len = (size_t)(end - p);
		/* an empty or relative entry would mean the working directory */
		if (len == 0 || *p != '/' || len >= sizeof(dir))
			continue;
		memcpy(dir, p, len);
		dir[len] = '\0';
		if (realpath(dir, real) == NULL)
			continue;
		n = snprintf(file, sizeof(file), "%s/%s", real, prog);
		if (n <= 0 || (size_t)n >= sizeof(file))
			continue;
		if ((i = wset_holds(w, real)) != 0) {
			if (sbx_cli_runnable(file))
				(void)refuse(w, i, file);
			continue;
		}
		if (candidate(w, file, buf, size) == 0)
			return 0;
	}
	return -1;
}

/* The first prog on env's PATH, absolute entries outside ws only; ENOENT. */
int
sbx_cli_path_search(char *const *env, char *const *ws, const char *prog,
    char *buf, size_t size)
{
	struct wset w;

	wset_init(&w, ws);
	if (search(&w, env, prog, buf, size) == 0)
		return 0;
	return errno = ENOENT, -1;
}

/* path, resolved into buf, if runnable outside ws; EPERM or ENOENT. */
int
sbx_cli_prog_ok(char *const *ws, const char *path, char *buf, size_t size)
{
	struct wset w;

	wset_init(&w, ws);
	if (candidate(&w, path, buf, size) == 0)
		return 0;
	return errno = w.hit != NULL ? EPERM : ENOENT, -1;
}

/* 0: $HOME, else the account's home; 1: the account's, if it differs. */
static const char *
home(char *const *env, int which)
{
	const struct passwd *pw;
	const char *h = sbx_env_get(env, "HOME"), *p = NULL;

	if (h != NULL && *h != '/')
		h = NULL;
	if ((pw = getpwuid(getuid())) != NULL && pw->pw_dir != NULL &&
	    *pw->pw_dir == '/')
		p = pw->pw_dir;
	if (which == 0)
		return h != NULL ? h : p;
	return h != NULL && p != NULL && strcmp(h, p) != 0 ? p : NULL;
}

static int
cli_find(struct wset *w, char *const *env, char *buf, size_t size)
{
	static const char *const fallback[] = {
		"/opt/homebrew/bin/sbx", "/usr/local/bin/sbx"
	};
	char path[PATH_MAX], real[PATH_MAX];
	const char *v, *h;
	size_t k;
	int which, i;

	if ((v = sbx_env_get(env, "DOCKER_SANDBOX_SBX")) != NULL && *v) {
		if (*v != '/')
			return errno = EINVAL, -1;
		if (strlen(v) >= size)
			return errno = ENAMETOOLONG, -1;
		if (realpath(v, real) == NULL) {
			memcpy(buf, v, strlen(v) + 1);
			return 0;
		}
		if ((i = wset_holds(w, real)) != 0) {
			(void)refuse(w, i, real);
			return errno = EPERM, -1;
		}
		if (strlen(real) >= size)
			return errno = ENAMETOOLONG, -1;
		memcpy(buf, real, strlen(real) + 1);
		return 0;
	}
	if (search(w, env, "sbx", buf, size) == 0)
		return 0;
	for (k = 0; k < sizeof(fallback) / sizeof(fallback[0]); k++)
		if (candidate(w, fallback[k], buf, size) == 0)
			return 0;
	for (which = 0; which < 2; which++) {
		if ((h = home(env, which)) == NULL)
			continue;
		if (snprintf(path, sizeof(path), "%s%s", h, TARBALL) <
		    (int)sizeof(path) && candidate(w, path, buf, size) == 0)
			return 0;
	}
	return errno = ENOENT, -1;
}

/* The sbx to run, into buf; errno ENOENT, EINVAL (not absolute) or EPERM. */
int
sbx_cli_find(char *const *env, char *const *ws, char *buf, size_t size)
{
	struct wset w;

	wset_init(&w, ws);
	return cli_find(&w, env, buf, size);
}

/*
 * The sbx to run, or exit as every program does: 127 none, 126 not
 * runnable or in a workspace, 64 not absolute.  Checked before any work.
 */
void
sbx_xcli_find(char *const *env, char *const *ws, char *buf, size_t size)
{
	struct wset w;
	struct stat st;
	const char *h;

	wset_init(&w, ws);
	if (cli_find(&w, env, buf, size) == -1) {
		if (errno == EINVAL)
			errx(SBX_EX_USAGE, "DOCKER_SANDBOX_SBX: not an absolute "
			    "path");
		if (errno == ENAMETOOLONG)
			err(SBX_EX_NOTFOUND, "DOCKER_SANDBOX_SBX");
		if (errno == EPERM)
			errx(SBX_EX_NOEXEC, "DOCKER_SANDBOX_SBX: %s lies in the "
			    "session workspace %s; refusing to run it",
			    w.skipped, w.hit);
		if (w.hit != NULL)
			warnx("%s lies in the session workspace %s; not "
			    "running it", w.skipped, w.hit);
		h = home(env, 0);
		errx(SBX_EX_NOTFOUND, "sbx: not found on PATH, in "
		    "/opt/homebrew/bin, /usr/local/bin or %s/.docker/sbx/bin "
		    "(set DOCKER_SANDBOX_SBX)", h != NULL ? h : "~");
	}
	if (stat(buf, &st) == -1 || access(buf, X_OK) == -1)
		err(sbx_spawn_exec_status(errno), "%s", buf);
	if (!S_ISREG(st.st_mode)) {
		errno = EACCES;
		err(SBX_EX_NOEXEC, "%s", buf);
	}
}
