/*
 * shown.c: outside text fit for a terminal, the one escaper of text
 * output.  UTF-8 passes; controls, bidirectional marks and bad bytes
 * become C escapes (\n, \ooo), so nothing printed can steer a terminal.
 */
#include <string.h>

#include "sbx.h"
#include "sbx-internal.h"

#define SHOWN_MAX	4096

/* The length of the well-formed UTF-8 character at s, or 0; *cp its point. */
size_t
sbx_shown_utf8len(const char *str, size_t len, unsigned *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > len)
		return 0;
	/* the second byte's range rules out overlongs and surrogates */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	*cp = c & (0xff >> (n + 1));
	for (i = 1; i < n; i++) {
		/* a NUL ends the text: never read past it */
		if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	return n;
}

int
sbx_shown_unsafe(unsigned cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c ||
	    cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069);
}

/* One character of s shown into out (16 bytes); the bytes of s it took. */
static size_t
show1(const char *s, size_t len, char out[17], int nl)
{
	static const char oct[] = "01234567";
	unsigned cp;
	size_t n, i, o = 0;

	n = sbx_shown_utf8len(s, len, &cp);
	if (n != 0 && ((nl && cp == '\n') || !sbx_shown_unsafe(cp))) {
		if (cp == '\\')
			out[o++] = '\\';
		memcpy(out + o, s, n);
		out[o + n] = '\0';
		return n;
	}
	if (n == 0)
		n = 1;
	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];

		out[o++] = '\\';
		if (b == '\n' || b == '\t' || b == '\r')
			out[o++] = (char)(b == '\n' ? 'n' : b == '\t' ? 't' :
			    'r');
		else {
			out[o++] = oct[b >> 6];
			out[o++] = oct[(b >> 3) & 7];
			out[o++] = oct[b & 7];
		}
	}
	out[o] = '\0';
	return n;
}

/* s shown on one line into buf, cut at a character; s may be buf. */
const char *
sbx_shown(const char *s, char *buf, size_t size)
{
	char tmp[SHOWN_MAX], e[17];
	size_t w = 0, len, k, n;

	if (size == 0)
		return "";
	len = s != NULL ? strlen(s) : 0;
	if (size > sizeof(tmp))
		size = sizeof(tmp);
	while (len > 0) {
		k = show1(s, len, e, 0);
		if (w + (n = strlen(e)) > size - 1)
			break;
		memcpy(tmp + w, e, n);
		w += n;
		s += k;
		len -= k;
	}
	memcpy(buf, tmp, w);
	buf[w] = '\0';
	return buf;
}

/* What sbx or the sandbox said, shown on fd, newlines kept; -1 with errno. */
int
sbx_shown_write(int fd, const char *s, size_t len)
{
	char out[1024], e[17];
	size_t w = 0, k, n;

	while (len > 0) {
		k = show1(s, len, e, 1);
		n = strlen(e);
		if (w + n > sizeof(out)) {
			if (sbx_io_writeall(fd, out, w) == -1)
				return -1;
			w = 0;
		}
		memcpy(out + w, e, n);
		w += n;
		s += k;
		len -= k;
	}
	return sbx_io_writeall(fd, out, w);
}
