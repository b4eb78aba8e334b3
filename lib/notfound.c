/*
 * notfound.c: does sbx's error output say that a sandbox does not exist?
 * Two wordings are known: "Error: sandbox 'NAME' not found" (rm, stop)
 * and "ERROR: no sandbox named 'NAME'" (exec).  A teardown that meets
 * either has nothing left to do.
 */
#include <stdio.h>
#include <string.h>

#include "sbx.h"

int
sbx_notfound(const char *err, const char *name)
{
	char pat[SBX_NAME_MAX + 32];

	/* a longer name is no sandbox's, and would cut the pattern short */
	if (err == NULL || name == NULL || strlen(name) > SBX_NAME_MAX)
		return 0;
	snprintf(pat, sizeof(pat), "sandbox '%s' not found", name);
	if (strstr(err, pat) != NULL)
		return 1;
	snprintf(pat, sizeof(pat), "no sandbox named '%s'", name);
	return strstr(err, pat) != NULL;
}

/*
 * How far text (what a command printed on stderr so far) matches sbx's
 * own first line for a missing sandbox, exactly as sbx prints it:
 * SBX_NF_LINE when the first line is complete and is that line,
 * SBX_NF_PREFIX while the text could still become it, SBX_NF_NO once it
 * cannot.  sbx-run holds stderr back only while it is not SBX_NF_NO, so
 * a prompt without a newline is never kept from the user.
 */
int
sbx_notfound_line(const char *text, size_t len, const char *name)
{
	char pat[2][SBX_NAME_MAX + 40];
	const char *nl;
	size_t n, plen, i;

	if (name == NULL || strlen(name) > SBX_NAME_MAX)
		return SBX_NF_NO;
	if (text == NULL) {	/* nothing held yet: an empty buffer */
		text = "";
		len = 0;
	}
	snprintf(pat[0], sizeof(pat[0]), "ERROR: no sandbox named '%s'", name);
	snprintf(pat[1], sizeof(pat[1]), "Error: sandbox '%s' not found",
	    name);
	nl = memchr(text, '\n', len);
	n = nl != NULL ? (size_t)(nl - text) : len;
	for (i = 0; i < 2; i++) {
		plen = strlen(pat[i]);
		if (nl != NULL) {
			if (n == plen && memcmp(text, pat[i], n) == 0)
				return SBX_NF_LINE;
		} else if (n <= plen && memcmp(text, pat[i], n) == 0)
			return SBX_NF_PREFIX;
	}
	return SBX_NF_NO;
}
