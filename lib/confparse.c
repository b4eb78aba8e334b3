/*
 * confparse.c: the grammars of the settings' values.  Each reader takes
 * the variable's name and its text and knows nothing of where either came
 * from (conf.c's table decides that); a text it cannot understand is a
 * usage error (exit 64) naming the variable.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sbx.h"
#include "sbxegress.h"
#include "sbxenv.h"
#include "sbxname.h"
#include "sbxregauth.h"
#include "sbx-internal.h"

#define MIB_MAX		(1024LL * 1024)	/* 1 TiB */
#define TEMPLATE_MAX	255

/* What s stands for among words, in any case; -1 for none. */
int
sbx_confparse_word(const char *s, const struct sbx_word *w)
{
	for (; w->word != NULL; w++)
		if (strcasecmp(s, w->word) == 0)
			return w->value;
	return -1;
}

/* One of words; any other is refused with all of them, in their order. */
int
sbx_xconfparse_word(const char *var, const char *v,
    const struct sbx_word *words)
{
	const struct sbx_word *w;
	char list[128];
	size_t len = 0;
	int n;

	if ((n = sbx_confparse_word(v, words)) != -1)
		return n;
	list[0] = '\0';
	for (w = words; w->word != NULL && len < sizeof(list); w++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
		    w == words ? "" : w[1].word == NULL ? " or " : ", ",
		    w->word);
	errx(SBX_EX_USAGE, "%s: expected %s", var, list);
}

long long
sbx_xconfparse_num(const char *var, const char *v, long long min, long long max)
{
	const char *errstr;
	long long n;

	n = sbx_strtonum(v, min, max, &errstr);
	if (errstr != NULL)
		errx(SBX_EX_USAGE, "%s: number is %s (%lld to %lld)", var,
		    errstr, min, max);
	return n;
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

/* Whole hours up to max; a fraction rounds up, so it never means "any age". */
long long
sbx_xconfparse_hours(const char *var, const char *v, long long max)
{
	const char *end;
	long long h;
	int frac;

	if ((h = decimal(v, max, &frac, &end)) == -1 || *end != '\0' ||
	    h + frac > max)
		errx(SBX_EX_USAGE, "%s: expected hours from 0 to %lld (0: no "
		    "automatic sweep)", var, max);
	return h + frac;
}

/*
 * A memory size into buf as sbx create takes it: a number, optionally
 * with a fraction, then g or m (g when absent).  Below 1 GiB it is raised
 * to 1g, as sbx needs that.
 */
void
sbx_xconfparse_memory(const char *var, const char *v, char *buf, size_t size)
{
	const char *p;
	long long whole = 0, frac = 0, scale = 1, mib;
	int unit_g = 1;

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
	errx(SBX_EX_USAGE, "%s: expected a size such as 2g or 1536m (at "
	    "most 1024g)", var);
}

/*
 * Bytes: digits with an optional 1024-based k, m or g (either case),
 * plain bytes without; at most max.
 */
long long
sbx_xconfparse_bytes(const char *var, const char *v, long long max)
{
	const char *p;
	long long n = 0, scale = 1;

	for (p = v; *p >= '0' && *p <= '9'; p++)
		if ((n = n * 10 + (*p - '0')) > max)
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
	if (*p != '\0' || n > max / scale)
		goto bad;
	return n * scale;
bad:
	errx(SBX_EX_USAGE, "%s: expected a size such as 10g, 512m or 0 "
	    "(bytes, or k, m, g; at most %lldg)", var, max >> 30);
}

/* An image reference for --template: no option, no blank or odd byte. */
const char *
sbx_xconfparse_ref(const char *var, const char *t)
{
	const char *p;

	if (*t == '-' || strlen(t) > TEMPLATE_MAX)
		goto bad;
	for (p = t; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			goto bad;
	return t;
bad:
	errx(SBX_EX_USAGE, "%s: not an image reference", var);
}

/* Comma-separated variable names, empty ones allowed. */
const char *
sbx_xconfparse_names(const char *var, const char *v)
{
	const char *p;
	size_t len;

	for (p = v; *p != '\0'; p += len + (p[len] == ',')) {
		len = strcspn(p, ",");
		if (len > 0 && !sbx_env_validname(p, len))
			errx(SBX_EX_USAGE, "%s: invalid variable name \"%.*s\"",
			    var, len > 64 ? 64 : (int)len, p);
	}
	return v;
}

/* A sandbox name as sbx_name_valid() has it. */
const char *
sbx_xconfparse_name(const char *var, const char *v)
{
	if (!sbx_name_valid(v))
		errx(SBX_EX_USAGE, "%s: invalid sandbox name: want "
		    SBX_NAME_RULE, var);
	return v;
}

/* Network rules: every entry checked by egress.c's grammar. */
const char *
sbx_xconfparse_egress(const char *var, const char *v)
{
	struct sbx_egress e;
	char why[512];

	if (sbx_egress_parse(var, v, &e, why, sizeof(why)) == -1)
		errx(SBX_EX_USAGE, "%s", why);
	return v;
}

/* Where registry credentials are kept; none is read here. */
const char *
sbx_xconfparse_regauth(const char *var, const char *v)
{
	struct sbx_regauth ra;
	char why[512];

	if (sbx_regauth_parse(var, v, &ra, why, sizeof(why)) == -1)
		errx(SBX_EX_USAGE, "%s", why);
	return v;
}
