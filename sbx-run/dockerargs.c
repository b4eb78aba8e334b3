/*
 * dockerargs.c: the docker arguments sbx-run refuses.  Every inner call is
 * pinned to the sandbox's own daemon with -H; a global option that picks
 * another daemon, context, config or TLS peer would undo that, so it is a
 * usage error.  Compose takes the same options before its own command.
 */
#include <err.h>
#include <string.h>

#include "sbx.h"
#include "sbx-run.h"

/* Global options that take a separate value (their own words skipped). */
static const char *const docker_valued[] = { "-l", "--log-level", NULL };
static const char *const compose_valued[] = {
	"-f", "--file", "-p", "--project-name", "--profile",
	"--project-directory", "--env-file", "--log-level", "--ansi",
	"--parallel", "--progress", NULL
};

static int
inlist(const char *const *list, const char *s, size_t len)
{
	for (; *list != NULL; list++)
		if (strlen(*list) == len && strncmp(*list, s, len) == 0)
			return 1;
	return 0;
}

static void SBX_DEAD
refuse(const char *where, const char *opt, size_t len)
{
	errx(SBX_EX_USAGE, "%s option %.*s would leave the sandbox's daemon; "
	    "refused", where, (int)(len > 40 ? 40 : len), opt);
}

/*
 * Walk the global options of docker (or compose) at av; refuse the
 * redirecting ones.  Returns the index of the first operand.
 */
static int
scan(char *const *av, const char *where, const char *const *valued)
{
	const char *a, *c;
	size_t len;
	int i;

	for (i = 0; (a = av[i]) != NULL && a[0] == '-' && a[1] != '\0'; i++) {
		if (strcmp(a, "--") == 0)
			return i + 1;
		len = strcspn(a, "=");
		if (a[1] == '-') {
			if ((len == 6 && strncmp(a, "--host", 6) == 0) ||
			    (len == 9 && strncmp(a, "--context", 9) == 0) ||
			    (len == 8 && strncmp(a, "--config", 8) == 0) ||
			    strncmp(a, "--tls", 5) == 0)
				refuse(where, a, len);
		} else {
			/* a cluster such as -DH: any H or c in it counts */
			for (c = a + 1; *c != '\0'; c++) {
				if (*c == 'H' || *c == 'c')
					refuse(where, a, strlen(a));
				if (*c == 'l' || *c == 'f' || *c == 'p')
					break;	/* the rest is a value */
			}
		}
		if (a[len] == '\0' && inlist(valued, a, len) && av[i + 1])
			i++;
	}
	return i;
}

void
check_docker_args(char *const *av)
{
	int sub;

	sub = scan(av, "docker", docker_valued);
	if (av[sub] != NULL && strcmp(av[sub], "compose") == 0)
		(void)scan(av + sub + 1, "compose", compose_valued);
}

/* pull, build and compose get the long timeout. */
int
long_running(char *const *av)
{
	static const char *const slow[] = { "pull", "build", "compose", NULL };
	int sub;

	sub = scan(av, "docker", docker_valued);
	return av[sub] != NULL && inlist(slow, av[sub], strlen(av[sub]));
}
