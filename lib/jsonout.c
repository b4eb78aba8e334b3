/*
 * jsonout.c: a C string as a JSON string, on a stdio stream (the -j output
 * of sbx-ports and sbx-verify) or into a buffer (sbx-run's journal).
 */
#include <stdio.h>
#include <string.h>

#include "sbx.h"

/* The escaped form of c into out (at most 6 bytes); returns its length. */
static size_t
esc1(unsigned char c, char out[7])
{
	if (c == '"' || c == '\\')
		return (size_t)snprintf(out, 7, "\\%c", c);
	if (c < 0x20 || c == 0x7f)
		return (size_t)snprintf(out, 7, "\\u%04x", c);
	out[0] = (char)c;
	out[1] = '\0';
	return 1;
}

void
sbx_json_puts(FILE *fp, const char *s)
{
	char e[7];

	putc('"', fp);
	for (; *s != '\0'; s++) {
		esc1((unsigned char)*s, e);
		fputs(e, fp);
	}
	putc('"', fp);
}

/*
 * The escaped form of s (no quotes, no NUL) into dst, at most size bytes.
 * When the room runs out it stops at a character boundary, never inside
 * an escape or a UTF-8 sequence.  Returns the bytes of s consumed (all of
 * s when s[return] is NUL); *len gets the bytes written.
 */
size_t
sbx_json_esc(char *dst, size_t size, const char *s, size_t *len)
{
	char e[7];
	size_t i, n, w = 0, ok = 0, okw = 0;

	for (i = 0; s[i] != '\0'; i++) {
		/* a UTF-8 lead or a single byte starts a character */
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			ok = i;
			okw = w;
		}
		n = esc1((unsigned char)s[i], e);
		if (w + n > size) {
			*len = okw;
			return ok;
		}
		memcpy(dst + w, e, n);
		w += n;
	}
	*len = w;
	return i;
}
