/*
 * conf.c: the DOCKER_SANDBOX* settings.  The table below is the one list
 * of them: the bit a program asks by, the variable, its kind, its default
 * and how sbx-env -c shows it.  The accessors, sbx_xconf_check(),
 * sbx_xconf_value(), sbx_conf_name() and, through sbx-env -c, the test
 * suites all read it, so a new setting is a row, an accessor and a bit.
 * The grammars of the values are in confparse.c: one parser per setting,
 * one set of limits, a bad value a usage error (exit 64) naming the
 * variable, never a silent default.  sbx_xconf_check() runs the parsers a
 * program needs before its first sbx call, so a bad value never waits for
 * the path that would read it.
 */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbx-internal.h"

#ifndef PATH_MAX
#define PATH_MAX	4096
#endif
#define GC_HOURS_MAX	SBX_GC_HOURS_MAX
#define CPUS_MAX	1024
#define PORTS_MAX	1024	/* DOCKER_SANDBOX_PORTS_MAX at most */
#define IMAGE_CACHE_MAX	(1LL << 50)	/* DOCKER_SANDBOX_IMAGE_CACHE: 1 PiB */
#define PREWARM_AUTO	2	/* sbx_xconf_prewarm(): the workspace decides */

/* How a value is read and shown: BOOL, NUM and STR by the row alone. */
#define BOOL	0	/* 1/true/yes/on or 0/false/no/off; shown 1 or 0 */
#define NUM	1	/* a whole number from min to max, shown in decimal */
#define STR	2	/* checked by str(); shown whole, or empty when unset */
#define OWN	3	/* an accessor of its own; show() says what -c prints */

struct setting {
	unsigned	 bit;		/* SBX_CONF_* */
	int		 kind;
	const char	*name;
	const char	*def;		/* when unset or empty; NULL: none */
	long long	 min, max;	/* NUM; the hours' bound too */
	const char	*(*str)(const char *, const char *);	/* STR */
	const char	*(*show)(char *, size_t);		/* OWN */
};

extern char **environ;

static int	sbx_xconf_prewarm(void);

/* What -c shows of the settings with an accessor of their own. */
static const char *
show_teardown(char *buf, size_t size)
{
	(void)buf, (void)size;
	return sbx_teardown_name(sbx_xconf_teardown());
}

static const char *
show_memory(char *buf, size_t size)
{
	sbx_xconf_memory(buf, size);
	return buf;
}

static const char *
show_ro(char *buf, size_t size)
{
	snprintf(buf, size, "%d", sbx_xconf_workspace_ro());
	return buf;
}

static const char *
show_gc_hours(char *buf, size_t size)
{
	snprintf(buf, size, "%lld", sbx_xconf_gc_hours());
	return buf;
}

static const char *
show_keepalive(char *buf, size_t size)
{
	int k = sbx_xconf_keepalive();

	snprintf(buf, size, "%s", k == SBX_KEEPALIVE_PORTS ? "ports" :
	    k == SBX_KEEPALIVE_ALWAYS ? "1" : "0");
	return buf;
}

static const char *
show_prewarm(char *buf, size_t size)
{
	int n = sbx_xconf_prewarm();

	snprintf(buf, size, "%s", n == PREWARM_AUTO ? "auto" :
	    n ? "1" : "0");
	return buf;
}

/* The image cache's budget in the largest unit that divides it. */
static const char *
show_image_cache(char *buf, size_t size)
{
	static const char units[] = "gmk";
	long long n = sbx_xconf_image_cache();
	int i;

	for (i = 0; n != 0 && i < 3; i++)
		if (n % (1LL << (10 * (3 - i))) == 0) {
			snprintf(buf, size, "%lld%c", n >> (10 * (3 - i)),
			    units[i]);
			return buf;
		}
	snprintf(buf, size, "%lld", n);
	return buf;
}

/*
 * The sbx the programs would run, by sbxcli.c's own lookup, the working
 * directory standing for the session workspace; "none" when they would
 * run none (they then exit 126 or 127, saying where they looked).  A
 * relative DOCKER_SANDBOX_SBX is a bad value, refused in their words.
 */
static const char *
show_sbx(char *buf, size_t size)
{
	static char path[PATH_MAX];
	char cwd[PATH_MAX], *ws[2] = { NULL, NULL };

	(void)buf, (void)size;
	if (realpath(".", cwd) != NULL)
		ws[0] = cwd;
	if (sbx_cli_find(environ, ws, path, sizeof(path)) == -1) {
		if (errno == EINVAL)
			sbx_xcli_find(environ, ws, path, sizeof(path));
		return "none";
	}
	/* one that names nothing comes back as given */
	return sbx_runnable(path) ? path : "none";
}

/* In the order sbx-env -c prints them. */
static const struct setting table[] = {
	{ SBX_CONF_PINNED, STR, "DOCKER_SANDBOX", NULL,
	    0, 0, sbx_xparse_name, NULL },
	{ SBX_CONF_AUTOCREATE, BOOL, "DOCKER_SANDBOX_AUTOCREATE", "1",
	    0, 0, NULL, NULL },
	{ SBX_CONF_CPUS, NUM, "DOCKER_SANDBOX_CPUS", "2",
	    0, CPUS_MAX, NULL, NULL },
	{ SBX_CONF_MEMORY, OWN, "DOCKER_SANDBOX_MEMORY", "2g",
	    0, 0, NULL, show_memory },
	{ SBX_CONF_TEMPLATE, STR, "DOCKER_SANDBOX_TEMPLATE", NULL,
	    0, 0, sbx_xparse_ref, NULL },
	{ SBX_CONF_WORKSPACE_RO, OWN, "DOCKER_SANDBOX_WORKSPACE_RO", "0",
	    0, 0, NULL, show_ro },
	/* unset: none for a pinned name, else remove */
	{ SBX_CONF_TEARDOWN, OWN, "DOCKER_SANDBOX_TEARDOWN", NULL,
	    0, 0, NULL, show_teardown },
	/* unset: while the sandbox has published ports */
	{ SBX_CONF_KEEPALIVE, OWN, "DOCKER_SANDBOX_KEEPALIVE", NULL,
	    0, 0, NULL, show_keepalive },
	{ SBX_CONF_GC_HOURS, OWN, "DOCKER_SANDBOX_GC_HOURS", "24",
	    0, GC_HOURS_MAX, NULL, show_gc_hours },
	{ SBX_CONF_ALLOWLIST, STR, "DOCKER_SANDBOX_ENV_ALLOWLIST", NULL,
	    0, 0, sbx_xparse_names, NULL },
	{ SBX_CONF_PASSTHROUGH, BOOL, "DOCKER_SANDBOX_ENV_PASSTHROUGH", "0",
	    0, 0, NULL, NULL },
	{ SBX_CONF_TIMEOUT, NUM, "DOCKER_SANDBOX_TIMEOUT", "120",
	    0, SBX_TIMEOUT_MAX, NULL, NULL },
	{ SBX_CONF_PORTS_MAX, NUM, "DOCKER_SANDBOX_PORTS_MAX", "64",
	    0, PORTS_MAX, NULL, NULL },
	{ SBX_CONF_PREWARM, OWN, "DOCKER_SANDBOX_PREWARM", "auto",
	    0, 0, NULL, show_prewarm },
	{ SBX_CONF_IMAGE_CACHE, OWN, "DOCKER_SANDBOX_IMAGE_CACHE", "10g",
	    0, IMAGE_CACHE_MAX, NULL, show_image_cache },
	/* unset: sbxcli.c's lookup; shown resolved */
	{ SBX_CONF_SBX, OWN, "DOCKER_SANDBOX_SBX", NULL,
	    0, 0, NULL, show_sbx },
};
#define NSETTINGS	(sizeof(table) / sizeof(table[0]))

static const struct setting *
row(unsigned bit)
{
	size_t i;

	for (i = 0; i < NSETTINGS; i++)
		if (table[i].bit == bit)
			return &table[i];
	abort();	/* a bit with no row */
}

/* The setting of bit as given, unchecked; NULL when unset or empty. */
const char *
sbx_conf_given(unsigned bit)
{
	return sbx_conf_str(row(bit)->name);
}

/* As given, else the row's default; NULL when neither. */
static const char *
value(const struct setting *s)
{
	const char *v = sbx_conf_str(s->name);

	return v != NULL ? v : s->def;
}

static int
conf_bool(unsigned bit)
{
	const struct setting *s = row(bit);

	return sbx_xparse_bool(s->name, value(s));
}

static long long
conf_num(unsigned bit)
{
	const struct setting *s = row(bit);

	return sbx_xparse_num(s->name, value(s), s->min, s->max);
}

static const char *
conf_str(unsigned bit)
{
	const struct setting *s = row(bit);
	const char *v = value(s);

	return v != NULL ? s->str(s->name, v) : NULL;
}

/* A number a program reads outside the table (its own SBX_* knobs). */
long long
sbx_xconf_num(const char *var, long long def, long long min, long long max)
{
	const char *v;

	if ((v = sbx_conf_str(var)) == NULL)
		return def;
	return sbx_xparse_num(var, v, min, max);
}

int
sbx_xconf_autocreate(void)
{
	return conf_bool(SBX_CONF_AUTOCREATE);
}

int
sbx_xconf_passthrough(void)
{
	return conf_bool(SBX_CONF_PASSTHROUGH);
}

/* Seconds per sbx call; 0 means no limit, as timeout(1) reads 0. */
int
sbx_xconf_timeout(void)
{
	return (int)conf_num(SBX_CONF_TIMEOUT);
}

/* Host ports one sandbox may hold (sbx-ports); 0 publishes nothing. */
int
sbx_xconf_ports_max(void)
{
	return (int)conf_num(SBX_CONF_PORTS_MAX);
}

int
sbx_xconf_cpus(void)
{
	return (int)conf_num(SBX_CONF_CPUS);
}

/*
 * Unset: hold the VM up while the sandbox has published ports (something
 * deployed for the host to reach); 1: always; 0: never.
 */
int
sbx_xconf_keepalive(void)
{
	if (sbx_conf_given(SBX_CONF_KEEPALIVE) == NULL)
		return SBX_KEEPALIVE_PORTS;
	return conf_bool(SBX_CONF_KEEPALIVE) ? SBX_KEEPALIVE_ALWAYS :
	    SBX_KEEPALIVE_NEVER;
}

/* A boolean, where "ro" also means true. */
int
sbx_xconf_workspace_ro(void)
{
	const struct setting *s = row(SBX_CONF_WORKSPACE_RO);
	const char *v = value(s);

	if (strcasecmp(v, "ro") == 0)
		return 1;
	if (sbx_parsebool(v) == -1)
		errx(SBX_EX_USAGE, "%s: expected 1, true, yes, on, ro, 0, "
		    "false, no or off", s->name);
	return sbx_parsebool(v);
}

/*
 * DOCKER_SANDBOX_PREWARM: 1 provision at session start, 0 never, or
 * PREWARM_AUTO (unset or "auto"): when the workspace shows docker
 * will be used, which the caller that starts the session judges.
 */
static int
sbx_xconf_prewarm(void)
{
	const struct setting *s = row(SBX_CONF_PREWARM);
	const char *v = value(s);
	int b;

	if (strcasecmp(v, "auto") == 0)
		return PREWARM_AUTO;
	if ((b = sbx_parsebool(v)) == -1)
		errx(SBX_EX_USAGE, "%s: expected auto, 1, true, yes, on, 0, "
		    "false, no or off", s->name);
	return b;
}

/* DOCKER_SANDBOX_TEARDOWN, else none for a pinned name, else remove. */
int
sbx_xconf_teardown(void)
{
	const struct setting *s = row(SBX_CONF_TEARDOWN);
	const char *v = value(s);
	int m;

	if (v == NULL)
		return sbx_conf_given(SBX_CONF_PINNED) != NULL ?
		    SBX_TEARDOWN_NONE : SBX_TEARDOWN_REMOVE;
	if ((m = sbx_teardown_parse(v)) == -1)
		errx(SBX_EX_USAGE, "%s: expected remove, stop or none",
		    s->name);
	return m;
}

/* Whole hours; a fraction rounds up, so it never means "any age". */
long long
sbx_xconf_gc_hours(void)
{
	const struct setting *s = row(SBX_CONF_GC_HOURS);

	return sbx_xparse_hours(s->name, value(s), s->max);
}

/* The image cache's budget in bytes, all projects together; 0: none. */
long long
sbx_xconf_image_cache(void)
{
	const struct setting *s = row(SBX_CONF_IMAGE_CACHE);

	return sbx_xparse_bytes(s->name, value(s), s->max);
}

/* DOCKER_SANDBOX_MEMORY into buf, as sbx create takes it. */
void
sbx_xconf_memory(char *buf, size_t size)
{
	const struct setting *s = row(SBX_CONF_MEMORY);

	sbx_xparse_memory(s->name, value(s), buf, size);
}

/* An image reference for --template, or NULL when unset. */
const char *
sbx_xconf_template(void)
{
	return conf_str(SBX_CONF_TEMPLATE);
}

/* The extra names to forward, each a valid variable name; NULL if none. */
const char *
sbx_xconf_allowlist(void)
{
	return conf_str(SBX_CONF_ALLOWLIST);
}

/* The pinned name, if any; one that breaks the rule is a usage error. */
const char *
sbx_xconf_pinned(void)
{
	return conf_str(SBX_CONF_PINNED);
}

/*
 * The sandbox a program works on: -s if given, else DOCKER_SANDBOX.  None,
 * or one that breaks the rule, is a usage error (exit 64).
 */
const char *
sbx_xname_pick(const char *given)
{
	const char *name = given ? given : sbx_conf_given(SBX_CONF_PINNED);

	if (name == NULL)
		errx(SBX_EX_USAGE, "no sandbox: give -s name or set %s",
		    row(SBX_CONF_PINNED)->name);
	if (!sbx_name_valid(name))
		errx(SBX_EX_USAGE, "invalid sandbox name: want "
		    SBX_NAME_RULE);
	return name;
}

/*
 * The policy from the -a names, the -p flag and the two DOCKER_SANDBOX_ENV_*
 * settings.  A bad name or boolean is a usage error (exit 64).
 */
int
sbx_xenv_policy(struct sbx_envpolicy *pol, const char *aflag, int pflag)
{
	const char *v;

	memset(pol, 0, sizeof(*pol));
	pol->passthrough = pflag || sbx_xconf_passthrough();
	if ((v = sbx_xconf_allowlist()) != NULL &&
	    sbx_env_addnames(pol, v, row(SBX_CONF_ALLOWLIST)->name) == -1)
		return -1;
	if (aflag != NULL && sbx_env_addnames(pol, aflag, "-a") == -1)
		return -1;
	return 0;
}

/*
 * The effective value of the setting of bit which, checked: a string
 * setting as it is (whole, however long), a number or boolean written
 * into buf.  Exits 64 on a bad value.
 */
const char *
sbx_xconf_value(unsigned which, char *buf, size_t size)
{
	const struct setting *s = row(which);
	const char *v;

	buf[0] = '\0';
	if (s->kind == BOOL)
		snprintf(buf, size, "%d", conf_bool(which));
	else if (s->kind == NUM)
		snprintf(buf, size, "%lld", conf_num(which));
	else if (s->kind == STR)
		return (v = conf_str(which)) != NULL ? v : "";
	else
		return s->show(buf, size);
	return buf;
}

/* Validate the settings a program may use; exits 64 on the first bad one. */
void
sbx_xconf_check(unsigned which)
{
	char buf[64];
	size_t i;

	for (i = 0; i < NSETTINGS; i++)
		if (which & table[i].bit)
			(void)sbx_xconf_value(table[i].bit, buf, sizeof(buf));
}

/* The bit of the i-th setting, in sbx-env -c's order; 0 past the last. */
unsigned
sbx_conf_bit(size_t i)
{
	return i < NSETTINGS ? table[i].bit : 0;
}

/* The variable of one SBX_CONF_* bit, or NULL. */
const char *
sbx_conf_name(unsigned bit)
{
	size_t i;

	for (i = 0; i < NSETTINGS; i++)
		if (table[i].bit == bit)
			return table[i].name;
	return NULL;
}
