/*
 * sbxsays.c: what sbx's answers mean.  sbx words its answers anew between
 * releases (the prefix, the case, the hints, the notices around them), so
 * each line is read for its meaning (sbxline.c) and an answer is the
 * lines of one, with sbx's noise around it.  A program asks here what sbx
 * said, never compares sbx's bytes itself, and where a wrong reading
 * would cost something it confirms it by data.
 */
#include <ctype.h>
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbx-internal.h"

#define HOLD_LINES	24	/* lines of one answer, noise included */

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
 * How far text (an exec's standard error so far) is sbx's whole answer
 * want: its lines are sbx's noise and at least one want line, at most
 * HOLD_LINES of them, none longer than sbx's, the last maybe unfinished.
 * SBX_NF_LINE when all of it is complete and is that answer, SBX_NF_PREFIX
 * while it could still become it, SBX_NF_NO once it cannot.  A line that
 * went by complete is never taken back: what is SBX_NF_NO stays so.
 */
static int
answer(const char *text, size_t len, const char *name, enum sbx_line want)
{
	const char *nl;
	size_t n, lines = 0;
	enum sbx_line k;
	int found = 0, after = 0;

	if (text == NULL)	/* nothing held yet: an empty buffer */
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

/* Is any line of err (NUL-terminated, or NULL) a want line? */
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

/* Does any line of err hold w, in any case? */
static int
any_words(const char *err, const char *w)
{
	return err != NULL && sbx_line_find(err, strlen(err), w) != -1;
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
	name = sbx_line_name(name);
	return name[0] != '\0' && any_line(err, name, SBX_L_MISSING);
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
	name = sbx_line_name(name);
	if (name[0] == '\0')
		return SBX_NF_NO;
	return answer(text, len, name, SBX_L_MISSING);
}

/*
 * As sbx_says_notfound_line, for sbx's answer that it waits for its
 * daemon restart (sbx_says_restart), which an exec gives before it runs
 * anything; the versions an interactive restart prints may come first.
 */
int
sbx_says_restart_line(const char *text, size_t len)
{
	return answer(text, len, "", SBX_L_RESTART);
}

/*
 * As sbx_says_notfound_line, for the daemon start race (DEN), which an
 * exec that lost it gives before it runs anything.  A command can print
 * it too: sbx-run asks the exec's stamp before it runs anything again.
 */
int
sbx_says_race_line(const char *text, size_t len)
{
	return answer(text, len, "", SBX_L_RACE);
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
		pat[i] = (char)tolower((unsigned char)pat[i]);
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
		pat[pl] = (char)tolower((unsigned char)pat[pl]);
	for (n = strlen(err); (i = sbx_line_find(err, n, pat)) != -1;
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
	return any_line(err, "", SBX_L_RESTART);
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
	return any_line(err, "", SBX_L_RACE);
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
	if (len == 0 || len > SBX_LINE_MAX || line[0] == ' ' ||
	    line[0] == '\t')
		return 0;
	return sbx_line_kind(line, len, "", 0) == SBX_L_NOISE;
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
