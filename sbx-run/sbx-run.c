/*
 * sbx-run: run pinned docker (or, with -x, any command) inside the
 * session's sandbox, through `sbx exec` and nothing else.
 *
 * The sbx child gets a scrubbed environment; names meant for the sandbox
 * go as bare `-e NAME`, so no value ever appears in an argument vector.
 * In the steady state a call is one `sbx exec`: only when sbx answers that
 * the sandbox does not exist, and that is confirmed, is it provisioned and
 * the call made again (see provision.c); only when it answers that it lost
 * the daemon start race, and the exec's mark shows that its command never
 * began, is the exec made again (race.c).  The exec itself is exec.c's.
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
#include "sbx-run.h"

#define LONG_TIMEOUT	600
#define TIMEOUT_MAX	SBX_TIMEOUT_MAX	/* -t: the limits of DOCKER_SANDBOX_TIMEOUT */

extern char **environ;

static int originfd = -1;	/* -O: says whose the exit status is */
static pid_t originpid;		/* ours, not a child's that exits */
static const char *origin = "sbx-run";

/*
 * -O: one line at exit, "command" when the status is what the exec
 * returned, "sbx-run" when it is ours (an error, the timeout, a signal),
 * on a descriptor the command never gets, so it cannot say it instead.
 */
static void
origin_say(void)
{
	if (originfd != -1 && getpid() == originpid &&
	    sbx_writeall(originfd, origin, strlen(origin)) != -1)
		(void)sbx_writeall(originfd, "\n", 1);
}

static void SBX_DEAD
usage(void)
{
	fprintf(stderr, "usage: sbx-run [-CinPx] [-J count] [-O fd] "
	    "[-s name] [-t seconds] [-w workspace] [argument ...]\n");
	exit(SBX_EX_USAGE);
}

int
main(int argc, char *argv[])
{
	struct sbx_envpolicy pol;
	struct sbx_buf held;
	struct jcall jc;
	struct request r;
	const char *errstr;
	char name[SBX_NAME_MAX + 1], **av, **fwd;
	size_t i;
	long long jflag = -1;
	char *truev[] = { "true", NULL };
	int ch, cflag = 0, iflag = 0, nflag = 0, pflag = 0, xflag = 0;
	int tflag = -1;
	int in = -1;
	int status, absent;

	memset(&r, 0, sizeof(r));
	r.session = getppid();	/* before anything could orphan us */
	opterr = 0;	/* usage() says it all, on one line */
	while ((ch = getopt(argc, argv, "+CiJ:nO:Ps:t:w:x")) != -1) {
		switch (ch) {
		case 'C':
			cflag = 1;
			break;
		case 'J':
			jflag = sbx_strtonum(optarg, 0, INT_MAX, &errstr);
			if (errstr != NULL)
				errx(SBX_EX_USAGE, "-J: count is %s", errstr);
			break;
		case 'i':
			iflag = 1;
			break;
		case 'n':
			nflag = 1;
			break;
		case 'O':
			originfd = (int)sbx_strtonum(optarg, 3, INT_MAX,
			    &errstr);
			if (errstr != NULL)
				errx(SBX_EX_USAGE, "-O: descriptor is %s", errstr);
			if (fcntl(originfd, F_SETFD, FD_CLOEXEC) == -1)
				err(SBX_EX_USAGE, "-O %d", originfd);
			originpid = getpid();
			if (atexit(origin_say) != 0)
				err(SBX_EX_CANTRUN, "atexit");
			break;
		case 'P':
			pflag = 1;
			break;
		case 's':
			r.name = optarg;
			break;
		case 't':
			tflag = (int)sbx_strtonum(optarg, 0, TIMEOUT_MAX,
			    &errstr);
			if (errstr != NULL)
				errx(SBX_EX_USAGE, "-t: seconds are %s", errstr);
			break;
		case 'w':
			r.workspace = optarg;
			break;
		case 'x':
			xflag = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;

	if (cflag) {
		/* the workspace it would mount, asked before acting: check.c */
		if (argc != 0 || iflag || nflag || pflag || xflag || r.name ||
		    tflag != -1 || jflag != -1)
			usage();
		return check_workspace(&r);
	}
	if (nflag) {
		/* a fresh name for the caller, so naming lives in one place */
		if (argc != 0 || iflag || pflag || xflag || r.name ||
		    r.workspace || tflag != -1 || jflag != -1)
			usage();
		if (sbx_name_new(name, sizeof(name), (long)getppid()) == -1)
			err(SBX_EX_FAIL, "/dev/urandom");
		printf("%s\n", name);
		if (sbx_fshut() == -1)
			err(SBX_EX_FAIL, "stdout");
		return SBX_EX_OK;
	}
	if (jflag != -1 && (argc != 0 || iflag || pflag || xflag ||
	    r.workspace || tflag != -1))
		usage();
	if (jflag != -1) {
		sbx_xconf_check(SBX_CONF_TIMEOUT);
		/* the timeout bounds its lock */
		return journal_print(sbx_xname_pick(r.name), jflag,
		    sbx_xconf_timeout());
	}
	/* -P: provision only, so no command; the exec, if any, is `true` */
	if (pflag && (argc != 0 || iflag || xflag))
		usage();
	if (pflag) {
		argv = truev;
		xflag = 1;
	} else if (argc == 0)
		usage();
	sbx_xconf_check(SBX_CONF_RUN);
	r.name = sbx_xname_pick(r.name);
	if (!xflag)
		check_docker_args(argv);
	imgload_argv(&r, argv, xflag);

	/*
	 * -t, else DOCKER_SANDBOX_TIMEOUT, bounds every sbx call of the run;
	 * the longer floors (long docker commands, create) apply only when
	 * neither is given.
	 */
	r.calltimeout = sbx_xconf_timeout();
	r.given = tflag != -1 || sbx_conf_given(SBX_CONF_TIMEOUT) != NULL;
	if (tflag != -1)
		r.calltimeout = tflag;
	r.timeout = r.calltimeout;
	if (!r.given && !xflag && long_running(argv))
		r.timeout = LONG_TIMEOUT;
	if (sbx_xenv_policy(&pol, NULL, 0) == -1 ||
	    (r.env = sbx_env_build(environ, &pol)) == NULL)
		err(SBX_EX_CANTRUN, NULL);
	if (!pflag)
		warmstart_await(&r);	/* a provisioning in flight, or failed */
	provision_snapshot(&r);
	session_workspaces(&r);
	sbx_xcli_find(environ, r.ws, r.sbx, sizeof(r.sbx));
	if (!iflag && (in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		err(SBX_EX_CANTRUN, "/dev/null");

	if ((fwd = sbx_env_forwarded(r.env)) == NULL)
		err(SBX_EX_CANTRUN, NULL);
	av = exec_argv(&r, fwd, argv, iflag, xflag);
	if (pflag) {
		status = warmstart(&r, av, in);
		goto out;
	}
	journal_begin(&jc);
	memset(&held, 0, sizeof(held));
	status = exec_first(&r, av, in, &absent, &held);
	if (absent) {
		if (provision(&r) == PROV_RETRY)
			status = exec_once(&r, av, in, NULL, NULL);
		else	/* not sbx's word after all: give it back */
			(void)sbx_writeall(STDERR_FILENO, held.data, held.len);
	}
	if (!r.cut)	/* the status is the exec's: the command's */
		origin = "command";
	jc.bytes = r.relayed;
	jc.timeout = r.timeout;
	journal_add(&jc, r.name, argv, xflag, status);
	sbx_buf_free(&held);
out:
	for (i = 0; fwd[i] != NULL; i++)
		free(fwd[i]);
	free(fwd);
	free(av);
	free(r.inner);
	free(r.env);
	sbx_env_policy_free(&pol);
	return status;
}
