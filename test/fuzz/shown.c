/*
 * Fuzz target (libFuzzer) for sbx_shown, which makes outside text fit
 * for a one-line message.  For a buffer size taken from the input's
 * first byte: the result is NUL-terminated within the buffer, is valid
 * UTF-8 with no control (C0, DEL, C1), separator or bidirectional
 * control in it, reads back (its escapes undone) as the start of the
 * text, and is cut only when the next character would not fit.  Built by
 * "make fuzz".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbx-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The escapes of r undone into out; its length. */
static size_t
undo(const char *r, char *out)
{
	size_t o = 0;

	while (*r != '\0') {
		if (*r != '\\') {
			out[o++] = *r++;
			continue;
		}
		if (r[1] == '\\' || r[1] == 'n' || r[1] == 't' || r[1] == 'r') {
			out[o++] = r[1] == 'n' ? '\n' : r[1] == 't' ? '\t' :
			    r[1] == 'r' ? '\r' : '\\';
			r += 2;
			continue;
		}
		if (r[1] < '0' || r[1] > '3' || r[2] < '0' || r[2] > '7' ||
		    r[3] < '0' || r[3] > '7')
			abort();
		out[o++] = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 |
		    (r[3] - '0'));
		r += 4;
	}
	return o;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *buf, *back;
	const char *r;
	size_t bsize, len, i, n, blen;
	unsigned cp;

	if (size == 0)
		return 0;
	bsize = data[0];
	if ((s = malloc(size)) == NULL)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	len = strlen(s);
	/* exactly bsize bytes, so ASan sees any write past them */
	if ((buf = malloc(bsize ? bsize : 1)) == NULL ||
	    (back = malloc(bsize + 1)) == NULL)
		abort();
	r = sbx_shown(s, buf, bsize);
	if (bsize == 0) {
		if (r == NULL || *r != '\0')
			abort();
	} else {
		if (r != buf || memchr(buf, '\0', bsize) == NULL)
			abort();
		blen = strlen(buf);
		for (i = 0; i < blen; i += n)
			if ((n = sbx_shown_utf8len(buf + i, blen - i,
			    &cp)) == 0 ||
			    sbx_shown_unsafe(cp))
				abort();
		n = undo(buf, back);
		if (n > len || memcmp(back, s, n) != 0)
			abort();
		/* cut short only where a whole escape (16 bytes) may not fit */
		if (n < len && blen + 16 < bsize - 1)
			abort();
	}
	free(back);
	free(buf);
	free(s);
	return 0;
}
