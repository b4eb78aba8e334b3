/*
 * Fuzz target (libFuzzer) for sbx_says_notfound and sbx_says_notfound_line,
 * which read sbx's error output for "this sandbox does not exist".  A
 * wrong yes from the first leaves a sandbox behind at teardown; the second
 * decides how long sbx-run holds a command's stderr back.  The input is
 * NAME, a NUL, then the text.
 *
 * sbx_says_notfound: yes exactly when the text holds "sandbox QNAMEQ not
 * found" or "no sandbox named QNAMEQ" (fixed words in any case, the name
 * byte for byte, Q one quote, ' or ", twice) for a NAME no longer than a
 * sandbox name can be; checked against a search written out here.
 *
 * sbx_says_notfound_line: whatever it holds (not SBX_NF_NO) it held at
 * every shorter prefix too, so stderr once let go is never taken back;
 * it never holds more than its few short lines; and a complete answer
 * (SBX_NF_LINE) holds the words sbx_says_notfound looks for.  Built by
 * "make fuzz".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sbx.h"
#include "sbxcli.h"

/* 8 notices, the answer, 6 hints: 15 lines of at most 512 bytes */
#define HELD_MAX	(15 * 513)

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
said(const char *err, const char *name)
{
	static const char *const pre[] = { "sandbox ", "no sandbox named " };
	static const char *const post[] = { " not found", "" };
	const char *q = "'\"";
	size_t nl = strlen(name), n = strlen(err), i, j, k, pl, sl;

	for (i = 0; i < n; i++)
		for (j = 0; j < 2; j++)
			for (k = 0; k < 2; k++) {
				pl = strlen(pre[j]);
				sl = strlen(post[j]);
				if (n - i < pl + nl + 2 + sl)
					continue;
				if (strncasecmp(err + i, pre[j], pl) == 0 &&
				    err[i + pl] == q[k] &&
				    memcmp(err + i + pl + 1, name, nl) == 0 &&
				    err[i + pl + 1 + nl] == q[k] &&
				    strncasecmp(err + i + pl + nl + 2, post[j],
				    sl) == 0)
					return 1;
			}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name, *err;
	const uint8_t *nul;
	size_t nlen, tlen, i;
	int want, r;

	if ((nul = memchr(data, '\0', size)) == NULL)
		return 0;
	nlen = (size_t)(nul - data);
	if ((name = malloc(size + 1)) == NULL)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	err = name + nlen + 1;
	tlen = size - nlen - 1;
	want = nlen <= SBX_NAME_MAX && said(err, name);
	if (sbx_says_notfound(err, name) != want)
		abort();
	if (sbx_says_notfound(NULL, name) != 0 ||
	    sbx_says_notfound(err, NULL) != 0)
		abort();

	/* the line matcher, over all the bytes (NULs included) */
	r = sbx_says_notfound_line(err, tlen, name);
	if (r != SBX_NF_NO && r != SBX_NF_PREFIX && r != SBX_NF_LINE)
		abort();
	if (r != SBX_NF_NO) {
		if (nlen > SBX_NAME_MAX || tlen > HELD_MAX)
			abort();
		for (i = 0; i < tlen; i++)
			if (sbx_says_notfound_line(err, i, name) == SBX_NF_NO)
				abort();
	}
	if (r == SBX_NF_LINE && !sbx_says_notfound(err, name))
		abort();
	if (sbx_says_notfound_line(err, tlen, NULL) != SBX_NF_NO)
		abort();
	free(name);
	return 0;
}
