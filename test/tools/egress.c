/*
 * egress: what egress.c and regauth.c make of their text, for the
 * egress and regauth suites.  A refusal is "egress: WHY" on stderr, exit 64
 * (parse) or 1 (read).
 *   egress parse VAR LIST         each rule: KIND PORT RES
 *   egress match LIST TARGET...   each target: the index of its rule, or -1
 *   egress join LIST SIZE         the joined text, or exit 1: "needs N"
 *   egress regauth VAR LIST       each entry: HOST USER KIND SOURCE
 *   egress read LIST              each credential: HOST LEN VALUE
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxegress.h"
#include "sbxregauth.h"

extern char **environ;

static const char *const kinds[] = { "name", "one", "any", "ip4", "ip6" };
static struct sbx_egress e;
static struct sbx_regauth ra;
static char why[1024];

static void SBX_DEAD
usage(void)
{
	(void)fprintf(stderr, "usage: egress parse|match|join|regauth|read "
	    "...\n");
	exit(SBX_EX_USAGE);
}

static void
parse(const char *var, const char *list)
{
	if (sbx_egress_parse(var, list, &e, why, sizeof(why)) == -1)
		errx(SBX_EX_USAGE, "%s", why);
}

static int
readall(const char *list)
{
	struct sbx_buf b;
	size_t i;
	int rc = 0;

	if (sbx_regauth_parse("DOCKER_SANDBOX_REGISTRY_AUTH", list, &ra, why,
	    sizeof(why)) == -1)
		errx(SBX_EX_USAGE, "%s", why);
	for (i = 0; i < ra.n; i++) {
		if (sbx_regauth_read(&ra.v[i], environ, &b, why,
		    sizeof(why)) == -1) {
			warnx("%s", why);
			rc = 1;
			continue;
		}
		printf("%s %zu %s\n", ra.v[i].host, b.len, b.data);
		sbx_regauth_free(&b);
		if (b.data != NULL || b.len != 0)
			errx(SBX_EX_FAIL, "not freed");
	}
	return rc;
}

int
main(int argc, char *argv[])
{
	char *buf;
	size_t i, size, need;
	const char *errstr;

	if (argc < 3)
		usage();
	if (strcmp(argv[1], "parse") == 0 && argc == 4) {
		parse(argv[2], argv[3]);
		for (i = 0; i < e.n; i++)
			printf("%s %d %s\n", kinds[e.v[i].kind], e.v[i].port,
			    e.v[i].res);
	} else if (strcmp(argv[1], "match") == 0 && argc >= 4) {
		parse("LIST", argv[2]);
		for (i = 3; i < (size_t)argc; i++)
			printf("%d\n", sbx_egress_match(&e, argv[i]));
	} else if (strcmp(argv[1], "join") == 0 && argc == 4) {
		parse("LIST", argv[2]);
		size = (size_t)sbx_strtonum(argv[3], 0, 1 << 20, &errstr);
		if (errstr != NULL || (buf = malloc(size + 1)) == NULL)
			usage();
		buf[0] = 'x';
		if ((need = sbx_egress_join(&e, buf, size)) >= size) {
			printf("needs %zu, left \"%s\"\n", need,
			    size > 0 ? buf : "");
			free(buf);
			return SBX_EX_FAIL;
		}
		printf("%s\n", buf);
		free(buf);
	} else if (strcmp(argv[1], "regauth") == 0 && argc == 4) {
		if (sbx_regauth_parse(argv[2], argv[3], &ra, why,
		    sizeof(why)) == -1)
			errx(SBX_EX_USAGE, "%s", why);
		for (i = 0; i < ra.n; i++)
			printf("%s %s %s %s\n", ra.v[i].host,
			    ra.v[i].user[0] != '\0' ? ra.v[i].user : "-",
			    ra.v[i].kind == SBX_REGAUTH_FILE ? "file" : "env",
			    ra.v[i].src);
	} else if (strcmp(argv[1], "read") == 0 && argc == 3) {
		if (readall(argv[2]) != 0)
			return SBX_EX_FAIL;
	} else
		usage();
	return sbx_io_fshut() == 0 ? 0 : 1;
}
