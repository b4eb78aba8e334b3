/*
 * sbx-run: run pinned docker (or, with -x, any command) inside the
 * session's sandbox, through `sbx exec` and nothing else, names forwarded
 * as bare `-e NAME`.  In the steady state a call is one exec (exec.c);
 * only a confirmed absence provisions and runs it again (provision.c),
 * and only a lost daemon start race whose command never began (race.c).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxenv.h"
#include "sbxname.h"
#include "sbxpolicy.h"
#include "sbx-run.h"

#define LONG_TIMEOUT	600
#define TIMEOUT_MAX	SBX_TIMEOUT_MAX	/* -t: the limits of DOCKER_SANDBOX_TIMEOUT */

extern char **environ;

static int originfd = -1;	/* -O: says whose the exit status is */
static pid_t originpid;		/* ours, not a child's that exits */
static const char *origin = "sbx-run";
static struct sbx_buf notes;	/* -O: lines after the word (outward.c) */

/*
 * -O: one line at exit, "command" when the status is what the exec
 * returned, "sbx-run" when it is ours (an error, the timeout, a signal),
 * on a descriptor the command never gets, so it cannot say it instead.
 */
static void
origin_say(void)
{
	if (originfd != -1 && getpid() == originpid &&
	    sbx_io_writeall(originfd, origin, strlen(origin)) != -1 &&
	    sbx_io_writeall(originfd, "\n", 1) != -1)
		(void)sbx_io_writeall(originfd, notes.data, notes.len);
}

static void SBX_DEAD
usage(void)
{
	fprintf(stderr, "usage: sbx-run [-CeFhijLnPx] [-J count] [-O fd] "
	    "[-s name] [-t seconds] [-w workspace] [argument ...]\n");
	exit(SBX_EX_USAGE);
}

/* One call of sbx-run: its flags, and what a run holds until the end. */
struct call {
	struct request	 r;
	unsigned long long given;	/* SBX_OPT of each flag given */
	char		**argv;		/* the operands */
	long long	 count;		/* -J */
	int		 seconds;	/* -t, or -1 */
	struct sbx_envpolicy pol;
	char		**fwd;		/* names forwarded to the sandbox */
	char		**av;		/* the sbx exec */
	int		 in;		/* its stdin: /dev/null, or ours (-i) */
};

/* -C: the workspace it would mount, asked before acting: check.c */
static int
ask_workspace(struct call *c)
{
	return check_workspace(&c->r);
}

/* -n: a fresh name for the caller, so naming lives in one place */
static int
print_name(struct call *c)
{
	char name[SBX_NAME_MAX + 1];

	(void)c;
	if (sbx_name_new(name, sizeof(name), (long)getppid()) == -1)
		err(SBX_EX_FAIL, "/dev/urandom");
	printf("%s\n", name);
	if (sbx_io_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return SBX_EX_OK;
}

/* -J: the last calls' records, -h for people; the timeout bounds its lock */
static int
print_journal(struct call *c)
{
	sbx_xconf_check(SBX_CONF_TIMEOUT);
	return journal_print(sbx_xconf_name_pick(c->r.name), c->count,
	    sbx_xconf_timeout(), (c->given & SBX_OPT('e')) != 0,
	    (c->given & SBX_OPT('h')) != 0);
}

/* -L: the sessions whose records are kept, live and past */
static int
list_sessions(struct call *c)
{
	return sessions_list((c->given & SBX_OPT('j')) != 0);
}

/* -F: the workspace's tripwire findings not seen yet, or mark some seen */
static int
findings(struct call *c)
{
	const char *name = c->r.name;

	sbx_xconf_check(SBX_CONF_PINNED);
	if (name != NULL || sbx_conf_given(SBX_CONF_PINNED) != NULL)
		name = sbx_xconf_name_pick(name);
	return tripwire_findings(name, c->r.workspace, c->argv);
}

/* What -P and a run share: the settings, the sbx exec and its stdin. */
static void
call_prepare(struct call *c, int xflag)
{
	struct request *r = &c->r;

	sbx_xconf_check(SBX_CONF_RUN);
	r->name = sbx_xconf_name_pick(r->name);
	if (!xflag)
		dockerargs_check(c->argv);
	imgload_argv(&c->r, c->argv, xflag);
	/*
	 * -t, else DOCKER_SANDBOX_TIMEOUT, bounds every sbx call of the run;
	 * the longer floors (long docker commands, create) apply only when
	 * neither is given.
	 */
	r->calltimeout = sbx_xconf_timeout();
	r->given = c->seconds != -1 ||
	    sbx_conf_given(SBX_CONF_TIMEOUT) != NULL;
	if (c->seconds != -1)
		r->calltimeout = c->seconds;
	r->timeout = r->calltimeout;
	if (!r->given && !xflag && dockerargs_long_running(c->argv))
		r->timeout = LONG_TIMEOUT;
	if (sbx_xconf_env_policy(&c->pol, NULL, 0) == -1 ||
	    (r->env = sbx_env_build(environ, &c->pol)) == NULL)
		err(SBX_EX_CANTRUN, NULL);
	if (!(c->given & SBX_OPT('P')))
		warmstart_await(r);	/* a provisioning in flight, or failed */
	provision_snapshot(r);
	workspace_session(r);
	sbx_xcli_find(environ, r->ws, r->sbx, sizeof(r->sbx));
	c->in = -1;
	if (!(c->given & SBX_OPT('i')) &&
	    (c->in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		err(SBX_EX_CANTRUN, "/dev/null");
	if ((c->fwd = sbx_env_forwarded(r->env)) == NULL)
		err(SBX_EX_CANTRUN, NULL);
	c->av = exec_argv(r, c->fwd, c->argv, (c->given & SBX_OPT('i')) != 0,
	    xflag);
}

static void
call_free(struct call *c)
{
	size_t i;

	for (i = 0; c->fwd[i] != NULL; i++)
		free(c->fwd[i]);
	free(c->fwd);
	free(c->av);
	free(c->r.inner);
	free(c->r.env);
	sbx_env_policy_free(&c->pol);
}

/* -P: provision only, so no command; the exec, if any, is `true` */
static int
provision_only(struct call *c)
{
	static char *truev[] = { "true", NULL };
	int status;

	c->argv = truev;
	call_prepare(c, 1);
	status = warmstart(&c->r, c->av, c->in);
	call_free(c);
	return status;
}

/* The run: one sbx exec, again after a confirmed absence is provisioned. */
static int
run_command(struct call *c)
{
	struct request *r = &c->r;
	struct sbx_buf held;
	struct jcall jc;
	char blocked[JOURNAL_BLOCKED_MAX];
	int status, absent, xflag = (c->given & SBX_OPT('x')) != 0;

	call_prepare(c, xflag);
	journal_begin(&jc);
	memset(&held, 0, sizeof(held));
	status = race_exec_first(r, c->av, c->in, &absent, &held);
	if (absent) {
		if (provision(r) == PROV_RETRY)
			status = exec_once(r, c->av, c->in, NULL, NULL);
		else	/* not sbx's word after all: give it back */
			(void)sbx_io_writeall(STDERR_FILENO, held.data,
			    held.len);
	}
	if (!r->cut)	/* the status is the exec's: the command's */
		origin = "command";
	/* what sbx blocked meanwhile: a success costs no sbx call */
	if (status != 0) {
		outward_denials(r, (long long)jc.began.tv_sec, blocked,
		    sizeof(blocked), &notes);
		jc.blocked = blocked;
		if (sbx_policylog_certhint(r->tail, r->taillen)) {
			warnx("%s", sbx_policylog_certadvice());
			(void)sbx_io_buf_add(&notes, "certificate\n", 12);
		}
	}
	jc.bytes = r->relayed;
	jc.timeout = r->timeout;
	journal_add(&jc, r->name, c->argv, xflag, status);
	if (!xflag)
		events_call(r->name, c->argv + dockerargs_subcommand(c->argv),
		    status, r->tail, r->taillen);
	tripwire_after(r->name);
	sbx_io_buf_free(&held);
	call_free(c);
	return status;
}

/*
 * The modes: the flag that chooses one (the first given; 0, the run), the
 * other flags it takes, those of them of which at most one, the least and
 * the most operands (-1: any).  -O goes with every one.
 */
static const struct {
	struct sbx_mode	 m;
	int		(*run)(struct call *);
} modes[] = {
	{ { 'C', "Ow", "", 0, 0 }, ask_workspace },
	{ { 'n', "O", "", 0, 0 }, print_name },
	{ { 'J', "Oehs", "", 0, 0 }, print_journal },
	{ { 'L', "Oj", "", 0, 0 }, list_sessions },
	{ { 'F', "Osw", "", 0, -1 }, findings },
	{ { 'P', "Ostw", "", 0, 0 }, provision_only },
	{ { 0, "Oistwx", "", 1, -1 }, run_command },
};

/* -O: the descriptor told whose the exit status is, at exit */
static void
origin_open(const char *arg)
{
	const char *errstr;

	originfd = (int)sbx_strtonum(arg, 3, INT_MAX, &errstr);
	if (errstr != NULL)
		errx(SBX_EX_USAGE, "-O: descriptor is %s", errstr);
	if (fcntl(originfd, F_SETFD, FD_CLOEXEC) == -1)
		err(SBX_EX_USAGE, "-O %d", originfd);
	originpid = getpid();
	if (atexit(origin_say) != 0)
		err(SBX_EX_CANTRUN, "atexit");
}

int
main(int argc, char *argv[])
{
	static struct call c;
	const char *errstr;
	int ch, i;

	c.r.session = getppid();	/* before anything could orphan us */
	c.seconds = -1;
	opterr = 0;	/* usage() says it all, on one line */
	while ((ch = getopt(argc, argv, "+CeFhiJ:jLnO:Ps:t:w:x")) != -1) {
		switch (ch) {
		case 'C':	/* these say which mode, or how: c.given */
		case 'e':
		case 'F':
		case 'h':
		case 'i':
		case 'j':
		case 'L':
			break;
		case 'J':
			c.count = sbx_strtonum(optarg, 0, INT_MAX, &errstr);
			if (errstr != NULL)
				errx(SBX_EX_USAGE, "-J: count is %s", errstr);
			break;
		case 'n':
			break;
		case 'O':
			origin_open(optarg);
			break;
		case 'P':
			break;
		case 's':
			c.r.name = optarg;
			break;
		case 't':
			c.seconds = (int)sbx_strtonum(optarg, 0, TIMEOUT_MAX,
			    &errstr);
			if (errstr != NULL)
				errx(SBX_EX_USAGE, "-t: seconds are %s", errstr);
			break;
		case 'w':
			c.r.workspace = optarg;
			break;
		case 'x':
			break;
		default:
			usage();
		}
		c.given |= SBX_OPT(ch);
	}
	argc -= optind;
	c.argv = argv + optind;
	if ((i = sbx_mode_pick(modes, sizeof(modes[0]), c.given, argc)) == -1)
		usage();
	return modes[i].run(&c);
}
