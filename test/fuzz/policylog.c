/*
 * Fuzz target (libFuzzer) for policylog.c: sbx_policylog_parse on what
 * `sbx policy log --json` may print, sbx_policylog_reason and
 * sbx_policylog_certhint.  The input is SANDBOX, a NUL, then the output;
 * with no NUL the sandbox is a fixed name.  Any input, no crash, and the
 * answer keeps its promises: -1 with a reason or 0 without; at most 64
 * denials, latest first, none before since; hosts printable ASCII and
 * distinct (in any case) unless cut; reasons free of controls.  Built by
 * "make fuzz".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sbxpolicy.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check_text(const char *s, size_t size, int ascii)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n;

	if ((n = strnlen(s, size)) == size)
		abort();
	for (; n > 0; n--, u++)
		if (*u < 0x20 || *u == 0x7f || (ascii && (*u <= 0x20 || *u > 0x7e)))
			abort();
}

static int
cut(const char *h)
{
	size_t n = strlen(h);

	return n >= 3 && strcmp(h + n - 3, "...") == 0;
}

static void
check(const char *out, size_t len, const char *sandbox, long long since)
{
	struct sbx_denials d;
	const char *why = "unset";
	size_t i, j;
	int r;

	r = sbx_policylog_parse(out, len, sandbox, since, &d, &why);
	if ((r != 0 && r != -1) || (r == -1) != (why != NULL) ||
	    (r == -1 && (d.n != 0 || d.shape != SBX_POLICYLOG_UNKNOWN)) ||
	    (r == 0 && d.shape == SBX_POLICYLOG_UNKNOWN) ||
	    d.n > SBX_POLICYLOG_MAX || (d.more > 0 && d.n != SBX_POLICYLOG_MAX))
		abort();
	for (i = 0; i < d.n; i++) {
		check_text(d.v[i].host, sizeof(d.v[i].host), 1);
		check_text(d.v[i].reason, sizeof(d.v[i].reason), 0);
		if (d.v[i].host[0] == '\0' || d.v[i].count < 1 ||
		    d.v[i].last_seen < -1 ||
		    (d.v[i].last_seen != -1 && d.v[i].last_seen < since))
			abort();
		/* latest first, an unknown time last */
		if (i > 0 && d.v[i].last_seen != -1 &&
		    (d.v[i - 1].last_seen == -1 ||
		    d.v[i - 1].last_seen < d.v[i].last_seen))
			abort();
		for (j = 0; j < i; j++)
			if (!cut(d.v[i].host) && !cut(d.v[j].host) &&
			    strcasecmp(d.v[i].host, d.v[j].host) == 0)
				abort();
	}
	sbx_policylog_free(&d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name, *text, reason[SBX_POLICYLOG_REASON];
	const char *out;
	size_t len, nlen;
	int hint;

	if ((out = memchr(data, '\0', size)) != NULL) {
		nlen = (size_t)(out - (const char *)data);
		out++;
		len = size - nlen - 1;
	} else {
		nlen = 0;
		out = (const char *)data;
		len = size;
	}
	if ((name = malloc(nlen + 8)) == NULL ||
	    (text = malloc(len + 1)) == NULL) {
		free(name);
		return 0;
	}
	if (nlen > 0)
		memcpy(name, data, nlen);
	else
		strcpy(name, "box");
	if (nlen > 0)
		name[nlen] = '\0';
	check(out, len, name, 0);
	check(out, len, NULL, 1784472120LL);

	/* the output as one raw reason, and as a failed call's output */
	memcpy(text, out, len);
	text[len] = '\0';
	check_text(sbx_policylog_reason(text, reason, sizeof(reason)),
	    sizeof(reason), 0);
	if ((hint = sbx_policylog_certhint(out, len)) != 0 && hint != 1)
		abort();
	free(text);
	free(name);
	return 0;
}
