/*
 * jsonout.c: outside text as a JSON string, on a stdio stream (every -j
 * output) or into a buffer (sbx-run's journal): the one escaper.
 *
 * What comes out is printable ASCII and valid UTF-8 only, so no reader's
 * terminal ever gets a control sequence: the C0 controls, DEL and the C1
 * controls (U+0080 to U+009F, C2 80 to C2 9F in UTF-8: C2 9B is CSI),
 * the line and paragraph separators and the bidirectional controls
 * become \uXXXX; a byte that does not begin a well-formed UTF-8 sequence
 * (a lone continuation, an overlong form, a surrogate, a code point past
 * U+10FFFF, a cut sequence) becomes \ufffd, one per byte.  Any other
 * character passes as it is.  Which characters those are is shown.c's
 * to say, for text and JSON alike.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sbxjson.h"
#include "sbx-internal.h"

/*
 * One character of s in its escaped form into out (at most 6 bytes,
 * NUL-terminated); returns the bytes of s it stands for.  With ascii
 * set, printable ASCII and the C0 controls pass as they are (a JSON text
 * that is already escaped, whose blanks may be tabs).
 */
static size_t
esc1(const char *s, char out[7], int ascii)
{
	unsigned cp;
	size_t n;

	if ((n = sbx_utf8len(s, SIZE_MAX, &cp)) == 0) {
		memcpy(out, "\\ufffd", 7);
		return 1;
	}
	if (ascii && cp < 0x7f) {
		out[0] = *s;
		out[1] = '\0';
	} else if (cp == '"' || cp == '\\')
		(void)snprintf(out, 7, "\\%c", (int)cp);
	else if (sbx_unsafe(cp))
		(void)snprintf(out, 7, "\\u%04x", cp);
	else {
		memcpy(out, s, n);
		out[n] = '\0';
	}
	return n;
}

void
sbx_json_puts(FILE *fp, const char *s)
{
	char e[7];

	putc('"', fp);
	while (*s != '\0') {
		s += esc1(s, e, 0);
		fputs(e, fp);
	}
	putc('"', fp);
}

/*
 * A line of JSON text (len bytes, then a newline or a NUL) written before,
 * say by an older sbx-run, with what the escaper would not pass raw
 * escaped now; such characters can only be inside its strings, since
 * JSON allows none of them elsewhere.
 */
void
sbx_json_putline(FILE *fp, const char *s, size_t len)
{
	const char *end = s + len;
	char e[7];

	/* a newline, or the NUL, follows: no character runs past end */
	while (s < end && *s != '\0') {
		s += esc1(s, e, 1);
		fputs(e, fp);
	}
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
