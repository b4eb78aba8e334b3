/*
 * Fuzz target (libFuzzer) for sbx_rfc3339_parse: any input, no crash, and an
 * accepted timestamp has the shape the reader promises.  Built by
 * "make fuzz".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbxtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	long long t;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (sbx_rfc3339_parse(s, &t) == 0) {
		/* YYYY-MM-DDThh:mm:ssZ at least, years 0000 to 9999 */
		if (strlen(s) < 20 || t < -62167219200LL - 86400 ||
		    t > 253402300799LL + 86400)
			abort();
	}
	free(s);
	return 0;
}
