/*
 * imgtar.c: the fields of a ustar header as the image check reads them,
 * strictly, so that no two tar readers could read them apart.
 */
#include <stddef.h>

#include "sbx.h"
#include "sbx-run.h"

int
imgtar_zero(const unsigned char *p, size_t n)
{
	while (n > 0)
		if (p[--n] != 0)
			return 0;
	return 1;
}

/*
 * An octal field: optional leading blanks, digits, then a NUL or a blank
 * ending it and nothing but NULs and blanks after.  A field of digits
 * only (no terminator) and GNU's base-256 are refused; at 11 digits the
 * value stays below 2^33, far from any overflow.
 */
int
imgtar_octal(const unsigned char *f, size_t len, long long *v)
{
	size_t i = 0, digits = 0;

	while (i < len && f[i] == ' ')
		i++;
	for (*v = 0; i < len && f[i] >= '0' && f[i] <= '7'; i++, digits++)
		*v = *v * 8 + (f[i] - '0');
	if (digits == 0 || i == len)
		return -1;
	for (; i < len; i++)
		if (f[i] != '\0' && f[i] != ' ')
			return -1;
	return 0;
}

long long
imgtar_checksum(const unsigned char *h)
{
	long long sum = 0;
	int i;

	for (i = 0; i < IMG_BLOCK; i++)
		sum += i >= 148 && i < 156 ? ' ' : h[i];
	return sum;
}

/* Why a member name is refused, or NULL; len excludes a trailing '/'. */
const char *
imgtar_badname(const char *name, size_t len)
{
	size_t i, start;

	if (len == 0)
		return "an empty name";
	if (name[0] == '/')
		return "an absolute name";
	for (i = 0; i < len; i++)
		if ((unsigned char)name[i] < ' ' || (unsigned char)name[i] > '~')
			return "a byte that is not printable ASCII";
	for (start = 0; start <= len; start = i + 1) {
		for (i = start; i < len && name[i] != '/'; i++)
			;
		if (i == start)
			return "an empty name component";
		if ((i - start == 1 && name[start] == '.') ||
		    (i - start == 2 && name[start] == '.' &&
		    name[start + 1] == '.'))
			return "a . or .. component";
	}
	return NULL;
}
