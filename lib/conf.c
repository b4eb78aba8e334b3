/*
 * conf.c: the DOCKER_SANDBOX* settings.  The table below is their one
 * list (bit, variable, kind, default, and a word setting's words), read
 * by every reader, sbx_xconf_check() and sbx-env -c: a new setting is a
 * row, a bit in sbxconf.h and an entry in sbx-tools(7).  A bad value is
 * exit 64 naming the variable, found before a program's first sbx call.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxconf.h"
#include "sbxegress.h"
#include "sbxenv.h"
#include "sbxname.h"
#include "sbxtrip.h"
#include "sbx-internal.h"

#define CPUS_MAX	1024
#define PORTS_MAX	1024	/* DOCKER_SANDBOX_PORTS_MAX at most */
#define IMAGE_CACHE_MAX	(1LL << 50)	/* DOCKER_SANDBOX_IMAGE_CACHE: 1 PiB */

/* How a value is read and shown. */
#define WORD	0	/* one of .words; shown as its value's first */
#define NUM	1	/* num()'s, else whole; 0 to max, shown in decimal */
#define STR	2	/* checked by str(), if any; shown whole, or empty */

struct setting {
	unsigned	 bit;		/* SBX_CONF_* */
	int		 kind;
	const char	*name;
	const char	*def;		/* when unset or empty; NULL: none */
	const struct sbx_word *words;	/* WORD: in the order a refusal says */
	long long	 max;		/* NUM */
	long long	(*num)(const char *, const char *, long long);
	const char	*(*str)(const char *, const char *);
	const char	*(*show)(char *, size_t);	/* -c, if not by kind */
};

#define YES(v)	{ "1", v }, { "true", v }, { "yes", v }, { "on", v }
#define NO(v)	{ "0", v }, { "false", v }, { "no", v }, { "off", v }
#define END	{ NULL, 0 }

static const struct sbx_word bools[] = { YES(1), NO(0), END };
static const struct sbx_word ro[] = { YES(1), { "ro", 1 }, NO(0), END };
static const struct sbx_word teardown[] = { { "remove", SBX_TEARDOWN_REMOVE },
	{ "stop", SBX_TEARDOWN_STOP }, { "none", SBX_TEARDOWN_NONE }, END };
static const struct sbx_word keepalive[] = { YES(SBX_KEEPALIVE_ALWAYS),
	NO(SBX_KEEPALIVE_NEVER), END };
static const struct sbx_word prewarm[] = { { "auto", SBX_PREWARM_AUTO },
	YES(SBX_PREWARM_ALWAYS), NO(SBX_PREWARM_NEVER), END };

/* The first word of value v, as sbx-env -c shows it. */
static const char *
word(const struct sbx_word *w, int v)
{
	for (; w->word != NULL; w++)
		if (w->value == v)
			return w->word;
	abort();	/* a value with no word */
}

static const char *
show_teardown(char *buf, size_t size)
{
	(void)buf, (void)size;
	return word(teardown, sbx_xconf_teardown());
}

static const char *
show_keepalive(char *buf, size_t size)
{
	int k = sbx_xconf_keepalive();

	(void)buf, (void)size;
	return k == SBX_KEEPALIVE_PORTS ? "ports" : word(keepalive, k);
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

/* An egress list, checked, as sbx gets it: canonical, joined. */
static const char *
show_egress(unsigned bit, char *out, size_t size)
{
	struct sbx_egress e;
	const char *v;

	if ((v = sbx_xconf_str(bit)) == NULL)
		return "";
	(void)sbx_egress_parse(sbx_conf_name(bit), v, &e, out, size);
	(void)sbx_egress_join(&e, out, size);
	return out;
}

static const char *
show_allow(char *buf, size_t size)
{
	static char out[SBX_EGRESS_JOINMAX];

	(void)buf, (void)size;
	return show_egress(SBX_CONF_EGRESS_ALLOW, out, sizeof(out));
}

static const char *
show_deny(char *buf, size_t size)
{
	static char out[SBX_EGRESS_JOINMAX];

	(void)buf, (void)size;
	return show_egress(SBX_CONF_EGRESS_DENY, out, sizeof(out));
}

/* In the order sbx-env -c prints them. */
static const struct setting table[] = {
	{ SBX_CONF_PINNED, STR, "DOCKER_SANDBOX", NULL,
	    .str = sbx_xconfparse_name },
	{ SBX_CONF_AUTOCREATE, WORD, "DOCKER_SANDBOX_AUTOCREATE", "1",
	    .words = bools },
	{ SBX_CONF_CPUS, NUM, "DOCKER_SANDBOX_CPUS", "2", .max = CPUS_MAX },
	{ SBX_CONF_MEMORY, STR, "DOCKER_SANDBOX_MEMORY", "2g",
	    .show = sbx_xconf_memory },
	{ SBX_CONF_TEMPLATE, STR, "DOCKER_SANDBOX_TEMPLATE", NULL,
	    .str = sbx_xconfparse_ref },
	{ SBX_CONF_WORKSPACE_RO, WORD, "DOCKER_SANDBOX_WORKSPACE_RO", "0",
	    .words = ro },
	/* unset: none for a pinned name, else remove */
	{ SBX_CONF_TEARDOWN, WORD, "DOCKER_SANDBOX_TEARDOWN", NULL,
	    .words = teardown, .show = show_teardown },
	/* unset: while the sandbox has published ports */
	{ SBX_CONF_KEEPALIVE, WORD, "DOCKER_SANDBOX_KEEPALIVE", NULL,
	    .words = keepalive, .show = show_keepalive },
	{ SBX_CONF_GC_HOURS, NUM, "DOCKER_SANDBOX_GC_HOURS", "24",
	    .max = SBX_GC_HOURS_MAX, .num = sbx_xconfparse_hours },
	/* sbx-gc removes the older past sessions' records */
	{ SBX_CONF_SESSIONS_KEPT, NUM, "DOCKER_SANDBOX_SESSIONS_KEPT", "50",
	    .max = SBX_SESSIONS_KEPT_MAX },
	{ SBX_CONF_ALLOWLIST, STR, "DOCKER_SANDBOX_ENV_ALLOWLIST", NULL,
	    .str = sbx_xconfparse_names },
	{ SBX_CONF_PASSTHROUGH, WORD, "DOCKER_SANDBOX_ENV_PASSTHROUGH", "0",
	    .words = bools },
	{ SBX_CONF_TIMEOUT, NUM, "DOCKER_SANDBOX_TIMEOUT", "120",
	    .max = SBX_TIMEOUT_MAX },
	{ SBX_CONF_PORTS_MAX, NUM, "DOCKER_SANDBOX_PORTS_MAX", "64",
	    .max = PORTS_MAX },
	/* auto: sbx-run -P judges by the workspace */
	{ SBX_CONF_PREWARM, WORD, "DOCKER_SANDBOX_PREWARM", "auto",
	    .words = prewarm },
	{ SBX_CONF_IMAGE_CACHE, NUM, "DOCKER_SANDBOX_IMAGE_CACHE", "10g",
	    .max = IMAGE_CACHE_MAX, .num = sbx_xconfparse_bytes,
	    .show = show_image_cache },
	/* sbx-run puts them in force for its sandbox */
	{ SBX_CONF_EGRESS_ALLOW, STR, "DOCKER_SANDBOX_EGRESS_ALLOW", NULL,
	    .str = sbx_xconfparse_egress, .show = show_allow },
	{ SBX_CONF_EGRESS_DENY, STR, "DOCKER_SANDBOX_EGRESS_DENY", NULL,
	    .str = sbx_xconfparse_egress, .show = show_deny },
	/* where each credential is kept: shown, never read here */
	{ SBX_CONF_REGISTRY_AUTH, STR, "DOCKER_SANDBOX_REGISTRY_AUTH", NULL,
	    .str = sbx_xconfparse_regauth },
	/* the tripwire's list is sbx-tools(7)'s; these are added to it */
	{ SBX_CONF_TRIPWIRE, STR, "DOCKER_SANDBOX_TRIPWIRE", NULL,
	    .str = sbx_xtriplist_check },
	/* unset: sbxcli.c's lookup, which sbx-env -c shows resolved */
	{ SBX_CONF_SBX, STR, "DOCKER_SANDBOX_SBX", NULL, .str = NULL },
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

/* getenv(3), an empty value counting as unset. */
const char *
sbx_conf_str(const char *var)
{
	const char *v;

	if ((v = getenv(var)) == NULL || *v == '\0')
		return NULL;
	return v;
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

/* What text stands for among the words of bit's row; -1 for none. */
int
sbx_conf_word(unsigned bit, const char *text)
{
	return sbx_confparse_word(text, row(bit)->words);
}

/* A setting of a few words: as given, else its default; -1 if neither. */
int
sbx_xconf_word(unsigned bit)
{
	const struct setting *s = row(bit);
	const char *v = value(s);

	return v != NULL ? sbx_xconfparse_word(s->name, v, s->words) : -1;
}

/* A number setting as given, checked, else its default. */
long long
sbx_xconf_int(unsigned bit)
{
	const struct setting *s = row(bit);

	if (s->num != NULL)
		return s->num(s->name, value(s), s->max);
	return sbx_xconfparse_num(s->name, value(s), 0, s->max);
}

/* A string setting as given, checked, else its default; NULL if neither. */
const char *
sbx_xconf_str(unsigned bit)
{
	const struct setting *s = row(bit);
	const char *v = value(s);

	return v != NULL && s->str != NULL ? s->str(s->name, v) : v;
}

/* A number a program reads outside the table (its own SBX_* knobs). */
long long
sbx_xconf_num(const char *var, long long def, long long min, long long max)
{
	const char *v;

	if ((v = sbx_conf_str(var)) == NULL)
		return def;
	return sbx_xconfparse_num(var, v, min, max);
}

/* Seconds per sbx call; 0 means no limit, as timeout(1) reads 0. */
int
sbx_xconf_timeout(void)
{
	return (int)sbx_xconf_int(SBX_CONF_TIMEOUT);
}

/* Unset: hold the VM up while the sandbox has published ports. */
int
sbx_xconf_keepalive(void)
{
	int k = sbx_xconf_word(SBX_CONF_KEEPALIVE);

	return k != -1 ? k : SBX_KEEPALIVE_PORTS;
}

/* DOCKER_SANDBOX_TEARDOWN, else none for a pinned name, else remove. */
int
sbx_xconf_teardown(void)
{
	int m = sbx_xconf_word(SBX_CONF_TEARDOWN);

	if (m != -1)
		return m;
	return sbx_conf_given(SBX_CONF_PINNED) != NULL ? SBX_TEARDOWN_NONE :
	    SBX_TEARDOWN_REMOVE;
}

/* The image cache's budget in bytes, all projects together; 0: none. */
long long
sbx_xconf_image_cache(void)
{
	return sbx_xconf_int(SBX_CONF_IMAGE_CACHE);
}

/* DOCKER_SANDBOX_MEMORY into buf, as sbx create takes it. */
const char *
sbx_xconf_memory(char *buf, size_t size)
{
	const struct setting *s = row(SBX_CONF_MEMORY);

	sbx_xconfparse_memory(s->name, value(s), buf, size);
	return buf;
}

/*
 * The sandbox a program works on: -s if given, else DOCKER_SANDBOX.  None,
 * or one that breaks the rule, is a usage error (exit 64).
 */
const char *
sbx_xconf_name_pick(const char *given)
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
sbx_xconf_env_policy(struct sbx_envpolicy *pol, const char *aflag, int pflag)
{
	const char *v;

	memset(pol, 0, sizeof(*pol));
	pol->passthrough = pflag || sbx_xconf_word(SBX_CONF_PASSTHROUGH);
	if ((v = sbx_xconf_str(SBX_CONF_ALLOWLIST)) != NULL &&
	    sbx_env_addnames(pol, v, row(SBX_CONF_ALLOWLIST)->name) == -1)
		return -1;
	if (aflag != NULL && sbx_env_addnames(pol, aflag, "-a") == -1)
		return -1;
	return 0;
}

/*
 * The effective value of the setting of bit which, checked: a string
 * setting as it is (whole, however long), a number or word written
 * into buf or shown as its word.  Exits 64 on a bad value.
 */
const char *
sbx_xconf_value(unsigned which, char *buf, size_t size)
{
	const struct setting *s = row(which);
	const char *v;

	buf[0] = '\0';
	if (s->show != NULL)
		return s->show(buf, size);
	if (s->kind == WORD)
		return word(s->words, sbx_xconf_word(which));
	if (s->kind == NUM)
		snprintf(buf, size, "%lld", sbx_xconf_int(which));
	else if ((v = sbx_xconf_str(which)) != NULL)
		return v;
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

/* The variable of one SBX_CONF_* bit. */
const char *
sbx_conf_name(unsigned bit)
{
	return row(bit)->name;
}
