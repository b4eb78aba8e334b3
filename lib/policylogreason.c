/*
 * policylogreason.c: why sbx blocked a host, in plain words.  A raw
 * engine verdict or a default deny says no rule allows it; a deny rule
 * named says which; anything else is sbx's own words, shown safely.
 */
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbx-internal.h"
#include "sbxpolicy.h"

#define NORULE		"no rule allows it"
#define WORDS_MAX	1024	/* sbx's words read, at most, and a NUL */

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int
blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Where s holds w (lower case), ASCII without case; NULL if nowhere. */
static const char *
holds(const char *s, const char *w)
{
	long at;

	return (at = sbx_line_find(s, strlen(s), w)) == -1 ? NULL : s + at;
}

/*
 * Whether s's n bytes read as a rule's id or resource: one word with a
 * digit or a resource's mark in it (r-1a2b3c4d, example.com:443).
 */
static int
rulelike(const char *s, size_t n)
{
	size_t i;
	int mark = 0;

	for (i = 0; i < n; i++) {
		if (blank((unsigned char)s[i]))
			return 0;
		if ((s[i] >= '0' && s[i] <= '9') ||
		    strchr(".:-*/", s[i]) != NULL)
			mark = 1;
	}
	return n > 0 && mark;
}

/* The rule the words name after "rule" (denied by rule X), or NULL. */
static const char *
named(const char *s, size_t *n)
{
	const char *p, *q;

	if (holds(s, "den") == NULL && holds(s, "block") == NULL)
		return NULL;
	for (p = s; (p = holds(p, "rule")) != NULL; p += 4) {
		if (p > s && ((lower((unsigned char)p[-1]) >= 'a' &&
		    lower((unsigned char)p[-1]) <= 'z') || p[-1] == '_'))
			continue;
		for (q = p + 4; *q != '\0' && strchr(" :=\"'`", *q) != NULL;
		    q++)
			;
		if (q == p + 4)
			continue;
		for (*n = 0; q[*n] != '\0' && !blank((unsigned char)q[*n]) &&
		    strchr(",;()\"'`", q[*n]) == NULL; (*n)++)
			;
		while (*n > 0 && q[*n - 1] == '.')
			(*n)--;
		if (rulelike(q, *n))
			return q;
	}
	return NULL;
}

/* "denied by rule X", X's n bytes shown as a host is */
static const char *
byrule(const char *x, size_t n, char *buf, size_t size)
{
	char raw[SBX_POLICYLOG_HOST + 8], shown[SBX_POLICYLOG_HOST];

	/* still too long to show when cut here: shown ending in ... */
	if (n > sizeof(raw) - 1)
		n = sizeof(raw) - 1;
	memcpy(raw, x, n);
	raw[n] = '\0';
	snprintf(buf, size, "denied by rule %s",
	    sbx_policylog_host(raw, shown, sizeof(shown)));
	return buf;
}

/*
 * sbx's reason for a denial (its rule or reason member; NULL when it
 * gave none) in plain words, into buf.
 */
const char *
sbx_policylog_reason(const char *raw, char *buf, size_t size)
{
	char words[WORDS_MAX];
	const char *x;
	size_t n, k;

	if (size == 0)
		return "";
	if (raw == NULL)
		raw = "";
	/* trimmed and bounded: all that is read of sbx's words */
	while (blank((unsigned char)*raw))
		raw++;
	for (n = 0; n < sizeof(words) - 1 && raw[n] != '\0'; n++)
		words[n] = raw[n];
	while (n > 0 && blank((unsigned char)words[n - 1]))
		n--;
	words[n] = '\0';
	/* no rule named: what sbx's default, a deny, decided */
	if (n == 0 || sbx_says_norule(words)) {
		snprintf(buf, size, "%s", NORULE);
		return buf;
	}
	if (rulelike(words, n))
		return byrule(words, n, buf, size);
	if ((x = named(words, &k)) != NULL)
		return byrule(x, k, buf, size);
	return sbx_shown(words, buf, size);
}
