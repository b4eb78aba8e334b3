/*
 * sbx-verify: a live isolation audit of the session's sandbox; every
 * check has a control that would fail it were its guarantee broken.  Its
 * sbx calls: one `sbx exec` runs every in-sandbox probe (through sbx-run,
 * the session's transport), the port listing (twice the first time a
 * newer port dialect is met), a `policy check` per network rule of the
 * session (16 at most, one more when --sandbox is refused).  No create.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxenv.h"
#include "sbxmarker.h"
#include "sbxports.h"
#include "sbxstate.h"
#include "result.h"
#include "audit.h"
#include "selfcheck.h"

extern char **environ;

static void SBX_DEAD
usage(void)
{
	fprintf(stderr, "usage: sbx-verify [-jt] [-S [-f] | -s name]\n");
	exit(SBX_EX_USAGE);
}

/* Does `sbx ls --json` list the sandbox?  1 yes, 0 no, -1 unknown. */
static int
exists(struct audit *a, char **env)
{
	char *av[] = { a->sbx, "ls", "--json", NULL };
	struct sbx_result c;
	const char *errstr;
	int found = -1;

	if (sbx_call(&c, av, env, sbx_xconf_timeout(), -1) == -1)
		return -1;
	a->calls++;
	if (c.status != 0 && sbx_says_restart(c.err.data))
		sbx_says_restart_exit();
	if (c.status == 0)
		found = sbx_ls_listed(c.out.data ? c.out.data : "", c.out.len,
		    a->name, &errstr);
	sbx_supervise_result_free(&c);
	return found;
}

/* The probe did not complete: say why and exit 2. */
static void SBX_DEAD
norun(struct audit *a, char **env)
{
	int e;

	/* sbx-run's 68 says it; otherwise the listing does */
	e = a->status == SBX_EX_NOSANDBOX ? 0 : exists(a, env);
	probe_cleanup(a);
	if (e == 0)
		errx(SBX_EX_NOAUDIT, "sandbox %s does not exist (the audit "
		    "never creates one)", a->name);
	if (a->err.len > 0)
		(void)sbx_shown_write(STDERR_FILENO, a->err.data, a->err.len);
	errx(SBX_EX_NOAUDIT, "sandbox %s: the probes did not complete "
	    "(status %d)", a->name, a->status);
}

/* One call of sbx-verify: its flags. */
struct call {
	unsigned long long given;	/* SBX_OPT of each flag given */
	int		 jflag, tflag;	/* the report's form: the last given */
	const char	*name;		/* -s, or NULL */
	const char	*argv0;
};

/* -S: the self-check, selfcheck.c */
static int
self_check(const struct call *c)
{
	return selfcheck(c->jflag, c->tflag, (c->given & SBX_OPT('f')) != 0);
}

/* The audit: one probe through sbx-run, the port listing, the checks. */
static int
audit(const struct call *c)
{
	static struct audit a;
	struct sbx_envpolicy pol;
	struct sbx_portcli pc;
	struct result r[NCHECKS];
	const char *errstr;
	char **env, wsbuf[PATH_MAX], *ws[2];
	int i, rv = SBX_EX_OK;

	a.argv0 = c->argv0;
	a.name = sbx_xconf_name_pick(c->name);
	sbx_xconf_check(SBX_CONF_RUN | SBX_CONF_TEARDOWN);

	if (sbx_xconf_env_policy(&pol, NULL, 0) == -1 ||
	    (env = sbx_env_build(environ, &pol)) == NULL)
		err(SBX_EX_NOAUDIT, NULL);
	sbx_xcli_find(environ,
	    sbx_xmarkerio_session_ws(a.name, wsbuf, sizeof(wsbuf), ws),
	    a.sbx, sizeof(a.sbx));
	if (sbx_sibling(a.argv0, environ, ws, "sbx-run", a.sbxrun,
	    sizeof(a.sbxrun)) == -1)
		errx(SBX_EX_NOAUDIT, "sbx-run: not found beside sbx-verify or "
		    "on PATH");
	if ((a.dfd = sbx_xstatedir_open(a.statedir, sizeof(a.statedir))) == -1)
		exit(SBX_EX_NOAUDIT);

	probe_prepare(&a);
	if (probe_run(&a) == -1)
		norun(&a, env);

	memset(&pc, 0, sizeof(pc));
	pc.sbx = a.sbx;
	pc.env = env;
	pc.name = a.name;
	pc.timeout = sbx_xconf_timeout();
	pc.dfd = a.dfd;
	if (sbx_portcli_list(&pc, &a.ports, &errstr) == 0)
		a.portsok = 1;
	else
		snprintf(a.portserr, sizeof(a.portserr), "%s%s%.300s", errstr,
		    pc.err.len ? ": " : "", pc.err.len ? pc.err.data : "");
	a.calls += pc.calls;
	rules_ask(&a, env);

	memset(r, 0, sizeof(r));
	checks_run(&a, r);
	probe_cleanup(&a);
	result_report(r, NCHECKS, c->jflag, c->tflag);
	for (i = 0; i < NCHECKS; i++)
		if (r[i].verdict == FAIL)
			rv = SBX_EX_FAIL;
	sbx_portcli_free(&pc);
	sbx_portspec_free(&a.ports);
	sbx_io_buf_free(&a.out);
	sbx_io_buf_free(&a.err);
	sbx_env_policy_free(&pol);
	free(env);
	if (sbx_io_fshut() == -1)
		err(SBX_EX_NOAUDIT, "stdout");
	return rv;
}

/* The modes, the first whose flag is given. */
static const struct {
	struct sbx_mode	 m;
	int		(*run)(const struct call *);
} modes[] = {
	{ { 'S', "fjt", "", 0, 0 }, self_check },
	{ { 0, "jst", "", 0, 0 }, audit },
};

int
main(int argc, char *argv[])
{
	struct call c;
	int ch, i;

	memset(&c, 0, sizeof(c));
	c.argv0 = argv[0];
	opterr = 0;
	while ((ch = getopt(argc, argv, "+fjSs:t")) != -1) {
		switch (ch) {
		case 'f':	/* these say which mode, or how: c.given */
		case 'S':
			break;
		case 'j':
			c.jflag = 1;
			c.tflag = 0;
			break;
		case 's':
			c.name = optarg;
			break;
		case 't':
			c.tflag = 1;
			c.jflag = 0;
			break;
		default:
			usage();
		}
		c.given |= SBX_OPT(ch);
	}
	argc -= optind;
	if ((i = sbx_mode_pick(modes, sizeof(modes[0]), c.given, argc)) == -1)
		usage();
	return modes[i].run(&c);
}
