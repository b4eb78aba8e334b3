/*
 * selfcheck.c: sbx-verify -S.  Each assumption the programs make about
 * sbx is tried on a sandbox made for the check, named so no session or
 * sbx-gc takes it (sbx_name_selfcheck), and judged with the programs' own
 * functions.  Nothing else is touched, the state directory included; the
 * sandbox goes at the end, on a signal or an error too (scremove.c).
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxenv.h"
#include "sbxname.h"
#include "sbxports.h"
#include "result.h"
#include "selfcheck.h"

/* Where a FAIL is to be reported. */
#define REPORT_TO	"https://github.com/sbx-tools/sbx-tools/issues"

extern char **environ;

static const char *const names[SC_COUNT] = {
	"version", "no-input", "missing", "ls-json", "create", "exists",
	"exec", "guest-end", "port-dialect", "publish", "unpublish",
	"idle-stop", "exec-holds", "stopped-ports", "policy-rules",
	"policy-stop", "policy-log", "registry-secret", "restart", "remove"
};

/* The checks in their order; each needs what those before it made. */
static int (*const steps[])(struct sc *) = {
	sc_basic_version, sc_words_noinput, sc_basic_missing, sc_basic_ls,
	sc_basic_create, sc_basic_exists, sc_basic_exec, sc_stamp_guest,
	sc_ports_dialect, sc_ports_publish, sc_policy_rules, sc_guest_idle,
	sc_guest_hold, sc_ports_stopped, sc_policy_kept, sc_policy_log,
	sc_policy_secret
};
#define NSTEPS	(sizeof(steps) / sizeof(steps[0]))

static const int trapped[] = { SIGINT, SIGTERM, SIGHUP };

/*
 * The throwaway workspace: w, and p, the scratch primary of ro mode; c,
 * never mounted, is the self-check's own state directory for what
 * sbx_call remembers (the state directory of the programs is not
 * touched).
 */
static void
workspace(struct sc *sc)
{
	char d[PATH_MAX + 4];

	if (sc_remove_workspace(sc) == -1)
		err(SBX_EX_NOAUDIT, "a workspace for the self-check");
	snprintf(d, sizeof(d), "%s/c", sc->ws);
	if (mkdir(d, 0700) == -1 || (sc->cdfd = open(d, O_RDONLY |
	    O_DIRECTORY | O_CLOEXEC)) == -1)
		err(SBX_EX_NOAUDIT, "%s", d);
	snprintf(d, sizeof(d), "%s/w", sc->ws);
	if (mkdir(d, 0700) == -1)
		err(SBX_EX_NOAUDIT, "%s", d);
	snprintf(d, sizeof(d), "%s/p", sc->ws);
	if (sc->readonly && mkdir(d, 0700) == -1)
		err(SBX_EX_NOAUDIT, "%s", d);
}

static void
setup(struct sc *sc, struct sbx_envpolicy *pol)
{
	size_t i;

	/* what sbx-run would refuse, the self-check refuses: exit 64 */
	sbx_xconf_check(SBX_CONF_RUN);
	sc->timeout = sbx_xconf_timeout();
	sc->given = sbx_conf_given(SBX_CONF_TIMEOUT) != NULL;
	sc->readonly = sbx_xconf_word(SBX_CONF_WORKSPACE_RO);
	if (sbx_xconf_env_policy(pol, NULL, 0) == -1 ||
	    (sc->env = sbx_env_build(environ, pol)) == NULL)
		err(SBX_EX_NOAUDIT, NULL);
	sbx_xcli_find(environ, NULL, sc->sbx, sizeof(sc->sbx));
	if (sbx_name_selfcheck(sc->name, sizeof(sc->name), (long)getpid())
	    == -1)
		err(SBX_EX_NOAUDIT, "a name for the self-check's sandbox");
	for (i = 0; i < SC_COUNT; i++) {
		sc->r[i].name = names[i];
		sc->r[i].verdict = SKIP;
	}
	for (i = 0; i < sizeof(trapped) / sizeof(trapped[0]); i++)
		if (sbx_selfpipe_trap(trapped[i]) == -1)
			err(SBX_EX_NOAUDIT, "signals");
	sc->remover = -1;
	sc->line = -1;
	workspace(sc);
	if (sc_remover_start(sc) == -1) {
		(void)rmdir(sc->ws);
		err(SBX_EX_NOAUDIT, "the remover of the self-check's sandbox");
	}
}

/* What the checks not reached say, and the restart line. */
static void
unreached(struct sc *sc, const char *why)
{
	size_t i;

	for (i = 0; i < SC_COUNT; i++)
		if (sc->r[i].evidence[0] == '\0')
			sc_say(sc, (enum sccheck)i, SKIP, "not reached: %s",
			    why);
	sc_words_restart(sc);
}

/*
 * The checks of the step that met the restart prompt judged nothing of
 * sbx but that: a FAIL they said is no assumption's.
 */
static void
unjudged(struct sc *sc, const int *before)
{
	char ev[sizeof(sc->r[0].evidence)];
	size_t i;

	for (i = 0; i < SC_COUNT; i++)
		if (!before[i] && sc->r[i].verdict == FAIL) {
			snprintf(ev, sizeof(ev), "%s", sc->r[i].evidence);
			sc_say(sc, (enum sccheck)i, SKIP, "not judged: sbx "
			    "awaits its daemon restart: %s", ev);
		}
}

/* After the lines, on stderr: what to do about a FAIL. */
static int
advice(const struct sc *sc)
{
	int i, nfail = 0;

	for (i = 0; i < SC_COUNT; i++)
		if (sc->r[i].verdict == FAIL && i != SC_RESTART)
			nfail++;
	if (sc->restart)
		warnx("%s", SBX_RESTART_FIX);
	if (nfail > 0)
		warnx("%d of %d assumptions about sbx failed with sbx %s: "
		    "please report it on %s, with the version line and each "
		    "FAIL line above", nfail, SC_COUNT, sc->version,
		    REPORT_TO);
	if (sc->restart)
		return SBX_EX_RESTART;
	return nfail > 0 ? SBX_EX_FAIL : SBX_EX_OK;
}

int
selfcheck(int jflag, int tflag, int fast)
{
	static struct sc sc;
	struct sbx_envpolicy pol;
	char why[96], left[1024];
	size_t i, k;
	int rv, removed, before[SC_COUNT];

	sc.fast = fast;
	setup(&sc, &pol);
	snprintf(why, sizeof(why), "a check before it could not go on");
	for (i = 0; i < NSTEPS; i++) {
		if (sc.signo != 0 || sc.restart)
			break;
		for (k = 0; k < SC_COUNT; k++)
			before[k] = sc.r[k].evidence[0] != '\0';
		rv = steps[i](&sc);
		if (sc.restart)
			unjudged(&sc, before);
		if (rv == -1)
			break;
	}
	if (sc.cantrun != 0)
		snprintf(why, sizeof(why), "sbx could not be run: %s",
		    strerror(sc.cantrun));
	if (sc.signo != 0)
		snprintf(why, sizeof(why), "interrupted by signal %d", sc.signo);
	else if (sc.restart)
		snprintf(why, sizeof(why), "sbx awaits its daemon restart");
	/* what the policy checks added, even after a failure or a signal */
	if (sc.created && sc_policy_end(&sc, left, sizeof(left)) == -1)
		warnx("the self-check's network rules or registry credential "
		    "for %s may be left in sbx: %s", sc.name, left);
	if (sc.created && sc.signo == 0)
		(void)sc_basic_remove(&sc);
	if (sc.gone || !sc.created) {
		sc_remover_release(&sc);
		removed = 1;
	} else
		removed = sc_remover_fire(&sc) == 0;
	unreached(&sc, why);
	result_report(sc.r, SC_COUNT, jflag, tflag);
	rv = advice(&sc);
	sc_unplaced_say(&sc);
	if (!removed)
		warnx("sandbox %s may be left: remove it with 'sbx rm --force "
		    "%s'", sc.name, sc.name);
	if (sc.signo != 0) {
		warnx("interrupted by signal %d; sandbox %s %s", sc.signo,
		    sc.name, removed ? "removed" : "not removed");
		rv = SBX_SIGSTATUS(sc.signo);
	}
	sbx_portcli_free(&sc.pc);
	close(sc.cdfd);
	sbx_env_policy_free(&pol);
	free(sc.env);
	if (sbx_io_fshut() == -1)
		err(SBX_EX_NOAUDIT, "stdout");
	return rv;
}
