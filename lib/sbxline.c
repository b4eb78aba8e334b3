/*
 * sbxline.c: what one line of sbx's stderr is: an answer, by its stable
 * words in any case after any prefix; sbx's noise, by its shape; or not
 * sbx's at all.
 */
#include <string.h>

#include "sbx.h"
#include "sbx-internal.h"

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int
namechar(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

static int
quote(int c)
{
	return c == '\'' || c == '"' || c == '`';
}

/* Where w (lower case) is in s[0..n), in any case: its offset, or -1. */
long
sbx_line_find(const char *s, size_t n, const char *w)
{
	size_t i, k, wl = strlen(w);

	for (i = 0; i + wl <= n; i++) {
		for (k = 0; k < wl && lower((unsigned char)s[i + k]) == w[k];
		    k++)
			;
		if (k == wl)
			return (long)i;
	}
	return -1;
}

static int
starts(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);

	return n >= wl && sbx_line_find(s, wl, w) == 0;
}

static int
word(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w), at = 0;
	long i;

	while (at < n && (i = sbx_line_find(s + at, n - at, w)) != -1) {
		i += (long)at;
		if ((i == 0 || !namechar((unsigned char)s[i - 1])) &&
		    ((size_t)i + wl == n ||
		    !namechar((unsigned char)s[i + wl])))
			return 1;
		at = (size_t)i + 1;
	}
	return 0;
}

/* Is the name at s[0..n) bounded: no name byte before (from b) or after? */
static int
name_at(const char *s, size_t n, size_t b, const char *name)
{
	size_t nl = strlen(name), e = b + nl;

	if (nl == 0 || e > n || memcmp(s + b, name, nl) != 0)
		return 0;
	if (b > 0 && namechar((unsigned char)s[b - 1]))
		return 0;
	if (e < n && s[e] == '.' && (e + 1 == n ||
	    !namechar((unsigned char)s[e + 1])))
		return 1;
	return e == n || !namechar((unsigned char)s[e]);
}

/*
 * Does the line say that sandbox name does not exist?  Another
 * sandbox's name there is no answer about this one.
 */
static int
says_missing(const char *s, size_t n, const char *name)
{
	size_t at = 0, b, nl = strlen(name);
	long i;

	for (at = 0; (i = sbx_line_find(s + at, n - at, "no sandbox named")) != -1;
	    at = b) {
		b = at + (size_t)i + 16;
		while (b < n && (s[b] == ' ' || quote((unsigned char)s[b])))
			b++;
		if (name_at(s, n, b, name))
			return 1;
	}
	for (at = 0; (i = sbx_line_find(s + at, n - at, "not found")) != -1;
	    at = (size_t)i + 9) {
		i += (long)at;
		b = (size_t)i;
		while (b > 0 && s[b - 1] == ' ')
			b--;
		if (b > 0 && s[b - 1] == ':')
			b--;
		if (b > 0 && quote((unsigned char)s[b - 1]))
			b--;
		if (b >= nl && name_at(s, n, b - nl, name))
			return 1;
		b = (size_t)i + 9;
		if (b < n && s[b] == ':')
			b++;
		while (b < n && s[b] == ' ')
			b++;
		if (b < n && quote((unsigned char)s[b]))
			b++;
		if (name_at(s, n, b, name))
			return 1;
	}
	return 0;
}

/* After any "[sbx] ", a level that makes the line an answer? */
static int
errorish(const char *s, size_t n)
{
	static const char *const levels[] = { "error", "fatal", "panic" };
	size_t i, l;

	if (starts(s, n, "[sbx]"))
		for (s += 5, n -= 5; n > 0 && *s == ' '; s++, n--)
			;
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		l = strlen(levels[i]);
		if (starts(s, n, levels[i]) && n > l &&
		    (s[l] == ':' || s[l] == '['))
			return 1;
	}
	return 0;
}

/* "Label: value": one to three words, the first capitalised, then a colon. */
static int
labelled(const char *s, size_t n)
{
	size_t i = 0;
	int words = 1;

	if (n == 0 || s[0] < 'A' || s[0] > 'Z')
		return 0;
	for (; i < n && s[i] != ':'; i++) {
		if (s[i] == ' ') {
			if (i > 0 && s[i - 1] == ' ')
				return 0;
			if (++words > 3)
				return 0;
		} else if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	}
	return i < n && i > 0 && s[i - 1] != ' ' &&
	    (i + 1 == n || s[i + 1] == ' ');
}

/* sbx prints UTF-8 and no controls but a tab. */
static int
printable(const char *s, size_t n)
{
	unsigned cp;
	size_t k;

	for (; n > 0; s += k, n -= k)
		if ((k = sbx_shown_utf8len(s, n, &cp)) == 0 ||
		    (cp != '\t' && sbx_shown_unsafe(cp)))
			return 0;
	return 1;
}

/*
 * What one complete line of sbx's stderr is.  after: the line before was
 * sbx's, which makes an indented line its hint.  name "" is no answer.
 */
enum sbx_line
sbx_line_kind(const char *s, size_t n, const char *name, int after)
{
	size_t b;

	if (!printable(s, n))
		return SBX_L_OTHER;
	if (name[0] != '\0' && says_missing(s, n, name))
		return SBX_L_MISSING;
	if (sbx_line_find(s, n, "cannot prompt for restart") != -1 ||
	    sbx_line_find(s, n, "needs to restart") != -1 ||
	    sbx_line_find(s, n, "sbx daemon restart") != -1)
		return SBX_L_RESTART;
	if (sbx_line_find(s, n, "another daemon is already running") != -1 ||
	    sbx_line_find(s, n, "daemon exited unexpectedly") != -1)
		return SBX_L_RACE;
	/* any other answer: one this caller did not ask about */
	if (errorish(s, n) || sbx_line_find(s, n, "not found") != -1 ||
	    sbx_line_find(s, n, "no sandbox named") != -1)
		return SBX_L_OTHER;
	for (b = 0; b < n && (s[b] == ' ' || s[b] == '\t'); b++)
		;
	if (b == n)
		return SBX_L_NOISE;
	if (b > 0) {
		/* a hint: after sbx's line, or naming sbx or a label */
		if (after || word(s + b, n - b, "sbx") ||
		    labelled(s + b, n - b) || starts(s + b, n - b, "try:"))
			return SBX_L_NOISE;
		return SBX_L_OTHER;
	}
	if (starts(s, n, "[sbx]") || starts(s, n, "warn:") ||
	    starts(s, n, "warn[") || labelled(s, n) ||
	    word(s, n, "daemon") || word(s, n, "sandboxd") ||
	    word(s, n, "sandbox"))
		return SBX_L_NOISE;
	return SBX_L_OTHER;
}

const char *
sbx_line_name(const char *name)
{
	size_t i;

	if (name == NULL || strlen(name) > SBX_NAME_MAX)
		return "";
	for (i = 0; name[i] != '\0'; i++)
		if (!namechar((unsigned char)name[i]))
			return "";
	return name;
}
