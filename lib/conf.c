/*
 * conf.c: the DOCKER_SANDBOX* settings.  One parser per setting, with one
 * set of limits, used by every program; a value it cannot understand is a
 * usage error (exit 64) that names the variable, never a silent default.
 * sbx_xconf_check() runs the parsers a program needs before its first sbx
 * call, so a bad value never waits for the path that would read it.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sbx.h"

#define GC_HOURS_MAX	1000000
#define CPUS_MAX	1024
#define MIB_MAX		(1024LL * 1024)	/* 1 TiB */
#define TEMPLATE_MAX	255
#define PORTS_MAX	1024	/* DOCKER_SANDBOX_PORTS_MAX at most */
#define IMAGE_CACHE_MAX	(1LL << 50)	/* DOCKER_SANDBOX_IMAGE_CACHE: 1 PiB */

/* 1 for 1/true/yes/on, 0 for 0/false/no/off (any case), else -1. */
int
sbx_parsebool(const char *s)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	}
	return -1;
}

const char *
sbx_conf_str(const char *var)
{
	const char *v;

	if ((v = getenv(var)) == NULL || *v == '\0')
		return NULL;
	return v;
}

int
sbx_xconf_bool(const char *var, int def)
{
	const char *v;
	int b;

	if ((v = sbx_conf_str(var)) == NULL)
		return def;
	if ((b = sbx_parsebool(v)) == -1)
		errx(SBX_EX_USAGE, "%s: expected 1, true, yes, on, 0, false, "
		    "no or off", var);
	return b;
}

long long
sbx_xconf_num(const char *var, long long def, long long min, long long max)
{
	const char *v, *errstr;
	long long n;

	if ((v = sbx_conf_str(var)) == NULL)
		return def;
	n = sbx_strtonum(v, min, max, &errstr);
	if (errstr != NULL)
		errx(SBX_EX_USAGE, "%s: number is %s (%lld to %lld)", var,
		    errstr, min, max);
	return n;
}

int
sbx_xconf_autocreate(void)
{
	return sbx_xconf_bool("DOCKER_SANDBOX_AUTOCREATE", 1);
}

/*
 * Unset: hold the VM up while the sandbox has published ports (something
 * deployed for the host to reach); 1: always; 0: never.
 */
int
sbx_xconf_keepalive(void)
{
	if (sbx_conf_str("DOCKER_SANDBOX_KEEPALIVE") == NULL)
		return SBX_KEEPALIVE_PORTS;
	return sbx_xconf_bool("DOCKER_SANDBOX_KEEPALIVE", 0) ?
	    SBX_KEEPALIVE_ALWAYS : SBX_KEEPALIVE_NEVER;
}

int
sbx_xconf_passthrough(void)
{
	return sbx_xconf_bool("DOCKER_SANDBOX_ENV_PASSTHROUGH", 0);
}

/* A boolean, or "ro" as the prior extension took it. */
int
sbx_xconf_workspace_ro(void)
{
	const char *v = sbx_conf_str("DOCKER_SANDBOX_WORKSPACE_RO");

	if (v != NULL && strcasecmp(v, "ro") == 0)
		return 1;
	if (v != NULL && sbx_parsebool(v) == -1)
		errx(SBX_EX_USAGE, "DOCKER_SANDBOX_WORKSPACE_RO: expected 1, "
		    "true, yes, on, ro, 0, false, no or off");
	return sbx_xconf_bool("DOCKER_SANDBOX_WORKSPACE_RO", 0);
}

/*
 * DOCKER_SANDBOX_PREWARM: 1 provision at session start, 0 never, or
 * SBX_PREWARM_AUTO (unset or "auto"): when the workspace shows docker
 * will be used, which the caller that starts the session judges.
 */
int
sbx_xconf_prewarm(void)
{
	const char *v = sbx_conf_str("DOCKER_SANDBOX_PREWARM");
	int b;

	if (v == NULL || strcasecmp(v, "auto") == 0)
		return SBX_PREWARM_AUTO;
	if ((b = sbx_parsebool(v)) == -1)
		errx(SBX_EX_USAGE, "DOCKER_SANDBOX_PREWARM: expected auto, 1, "
		    "true, yes, on, 0, false, no or off");
	return b;
}

/* Seconds per sbx call; 0 means no limit, as timeout(1) reads 0. */
int
sbx_xconf_timeout(void)
{
	return (int)sbx_xconf_num("DOCKER_SANDBOX_TIMEOUT", 120, 0,
	    SBX_TIMEOUT_MAX);
}

/*
 * Host ports one sandbox may hold (sbx-ports, issue 18.11): 64 unless
 * set; 0 publishes nothing.
 */
int
sbx_xconf_ports_max(void)
{
	return (int)sbx_xconf_num("DOCKER_SANDBOX_PORTS_MAX", 64, 0,
	    PORTS_MAX);
}

int
sbx_xconf_cpus(void)
{
	return (int)sbx_xconf_num("DOCKER_SANDBOX_CPUS", 2, 0, CPUS_MAX);
}

/* remove, stop or none, in any case; -1 for anything else. */
int
sbx_teardown_parse(const char *s)
{
	static const char *const word[] = { "remove", "stop", "none" };
	int i;

	for (i = 0; i < 3; i++)
		if (strcasecmp(s, word[i]) == 0)
			return i;
	return -1;
}

const char *
sbx_teardown_name(int mode)
{
	return mode == SBX_TEARDOWN_STOP ? "stop" :
	    mode == SBX_TEARDOWN_NONE ? "none" : "remove";
}

/* DOCKER_SANDBOX_TEARDOWN, else none for a pinned name, else remove. */
int
sbx_xconf_teardown(void)
{
	const char *v = sbx_conf_str("DOCKER_SANDBOX_TEARDOWN");
	int m;

	if (v == NULL)
		return sbx_conf_str("DOCKER_SANDBOX") != NULL ?
		    SBX_TEARDOWN_NONE : SBX_TEARDOWN_REMOVE;
	if ((m = sbx_teardown_parse(v)) == -1)
		errx(SBX_EX_USAGE, "DOCKER_SANDBOX_TEARDOWN: expected remove, "
		    "stop or none");
	return m;
}

/*
 * Digits, optionally a fraction: the whole part, and whether a non-zero
 * fraction followed; the end of the number in *endp.  -1 if none.
 */
static long long
decimal(const char *s, long long max, int *frac, const char **endp)
{
	const char *p;
	long long whole = 0;

	*frac = 0;
	for (p = s; *p >= '0' && *p <= '9'; p++)
		if ((whole = whole * 10 + (*p - '0')) > max)
			return -1;
	if (p == s)
		return -1;
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return -1;
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (*p != '0')
				*frac = 1;
	}
	*endp = p;
	return whole;
}

/* Whole hours; a fraction rounds up, so it never means "any age". */
long long
sbx_xconf_gc_hours(void)
{
	const char *v = sbx_conf_str("DOCKER_SANDBOX_GC_HOURS"), *end;
	long long h;
	int frac;

	if (v == NULL)
		return 24;
	if ((h = decimal(v, GC_HOURS_MAX, &frac, &end)) == -1 ||
	    *end != '\0' || h + frac > GC_HOURS_MAX)
		errx(SBX_EX_USAGE, "DOCKER_SANDBOX_GC_HOURS: expected hours "
		    "from 0 to %d (0: no automatic sweep)", GC_HOURS_MAX);
	return h + frac;
}

/*
 * DOCKER_SANDBOX_MEMORY into buf for sbx create: a number, optionally
 * with a fraction, then g or m (g when absent).  Below 1 GiB it is raised
 * to 1g, as sbx needs that.
 */
void
sbx_xconf_memory(char *buf, size_t size)
{
	const char *v = sbx_conf_str("DOCKER_SANDBOX_MEMORY"), *p;
	long long whole = 0, frac = 0, scale = 1, mib;
	int unit_g = 1;

	if (v == NULL)
		v = "2g";
	for (p = v; *p >= '0' && *p <= '9' && whole < MIB_MAX; p++)
		whole = whole * 10 + (*p - '0');
	if (p == v)
		goto bad;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale < 1000000) {
				frac = frac * 10 + (*p - '0');
				scale *= 10;
			}
		if (scale == 1)
			goto bad;
	}
	while (*p == ' ')
		p++;
	if (*p == 'm' || *p == 'M') {
		unit_g = 0;
		p++;
	} else if (*p == 'g' || *p == 'G')
		p++;
	if (*p != '\0' || whole >= MIB_MAX)
		goto bad;
	mib = unit_g ? whole * 1024 + frac * 1024 / scale : whole;
	if (mib < 1024)
		mib = 1024;
	if (mib > MIB_MAX)
		goto bad;
	if (mib % 1024 == 0)
		snprintf(buf, size, "%lldg", mib / 1024);
	else
		snprintf(buf, size, "%lldm", mib);
	return;
bad:
	errx(SBX_EX_USAGE, "DOCKER_SANDBOX_MEMORY: expected a size such as "
	    "2g or 1536m (at most 1024g)");
}

/* An image reference for --template, or NULL when unset. */
const char *
sbx_xconf_template(void)
{
	const char *t = sbx_conf_str("DOCKER_SANDBOX_TEMPLATE"), *p;

	if (t == NULL)
		return NULL;
	if (*t == '-' || strlen(t) > TEMPLATE_MAX)
		goto bad;
	for (p = t; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			goto bad;
	return t;
bad:
	errx(SBX_EX_USAGE, "DOCKER_SANDBOX_TEMPLATE: not an image reference");
}

/* The extra names to forward, each a valid variable name; NULL if none. */
const char *
sbx_xconf_allowlist(void)
{
	const char *v = sbx_conf_str("DOCKER_SANDBOX_ENV_ALLOWLIST"), *p;
	size_t len;

	if (v == NULL)
		return NULL;
	for (p = v; *p != '\0'; p += len + (p[len] == ',')) {
		len = strcspn(p, ",");
		if (len > 0 && !sbx_env_validname(p, len))
			errx(SBX_EX_USAGE, "DOCKER_SANDBOX_ENV_ALLOWLIST: "
			    "invalid variable name \"%.*s\"",
			    len > 64 ? 64 : (int)len, p);
	}
	return v;
}

/* The pinned name, if any; one that breaks the rule is a usage error. */
const char *
sbx_xconf_pinned(void)
{
	const char *v = sbx_conf_str("DOCKER_SANDBOX");

	if (v != NULL && !sbx_name_valid(v))
		errx(SBX_EX_USAGE, "DOCKER_SANDBOX: invalid sandbox name: want "
		    "[A-Za-z0-9][A-Za-z0-9.-]{1,62}, not \"default\"");
	return v;
}

/*
 * DOCKER_SANDBOX_IMAGE_CACHE: the image cache's budget in bytes, for all
 * projects together; digits with an optional 1024-based k, m or g (either
 * case), plain bytes without; 0 disables it.  10g unless set.
 */
long long
sbx_xconf_image_cache(void)
{
	const char *v = sbx_conf_str("DOCKER_SANDBOX_IMAGE_CACHE"), *p;
	long long n = 0, scale = 1;

	if (v == NULL)
		return 10LL << 30;
	for (p = v; *p >= '0' && *p <= '9'; p++)
		if ((n = n * 10 + (*p - '0')) > IMAGE_CACHE_MAX)
			goto bad;
	if (p == v)
		goto bad;
	if (*p == 'k' || *p == 'K')
		scale = 1LL << 10;
	else if (*p == 'm' || *p == 'M')
		scale = 1LL << 20;
	else if (*p == 'g' || *p == 'G')
		scale = 1LL << 30;
	if (scale > 1)
		p++;
	if (*p != '\0' || n > IMAGE_CACHE_MAX / scale)
		goto bad;
	return n * scale;
bad:
	errx(SBX_EX_USAGE, "DOCKER_SANDBOX_IMAGE_CACHE: expected a size such "
	    "as 10g, 512m or 0 (bytes, or k, m, g; at most 1048576g)");
}

/* The budget as sbx-env -c shows it: in the largest unit that divides it. */
static void
image_cache_value(char *buf, size_t size)
{
	static const char units[] = "gmk";
	long long n = sbx_xconf_image_cache();
	int i;

	for (i = 0; n != 0 && i < 3; i++)
		if (n % (1LL << (10 * (3 - i))) == 0) {
			snprintf(buf, size, "%lld%c", n >> (10 * (3 - i)),
			    units[i]);
			return;
		}
	snprintf(buf, size, "%lld", n);
}

/*
 * The effective value of the setting of bit which, checked: a string
 * setting as it is (whole, however long), a number or boolean written
 * into buf.  Exits 64 on a bad value.
 */
const char *
sbx_xconf_value(unsigned which, char *buf, size_t size)
{
	const char *s;
	int n;

	buf[0] = '\0';
	if (which & SBX_CONF_PINNED)
		return (s = sbx_xconf_pinned()) ? s : "";
	if (which & SBX_CONF_TEMPLATE)
		return (s = sbx_xconf_template()) ? s : "";
	if (which & SBX_CONF_ALLOWLIST)
		return (s = sbx_xconf_allowlist()) ? s : "";
	if (which & SBX_CONF_TEARDOWN)
		return sbx_teardown_name(sbx_xconf_teardown());
	if (which & SBX_CONF_AUTOCREATE)
		snprintf(buf, size, "%d", sbx_xconf_autocreate());
	if (which & SBX_CONF_CPUS)
		snprintf(buf, size, "%d", sbx_xconf_cpus());
	if (which & SBX_CONF_MEMORY)
		sbx_xconf_memory(buf, size);
	if (which & SBX_CONF_WORKSPACE_RO)
		snprintf(buf, size, "%d", sbx_xconf_workspace_ro());
	if (which & SBX_CONF_KEEPALIVE)
		snprintf(buf, size, "%s", sbx_xconf_keepalive() ==
		    SBX_KEEPALIVE_PORTS ? "ports" : sbx_xconf_keepalive() ==
		    SBX_KEEPALIVE_ALWAYS ? "1" : "0");
	if (which & SBX_CONF_GC_HOURS)
		snprintf(buf, size, "%lld", sbx_xconf_gc_hours());
	if (which & SBX_CONF_PASSTHROUGH)
		snprintf(buf, size, "%d", sbx_xconf_passthrough());
	if (which & SBX_CONF_TIMEOUT)
		snprintf(buf, size, "%d", sbx_xconf_timeout());
	if (which & SBX_CONF_PORTS_MAX)
		snprintf(buf, size, "%d", sbx_xconf_ports_max());
	if (which & SBX_CONF_PREWARM) {
		n = sbx_xconf_prewarm();
		snprintf(buf, size, "%s", n == SBX_PREWARM_AUTO ? "auto" :
		    n ? "1" : "0");
	}
	if (which & SBX_CONF_IMAGE_CACHE)
		image_cache_value(buf, size);
	return buf;
}

/* Validate the settings a program may use; exits 64 on the first bad one. */
void
sbx_xconf_check(unsigned which)
{
	char buf[64];
	unsigned bit;

	for (bit = 1; bit & SBX_CONF_ALL; bit <<= 1)
		if (which & bit)
			(void)sbx_xconf_value(bit, buf, sizeof(buf));
}

/* The variable of one SBX_CONF_* bit, or NULL. */
const char *
sbx_conf_name(unsigned bit)
{
	static const char *const names[] = {
		"DOCKER_SANDBOX", "DOCKER_SANDBOX_AUTOCREATE",
		"DOCKER_SANDBOX_CPUS", "DOCKER_SANDBOX_MEMORY",
		"DOCKER_SANDBOX_TEMPLATE", "DOCKER_SANDBOX_WORKSPACE_RO",
		"DOCKER_SANDBOX_TEARDOWN", "DOCKER_SANDBOX_KEEPALIVE",
		"DOCKER_SANDBOX_GC_HOURS", "DOCKER_SANDBOX_ENV_ALLOWLIST",
		"DOCKER_SANDBOX_ENV_PASSTHROUGH", "DOCKER_SANDBOX_TIMEOUT",
		"DOCKER_SANDBOX_PORTS_MAX",
		"DOCKER_SANDBOX_PREWARM", "DOCKER_SANDBOX_IMAGE_CACHE",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bit == 1u << i)
			return names[i];
	return NULL;
}
