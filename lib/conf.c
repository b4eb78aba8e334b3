/*
 * conf.c: the DOCKER_SANDBOX* variables.  Every program reads them the
 * same way, and a value it cannot understand is a usage error that names
 * the variable, never a silent fallback to a default.
 */
#include <err.h>
#include <stdlib.h>
#include <strings.h>

#include "sbx.h"

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
sbx_conf_bool(const char *var, int def)
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
sbx_conf_num(const char *var, long long def, long long min, long long max)
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
