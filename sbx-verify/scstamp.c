/*
 * scstamp.c: a guest command outlives a killed `sbx exec` on real sbx, so
 * the exec stamping (lib/stamp.c) must end it.  The check runs a command
 * under the stamp, kills the local exec as a timeout does, ends it with
 * sbx_stamp_end and looks again, judging "runs" by a heartbeat file the
 * command rewrites every 0.2 s, so no process need be visible to it.
 */
#include <stdio.h>
#include <string.h>

#include "sbxchild.h"
#include "sbxstamp.h"
#include "result.h"
#include "selfcheck.h"

/*
 * The guest: $0 is its heartbeat file, replaced whole at each beat, so an
 * ending that kills it mid-write never leaves it empty ("absent").
 */
#define BEATER	"i=0; while :; do i=$((i+1)); echo $i >\"$0.t\" && " \
	"mv -f \"$0.t\" \"$0\"; sleep 0.2; done"

/*
 * Is the heartbeat going?  Waits up to 10 s for the file first, then
 * reads it twice, a second apart.
 */
static const char looker[] =
    "i=0; while [ ! -s \"$0\" ] && [ $i -lt 100 ]; do sleep 0.1; "
    "i=$((i+1)); done; a=$(cat \"$0\" 2>/dev/null); sleep 1; "
    "b=$(cat \"$0\" 2>/dev/null); if [ -z \"$a\" ]; then echo absent; "
    "elif [ \"$a\" != \"$b\" ]; then echo beating; else echo still; fi";

/* 1 beating, 0 still, 2 never began; -1 (said says why) no answer. */
static int
beat(struct sc *sc, const char *file, char *said, size_t size)
{
	char *av[] = { NULL, "exec", sc->name, "--", "sh", "-c",
	    (char *)looker, (char *)file, NULL };
	struct sbx_result c;
	int r = -1;

	if (sc_sbx(sc, &c, av) == -1) {
		snprintf(said, size, "sbx could not be run");
		return -1;
	}
	if (c.status == 0 && c.out.data != NULL) {
		if (strcmp(c.out.data, "beating\n") == 0)
			r = 1;
		else if (strcmp(c.out.data, "still\n") == 0)
			r = 0;
		else if (strcmp(c.out.data, "absent\n") == 0)
			r = 2;
	}
	sc_heard(&c, said, size);
	return r;
}

int
sc_stamp_guest(struct sc *sc)
{
	char id[SBX_STAMP_LEN + 1], file[64], said[3][1024], ended[512];
	char *av[5 + SBX_STAMP_NWORDS + 5];
	struct sbx_ended e;
	pid_t pid;
	int n = 0, first, after, last;

	if (sbx_stamp_new(id, sizeof(id)) == -1) {
		sc_say(sc, SC_GUEST, FAIL, "no mark: /dev/urandom unreadable");
		return 0;
	}
	snprintf(file, sizeof(file), "/tmp/sbxv-guest.%s", id);
	av[n++] = sc->sbx;
	av[n++] = "exec";
	av[n++] = sc->name;
	av[n++] = "--";
	sbx_stamp_words(av + n, id);
	n += SBX_STAMP_NWORDS;
	av[n++] = "sh";
	av[n++] = "-c";
	av[n++] = BEATER;
	av[n++] = file;
	av[n] = NULL;
	if ((pid = sc_spawn(sc, av)) == -1) {
		sc_say(sc, SC_GUEST, FAIL, "cannot run sbx");
		return -1;
	}
	first = beat(sc, file, said[0], sizeof(said[0]));
	/* as sbx-run's timeout ends its exec: the local group goes */
	sc_unspawn(pid, SBX_KILL_GRACE_MS);
	if (sc->signo != 0 || sc->restart)
		return -1;
	if (first != 1) {
		sc_say(sc, SC_GUEST, FAIL, "a command run under sbx-run's mark "
		    "never ran (sbx-run runs every command so): %s", said[0]);
		return 0;
	}
	after = beat(sc, file, said[1], sizeof(said[1]));
	if (sbx_stamp_end(sc->sbx, sc->env, sc->name, id, NULL, sc->timeout,
	    &e) == -1) {
		sc_say(sc, SC_GUEST, FAIL, "cannot run sbx for the ending");
		return -1;
	}
	sc_after(sc, 1, e.state == SBX_END_UNREACHED, e.why);
	sbx_stamp_said(&e, NULL, ended, sizeof(ended));
	last = beat(sc, file, said[2], sizeof(said[2]));
	if (sc->signo != 0 || sc->restart)
		return -1;
	if (last == 0 && sbx_stamp_done(&e))
		sc_say(sc, SC_GUEST, PASS, "the command %s the killed exec; "
		    "the programs' ending said \"%s\", and it has stopped",
		    after == 1 ? "outlived" : after == 0 ? "ended with" :
		    "was not seen after", ended);
	else if (last == 0)
		sc_say(sc, SC_GUEST, FAIL, "the command %s the killed exec and "
		    "has stopped, but the programs' ending said \"%s\" (sbx-run "
		    "would report it as maybe still running)", after == 1 ?
		    "outlived" : "ended with", ended);
	else
		sc_say(sc, SC_GUEST, FAIL, "the command %s the killed exec, "
		    "and after the programs' ending, which said \"%s\", it "
		    "%s (a timed-out docker build would go on, and a retry "
		    "would run beside it): %s", after == 1 ? "outlived" :
		    "ended with", ended, last == 1 ? "still runs" :
		    "could not be looked at", said[2]);
	return 0;
}
