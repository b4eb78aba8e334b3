/*
 * sbxsays: how sbxsays.c reads the text on standard input (all of it,
 * NULs included), one answer per run.  "sbxsays WHAT [ARG]" prints one
 * word: for notfound, restart, race, exists, verb ARG, flag ARG, notice
 * norule, nomatch "yes" or "no"; for the exec readers notfound-line NAME, restart-line,
 * race-line "no", "prefix" or "line".  With "-p" before WHAT, the exec
 * readers print one word per byte of input instead: the answer for each
 * prefix of the text, the empty one first.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbx-internal.h"

static const char *const nf[] = { "no", "prefix", "line" };

static int
held(const char *what, const char *t, size_t n, const char *arg)
{
	if (strcmp(what, "notfound-line") == 0)
		return sbx_says_notfound_line(t, n, arg);
	if (strcmp(what, "restart-line") == 0)
		return sbx_says_restart_line(t, n);
	return sbx_says_race_line(t, n);
}

int
main(int argc, char *argv[])
{
	struct sbx_buf b;
	const char *what, *arg;
	size_t i;
	int each = 0, yes;

	if (argc > 1 && strcmp(argv[1], "-p") == 0) {
		each = 1;
		argc--;
		argv++;
	}
	if (argc < 2)
		return 2;
	what = argv[1];
	arg = argc > 2 ? argv[2] : NULL;
	memset(&b, 0, sizeof(b));
	if (sbx_io_buf_readfd(&b, STDIN_FILENO, SIZE_MAX - 1) == -1 ||
	    sbx_io_buf_add(&b, "", 1) == -1)	/* a NUL after it */
		return 2;
	b.len--;
	if (strcmp(what, "notfound-line") == 0 ||
	    strcmp(what, "restart-line") == 0 ||
	    strcmp(what, "race-line") == 0) {
		for (i = each ? 0 : b.len; i <= b.len; i++)
			printf("%s\n", nf[held(what, b.data, i, arg)]);
		sbx_io_buf_free(&b);
		return sbx_io_fshut() == 0 ? 0 : 1;
	}
	if (strcmp(what, "notfound") == 0)
		yes = sbx_says_notfound(b.data, arg);
	else if (strcmp(what, "restart") == 0)
		yes = sbx_says_restart(b.data);
	else if (strcmp(what, "race") == 0)
		yes = sbx_says_race(b.data);
	else if (strcmp(what, "exists") == 0)
		yes = sbx_says_exists(b.data);
	else if (strcmp(what, "verb") == 0)
		yes = sbx_says_unknown_verb(b.data, arg);
	else if (strcmp(what, "flag") == 0)
		yes = sbx_says_unknown_flag(b.data, arg);
	else if (strcmp(what, "notice") == 0)
		yes = sbx_says_notice(b.data, b.len);
	else if (strcmp(what, "norule") == 0)
		yes = sbx_says_norule(b.data);
	else if (strcmp(what, "nomatch") == 0)
		yes = sbx_says_nomatch(b.data);
	else
		yes = -1;
	sbx_io_buf_free(&b);	/* a leak would be a sanitizer's report */
	if (yes == -1)
		return 2;
	printf("%s\n", yes ? "yes" : "no");
	return sbx_io_fshut() == 0 ? 0 : 1;
}
