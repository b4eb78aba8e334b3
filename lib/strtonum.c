/* strtonum.c: strtonum(3)'s bounded parse, so no number is read with atoi. */
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
	/* strtoll skips blanks and takes '+' */
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
