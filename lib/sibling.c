/*
 * sibling.c: find another sbx-tools program, the one installed beside the
 * running one.  sbx-ports and sbx-verify reach the sandbox only through
 * sbx-run, so the transport, its environment policy and its pinning live
 * in one program and the audit examines that very program.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sbxcli.h"
#include "sbx-internal.h"

/*
 * The path of prog: in the directory of argv0 when argv0 names a path
 * (made absolute from the working directory) and prog is there, else the
 * first prog on the PATH of env (a build tree keeps each program in a
 * directory of its own); never one inside the workspaces ws, and always
 * resolved, as sbx itself is (sbxcli.c).  Returns 0, or -1 with errno
 * ENOENT.
 */
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
		if (sbx_prog_ok(ws, path, buf, size) == 0)
			return 0;
	}
	return sbx_path_search(env, ws, prog, buf, size);
}
