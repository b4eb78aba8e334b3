/*
 * egressaddr.c: IPv4 and IPv6 addresses and prefixes in text, read
 * strictly (dotted quads of decimal octets without leading zeros, the
 * RFC 4291 forms of IPv6) and written as RFC 5952 says, so that one
 * address has one text whichever platform's inet_ntop(3) would differ.
 */
#include <stdio.h>
#include <string.h>

#include "sbx-internal.h"

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A decimal of 1 to 3 digits, no leading zero, at most max; -1 if not. */
static int
decimal(const char *s, size_t len, int max)
{
	size_t i;
	int v = 0;

	if (len == 0 || len > 3 || (len > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= max ? v : -1;
}

/* A dotted quad: four octets 0 to 255, none with a leading zero. */
int
sbx_egressaddr_parse4(const char *s, size_t len, unsigned char a[4])
{
	size_t i, start = 0;
	int k = 0, v;

	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (k == 4 || (v = decimal(s + start, i - start, 255)) == -1)
			return -1;
		a[k++] = (unsigned char)v;
		start = i + 1;
	}
	return k == 4 ? 0 : -1;
}

/*
 * An IPv6 address: groups of 1 to 4 hex digits, at most one "::", and
 * optionally a dotted quad in the last 32 bits.
 */
int
sbx_egressaddr_parse6(const char *s, size_t len, unsigned char a[16])
{
	unsigned char g[16];
	size_t i = 0, j, n = 0;
	long gap = -1;
	int v, d;

	if (len >= 2 && s[0] == ':' && s[1] == ':') {
		gap = 0;
		i = 2;
	} else if (len > 0 && s[0] == ':')
		return -1;
	while (i < len) {
		if (n == 16)
			return -1;
		for (j = i, v = 0; j < len && j - i < 5 &&
		    (d = hexval((unsigned char)s[j])) != -1; j++)
			v = v * 16 + d;
		if (j < len && s[j] == '.') {
			/* the dotted quad ends the address */
			if (n > 12 || sbx_egressaddr_parse4(s + i, len - i,
			    g + n) == -1)
				return -1;
			n += 4;
			break;
		}
		if (j == i || j - i > 4)
			return -1;
		g[n++] = (unsigned char)(v >> 8);
		g[n++] = (unsigned char)v;
		if (j == len)
			break;
		if (s[j] != ':' || j + 1 == len)
			return -1;
		i = j + 1;
		if (s[i] == ':') {
			if (gap != -1)
				return -1;
			gap = (long)n;
			i++;
		}
	}
	if (gap == -1 ? n != 16 : n == 16)
		return -1;
	memset(a, 0, 16);
	if (gap == -1)
		gap = (long)n;
	memcpy(a, g, (size_t)gap);
	memcpy(a + 16 - (n - (size_t)gap), g + gap, n - (size_t)gap);
	return 0;
}

/* a, RFC 5952's way, into buf (46 bytes); its length. */
size_t
sbx_egressaddr_format6(const unsigned char a[16], char *buf)
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0, 0xff, 0xff };
	int best = -1, bestlen = 1, run, i, k;
	size_t o = 0;

	if (memcmp(a, mapped, sizeof(mapped)) == 0)
		return (size_t)snprintf(buf, 46, "::ffff:%u.%u.%u.%u", a[12],
		    a[13], a[14], a[15]);
	/* the longest run of two or more zero groups, the first if tied */
	for (i = 0; i < 8; i = k) {
		for (k = i; k < 8 && a[2 * k] == 0 && a[2 * k + 1] == 0; k++)
			;
		if ((run = k - i) > bestlen) {
			best = i;
			bestlen = run;
		}
		if (k == i)
			k++;
	}
	for (i = 0; i < 8; i++) {
		if (i == best) {
			buf[o++] = ':';
			buf[o++] = ':';
			i += bestlen - 1;
			continue;
		}
		if (i > 0 && i != best + bestlen)
			buf[o++] = ':';
		o += (size_t)snprintf(buf + o, 46 - o, "%x",
		    (unsigned)(a[2 * i] << 8 | a[2 * i + 1]));
	}
	buf[o] = '\0';
	return o;
}

/* Whether the first bits of a and p are the same. */
int
sbx_egressaddr_within(const unsigned char *a, const unsigned char *p,
    int bits)
{
	int whole = bits / 8, rest = bits % 8;

	if (memcmp(a, p, (size_t)whole) != 0)
		return 0;
	return rest == 0 ||
	    ((a[whole] ^ p[whole]) & (0xff00 >> rest) & 0xff) == 0;
}

/* The bits of a past the first bits cleared, len bytes in all. */
void
sbx_egressaddr_mask(unsigned char *a, size_t len, int bits)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if ((int)i * 8 >= bits)
			a[i] = 0;
		else if ((int)i * 8 + 8 > bits)
			a[i] &= (unsigned char)(0xff00 >> (bits % 8));
	}
}
