/*
 * rfc3339.c: RFC 3339 timestamps to Unix seconds, without timegm(3),
 * which POSIX lacks.  ":60" is the next second; fractions are dropped.
 */
#include <errno.h>
#include <string.h>

#include "sbxtime.h"

static int
digits(const char **p, int n, int *v)
{
	int i;

	for (*v = 0, i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return -1;
		*v = *v * 10 + (**p - '0');
	}
	return 0;
}

static int
expect(const char **p, const char *set)
{
	if (**p == '\0' || strchr(set, **p) == NULL)
		return -1;
	(*p)++;
	return 0;
}

static long long
days(long long y, int m, int d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int
mdays(int y, int m)
{
	static const int n[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return n[m - 1];
}

int
sbx_rfc3339_parse(const char *s, long long *t)
{
	const char *p = s;
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;

	if (s == NULL || digits(&p, 4, &y) == -1 || expect(&p, "-") == -1 ||
	    digits(&p, 2, &mo) == -1 || expect(&p, "-") == -1 ||
	    digits(&p, 2, &d) == -1 || expect(&p, "Tt ") == -1 ||
	    digits(&p, 2, &h) == -1 || expect(&p, ":") == -1 ||
	    digits(&p, 2, &mi) == -1 || expect(&p, ":") == -1 ||
	    digits(&p, 2, &sec) == -1)
		return errno = EINVAL, -1;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return errno = EINVAL, -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'Z' || *p == 'z')
		p++;
	else if (*p == '+' || *p == '-') {
		sign = *p++ == '+' ? 1 : -1;
		if (digits(&p, 2, &oh) == -1 || expect(&p, ":") == -1 ||
		    digits(&p, 2, &om) == -1 || oh > 23 || om > 59)
			return errno = EINVAL, -1;
	} else
		return errno = EINVAL, -1;
	if (*p != '\0' || mo < 1 || mo > 12 || d < 1 || d > mdays(y, mo) ||
	    h > 23 || mi > 59 || sec > 60)
		return errno = EINVAL, -1;
	*t = days(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
	    sign * (oh * 3600 + om * 60);
	return 0;
}
