/*
 * dockerargs.c: what may stand before the docker subcommand, read with
 * docker's own grammar (pflag) so a value cannot hide an option: only
 * -D and -l LEVEL pass, and compose's options that pick a daemon fail.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbx-run.h"

#define PASS	0	/* allowed */
#define AWAY	1	/* picks another daemon, context, config or TLS peer */
#define DENY	2	/* harmless, but not on the allow-list */

struct opt {
	char		 s;	/* short letter, or 0 */
	const char	*l;	/* long name without the dashes */
	int		 valued;
	int		 rule;
};

/* What points docker or a plugin at another daemon or its credentials. */
static const struct opt redirecting_opts[] = {
	{ 'H', "host", 1, AWAY },
	{ 'c', "context", 1, AWAY },
	{ 0, "config", 1, AWAY },
	{ 0, "tls", 0, AWAY },
	{ 0, "tlsverify", 0, AWAY },
	{ 0, "tlscacert", 1, AWAY },
	{ 0, "tlscert", 1, AWAY },
	{ 0, "tlskey", 1, AWAY },
	{ 0, NULL, 0, 0 }
};

static const struct opt docker_opts[] = {
	{ 'D', "debug", 0, PASS },
	{ 'l', "log-level", 1, PASS },
	{ 'v', "version", 0, DENY },
	{ 'h', "help", 0, DENY },
	{ 0, NULL, 0, 0 }
};

/* Compose's own: an unknown one stands alone, which can only refuse more. */
static const struct opt compose_opts[] = {
	{ 'f', "file", 1, PASS },
	{ 'p', "project-name", 1, PASS },
	{ 0, "profile", 1, PASS },
	{ 0, "project-directory", 1, PASS },
	{ 0, "workdir", 1, PASS },
	{ 0, "env-file", 1, PASS },
	{ 0, "log-level", 1, PASS },
	{ 0, "ansi", 1, PASS },
	{ 0, "parallel", 1, PASS },
	{ 0, "progress", 1, PASS },
	{ 0, NULL, 0, 0 }
};

static const char *const levels[] = {
	"debug", "info", "warn", "error", "fatal", NULL
};

struct grammar {
	const char		*where;	/* "docker" or "compose" */
	const struct opt	*opts;
	int			 strict; /* unknown options refused */
};

static const struct grammar docker_g = { "docker", docker_opts, 1 };
static const struct grammar compose_g = { "compose", compose_opts, 0 };

static const struct opt *
find(const struct grammar *g, char c, const char *s, size_t len)
{
	const struct opt *const tables[] = { g->opts, redirecting_opts };
	const struct opt *o;
	size_t t;

	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (o = tables[t]; o->l != NULL; o++)
			if (s == NULL ? o->s == c : strlen(o->l) == len &&
			    strncmp(o->l, s, len) == 0)
				return o;
	return NULL;
}

static void SBX_DEAD
refuse(const struct grammar *g, const char *word, const struct opt *o,
    char letter, size_t len, const char *why)
{
	char name[48];

	if (letter != 0)
		(void)snprintf(name, sizeof(name), "-%c", letter);
	else
		(void)snprintf(name, sizeof(name), "%.*s",
		    (int)(len > 40 ? 40 : len), word);
	if (o != NULL && o->rule == AWAY)
		why = "would leave the sandbox's daemon; refused";
	if (letter != 0 && word[2] != '\0')
		errx(SBX_EX_USAGE, "%s option %s (in %.40s) %s", g->where,
		    name, word, why);
	errx(SBX_EX_USAGE, "%s option %s %s", g->where, name, why);
}

#define NOTALLOWED	"is not allowed before the subcommand " \
			"(only -D, --debug, -l LEVEL, --log-level LEVEL)"

static void
value(const struct grammar *g, const char *word, const struct opt *o,
    char letter, size_t len, const char *v)
{
	const char *const *l;

	if (v == NULL)
		refuse(g, word, o, letter, len, "needs a value");
	if (g->strict && o->s == 'l') {
		for (l = levels; *l != NULL; l++)
			if (strcmp(*l, v) == 0)
				return;
		refuse(g, word, o, letter, len, "takes debug, info, warn, "
		    "error or fatal");
	}
}

static void
judge(const struct grammar *g, const char *word, const struct opt *o,
    char letter, size_t len)
{
	if (o == NULL) {
		if (g->strict)
			refuse(g, word, NULL, letter, len, "is unknown; refused");
		return;
	}
	if (o->rule == AWAY || (g->strict && o->rule == DENY))
		refuse(g, word, o, letter, len, NOTALLOWED);
}

/* Walk the options at av by grammar g; the index of the subcommand. */
static int
scan(char *const *av, const struct grammar *g)
{
	const struct opt *o;
	const char *a, *c, *eq, *v;
	size_t len;
	int i;

	for (i = 0; (a = av[i]) != NULL && a[0] == '-' && a[1] != '\0'; i++) {
		if (strcmp(a, "--") == 0) {
			i++;
			/* an option-looking operand is no subcommand */
			if (av[i] != NULL && av[i][0] == '-')
				refuse(g, av[i], NULL, 0, strlen(av[i]),
				    "after -- is no subcommand; refused");
			return i;
		}
		if (a[1] == '-') {
			eq = strchr(a + 2, '=');
			len = eq != NULL ? (size_t)(eq - a) : strlen(a);
			o = find(g, 0, a + 2, len - 2);
			judge(g, a, o, 0, len);
			if (o == NULL)
				continue;
			if (!o->valued) {
				if (eq != NULL)
					refuse(g, a, o, 0, len,
					    "takes no value; refused");
				continue;
			}
			v = eq != NULL ? eq + 1 : av[i + 1];
			value(g, a, o, 0, len, v);
			if (eq == NULL)
				i++;
			continue;
		}
		/* a cluster: letters until one takes the rest as its value */
		for (c = a + 1; *c != '\0'; c++) {
			o = find(g, *c, NULL, 0);
			judge(g, a, o, *c, 0);
			if (o == NULL)
				continue;
			if (!o->valued) {
				if (c[1] == '=')
					refuse(g, a, o, *c, 0,
					    "takes no value; refused");
				continue;
			}
			if (c[1] != '\0')
				v = c[1] == '=' ? c + 2 : c + 1;
			else
				v = av[++i];
			value(g, a, o, *c, 0, v);
			break;
		}
	}
	return i;
}

static int
subcommand(char *const *av)
{
	return scan(av, &docker_g);
}

/* The index of the subcommand in av (of av's end if none). */
int
dockerargs_subcommand(char *const *av)
{
	return subcommand(av);
}

void
dockerargs_check(char *const *av)
{
	int sub;

	sub = subcommand(av);
	if (av[sub] != NULL && strcmp(av[sub], "compose") == 0)
		(void)scan(av + sub + 1, &compose_g);
}

int
dockerargs_subcommand_in(char *const *av, const char *const *list)
{
	int sub = subcommand(av);

	for (; av[sub] != NULL && *list != NULL; list++)
		if (strcmp(av[sub], *list) == 0)
			return 1;
	return 0;
}

int
dockerargs_long_running(char *const *av)
{
	static const char *const slow[] = { "pull", "build", "compose", NULL };

	return dockerargs_subcommand_in(av, slow);
}

static const char *const exec_valued[] = {
	"detach-keys", "env", "env-file", "index", "user", "workdir", NULL
};

static int
shell(const char *w)
{
	static const char *const shells[] = {
		"sh", "bash", "ash", "dash", "ksh", NULL
	};
	const char *const *s;
	const char *b;

	b = (b = strrchr(w, '/')) != NULL ? b + 1 : w;
	for (s = shells; *s != NULL; s++)
		if (strcmp(b, *s) == 0)
			return 1;
	return 0;
}

/*
 * An inner docker or compose exec, not detached, of a shell command that
 * can be stamped: the index of its container word (*sub the exec, *top
 * the subcommand, *index --index's value or NULL), or -1.
 */
int
dockerargs_inner_exec(char *const *av, int *top, int *sub, const char **index)
{
	const char *a, *c, *eq;
	const char *const *v;
	int i, x;

	*index = NULL;
	x = *top = subcommand(av);
	if (av[x] != NULL && strcmp(av[x], "compose") == 0)
		x += 1 + scan(av + x + 1, &compose_g);
	if (av[x] == NULL || strcmp(av[x], "exec") != 0)
		return -1;
	*sub = x;
	for (i = x + 1; (a = av[i]) != NULL && a[0] == '-' && a[1] != '\0';
	    i++) {
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[1] == '-') {
			eq = strchr(a, '=');
			if (strncmp(a + 2, "detach", 6) == 0 && (a[8] == '\0' ||
			    a[8] == '='))
				return -1;
			for (v = exec_valued; *v != NULL; v++)
				if (strncmp(a + 2, *v, strlen(*v)) == 0 &&
				    (a[2 + strlen(*v)] == '\0' || a + 2 +
				    strlen(*v) == eq))
					break;
			if (*v == NULL)
				continue;
			if (eq == NULL && av[++i] == NULL)
				return -1;
			if (strcmp(*v, "index") == 0)
				*index = eq != NULL ? eq + 1 : av[i];
			continue;
		}
		for (c = a + 1; *c != '\0'; c++) {
			if (*c == 'd')
				return -1;
			if (strchr("euw", *c) != NULL) {
				if (c[1] == '\0' && av[++i] == NULL)
					return -1;
				break;
			}
		}
	}
	if (av[i] == NULL || av[i + 1] == NULL || !shell(av[i + 1]))
		return -1;
	return i;
}
