/*
 * exec.c: the one sbx exec of a call: the stamp before the command, docker
 * pinned to the sandbox's socket, and sbx's answers held back until they
 * are known to be sbx's.
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
 * Hold stderr while it could be sbx's "no such sandbox" (provision and
 * retry), its wait for a daemon restart, or the start race (race.c).
 */
static int
missing(const char *text, size_t len, void *arg)
{
	return sbx_says_notfound_line(text, len, arg) != SBX_NF_NO ||
	    sbx_says_restart_line(text, len) != SBX_NF_NO ||
	    sbx_says_race_line(text, len) != SBX_NF_NO;
}

/* The restart answer, or a command's copy: sbx's version call decides. */
static void
restart_check(const struct request *r)
{
	char *av[] = { (char *)r->sbx, "version", NULL };
	struct sbx_result v;

	if (sbx_call(&v, av, r->env, r->calltimeout, -1) == -1)
		return;
	if (v.status != 0 && sbx_says_restart(v.err.data))
		sbx_says_restart_exit();
	sbx_supervise_result_free(&v);
}

/*
 * sbx exec [-i] [-e NAME]... NAME -- STAMP [docker -H SOCK] ARG..., STAMP
 * recording the command so ending_inside can end it; an inner docker exec
 * of a shell is stamped in its container too.
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
	if (!raw && (r->inner = ending_inner_words(inner, &target)) != NULL)
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
 * One sbx exec; its status.  With held, *said is SAID_ABSENT, SAID_RACE
 * or SAID_OWN, and sbx's words are kept there should that prove untrue.
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
	s.relay = 1;
	if (held != NULL) {
		s.hold_err = missing;
		s.hold_arg = (void *)r->name;
	}
	if (sbx_supervise(&s, &c) == -1)
		err(sbx_spawn_exec_status(errno), "%s", r->sbx);
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
		(void)sbx_io_writeall(STDERR_FILENO, c.err.data, c.err.len);
	if (c.timedout) {
		(void)snprintf(why, sizeof(why), "timed out after %d s",
		    r->timeout);
		ending_inside(r, why);
	} else if (c.signo != 0) {
		(void)snprintf(why, sizeof(why), "ended by signal %d",
		    c.signo);
		ending_inside(r, why);
	}
	status = c.status;
	r->relayed = c.relayed;
	memcpy(r->tail, c.tail, c.taillen);
	r->taillen = c.taillen;
	r->cut = c.timedout || c.signo != 0;
	sbx_supervise_result_free(&c);
	return status;
}
