/*
 * scwords.c: how the programs call sbx, judged on the calls of the
 * self-check itself.  --no-input: lib's sbx_call passes it after the
 * verb and, when sbx refuses it as cobra refuses a flag it does not know,
 * calls again without it and remembers that (sbx-no-input), so the first
 * call of sbx's own words tells whether the installed sbx takes it.  The
 * restart prompt: every answer was looked at for it (sc.c).
 */
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxstate.h"
#include "result.h"
#include "selfcheck.h"

/*
 * After sc_basic_version: the self-check's cache (empty before) says whether
 * sbx refused --no-input on that first call.
 */
int
sc_words_noinput(struct sc *sc)
{
	char *av[] = { NULL, "version", NULL };
	struct sbx_result c;
	char buf[128], said[1024];
	int refused;

	if (sc_sbx(sc, &c, av) == -1)
		return -1;
	sc_said(&c, said, sizeof(said));
	refused = sbx_state_read(sc->cdfd, SBX_NOINPUT_CACHE, buf,
	    sizeof(buf)) != -1;
	if (c.status == 0 && !refused)
		sc_say(sc, SC_NOINPUT, PASS, "sbx takes --no-input: version "
		    "--no-input: %s", said);
	else if (c.status == 0)
		sc_say(sc, SC_NOINPUT, PASS, "sbx refuses --no-input in words "
		    "the programs recognise (cobra's unknown flag); they call "
		    "again without it, with standard input on /dev/null, and "
		    "remember it in %s, one extra call per sbx binary; then "
		    "version: %s", SBX_NOINPUT_CACHE, said);
	else if (c.err.data != NULL && strstr(c.err.data, "no-input") != NULL)
		sc_say(sc, SC_NOINPUT, FAIL, "sbx refuses --no-input in words "
		    "the programs do not recognise, so every call of theirs "
		    "but exec would fail: version --no-input: %s", said);
	else
		sc_say(sc, SC_NOINPUT, FAIL, "version, called as the programs "
		    "call it, failed: %s", said);
	sbx_supervise_result_free(&c);
	return 0;
}

/* The restart line, once the checks ran or stopped. */
void
sc_words_restart(struct sc *sc)
{
	if (sc->restart)
		sc_say(sc, SC_RESTART, FAIL, "sbx answered with its daemon "
		    "restart prompt (%s), as it does after an upgrade until "
		    "the restart is confirmed in a terminal; the programs "
		    "recognise it, exit %d and say so: run 'sbx daemon "
		    "restart' (or 'sbx ls' in a terminal and confirm; either "
		    "stops every sandbox), then run sbx-verify -S again",
		    sc->restartsaid,
		    SBX_EX_RESTART);
	else
		sc_say(sc, SC_RESTART, SKIP, "not met in the %d calls (each "
		    "answer was looked at with sbx_says_restart, as the "
		    "programs look at theirs); sbx asks only when its CLI is "
		    "newer than its running daemon, which a check cannot "
		    "bring about", sc->calls);
}
