/*
 * Fuzz target (libFuzzer) for sbx_says_notfound and sbx_says_notfound_line,
 * which read sbx's error output for "this sandbox does not exist".  A
 * wrong yes from the first leaves a sandbox behind at teardown; the second
 * decides how long sbx-run holds a command's stderr back.  The input is
 * NAME, a NUL, then the text.
 *
 * sbx_says_notfound: yes exactly when a line of the text (at most 512
 * bytes without its newline and a CR, UTF-8 with no control but a tab)
 * holds NAME, bounded by no byte a name can hold (a full stop ending a
 * sentence aside), with "no sandbox named" before it or "not found"
 * before or after it (spaces, one quote and one colon between), fixed
 * words in any case, for a NAME no longer than a sandbox name and of
 * the bytes one can hold (letters, digits, '.', '-', '_'); checked
 * against a search written out here from the name's side.
 *
 * sbx_says_notfound_line: what it holds (not SBX_NF_NO) it held at the
 * end of every complete line before, so stderr once let go is never
 * taken back; it never holds more than its few short lines; and a
 * complete answer (SBX_NF_LINE) ends a line and holds the words
 * sbx_says_notfound looks for.  Built by "make fuzz".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sbx.h"
#include "sbxcli.h"

#define LINE_MAX_SBX	512
/* 24 lines of at most 512 bytes, a CR and a newline, an unfinished one */
#define HELD_MAX	(24 * 514 + 512)

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
namebyte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

static int
isquote(unsigned char c)
{
	return c == '\'' || c == '"' || c == '`';
}

/* UTF-8 with no C0 control but a tab, no DEL, no C1. */
static int
clean(const unsigned char *s, size_t n)
{
	size_t i = 0, k, more;

	while (i < n) {
		if (s[i] < 0x80) {
			if ((s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
				return 0;
			i++;
			continue;
		}
		if (s[i] < 0xc2 || s[i] > 0xf4)
			return 0;
		more = s[i] >= 0xf0 ? 3 : s[i] >= 0xe0 ? 2 : 1;
		if (i + more >= n)
			return 0;
		if (s[i] == 0xc2 && s[i + 1] < 0xa0)
			return 0;
		for (k = 1; k <= more; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
		i += more + 1;
	}
	return 1;
}

/* Does s[0..e) end with w, in any case? */
static int
ends(const char *s, size_t e, const char *w)
{
	size_t wl = strlen(w);

	return e >= wl && strncasecmp(s + e - wl, w, wl) == 0;
}

/* One line: the name at b, then its surroundings. */
static int
line_says(const char *s, size_t n, const char *name)
{
	size_t nl = strlen(name), b, e, j;

	if (nl == 0)
		return 0;
	for (b = 0; b + nl <= n; b++) {
		if (memcmp(s + b, name, nl) != 0)
			continue;
		e = b + nl;
		if (b > 0 && namebyte((unsigned char)s[b - 1]))
			continue;
		if (e < n && namebyte((unsigned char)s[e]) &&
		    !(s[e] == '.' && (e + 1 == n ||
		    !namebyte((unsigned char)s[e + 1]))))
			continue;
		/* "no sandbox named" and spaces or quotes */
		for (j = b; j > 0 && (s[j - 1] == ' ' ||
		    isquote((unsigned char)s[j - 1])); j--)
			;
		if (ends(s, j, "no sandbox named"))
			return 1;
		/* "not found", a colon, spaces, a quote */
		j = b;
		if (j > 0 && isquote((unsigned char)s[j - 1]))
			j--;
		while (j > 0 && s[j - 1] == ' ')
			j--;
		if (j > 0 && s[j - 1] == ':')
			j--;
		if (ends(s, j, "not found"))
			return 1;
		/* a quote, a colon, spaces, "not found" */
		j = e;
		if (j < n && isquote((unsigned char)s[j]))
			j++;
		if (j < n && s[j] == ':')
			j++;
		while (j < n && s[j] == ' ')
			j++;
		if (n - j >= 9 && strncasecmp(s + j, "not found", 9) == 0)
			return 1;
	}
	return 0;
}

static int
said(const char *err, const char *name)
{
	const char *l, *nl;
	size_t n;

	for (l = err; ; l = nl + 1) {
		nl = strchr(l, '\n');
		n = nl != NULL ? (size_t)(nl - l) : strlen(l);
		if (n > 0 && l[n - 1] == '\r')
			n--;
		if (n <= LINE_MAX_SBX && clean((const unsigned char *)l, n) &&
		    line_says(l, n, name))
			return 1;
		if (nl == NULL)
			return 0;
	}
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
	for (i = 0; i < nlen && namebyte((unsigned char)name[i]); i++)
		;
	want = nlen <= SBX_NAME_MAX && i == nlen && said(err, name);
	if (sbx_says_notfound(err, name) != want)
		abort();
	if (sbx_says_notfound(NULL, name) != 0 ||
	    sbx_says_notfound(err, NULL) != 0)
		abort();

	/* the exec's reader, over all the bytes (NULs included) */
	r = sbx_says_notfound_line(err, tlen, name);
	if (r != SBX_NF_NO && r != SBX_NF_PREFIX && r != SBX_NF_LINE)
		abort();
	if (r != SBX_NF_NO) {
		if (nlen > SBX_NAME_MAX || i != nlen || tlen > HELD_MAX)
			abort();
		for (i = 0; i < tlen; i++)
			if (err[i] == '\n' &&
			    sbx_says_notfound_line(err, i + 1, name) ==
			    SBX_NF_NO)
				abort();
	}
	if (r == SBX_NF_LINE && (tlen == 0 || err[tlen - 1] != '\n' ||
	    memchr(err, '\0', tlen) != NULL || !sbx_says_notfound(err, name)))
		abort();
	if (sbx_says_notfound_line(err, tlen, NULL) != SBX_NF_NO)
		abort();
	free(name);
	return 0;
}
