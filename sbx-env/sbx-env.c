/*
 * sbx-env: scrub the environment by policy, then exec a utility.  A
 * chain-loader: the environment is built from an allow-list, never from
 * what it inherited, and the utility found on the scrubbed PATH.  With no
 * utility it prints the result; with -c it checks every DOCKER_SANDBOX*
 * setting and prints its effective value, so no caller reads one itself.
 */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxenv.h"
#include "sbxjson.h"

#define DEFAULT_PATH	"/usr/bin:/bin"
#ifndef PATH_MAX
#define PATH_MAX	4096
#endif

extern char **environ;

static void SBX_DEAD
usage(void)
{
	fprintf(stderr, "usage: sbx-env [-cjp] [-a name[,name...]] "
	    "[utility [argument ...]]\n");
	exit(SBX_EX_USAGE);
}

/* Append "more" to the comma list *list. */
static void
addlist(char **list, const char *more)
{
	size_t old = *list ? strlen(*list) + 1 : 0;
	char *l;

	if ((l = realloc(*list, old + strlen(more) + 1)) == NULL)
		err(SBX_EX_CANTRUN, NULL);
	if (old > 0)
		l[old - 1] = ',';
	memcpy(l + old, more, strlen(more) + 1);
	*list = l;
}

/*
 * The sbx the programs would run, by sbxcli.c's own lookup, the working
 * directory standing for the session workspace; "none" when they would
 * run none (they then exit 126 or 127, saying where they looked).  A
 * relative DOCKER_SANDBOX_SBX is a bad value, refused in their words.
 */
static const char *
sbxshown(char *path, size_t size)
{
	char cwd[PATH_MAX], *ws[2] = { NULL, NULL };

	if (realpath(".", cwd) != NULL)
		ws[0] = cwd;
	if (sbx_cli_find(environ, ws, path, size) == -1) {
		if (errno == EINVAL)
			sbx_xcli_find(environ, ws, path, size);
		return "none";
	}
	/* one that names nothing comes back as given */
	return sbx_cli_runnable(path) ? path : "none";
}

/* -c: every setting, checked, as NAME=value or (-j) a JSON object each. */
static int
settings(int jflag)
{
	char buf[64], path[PATH_MAX];
	const char *name, *value, *sbx;
	unsigned bit;
	size_t i;

	sbx_xconf_check(SBX_CONF_ALL);	/* all or nothing */
	sbx = sbxshown(path, sizeof(path));
	for (i = 0; (bit = sbx_conf_bit(i)) != 0; i++) {
		name = sbx_conf_name(bit);
		value = bit == SBX_CONF_SBX ? sbx :
		    sbx_xconf_value(bit, buf, sizeof(buf));
		if (!jflag) {
			printf("%s=%s\n", name, value);
			continue;
		}
		printf("{\"name\":");
		sbx_jsonout_puts(stdout, name);
		printf(",\"value\":");
		sbx_jsonout_puts(stdout, value);
		printf("}\n");
	}
	if (sbx_io_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return SBX_EX_OK;
}

/* exec(3p) falls back to sh for a file without a known format. */
static void
tryexec(const char *path, char **argv, char **env)
{
	char **shargv;
	int n;

	execve(path, argv, env);
	if (errno != ENOEXEC)
		return;
	for (n = 0; argv[n] != NULL; n++)
		;
	if ((shargv = calloc((size_t)n + 2, sizeof(*shargv))) == NULL)
		err(SBX_EX_CANTRUN, NULL);
	shargv[0] = "sh";
	shargv[1] = (char *)path;
	memcpy(shargv + 2, argv + 1, (size_t)n * sizeof(*shargv));
	execve("/bin/sh", shargv, env);
	free(shargv);
	errno = ENOEXEC;
}

/* Search the scrubbed PATH, as execvp(3) would search its own. */
static void SBX_DEAD
run(char **argv, char **env)
{
	const char *path, *p, *end;
	char buf[4096];
	int denied = 0, n;
	size_t len;

	if (strchr(argv[0], '/') != NULL) {
		tryexec(argv[0], argv, env);
		err(sbx_spawn_exec_status(errno), "%s", argv[0]);
	}
	if ((path = sbx_env_get(env, "PATH")) == NULL)
		path = DEFAULT_PATH;
	for (p = path;; p = end + 1) {
		if ((end = strchr(p, ':')) == NULL)
			end = p + strlen(p);
		len = (size_t)(end - p);
		n = snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, p,
		    len ? "/" : "", argv[0]);
		if (n > 0 && (size_t)n < sizeof(buf)) {
			tryexec(buf, argv, env);
			if (errno == EACCES)
				denied = 1;
			else if (errno != ENOENT && errno != ENOTDIR)
				err(SBX_EX_NOEXEC, "%s", buf);
		}
		if (*end == '\0')
			break;
	}
	if (denied) {
		errno = EACCES;
		err(SBX_EX_NOEXEC, "%s", argv[0]);
	}
	errx(SBX_EX_NOTFOUND, "%s: not found", argv[0]);
}

int
main(int argc, char *argv[])
{
	struct sbx_envpolicy pol;
	char **env, *allow = NULL;
	int ch, cflag = 0, jflag = 0, pflag = 0;
	size_t i;

	opterr = 0;	/* usage() says it all, on one line */
	while ((ch = getopt(argc, argv, "+a:cjp")) != -1) {
		switch (ch) {
		case 'a':
			addlist(&allow, optarg);
			break;
		case 'c':
			cflag = 1;
			break;
		case 'j':
			jflag = 1;
			break;
		case 'p':
			pflag = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (jflag && !cflag)
		usage();	/* -j is for -c */
	if (cflag) {
		if (argc != 0 || allow != NULL || pflag)
			usage();
		return settings(jflag);
	}
	sbx_xconf_check(SBX_CONF_ENV);

	if (sbx_xconf_env_policy(&pol, allow, pflag) == -1)
		err(SBX_EX_CANTRUN, NULL);
	if ((env = sbx_env_build(environ, &pol)) == NULL)
		err(SBX_EX_CANTRUN, NULL);

	if (argc == 0) {
		for (i = 0; env[i] != NULL; i++)
			if (printf("%s\n", env[i]) < 0)
				break;
		free(env);
		free(allow);
		sbx_env_policy_free(&pol);
		if (sbx_io_fshut() == -1)
			err(SBX_EX_FAIL, "stdout");
		return SBX_EX_OK;
	}
	run(argv, env);
}
