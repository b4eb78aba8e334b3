/*
 * scguest.c: the idle stop, and what holds it off.  sbx stops a VM 30 s
 * after its last exec ends (0.47 and later); the keepalive holds one up
 * with an exec that stays open, the one tried here (lib/holdargv.c).
 * Both checks wait, so -f skips them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxtime.h"
#include "result.h"
#include "selfcheck.h"

#define IDLE_MAX	75	/* seconds: real sbx's 30 and room */
#define SLOW		"-f: not run (with the next, about 80 s on real sbx)"

/* `sbx exec NAME -- true`: 0 when it ran. */
static int
exec_true(struct sc *sc, char *said, size_t size)
{
	char *av[] = { NULL, "exec", sc->name, "--", "true", NULL };
	struct sbx_result c;
	int r;

	if (sc_sbx(sc, &c, av) == -1)
		return -1;
	r = c.status == 0 ? 0 : -1;
	sc_heard(&c, said, size);
	return r;
}

/* Poll the status every step ms until it is want or max ms passed. */
static int
await(struct sc *sc, const char *want, long long max, long long *took,
    char *st, size_t size)
{
	long long t0 = sbx_clock_now_ms(), el;
	int r;

	*took = 0;
	while ((el = sbx_clock_now_ms() - t0) < max) {
		/* finer at first: the grace is unknown, real sbx's is 30 s */
		if (sc_sleep(sc, el < 10000 ? 1000 : 3000) == -1)
			return -1;
		if ((r = sc_basic_status(sc, st, size)) != 1)
			return r == 0 ? 0 : -1;
		if (strcmp(st, want) == 0) {
			*took = sbx_clock_now_ms() - t0;
			return 1;
		}
	}
	return 0;
}

int
sc_guest_idle(struct sc *sc)
{
	char said[1024], st[32];
	long long took;
	int r;

	if (sc->fast) {
		sc_say(sc, SC_IDLE, SKIP, SLOW);
		return 0;
	}
	if (exec_true(sc, said, sizeof(said)) == -1) {
		sc_say(sc, SC_IDLE, FAIL, "exec -- true failed: %s", said);
		return -1;
	}
	snprintf(st, sizeof(st), "unknown");
	if ((r = await(sc, "stopped", IDLE_MAX * 1000LL, &took, st,
	    sizeof(st))) == -1 && sc->signo != 0)
		return -1;
	if (r == 1) {
		sc->grace = took;
		sc_say(sc, SC_IDLE, PASS, "stopped within %lld.%lld s of its "
		    "last exec's end (real sbx: 30 s), as the keepalive "
		    "expects", took / 1000, took % 1000 / 100);
	} else
		sc_say(sc, SC_IDLE, FAIL, "%s %d s after its last exec ended "
		    "(the keepalive and the idle stop of real sbx expect a "
		    "stop after 30 s)", r == -1 ? "no listing" : st, IDLE_MAX);
	return 0;
}

/*
 * One exec that stays open holds the VM up past the grace, which is
 * what the keepalive rests on.  Held for the measured grace and half of
 * it again; counted as one call.
 */
int
sc_guest_hold(struct sc *sc)
{
	char st[32], *av[SBX_HOLD_ARGC];
	long long hold = sc->grace + sc->grace / 2 + 2000, took;
	pid_t pid;
	int r;

	if (sc->fast) {
		sc_say(sc, SC_HOLD, SKIP, SLOW);
		return 0;
	}
	if (sc->grace == 0) {
		sc_say(sc, SC_HOLD, SKIP, "no idle stop was seen to hold off");
		return 0;
	}
	/* the keepalive's own exec, while no hold outlasts its hour */
	if (hold > SBX_HOLD_SECONDS * 1000LL - 60000)
		hold = SBX_HOLD_SECONDS * 1000LL - 60000;
	if ((pid = sc_spawn(sc, sbx_hold_argv(av, sc->sbx, sc->name))) ==
	    -1) {
		sc_say(sc, SC_HOLD, FAIL, "cannot run sbx: %s", strerror(errno));
		return -1;
	}
	r = await(sc, "running", IDLE_MAX * 1000LL, &took, st, sizeof(st));
	if (r == 1 && sc_sleep(sc, hold) == 0)
		r = sc_basic_status(sc, st, sizeof(st));
	sc_unspawn(pid, SBX_KILL_GRACE_MS);
	if (sc->signo != 0)
		return -1;
	if (r == 1 && strcmp(st, "running") == 0)
		sc_say(sc, SC_HOLD, PASS, "one open exec held it up: running "
		    "%lld.%lld s later, 1.5 times the grace, with the "
		    "keepalive's own exec (sleep %d)", hold / 1000,
		    hold % 1000 / 100, SBX_HOLD_SECONDS);
	else
		sc_say(sc, SC_HOLD, FAIL, "with one exec open it was %s after "
		    "%lld.%lld s (the keepalive holds a VM up that way)", r ==
		    1 ? st : "not listed", hold / 1000, hold % 1000 / 100);
	return 0;
}
