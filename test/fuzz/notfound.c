/*
 * Fuzz target (libFuzzer) for sbx_says_notfound, which reads sbx's error
 * output for "this sandbox does not exist" (a teardown then has nothing
 * left to do, so a wrong yes would leave a sandbox behind).  The input
 * is NAME, a NUL, then the text.  The answer is yes exactly when the text
 * holds "sandbox 'NAME' not found" or "no sandbox named 'NAME'" whole,
 * for a NAME no longer than a sandbox name can be.  Built by "make fuzz".
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
	char *name, *err, *pat;
	const uint8_t *nul;
	size_t nlen;
	int want;

	if ((nul = memchr(data, '\0', size)) == NULL)
		return 0;
	nlen = (size_t)(nul - data);
	if ((name = malloc(size + 1)) == NULL)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	err = name + nlen + 1;
	if ((pat = malloc(nlen + 32)) == NULL)
		abort();
	snprintf(pat, nlen + 32, "sandbox '%s' not found", name);
	want = strstr(err, pat) != NULL;
	snprintf(pat, nlen + 32, "no sandbox named '%s'", name);
	want |= strstr(err, pat) != NULL;
	if (nlen > SBX_NAME_MAX)
		want = 0;
	if (sbx_says_notfound(err, name) != want)
		abort();
	if (sbx_says_notfound(NULL, name) != 0 || sbx_says_notfound(err, NULL) != 0)
		abort();
	free(pat);
	free(name);
	return 0;
}
