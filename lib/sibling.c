/*
 * sibling.c: the sbx-tools program installed beside this one, so the
 * transport lives in sbx-run alone and the audit examines that program.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sbxcli.h"
#include "sbx-internal.h"

/* prog beside argv0, else on env's PATH; never in ws, resolved.  ENOENT. */
int
sbx_sibling(const char *argv0, char *const *env, char *const *ws,
    const char *prog, char *buf, size_t size)
{
	const char *slash;
	char cwd[4096], path[4096];
	size_t len;
	int n;

	if (argv0 != NULL && (slash = strrchr(argv0, '/')) != NULL) {
		len = (size_t)(slash - argv0);
		if (*argv0 == '/')
			n = snprintf(path, sizeof(path), "%.*s/%s", (int)len,
			    argv0, prog);
		else if (getcwd(cwd, sizeof(cwd)) != NULL)
			n = snprintf(path, sizeof(path), "%s/%.*s/%s", cwd,
			    (int)len, argv0, prog);
		else
			return -1;
		if (n < 0 || (size_t)n >= sizeof(path))
			return errno = ENAMETOOLONG, -1;
		if (sbx_cli_prog_ok(ws, path, buf, size) == 0)
			return 0;
	}
	return sbx_cli_path_search(env, ws, prog, buf, size);
}
