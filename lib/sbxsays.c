/*
 * sbxsays.c: what sbx's answers mean.  sbx rewords its answers between
 * releases, so each line is read for its meaning (sbxline.c); programs
 * ask here rather than compare sbx's bytes.
 */
#include <ctype.h>
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbx-internal.h"

#define HOLD_LINES	24

/* sbx writes each line whole: wait only for a start that could be sbx's. */
static int
unfinished(const char *s, size_t n)
{
	static const char *const opening[] = {
		"[sbx]", "error:", "error[", "warn:", "warn["
	};
	size_t i, k, m;

	if (n == 0 || n > SBX_LINE_MAX)
		return 0;
	for (i = 0; i < sizeof(opening) / sizeof(opening[0]); i++) {
		m = strlen(opening[i]);
		if (n < m)
			m = n;
		for (k = 0; k < m &&
		    tolower((unsigned char)s[k]) == opening[i][k]; k++)
			;
		if (k == m)
			return 1;
	}
	return 0;
}

/*
 * How far text (an exec's stderr so far) is sbx's whole answer want:
 * SBX_NF_LINE, SBX_NF_PREFIX while it could become it, SBX_NF_NO once
 * it cannot.
 */
static int
answer(const char *text, size_t len, const char *name, enum sbx_line want)
{
	const char *nl;
	size_t n, lines = 0;
	enum sbx_line k;
	int found = 0, after = 0;

	if (text == NULL)
		len = 0;
	while (len > 0) {
		if ((nl = memchr(text, '\n', len)) == NULL)
			return unfinished(text, len) ? SBX_NF_PREFIX :
			    SBX_NF_NO;
		n = (size_t)(nl - text);
		if (n > SBX_LINE_MAX || ++lines > HOLD_LINES)
			return SBX_NF_NO;
		k = sbx_line_kind(text, n > 0 && text[n - 1] == '\r' ? n - 1 : n,
		    name, after);
		if (k == want)
			found = 1;
		else if (k != SBX_L_NOISE)
			return SBX_NF_NO;
		after = 1;
		text += n + 1;
		len -= n + 1;
	}
	return found ? SBX_NF_LINE : SBX_NF_PREFIX;
}

static int
any_line(const char *err, const char *name, enum sbx_line want)
{
	const char *nl;
	size_t n;

	if (err == NULL)
		return 0;
	for (; *err != '\0'; err = nl + 1) {
		if ((nl = strchr(err, '\n')) == NULL)
			nl = err + strlen(err);
		n = (size_t)(nl - err);
		if (n > 0 && err[n - 1] == '\r')
			n--;
		if (n <= SBX_LINE_MAX && sbx_line_kind(err, n, name, 0) == want)
			return 1;
		if (*nl == '\0')
			break;
	}
	return 0;
}

static int
any_words(const char *err, const char *w)
{
	return err != NULL && sbx_line_find(err, strlen(err), w) != -1;
}

/*
 * Does sbx's error output say that sandbox name does not exist?  Only for
 * sbx's own answers: an exec's stderr is the command's too.
 */
int
sbx_says_notfound(const char *err, const char *name)
{
	name = sbx_line_name(name);
	return name[0] != '\0' && any_line(err, name, SBX_L_MISSING);
}

/*
 * The same, for an exec's stderr so far (see answer()).  Only a reason to
 * ask sbx: a command can print all of this itself.
 */
int
sbx_says_notfound_line(const char *text, size_t len, const char *name)
{
	name = sbx_line_name(name);
	if (name[0] == '\0')
		return SBX_NF_NO;
	return answer(text, len, name, SBX_L_MISSING);
}

/* The same, for sbx awaiting its daemon restart. */
int
sbx_says_restart_line(const char *text, size_t len)
{
	return answer(text, len, "", SBX_L_RESTART);
}

/* The same, for the daemon start race; a command can print it too. */
int
sbx_says_race_line(const char *text, size_t len)
{
	return answer(text, len, "", SBX_L_RACE);
}

/* Does sbx's create say the name is taken? */
int
sbx_says_exists(const char *err)
{
	return any_words(err, "already exists");
}

/* Does sbx say it has no such command as verb (cobra's refusal)? */
int
sbx_says_unknown_verb(const char *err, const char *verb)
{
	char pat[64];
	size_t i;

	if (err == NULL || verb == NULL || strlen(verb) > 32)
		return 0;
	(void)snprintf(pat, sizeof(pat), "unknown command \"%s\"", verb);
	for (i = 0; pat[i] != '\0'; i++)
		pat[i] = (char)tolower((unsigned char)pat[i]);
	return any_words(err, pat);
}

/* Does sbx refuse flag?  A longer flag is another. */
int
sbx_says_unknown_flag(const char *err, const char *flag)
{
	char pat[64];
	size_t n, pl;
	long i;

	if (err == NULL || flag == NULL || strlen(flag) > 40)
		return 0;
	(void)snprintf(pat, sizeof(pat), "unknown flag: %s", flag);
	for (pl = 0; pat[pl] != '\0'; pl++)
		pat[pl] = (char)tolower((unsigned char)pat[pl]);
	for (n = strlen(err); (i = sbx_line_find(err, n, pat)) != -1;
	    err += i + 1, n -= (size_t)i + 1)
		if ((size_t)i + pl == n || err[i + pl] == '\n' ||
		    err[i + pl] == '\r' || err[i + pl] == ' ')
			return 1;
	return 0;
}

/* Does sbx say it runs nothing until its daemon restart is confirmed? */
int
sbx_says_restart(const char *err)
{
	return any_line(err, "", SBX_L_RESTART);
}

/*
 * Did sbx lose the race of two first calls to start its daemon?  Such a
 * call did nothing and may be made again; never asked of an exec.
 */
int
sbx_says_race(const char *err)
{
	return any_line(err, "", SBX_L_RACE);
}

/* Print SBX_RESTART_FIX and exit 69. */
void
sbx_says_restart_exit(void)
{
	errx(SBX_EX_RESTART, "%s", SBX_RESTART_FIX);
}

/*
 * Is the line one of sbx's own notices, which some systems print on
 * stdout, into an exec's output?  A blank line is none.
 */
int
sbx_says_notice(const char *line, size_t len)
{
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len == 0 || len > SBX_LINE_MAX || line[0] == ' ' ||
	    line[0] == '\t')
		return 0;
	return sbx_line_kind(line, len, "", 0) == SBX_L_NOISE;
}


/*
 * Did sbx refuse a port call because the sandbox is stopped?  Its words
 * vary, so the 409 alone is taken; a listing has no other.
 */
int
sbx_says_stopped(const char *err)
{
	return err != NULL && strstr(err, "409 Conflict") != NULL;
}

/* Where w (lower case) starts a word of s[0..n), in any case, or -1. */
static long
says_word(const char *s, size_t n, const char *w)
{
	size_t at = 0;
	long i;

	while (at < n && (i = sbx_line_find(s + at, n - at, w)) != -1) {
		at += (size_t)i;
		if (at == 0 || !isalpha((unsigned char)s[at - 1]))
			return (long)at;
		at++;
	}
	return -1;
}

/*
 * sbx's answer to `policy check network`: 1 allowed, 0 denied, -1 when
 * it says neither, or both.  Its "Allowed:" or "Denied:" line, in any
 * case after any prefix, on either stream; a line giving the reason is
 * not the answer.  Never the exit status: the manual says a denial exits
 * 1, and sbx was seen to exit 0.
 */
int
sbx_says_checked(const char *out, const char *err)
{
	const char *t, *nl, *s[2] = { out, err };
	long a, d, r, at;
	size_t n;
	int i, seen = 0;

	for (i = 0; i < 2; i++)
		for (t = s[i]; t != NULL && *t != '\0'; t = nl + 1) {
			if ((nl = strchr(t, '\n')) == NULL)
				nl = t + strlen(t);
			n = (size_t)(nl - t);
			a = says_word(t, n, "allowed:");
			d = says_word(t, n, "denied:");
			at = a == -1 || (d != -1 && d < a) ? d : a;
			r = says_word(t, n, "reason");
			if (at != -1 && (r == -1 || r > at))
				seen |= at == a ? 1 : 2;
			if (*nl == '\0')
				break;
		}
	return seen == 1 ? 1 : seen == 2 ? 0 : -1;
}

/*
 * Does sbx's reason for a denial say that no rule matched?  The policy
 * engine's raw verdict, which 0.37's log gives as the rule ("no
 * applicable policies for op=(...)"), or its default deny's words ("No
 * matching allow rule (default deny)").
 */
int
sbx_says_norule(const char *why)
{
	static const char *const says[] = {
		"no applicable polic", "no matching", "default deny",
		"default-deny", "no rule"
	};
	size_t i;

	for (i = 0; i < sizeof(says) / sizeof(says[0]); i++)
		if (any_words(why, says[i]))
			return 1;
	return 0;
}

/*
 * Does sbx answer a removal of rules that there was nothing to remove
 * ("no network rules match ...", "no matching rule", "no such rule")?
 */
int
sbx_says_nomatch(const char *err)
{
	static const char *const says[] = {
		"rules match ", "no rule matches", "no matching", "no such rule",
		"no rules found", "no rule found"
	};
	size_t i;

	for (i = 0; i < sizeof(says) / sizeof(says[0]); i++)
		if (any_words(err, says[i]))
			return 1;
	return 0;
}
