/*
 * sbxsays.c: every wording of sbx's that a program acts on.  sbx's texts
 * change between releases, so each matcher lives here, with the releases
 * its wording comes from (tags of the reference notes sbx-today.md and
 * sbx-cli.md), and nowhere else: a program asks what sbx said, never
 * compares sbx's bytes itself.
 */
#include <stdio.h>
#include <string.h>

#include "sbx.h"

/*
 * Does sbx's error output say that sandbox name does not exist?  Two
 * wordings: "sandbox 'NAME' not found" (rm, stop; "Error:" on 0.39-0.46,
 * TET, MUSE; "ERROR:" in a 0.43 classifier, BAT-TS) and "no sandbox named
 * 'NAME'" (exec, 0.39-0.46: #504, AGS, FM).  A teardown that meets either
 * has nothing left to do.
 */
int
sbx_says_notfound(const char *err, const char *name)
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
 * a prompt without a newline is never kept from the user.  Wordings as
 * for sbx_says_notfound: "ERROR: no sandbox named 'NAME'" (exec,
 * 0.39-0.46) and "Error: sandbox 'NAME' not found" (0.39-0.46).
 */
int
sbx_says_notfound_line(const char *text, size_t len, const char *name)
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
