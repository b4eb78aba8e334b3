/*
 * sbxsays.c: every wording of sbx's that a program acts on.  sbx's texts
 * change between releases, so each matcher lives here, with the releases
 * its wording comes from (tags of the reference notes sbx-today.md and
 * sbx-cli.md), and nowhere else: a program asks what sbx said, never
 * compares sbx's bytes itself.
 */
#include <ctype.h>
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbx-internal.h"

#define LINE_MAX_SBX	512	/* longer is no line of sbx's */
#define NOTICES_MAX	8	/* notice lines before the answer */
#define HINTS_MAX	6	/* hint lines after it */

enum { F_NO, F_PREFIX, F_FULL };

/*
 * Does s[0..n) match the form pat, or end inside it?  The fixed text of
 * pat compares in any case; %n is the sandbox name, byte for byte; %q a
 * quote, ' or ", the second %q the same as the first; %d one or more
 * digits; %w one or more printable bytes but a space; %s, last only, any
 * printable bytes to the end.  F_FULL
 * sets *used to the bytes it took.
 */
static int
form(const char *s, size_t n, const char *pat, const char *name,
    size_t *used)
{
	size_t i = 0, k, nl;
	char q = '\0';

	for (; *pat != '\0'; pat++) {
		if (*pat != '%') {
			if (i == n)
				return F_PREFIX;
			if (tolower((unsigned char)s[i]) !=
			    tolower((unsigned char)*pat))
				return F_NO;
			i++;
			continue;
		}
		switch (*++pat) {
		case 'n':
			nl = strlen(name);
			for (k = 0; k < nl; k++, i++) {
				if (i == n)
					return F_PREFIX;
				if (s[i] != name[k])
					return F_NO;
			}
			break;
		case 'q':
			if (i == n)
				return F_PREFIX;
			if ((q == '\0' && s[i] != '\'' && s[i] != '"') ||
			    (q != '\0' && s[i] != q))
				return F_NO;
			q = s[i++];
			break;
		case 'd':
			for (k = i; i < n && isdigit((unsigned char)s[i]); i++)
				;
			if (i == n)
				return F_PREFIX;
			if (i == k)
				return F_NO;
			break;
		case 'w':
			for (k = i; i < n && (unsigned char)s[i] > ' ' &&
			    s[i] != 0x7f; i++)
				;
			if (i == n)
				return F_PREFIX;
			if (i == k)
				return F_NO;
			break;
		case 's':
			for (; i < n; i++)
				if ((unsigned char)s[i] < ' ' || s[i] == 0x7f)
					return F_NO;
			break;
		}
	}
	*used = i;
	return F_FULL;
}

/*
 * One line (complete: its newline seen) against a list of forms: 2 it is
 * one of them, 1 it could still become one, 0 neither.
 */
static int
line_is(const char *s, size_t n, int complete, const char *const *forms,
    const char *name)
{
	size_t used;
	int r, could = 0;

	if (n > LINE_MAX_SBX)
		return 0;
	for (; *forms != NULL; forms++) {
		r = form(s, n, *forms, name, &used);
		if (r == F_FULL && used == n)
			return complete ? 2 : 1;
		if (r == F_PREFIX)
			could = 1;
	}
	return complete ? 0 : could;
}

/*
 * Does err hold the form pat anywhere (eol: ending a line)?  Any case,
 * as form() compares.
 */
static int
contains(const char *err, const char *pat, const char *name, int eol)
{
	size_t n, i, used;

	if (err == NULL)
		return 0;
	n = strlen(err);
	for (i = 0; i < n; i++)
		if (form(err + i, n - i, pat, name, &used) == F_FULL &&
		    (!eol || i + used == n || err[i + used] == '\n'))
			return 1;
	return 0;
}

/*
 * A missing sandbox: "ERROR: no sandbox named 'NAME'" (exec, 0.39-0.46:
 * #504, AGS, FM), "Error: sandbox 'NAME' not found" (rm, stop, 0.39-0.46:
 * TET, MUSE), "ERROR: sandbox 'x' not found" (a 0.43 classifier, BAT-TS),
 * "error: sandbox 'NAME' not found" (every command from 0.47: HURA);
 * "[sbx] " before it when an auto-start fails (#470, 0.39).  Any case,
 * either quote (sbx's 409 texts quote with ", BAT-TS).
 */
static const char *const missing_forms[] = {
	"error: no sandbox named %q%n%q",
	"error: sandbox %q%n%q not found",
	"[sbx] error: no sandbox named %q%n%q",
	"[sbx] error: sandbox %q%n%q not found",
	NULL
};
/* The restart an upgrade asks for: see sbx_says_restart. */
static const char *const restart_forms[] = {
	"error: ensure daemon: cannot prompt for restart%s",
	"[sbx] error: ensure daemon: cannot prompt for restart%s",
	NULL
};
static const char *const missing_words[] = {
	"no sandbox named %q%n%q",
	"sandbox %q%n%q not found",
	NULL
};

/*
 * What sbx prints of its own before its answer: the daemon it starts
 * ("Starting sandboxd daemon...", "Daemon started (PID n)", "Logs: PATH":
 * #201, 0.31.3, and other callers), the sandbox exec starts ("Sandbox ...
 * started successfully": FM), its "[sbx] " lines (#470, 0.39).
 */
static const char *const notice_forms[] = {
	"Starting sandboxd daemon...",
	"Daemon started (PID %d)",
	"Logs: %s",
	"Sandbox %n started successfully",
	"Sandbox %q%n%q started successfully",
	"[sbx] %s",
	NULL
};

/* The same, of a sandbox whose name is not known (docker output). */
static const char *const any_notice_forms[] = {
	"Starting sandboxd daemon...",
	"Daemon started (PID %d)",
	"Logs: %s",
	"Sandbox %w started successfully",
	"[sbx] %s",
	NULL
};

/*
 * What follows the answer: a blank line, "To create one:" and the
 * indented command (0.39-0.46: #504, AGS), or "  try: sbx ls" (0.47+,
 * HURA).
 */
static const char *const hint_forms[] = {
	"",
	"To create one:",
	"  %s",
	NULL
};

/*
 * The daemon start race (see sbx_says_race): the failed start, then the
 * other daemon's line, the second alone too, either with "[sbx] ".
 */
static const char *const race_forms[] = {
	"error: ensure daemon: daemon exited unexpectedly%s",
	"[sbx] error: ensure daemon: daemon exited unexpectedly%s",
	"another daemon is already running%s",
	"[sbx] another daemon is already running%s",
	NULL
};
static const char *const race_after[] = {
	"another daemon is already running%s",
	"[sbx] another daemon is already running%s",
	"",
	NULL
};

static int	 answer(const char *, size_t, const char *,
		    const char *const *, const char *const *);

/*
 * Does sbx's error output say that sandbox name does not exist, anywhere
 * in it, in any of the wordings above?  A teardown that meets one has
 * nothing left to do.  No command's output is ever read here: this is
 * for sbx's own answers to rm, stop and ports.
 */
int
sbx_says_notfound(const char *err, const char *name)
{
	const char *const *f;

	/* a longer name is no sandbox's */
	if (err == NULL || name == NULL || strlen(name) > SBX_NAME_MAX)
		return 0;
	for (f = missing_words; *f != NULL; f++)
		if (contains(err, *f, name, 0))
			return 1;
	return 0;
}

/*
 * How far text (what an exec printed on stderr so far) matches sbx's
 * whole answer for a missing sandbox: at most NOTICES_MAX notice lines,
 * the not-found line, at most HINTS_MAX hint lines, nothing else.
 * SBX_NF_LINE when all of it is complete and is that answer, SBX_NF_PREFIX
 * while it could still become it, SBX_NF_NO once it cannot.  sbx-run
 * holds stderr back only while it is not SBX_NF_NO: what a command
 * prints can be held only as long as it looks like sbx, a few short
 * lines, and a prompt without a newline goes out once it parts from
 * every form.  An answer is still only a reason to ask sbx (provision.c):
 * a command can print all of this itself.
 */
int
sbx_says_notfound_line(const char *text, size_t len, const char *name)
{
	if (name == NULL || strlen(name) > SBX_NAME_MAX)
		return SBX_NF_NO;
	return answer(text, len, name, missing_forms, hint_forms);
}

/*
 * As sbx_says_notfound_line, for sbx's answer that it waits for its
 * daemon restart (sbx_says_restart), which an exec gives before it runs
 * anything.
 */
int
sbx_says_restart_line(const char *text, size_t len)
{
	return answer(text, len, "", restart_forms, hint_forms);
}

/*
 * As sbx_says_notfound_line, for the daemon start race (DEN), which an
 * exec that lost it gives before it runs anything.  A command can print
 * it too: sbx-run asks the exec's mark before it runs anything again.
 */
int
sbx_says_race_line(const char *text, size_t len)
{
	return answer(text, len, "", race_forms, race_after);
}

/* Notices, one line of forms, lines of after: how far text is that answer. */
static int
answer(const char *text, size_t len, const char *name,
    const char *const *forms, const char *const *after_forms)
{
	const char *nl;
	size_t n;
	int after = 0, notices = 0, hints = 0, r;

	if (text == NULL) {	/* nothing held yet: an empty buffer */
		text = "";
		len = 0;
	}
	while (len > 0) {
		nl = memchr(text, '\n', len);
		n = nl != NULL ? (size_t)(nl - text) : len;
		if (!after) {
			if ((r = line_is(text, n, nl != NULL, forms,
			    name)) == 2)
				after = 1;
			else if (r == 0 && (notices++ == NOTICES_MAX ||
			    (r = line_is(text, n, nl != NULL, notice_forms,
			    name)) == 0))
				return SBX_NF_NO;
		} else if (hints++ == HINTS_MAX || (r = line_is(text, n,
		    nl != NULL, after_forms, name)) == 0)
			return SBX_NF_NO;
		if (nl == NULL)
			return SBX_NF_PREFIX;
		text += n + 1;
		len -= n + 1;
	}
	return after ? SBX_NF_LINE : SBX_NF_PREFIX;
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
	return err != NULL && strstr(err, "already exists") != NULL;
}

/*
 * Does sbx say it has no such command as verb?  Cobra's own refusal,
 * `unknown command "ports" for "sbx"` (every release: sbx's command line
 * is cobra's; sbx-cli.md), asked of the `ports` and `port` dialects.
 */
int
sbx_says_unknown_verb(const char *err, const char *verb)
{
	char pat[64];

	if (err == NULL || verb == NULL || strlen(verb) > 32)
		return 0;
	snprintf(pat, sizeof(pat), "unknown command \"%s\"", verb);
	return strstr(err, pat) != NULL;
}

/*
 * Does sbx say it does not know flag?  Cobra's refusal, "unknown flag:
 * --no-input" (sbx-cli.md; the flag is only in the newest reference,
 * D-port), printed before sbx does anything.
 */
int
sbx_says_unknown_flag(const char *err, const char *flag)
{
	char pat[64];

	/* (a flag holds no '%': it would read as a form's token) */
	if (flag == NULL || strlen(flag) > 40 || strchr(flag, '%') != NULL)
		return 0;
	snprintf(pat, sizeof(pat), "unknown flag: %s", flag);
	return contains(err, pat, "", 1);
}

/*
 * Does sbx say it cannot run until its daemon restart is confirmed in a
 * terminal?  "ERROR: ensure daemon: cannot prompt for restart: stdin is
 * not a terminal; run the command in an interactive terminal to confirm
 * the restart" when the CLI is newer than the running daemon (WARDEN,
 * 0.43.0 upgrade; BEACH), "error:" from 0.47.
 */
int
sbx_says_restart(const char *err)
{
	return contains(err, "ensure daemon: cannot prompt for restart", "", 0);
}

/*
 * Did sbx lose the race of two first calls to start its daemon?  "ERROR:
 * ensure daemon: daemon exited unexpectedly: exit status 1" with "another
 * daemon is already running (PID n)" (DEN).  That call failed before sbx
 * did anything, so it may be made again; only for calls whose output is
 * all sbx's (never an exec's, which a command can print).
 */
int
sbx_says_race(const char *err)
{
	return contains(err, "ensure daemon: daemon exited unexpectedly", "",
	    0) || contains(err, "another daemon is already running", "", 0);
}

/* sbx waits for its restart: say so in one line naming the fix, exit 69. */
void
sbx_restart_exit(void)
{
	errx(SBX_EX_RESTART, "sbx was upgraded: run 'sbx ls' in a terminal "
	    "and confirm the daemon restart (it stops every sandbox)");
}

/*
 * Is the line (without its newline) one of sbx's own notices, which sbx
 * prints on standard output on some systems (#201, Windows 0.31.3) and so
 * into what an exec's command printed there?  For readers of docker's
 * JSON lines: no such line is JSON.
 */
int
sbx_says_notice(const char *line, size_t len)
{
	return line_is(line, len, 1, any_notice_forms, "") == 2;
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
