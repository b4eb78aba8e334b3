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

static const char *const fallback[] = {
	"/opt/homebrew/bin/sbx", "/usr/local/bin/sbx"
};

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
 * there is none.  A DOCKER_SANDBOX_SBX that is not absolute is a usage
 * error (exit 64): a relative one would depend on the working directory.
 */
int
sbx_cli_find(char *const *env, char *buf, size_t size)
{
	const char *v;
	size_t i;

	if ((v = sbx_env_get(env, "DOCKER_SANDBOX_SBX")) != NULL && *v) {
		if (*v != '/')
			errx(SBX_EX_USAGE, "DOCKER_SANDBOX_SBX: not an absolute "
			    "path");
		if (strlen(v) >= size)
			return errno = ENAMETOOLONG, -1;
		memcpy(buf, v, strlen(v) + 1);
		return 0;	/* exec reports a missing or bad file */
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
