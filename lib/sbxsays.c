/*
 * sbxsays.c: what sbx's answers mean.  sbx words its answers anew between
 * releases (the prefix, the case, the hints, the notices around them), so
 * an answer is known by its stable words alone, in any case, after any
 * prefix, on any line of sbx's standard error; each other line is judged
 * by its shape: sbx's own noise (blank, indented, "[sbx] ", "WARN:", a
 * "Label: value" line, a line about sbx's daemon or a sandbox) or not.  A
 * program asks here what sbx said, never compares sbx's bytes itself, and
 * where a wrong reading would cost something it confirms it by data.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbx-internal.h"

#define LINE_MAX_SBX	512	/* longer is no line of sbx's */
#define HOLD_LINES	24	/* lines of one answer, noise included */

enum line {
	L_OTHER,	/* no line of sbx's, or an answer not asked about */
	L_NOISE,	/* sbx's notices, banner, versions, hints, blanks */
	L_MISSING,	/* the sandbox asked about does not exist */
	L_RESTART,	/* the daemon waits for its restart */
	L_RACE		/* the daemon start race was lost */
};

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
static long
find(const char *s, size_t n, const char *w)
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

/* Does s[0..n) start with w (lower case), in any case? */
static int
starts(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);

	return n >= wl && find(s, wl, w) == 0;
}

/* Is w a word of s[0..n): bounded by no letter on either side? */
static int
word(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w), at = 0;
	long i;

	while (at < n && (i = find(s + at, n - at, w)) != -1) {
		i += (long)at;
		if ((i == 0 || !namechar((unsigned char)s[i - 1])) &&
		    ((size_t)i + wl == n ||
		    !namechar((unsigned char)s[i + wl])))
			return 1;
		at = (size_t)i + 1;
	}
	return 0;
}

/*
 * Is the name at s[0..n), bounded: no name byte before it (where it
 * starts at b) nor after it, but a full stop that ends a sentence?
 */
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
 * Does the line say that sandbox name does not exist?  The words "no
 * sandbox named" with the name after them, or "not found" with the name
 * just before or after them; a quote and a colon may stand between.
 * Another sandbox's name there is no answer about this one.
 */
static int
says_missing(const char *s, size_t n, const char *name)
{
	size_t at = 0, b, nl = strlen(name);
	long i;

	for (at = 0; (i = find(s + at, n - at, "no sandbox named")) != -1;
	    at = b) {
		b = at + (size_t)i + 16;
		while (b < n && (s[b] == ' ' || quote((unsigned char)s[b])))
			b++;
		if (name_at(s, n, b, name))
			return 1;
	}
	for (at = 0; (i = find(s + at, n - at, "not found")) != -1;
	    at = (size_t)i + 9) {
		i += (long)at;
		/* before: NAME, a quote, a colon, spaces */
		b = (size_t)i;
		while (b > 0 && s[b - 1] == ' ')
			b--;
		if (b > 0 && s[b - 1] == ':')
			b--;
		if (b > 0 && quote((unsigned char)s[b - 1]))
			b--;
		if (b >= nl && name_at(s, n, b - nl, name))
			return 1;
		/* after: a colon, spaces, a quote, NAME */
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

/*
 * Does a line of sbx's start with a level that makes it an answer, once
 * any "[sbx] " is taken off: "error", "fatal", "panic", then ':' or '['?
 */
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

/*
 * "Label: value": one to three words of letters, the first one's first
 * letter a capital, then a colon at the end or before a space (sbx's
 * "Logs: PATH", "Client Version:  v0.37.1", "To create one:").
 */
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

/*
 * sbx prints UTF-8 and no controls but a tab: no C0 byte, no DEL, no C1
 * (U+0080 to U+009F), no byte that is not UTF-8.
 */
static int
printable(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, k, more;

	for (i = 0; i < n; i++) {
		if (u[i] < 0x80) {
			if ((u[i] < ' ' && u[i] != '\t') || u[i] == 0x7f)
				return 0;
			continue;
		}
		if (u[i] < 0xc2 || u[i] > 0xf4)
			return 0;
		more = u[i] < 0xe0 ? 1 : u[i] < 0xf0 ? 2 : 3;
		if (u[i] == 0xc2 && i + 1 < n && u[i + 1] < 0xa0)
			return 0;	/* C1 */
		for (k = 1; k <= more; k++)
			if (i + k >= n || (u[i + k] & 0xc0) != 0x80)
				return 0;
		i += more;
	}
	return 1;
}

/*
 * What one complete line of sbx's standard error is (its newline and a
 * CR before it gone).  after: the line before it was sbx's, which makes
 * an indented line its hint.  name may be "": then no line is L_MISSING.
 */
static enum line
classify(const char *s, size_t n, const char *name, int after)
{
	size_t b;

	if (!printable(s, n))
		return L_OTHER;
	if (name[0] != '\0' && says_missing(s, n, name))
		return L_MISSING;
	if (find(s, n, "cannot prompt for restart") != -1 ||
	    find(s, n, "needs to restart") != -1 ||
	    find(s, n, "sbx daemon restart") != -1)
		return L_RESTART;
	if (find(s, n, "another daemon is already running") != -1 ||
	    find(s, n, "daemon exited unexpectedly") != -1)
		return L_RACE;
	/* any other answer: one this caller did not ask about */
	if (errorish(s, n) || find(s, n, "not found") != -1 ||
	    find(s, n, "no sandbox named") != -1)
		return L_OTHER;
	for (b = 0; b < n && (s[b] == ' ' || s[b] == '\t'); b++)
		;
	if (b == n)
		return L_NOISE;	/* blank */
	if (b > 0) {
		/* a hint: after sbx's line, or naming sbx or a label */
		if (after || word(s + b, n - b, "sbx") ||
		    labelled(s + b, n - b) || starts(s + b, n - b, "try:"))
			return L_NOISE;
		return L_OTHER;
	}
	if (starts(s, n, "[sbx]") || starts(s, n, "warn:") ||
	    starts(s, n, "warn[") || labelled(s, n) ||
	    word(s, n, "daemon") || word(s, n, "sandboxd") ||
	    word(s, n, "sandbox"))
		return L_NOISE;
	return L_OTHER;
}

/*
 * Could the unfinished last line, as far as it goes, be sbx's?  sbx
 * writes each line whole, so only a start that already says so is
 * waited for: "[sbx]", a level word and its colon, or the start of one.
 * A command's prompt without a newline goes out at once.
 */
static int
unfinished(const char *s, size_t n)
{
	static const char *const opening[] = {
		"[sbx]", "error:", "error[", "warn:", "warn["
	};
	size_t i, k, m;

	if (n == 0 || n > LINE_MAX_SBX)
		return 0;
	for (i = 0; i < sizeof(opening) / sizeof(opening[0]); i++) {
		m = strlen(opening[i]);
		if (n < m)
			m = n;
		for (k = 0; k < m &&
		    lower((unsigned char)s[k]) == opening[i][k]; k++)
			;
		if (k == m)
			return 1;
	}
	return 0;
}

/*
 * How far text (an exec's standard error so far) is sbx's whole answer
 * want: its lines are sbx's noise and at least one want line, at most
 * HOLD_LINES of them, none longer than sbx's, the last maybe unfinished.
 * SBX_NF_LINE when all of it is complete and is that answer, SBX_NF_PREFIX
 * while it could still become it, SBX_NF_NO once it cannot.  A line that
 * went by complete is never taken back: what is SBX_NF_NO stays so.
 */
static int
answer(const char *text, size_t len, const char *name, enum line want)
{
	const char *nl;
	size_t n, lines = 0;
	enum line k;
	int found = 0, after = 0;

	if (text == NULL)	/* nothing held yet: an empty buffer */
		len = 0;
	while (len > 0) {
		if ((nl = memchr(text, '\n', len)) == NULL)
			return unfinished(text, len) ? SBX_NF_PREFIX :
			    SBX_NF_NO;
		n = (size_t)(nl - text);
		if (n > LINE_MAX_SBX || ++lines > HOLD_LINES)
			return SBX_NF_NO;
		k = classify(text, n > 0 && text[n - 1] == '\r' ? n - 1 : n,
		    name, after);
		if (k == want)
			found = 1;
		else if (k != L_NOISE)
			return SBX_NF_NO;
		after = 1;
		text += n + 1;
		len -= n + 1;
	}
	return found ? SBX_NF_LINE : SBX_NF_PREFIX;
}

/* Is any line of err (NUL-terminated, or NULL) a want line? */
static int
any_line(const char *err, const char *name, enum line want)
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
		if (n <= LINE_MAX_SBX && classify(err, n, name, 0) == want)
			return 1;
		if (*nl == '\0')
			break;
	}
	return 0;
}

/* Does any line of err hold w, in any case? */
static int
any_words(const char *err, const char *w)
{
	return err != NULL && find(err, strlen(err), w) != -1;
}

/* The name, if it can be a sandbox's: else "", which nothing names. */
static const char *
asked(const char *name)
{
	size_t i;

	if (name == NULL || strlen(name) > SBX_NAME_MAX)
		return "";
	for (i = 0; name[i] != '\0'; i++)
		if (!namechar((unsigned char)name[i]))
			return "";
	return name;
}

/*
 * Does sbx's error output say that sandbox name does not exist, on any
 * line?  "ERROR: no sandbox named 'NAME'" (exec, 0.39-0.46: #504, AGS,
 * FM), "Error: sandbox 'NAME' not found" (rm, stop: TET, MUSE), "error:
 * sandbox 'NAME' not found" (0.47: HURA), with "[sbx] " (#470), another
 * quote or none.  Only sbx's own answers are read so (rm, stop, ports):
 * an exec's stderr is the command's too (sbx_says_notfound_line).
 */
int
sbx_says_notfound(const char *err, const char *name)
{
	name = asked(name);
	return name[0] != '\0' && any_line(err, name, L_MISSING);
}

/*
 * How far text, what an exec printed on stderr so far, is sbx's whole
 * answer for a missing sandbox (see answer()).  sbx-run holds stderr back
 * only while it is not SBX_NF_NO.  An answer is still only a reason to
 * ask sbx (provision.c): a command can print all of this itself.
 */
int
sbx_says_notfound_line(const char *text, size_t len, const char *name)
{
	name = asked(name);
	if (name[0] == '\0')
		return SBX_NF_NO;
	return answer(text, len, name, L_MISSING);
}

/*
 * As sbx_says_notfound_line, for sbx's answer that it waits for its
 * daemon restart (sbx_says_restart), which an exec gives before it runs
 * anything; the versions an interactive restart prints may come first.
 */
int
sbx_says_restart_line(const char *text, size_t len)
{
	return answer(text, len, "", L_RESTART);
}

/*
 * As sbx_says_notfound_line, for the daemon start race (DEN), which an
 * exec that lost it gives before it runs anything.  A command can print
 * it too: sbx-run asks the exec's mark before it runs anything again.
 */
int
sbx_says_race_line(const char *text, size_t len)
{
	return answer(text, len, "", L_RACE);
}

/*
 * Does sbx's create say the name is taken?  "sandbox 'x' already exists
 * and can't be given new workspaces" (TET 0.42.1, MUSE) and "ERROR:
 * request failed: 409 Conflict: sandbox "x" already exists" (BAT-TS,
 * 0.43 era): the two share the words.
 */
int
sbx_says_exists(const char *err)
{
	return any_words(err, "already exists");
}

/*
 * Does sbx say it has no such command as verb?  Cobra's own refusal,
 * `unknown command "ports" for "sbx"` (every release: sbx's command line
 * is cobra's; sbx-cli.md), asked of the `ports` and `port` dialects: the
 * words and the verb quoted after them, in any case, on any line.
 */
int
sbx_says_unknown_verb(const char *err, const char *verb)
{
	char pat[64];
	size_t i;

	if (err == NULL || verb == NULL || strlen(verb) > 32)
		return 0;
	(void)snprintf(pat, sizeof(pat), "unknown command \"%s\"", verb);
	for (i = 0; pat[i] != '\0'; i++)
		pat[i] = (char)lower((unsigned char)pat[i]);
	return any_words(err, pat);
}

/*
 * Does sbx say it does not know flag?  Cobra's refusal, "unknown flag:
 * --no-input" (sbx-cli.md; the flag is only in the newest reference,
 * D-port), printed before sbx does anything: the flag must end the words
 * or be followed by a space, so a longer flag is another.
 */
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
		pat[pl] = (char)lower((unsigned char)pat[pl]);
	for (n = strlen(err); (i = find(err, n, pat)) != -1;
	    err += i + 1, n -= (size_t)i + 1)
		if ((size_t)i + pl == n || err[i + pl] == '\n' ||
		    err[i + pl] == '\r' || err[i + pl] == ' ')
			return 1;
	return 0;
}

/*
 * Does sbx say it cannot run until its daemon restart is confirmed?
 * "ERROR: ensure daemon: cannot prompt for restart: stdin is not a
 * terminal; ..." when the CLI is newer than the running daemon (WARDEN,
 * 0.43.0; BEACH), "error:" from 0.47; "Docker Sandboxes has been updated
 * and needs to restart" where a terminal is asked (#381, 0.37.1); or a
 * line that names the fix, "sbx daemon restart" (D-trbl).
 */
int
sbx_says_restart(const char *err)
{
	return any_line(err, "", L_RESTART);
}

/*
 * Did sbx lose the race of two first calls to start its daemon?  "ERROR:
 * ensure daemon: daemon exited unexpectedly: exit status 1" with "another
 * daemon is already running (PID n)" (DEN), either with any prefix.
 * That call failed before sbx did anything, so it may be made again;
 * only for calls whose output is all sbx's (never an exec's, which a
 * command can print).
 */
int
sbx_says_race(const char *err)
{
	return any_line(err, "", L_RACE);
}

/*
 * sbx waits for its restart: say so in one line naming the fixes, exit
 * 69.  Nothing here runs either: the restart stops every sandbox.
 */
void
sbx_restart_exit(void)
{
	errx(SBX_EX_RESTART, "%s", SBX_RESTART_FIX);
}

/*
 * Is the line (without its newline) one of sbx's own notices, which sbx
 * prints on standard output on some systems (#201, Windows 0.31.3) and so
 * into what an exec's command printed there?  By shape, as answer()
 * takes sbx's noise; a blank line is none.  No such line is JSON.
 */
int
sbx_says_notice(const char *line, size_t len)
{
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len == 0 || len > LINE_MAX_SBX || line[0] == ' ' ||
	    line[0] == '\t')
		return 0;
	return classify(line, len, "", 0) == L_NOISE;
}

/* ---------------------------------------------------------------- ports */

/*
 * Did sbx refuse a port call because the sandbox is stopped?  0.42.1
 * answered the listing of a stopped sandbox with 409 Conflict and listed
 * nothing (TET; sbx-cli.md 1.7); the words after the status were not
 * recorded, so the status alone is taken.  A listing has no other 409 on
 * record (create's "already exists" and exec's start race are 409s of
 * other verbs).
 */
int
sbx_says_stopped(const char *err)
{
	return err != NULL && strstr(err, "409 Conflict") != NULL;
}
