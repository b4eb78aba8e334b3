/*
 * Fuzz target (libFuzzer) for lib's JSON escaper, sbx_jsonout_esc and
 * sbx_jsonout_puts.  The first input byte is the buffer size, the rest the
 * text (cut at a NUL).  Invariants: the output is well-formed UTF-8 (as
 * checked here by a decoder of its own), holds no C0, DEL or C1 control,
 * no line separator and no bidirectional control raw, and reads back
 * through sbx_json_parse as a string that is the text itself when the
 * text was well-formed UTF-8; a cut stops at a character boundary, and
 * only when the next character would not fit; sbx_jsonout_puts writes the
 * whole escape, quoted.  Built by "make fuzz".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbxjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The next character of s (n bytes left): its length, or 0 if ill-formed. */
static size_t
next(const unsigned char *s, size_t n, unsigned long *cp)
{
	static const unsigned long min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t len, i;

	if (s[0] < 0x80)
		return *cp = s[0], 1;
	len = (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
	    (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	if (len == 0 || len > n)
		return 0;
	*cp = s[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min[len] || *cp > 0x10ffff ||
	    (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

static int
forbidden(unsigned long cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x61c ||
	    cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069);
}

/* Well-formed throughout, and nothing forbidden in it. */
static int
clean(const char *s, size_t n)
{
	unsigned long cp;
	size_t k;

	while (n > 0) {
		if ((k = next((const unsigned char *)s, n, &cp)) == 0 ||
		    forbidden(cp))
			return 0;
		s += k;
		n -= k;
	}
	return 1;
}

static int
wellformed(const char *s, size_t n)
{
	unsigned long cp;
	size_t k;

	while (n > 0) {
		if ((k = next((const unsigned char *)s, n, &cp)) == 0)
			return 0;
		s += k;
		n -= k;
	}
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_json *j;
	char *s, *full, *q, *dst, *mem = NULL;
	size_t len, bsize, used, wlen, all, flen, msize = 0, u2, w2;
	FILE *fp;

	if (size == 0)
		return 0;
	bsize = data[0];
	if ((s = malloc(size)) == NULL || (full = malloc(6 * size + 3)) == NULL)
		abort();
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	len = strlen(s);

	/* all of it, with room to spare */
	all = sbx_jsonout_esc(full + 1, 6 * size, s, &flen);
	if (all != len || !clean(full + 1, flen))
		abort();
	full[0] = '"';
	full[flen + 1] = '"';
	full[flen + 2] = '\0';
	if ((j = sbx_json_parse(full, flen + 2, NULL)) == NULL ||
	    j->type != SBX_JSTR || !wellformed(j->str, j->len) ||
	    (wellformed(s, len) && (j->len != len ||
	    memcmp(j->str, s, len) != 0)))
		abort();
	sbx_json_free(j);

	/* cut to bsize bytes: exactly that much room, for ASan to watch */
	if ((dst = malloc(bsize ? bsize : 1)) == NULL)
		abort();
	used = sbx_jsonout_esc(dst, bsize, s, &wlen);
	if (used > len || wlen > bsize || !clean(dst, wlen) ||
	    wlen > flen || memcmp(dst, full + 1, wlen) != 0)
		abort();
	if (used < len) {
		/* the prefix consumed escapes to what was written... */
		if ((q = strndup(s, used)) == NULL)
			abort();
		(void)sbx_jsonout_esc(full, 6 * size, q, &w2);
		if (w2 != wlen)
			abort();
		/* ...and one more character would not have fitted */
		free(q);
		if ((q = strndup(s, used + 4 < len ? used + 4 : len)) == NULL)
			abort();
		u2 = sbx_jsonout_esc(full, wlen + 6, q, &w2);
		if (u2 <= used || w2 <= bsize)
			abort();
		free(q);
	}
	free(dst);

	/* the stream form: the same escape, quoted */
	if ((fp = open_memstream(&mem, &msize)) == NULL)
		abort();
	sbx_jsonout_puts(fp, s);
	if (fclose(fp) != 0 || msize != flen + 2 || mem[0] != '"' ||
	    mem[msize - 1] != '"' || !clean(mem + 1, msize - 2))
		abort();
	free(mem);
	free(full);
	free(s);
	return 0;
}
