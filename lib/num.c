/*
 * num.c: a bounded number parser with strtonum(3) semantics, so no
 * program ever reads a number with atoi and misses junk or overflow.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "sbx.h"

long long
sbx_strtonum(const char *s, long long min, long long max, const char **errstr)
{
	long long v;
	char *end;

	*errstr = NULL;
	if (s == NULL || *s == '\0' || min > max) {
		*errstr = "invalid";
		return 0;
	}
	/*
	 * strtoll skips any isspace(3) blank ("\r1", "\v1") and takes a '+';
	 * only '-' or a digit may start a number here
	 */
	if (*s != '-' && (*s < '0' || *s > '9')) {
		*errstr = "invalid";
		return 0;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0') {
		*errstr = "invalid";
		return 0;
	}
	if ((errno == ERANGE && v == LLONG_MIN) || v < min) {
		*errstr = "too small";
		return 0;
	}
	if ((errno == ERANGE && v == LLONG_MAX) || v > max) {
		*errstr = "too large";
		return 0;
	}
	return v;
}
