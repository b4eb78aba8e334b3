/*
 * exec.c: the one sbx exec of a call, its words (the stamp before the
 * command, docker pinned to the sandbox's socket) and its run: sbx's own
 * answers held back until it is known whether they are sbx's, a timeout
 * or a forwarded signal ending what the exec started (ending.c).
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
#include "sbxstamp.h"
#include "sbx-run.h"

/*
 * Keep stderr back while it could still be sbx's "no such sandbox" (then
 * the caller may provision and retry, and the user never sees it), its
 * "waiting for the daemon restart" (then one line says what to run) or
 * its lost daemon start race (then the exec may be made again: race.c).
 * Text that cannot be any of them goes out at once, a prompt included.
 */
static int
missing(const char *text, size_t len, void *arg)
{
	return sbx_says_notfound_line(text, len, arg) != SBX_NF_NO ||
	    sbx_says_restart_line(text, len) != SBX_NF_NO ||
	    sbx_says_race_line(text, len) != SBX_NF_NO;
}

/*
 * The exec's stderr was sbx's restart answer, or a command's copy of it:
 * if sbx's own version call says so too, exit 69 in one line; otherwise
 * the words were the command's, and go back to the caller.
 */
static void
restart_check(const struct request *r)
{
	char *av[] = { (char *)r->sbx, "version", NULL };
	struct sbx_result v;

	if (sbx_call(&v, av, r->env, r->calltimeout, -1) == -1)
		return;
	if (v.status != 0 && sbx_says_restart(v.err.data))
		sbx_restart_exit();
	sbx_result_free(&v);
}

/*
 * sbx exec [-i] [-e NAME]... NAME -- STAMP [docker -H SOCK] ARG..., where
 * STAMP (sbx_stamp_words) records the command before it runs, so that
 * end_inside can end it.  An inner docker exec whose command is a shell
 * is stamped in its container too, before that command.
 */
char **
exec_argv(struct request *r, char **fwd, char **inner, int interactive,
    int raw)
{
	char **av;
	size_t n, nf, ni, i;
	int target = -1;

	for (nf = 0; fwd[nf] != NULL; nf++)
		;
	for (ni = 0; inner[ni] != NULL; ni++)
		;
	if (sbx_stamp_new(r->stamp, sizeof(r->stamp)) == -1)
		err(SBX_EX_CANTRUN, "/dev/urandom");
	if (!raw && (r->inner = inner_words(inner, &target)) != NULL)
		r->container = inner[target];
	if ((av = calloc(2 * nf + ni + 10 + 2 * SBX_STAMP_NWORDS,
	    sizeof(*av))) == NULL)
		err(SBX_EX_CANTRUN, NULL);
	n = 0;
	av[n++] = (char *)r->sbx;
	av[n++] = "exec";
	if (interactive)
		av[n++] = "-i";
	for (i = 0; i < nf; i++) {
		av[n++] = "-e";
		av[n++] = fwd[i];
	}
	av[n++] = (char *)r->name;
	av[n++] = "--";
	sbx_stamp_words(av + n, r->stamp);
	n += SBX_STAMP_NWORDS;
	if (!raw) {
		av[n++] = "docker";
		av[n++] = "-H";
		av[n++] = SBX_DOCKER_HOST;
	}
	for (i = 0; i < ni; i++) {
		av[n++] = inner[i];
		if ((int)i == target) {
			sbx_stamp_words(av + n, r->stamp);
			n += SBX_STAMP_NWORDS;
		}
	}
	av[n] = NULL;
	return av;
}

/*
 * One sbx exec.  Returns its status.  With held non-NULL, *said is
 * SAID_ABSENT if sbx said there is no such sandbox, SAID_RACE if it lost
 * the daemon start race, else SAID_OWN; its words are then kept in held
 * for the caller to give back if that proves untrue.
 */
int
exec_once(struct request *r, char **av, int in, int *said,
    struct sbx_buf *held)
{
	struct sbx_spawn s;
	struct sbx_result c;
	char why[64];
	int status;

	imgload_wait(r);	/* a load of the image cache in flight */
	memset(&s, 0, sizeof(s));
	s.argv = av;
	s.envp = r->env;
	s.timeout = r->timeout;
	s.newpgrp = 1;
	s.fgtty = in == -1 && isatty(STDIN_FILENO) &&
	    tcgetpgrp(STDIN_FILENO) == getpgrp();
	s.in = in;
	s.relay = 1;	/* counted for the journal */
	if (held != NULL) {
		s.hold_err = missing;
		s.hold_arg = (void *)r->name;
	}
	if (sbx_supervise(&s, &c) == -1)
		err(sbx_exec_status(errno), "%s", r->sbx);
	if (c.holding && c.status == 1 && !c.timedout && c.signo == 0 &&
	    sbx_says_restart_line(c.err.data, c.err.len) == SBX_NF_LINE)
		restart_check(r);
	if (held != NULL) {
		*said = SAID_OWN;
		if (!c.holding || c.status != 1 || c.timedout || c.signo != 0)
			;
		else if (sbx_says_notfound_line(c.err.data, c.err.len,
		    r->name) == SBX_NF_LINE)
			*said = SAID_ABSENT;
		else if (sbx_says_race_line(c.err.data, c.err.len) ==
		    SBX_NF_LINE)
			*said = SAID_RACE;
	}
	if (held != NULL && *said != SAID_OWN) {
		*held = c.err;
		memset(&c.err, 0, sizeof(c.err));
	} else if (c.holding)
		(void)sbx_writeall(STDERR_FILENO, c.err.data, c.err.len);
	if (c.timedout) {
		(void)snprintf(why, sizeof(why), "timed out after %d s",
		    r->timeout);
		end_inside(r, why);
	} else if (c.signo != 0) {
		(void)snprintf(why, sizeof(why), "ended by signal %d",
		    c.signo);
		end_inside(r, why);
	}
	status = c.status;
	r->relayed = c.relayed;
	r->cut = c.timedout || c.signo != 0;
	sbx_result_free(&c);
	return status;
}
