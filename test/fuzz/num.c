/*
 * Fuzz target (libFuzzer) for sbx_strtonum, the one number reader: the
 * input is "MIN MAX TEXT" (two decimal bounds, then the text).  An
 * accepted value lies in [MIN, MAX], is what the text says written back
 * in plain decimal, and came from nothing but an optional '-' and
 * digits; a refused one has a reason and the value 0.  Built by
 * "make fuzz".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long long min = 0, max = 65535, v;
	const char *errstr, *t;
	char *s, *p, *end, back[32];

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	t = s;
	/* optional bounds, read with strtoll here: the reader is under test */
	if ((p = strchr(s, ' ')) != NULL && strchr(p + 1, ' ') != NULL) {
		min = strtoll(s, &end, 10);
		max = strtoll(p + 1, &end, 10);
		t = strchr(p + 1, ' ') + 1;
	}
	v = sbx_strtonum(t, min, max, &errstr);
	if (errstr == NULL) {
		snprintf(back, sizeof(back), "%lld", v);
		if (v < min || v > max || min > max ||
		    strspn(t + (*t == '-'), "0123456789") != strlen(t) -
		    (*t == '-'))
			abort();
		/* leading zeros aside, the text is the number */
		if (strtoll(t, &end, 10) != v || *end != '\0')
			abort();
		if (strchr(t, '0') == NULL && strcmp(back, t) != 0)
			abort();
	} else if (v != 0)
		abort();
	free(s);
	return 0;
}
