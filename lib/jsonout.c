/*
 * jsonout.c: outside text as a JSON string, the one escaper of JSON
 * output: characters shown.c would escape become \uXXXX, bad bytes
 * \ufffd each, so no reader's terminal gets a control sequence.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sbxjson.h"
#include "sbx-internal.h"

/* One character of s escaped into out (6 bytes); ascii: escaped already. */
static size_t
esc1(const char *s, char out[7], int ascii)
{
	unsigned cp;
	size_t n;

	if ((n = sbx_shown_utf8len(s, SIZE_MAX, &cp)) == 0) {
		memcpy(out, "\\ufffd", 7);
		return 1;
	}
	if (ascii && cp < 0x7f) {
		out[0] = *s;
		out[1] = '\0';
	} else if (cp == '"' || cp == '\\')
		(void)snprintf(out, 7, "\\%c", (int)cp);
	else if (sbx_shown_unsafe(cp))
		(void)snprintf(out, 7, "\\u%04x", cp);
	else {
		memcpy(out, s, n);
		out[n] = '\0';
	}
	return n;
}

void
sbx_jsonout_puts(FILE *fp, const char *s)
{
	char e[7];

	putc('"', fp);
	while (*s != '\0') {
		s += esc1(s, e, 0);
		fputs(e, fp);
	}
	putc('"', fp);
}

/* A line of JSON written before, with what the escaper refuses escaped now. */
void
sbx_jsonout_putline(FILE *fp, const char *s, size_t len)
{
	const char *end = s + len;
	char e[7];

	while (s < end && *s != '\0') {
		s += esc1(s, e, 1);
		fputs(e, fp);
	}
}

/*
 * s escaped into dst (size bytes), stopping at a character boundary; the
 * bytes of s consumed, *len those written.
 */
size_t
sbx_jsonout_esc(char *dst, size_t size, const char *s, size_t *len)
{
	char e[7];
	size_t i = 0, n, k, w = 0;

	while (s[i] != '\0') {
		k = esc1(s + i, e, 0);
		n = strlen(e);
		if (w + n > size)
			break;
		memcpy(dst + w, e, n);
		w += n;
		i += k;
	}
	*len = w;
	return i;
}
