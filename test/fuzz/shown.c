/*
 * Fuzz target (libFuzzer) for sbx_shown, which makes outside text fit
 * for a one-line message.  For a buffer size taken from the input's
 * first byte: the result is NUL-terminated within the buffer, holds only
 * printable ASCII, is the text itself where the text was printable, and
 * is cut only when the buffer is full.  Built by "make fuzz".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *buf;
	const char *r;
	size_t bsize, len, i;

	if (size == 0)
		return 0;
	bsize = data[0];
	if ((s = malloc(size)) == NULL)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	len = strlen(s);
	/* exactly bsize bytes, so ASan sees any write past them */
	if ((buf = malloc(bsize ? bsize : 1)) == NULL)
		abort();
	r = sbx_shown(s, buf, bsize);
	if (bsize == 0) {
		if (r == NULL || *r != '\0')
			abort();
	} else {
		if (r != buf || memchr(buf, '\0', bsize) == NULL)
			abort();
		if (strlen(buf) != (len < bsize - 1 ? len : bsize - 1))
			abort();
		for (i = 0; buf[i] != '\0'; i++)
			if (buf[i] < ' ' || buf[i] > '~' ||
			    (s[i] >= ' ' && s[i] <= '~' ? buf[i] != s[i] :
			    buf[i] != '?'))
				abort();
	}
	free(buf);
	free(s);
	return 0;
}
