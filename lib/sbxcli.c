/*
 * sbxcli.c: which sbx to run.  DOCKER_SANDBOX_SBX if set (an absolute
 * path), else the first sbx on PATH, else the two usual install places.
 * The result is always an absolute path, executed with execve(2).
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"

/* Where sbx is looked for after PATH; NOTFOUND names the same places. */
static const char *const fallback[] = {
	"/opt/homebrew/bin/sbx", "/usr/local/bin/sbx"
};
#define NOTFOUND	"sbx: not found on PATH, in /opt/homebrew/bin or " \
	"/usr/local/bin (set DOCKER_SANDBOX_SBX)"

/* A regular file we may execute. */
int
sbx_runnable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

/*
 * The first prog on the PATH of env, absolute entries only (an empty or
 * relative one would mean the working directory).  0, or -1 with ENOENT.
 */
int
sbx_path_search(char *const *env, const char *prog, char *buf, size_t size)
{
	const char *p, *end;
	size_t len;
	int n;

	if ((p = sbx_env_get(env, "PATH")) == NULL)
		return errno = ENOENT, -1;
	for (; *p != '\0'; p = *end ? end + 1 : end) {
		if ((end = strchr(p, ':')) == NULL)
			end = p + strlen(p);
		len = (size_t)(end - p);
		if (len == 0 || *p != '/')
			continue;
		n = snprintf(buf, size, "%.*s/%s", (int)len, p, prog);
		if (n > 0 && (size_t)n < size && sbx_runnable(buf))
			return 0;
	}
	return errno = ENOENT, -1;
}

/*
 * Fill buf with the sbx to run.  Returns 0, or -1 with errno ENOENT when
 * there is none, EINVAL when DOCKER_SANDBOX_SBX is not absolute (a
 * relative one would depend on the working directory).
 */
static int
cli_find(char *const *env, char *buf, size_t size)
{
	const char *v;
	size_t i;

	if ((v = sbx_env_get(env, "DOCKER_SANDBOX_SBX")) != NULL && *v) {
		if (*v != '/')
			return errno = EINVAL, -1;
		if (strlen(v) >= size)
			return errno = ENAMETOOLONG, -1;
		memcpy(buf, v, strlen(v) + 1);
		return 0;	/* taken as given: the caller checks it */
	}
	if (sbx_path_search(env, "sbx", buf, size) == 0)
		return 0;
	for (i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++) {
		if (sbx_runnable(fallback[i]) && strlen(fallback[i]) < size) {
			memcpy(buf, fallback[i], strlen(fallback[i]) + 1);
			return 0;
		}
	}
	errno = ENOENT;
	return -1;
}

/*
 * The sbx to run, in buf, or exit with the one message and status every
 * program gives: 127 when there is none (DOCKER_SANDBOX_SBX naming nothing
 * included), 126 when it names what cannot run, 64 when it is not an
 * absolute path.  Checked before any work, so no program finds out
 * half-way through.
 */
void
sbx_xcli_find(char *const *env, char *buf, size_t size)
{
	struct stat st;

	if (cli_find(env, buf, size) == -1) {
		if (errno == EINVAL)
			errx(SBX_EX_USAGE, "DOCKER_SANDBOX_SBX: not an absolute "
			    "path");
		if (errno == ENAMETOOLONG)
			err(SBX_EX_NOTFOUND, "DOCKER_SANDBOX_SBX");
		errx(SBX_EX_NOTFOUND, NOTFOUND);
	}
	if (stat(buf, &st) == -1 || access(buf, X_OK) == -1)
		err(sbx_exec_status(errno), "%s", buf);
	if (!S_ISREG(st.st_mode)) {
		errno = EACCES;	/* what execve(2) says of the rest */
		err(SBX_EX_NOEXEC, "%s", buf);
	}
}
