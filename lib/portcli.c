/*
 * portcli.c: sbx's port verbs, in whichever of its two dialects the
 * installed sbx speaks:
 *
 *	sbx ports [--json] [--publish SPEC]... [--unpublish SPEC]... NAME
 *	sbx port ls|publish|unpublish [--json] NAME [SPEC...]
 *
 * The dialect is found once: the first call tries the documented `ports`;
 * if sbx answers `unknown command "ports"` the other is tried, and the one
 * that worked is kept in the state directory (SBX_DIALECT_CACHE, sbx-port-dialect).  A cached
 * answer that stops working (sbx was upgraded) is found again the same
 * way, so the cache never needs clearing by hand.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

static const char *const dialect_word[] = { "", "ports", "port" };

static int
cache_read(const struct sbx_portcli *pc)
{
	char buf[32];

	if (pc->dfd == -1 || sbx_state_read(pc->dfd, SBX_DIALECT_CACHE, buf,
	    sizeof(buf)) == -1)
		return SBX_DIALECT_UNKNOWN;
	if (strcmp(buf, "ports\n") == 0)
		return SBX_DIALECT_PORTS;
	if (strcmp(buf, "port\n") == 0)
		return SBX_DIALECT_PORT;
	return SBX_DIALECT_UNKNOWN;
}

static void
cache_write(const struct sbx_portcli *pc)
{
	char buf[32];

	if (pc->dfd == -1)
		return;
	snprintf(buf, sizeof(buf), "%s\n", dialect_word[pc->dialect]);
	/* a hint only */
	(void)sbx_state_write(pc->dfd, SBX_DIALECT_CACHE, buf);
}

/* Run sbx with av (av[0] is filled in); output kept in pc. */
static int
run(struct sbx_portcli *pc, char **av)
{
	struct sbx_result c;

	sbx_buf_free(&pc->out);
	sbx_buf_free(&pc->err);
	av[0] = (char *)pc->sbx;
	if (sbx_capture(&c, av, pc->env, pc->timeout) == -1) {
		pc->status = -1;	/* not run: errno says why */
		pc->error = errno;
		return -1;
	}
	pc->calls++;
	pc->status = c.status;
	pc->timedout = c.timedout;
	pc->out = c.out;
	pc->err = c.err;
	return 0;
}

/* Did sbx say it has no such command as the word of dialect d? */
static int
unknown_verb(const struct sbx_portcli *pc, int d)
{
	char pat[64];

	if (pc->status == 0 || pc->err.data == NULL)
		return 0;
	snprintf(pat, sizeof(pat), "unknown command \"%s\"", dialect_word[d]);
	return strstr(pc->err.data, pat) != NULL;
}

/* Is the failure sbx saying the sandbox does not exist? */
int
sbx_portcli_missing(const struct sbx_portcli *pc)
{
	char pat[SBX_NAME_MAX + 40];

	if (pc->status == 0 || pc->err.data == NULL)
		return 0;
	snprintf(pat, sizeof(pat), "no sandbox named '%s'", pc->name);
	if (strstr(pc->err.data, pat) != NULL)
		return 1;
	snprintf(pat, sizeof(pat), "sandbox '%s' not found", pc->name);
	return strstr(pc->err.data, pat) != NULL;
}

/*
 * Build and run one call of the current dialect.  what: 'l' list, 'p'
 * publish, 'u' unpublish, 'b' both (the `ports` dialect only).
 */
static int
call(struct sbx_portcli *pc, int what, const struct sbx_ports *pub,
    const struct sbx_ports *unpub)
{
	char **av, **specs = NULL;
	size_t n = 0, i, ns = 0, total;
	int r = -1;

	total = (pub ? pub->n : 0) + (unpub ? unpub->n : 0);
	if ((av = calloc(2 * total + 8, sizeof(*av))) == NULL ||
	    (specs = calloc(total + 1, sizeof(*specs))) == NULL)
		goto out;
	for (i = 0; unpub != NULL && i < unpub->n; i++, ns++)
		if ((specs[ns] = malloc(80)) == NULL ||
		    sbx_port_sbxspec(&unpub->v[i], specs[ns], 80) == -1)
			goto out;
	for (i = 0; pub != NULL && i < pub->n; i++, ns++)
		if ((specs[ns] = malloc(80)) == NULL ||
		    sbx_port_sbxspec(&pub->v[i], specs[ns], 80) == -1)
			goto out;
	av[n++] = NULL;		/* the sbx path, set by run() */
	if (pc->dialect == SBX_DIALECT_PORTS) {
		av[n++] = "ports";
		if (what == 'l')
			av[n++] = "--json";
		for (i = 0; i < ns; i++) {
			av[n++] = i < (unpub ? unpub->n : 0) ? "--unpublish" :
			    "--publish";
			av[n++] = specs[i];
		}
		av[n++] = (char *)pc->name;
	} else {
		av[n++] = "port";
		av[n++] = what == 'l' ? "ls" : what == 'p' ? "publish" :
		    "unpublish";
		if (what == 'l')
			av[n++] = "--json";
		av[n++] = (char *)pc->name;
		for (i = 0; i < ns; i++)
			av[n++] = specs[i];
	}
	av[n] = NULL;
	r = run(pc, av);
out:
	for (i = 0; specs != NULL && i < total; i++)
		free(specs[i]);
	free(specs);
	free(av);
	return r;
}

/*
 * One call, finding the dialect first if needed.  Returns -1 if sbx could
 * not be run (errno set); otherwise 0 with pc->status its exit status.
 */
static int
dialect_call(struct sbx_portcli *pc, int what, const struct sbx_ports *pub,
    const struct sbx_ports *unpub)
{
	int learned = 0;

	if (pc->dialect == SBX_DIALECT_UNKNOWN)
		pc->dialect = cache_read(pc);
	if (pc->dialect == SBX_DIALECT_UNKNOWN) {
		pc->dialect = SBX_DIALECT_PORTS;
		learned = 1;
	}
	if (call(pc, what, pub, unpub) == -1)
		return -1;
	if (unknown_verb(pc, pc->dialect)) {
		pc->dialect = pc->dialect == SBX_DIALECT_PORTS ?
		    SBX_DIALECT_PORT : SBX_DIALECT_PORTS;
		learned = 1;
		/* 'b' exists in the ports dialect only */
		if (what == 'b' && pc->dialect == SBX_DIALECT_PORT)
			return errno = EAGAIN, -1;
		if (call(pc, what, pub, unpub) == -1)
			return -1;
	}
	if (learned && pc->status == 0)
		cache_write(pc);
	return 0;
}

/* The sandbox's mappings into l.  -1: see pc->status, pc->err, *errstr. */
int
sbx_portcli_list(struct sbx_portcli *pc, struct sbx_ports *l,
    const char **errstr)
{
	if (dialect_call(pc, 'l', NULL, NULL) == -1) {
		*errstr = strerror(errno);
		return -1;
	}
	if (pc->status != 0) {
		*errstr = "sbx failed";
		return -1;
	}
	return sbx_ports_sbxjson(pc->out.data ? pc->out.data : "",
	    pc->out.len, l, errstr);
}

/*
 * Unpublish unpub, then publish pub: one call in the `ports` dialect, one
 * per non-empty set in the other.  -1 as for list.
 */
int
sbx_portcli_change(struct sbx_portcli *pc, const struct sbx_ports *pub,
    const struct sbx_ports *unpub, const char **errstr)
{
	*errstr = "sbx failed";
	if (pub->n == 0 && unpub->n == 0)
		return 0;
	if (pc->dialect == SBX_DIALECT_UNKNOWN)
		pc->dialect = cache_read(pc);
	if (pc->dialect != SBX_DIALECT_PORT) {
		if (dialect_call(pc, 'b', pub, unpub) == 0)
			return pc->status == 0 ? 0 : -1;
		if (errno != EAGAIN) {
			*errstr = strerror(errno);
			return -1;
		}
	}
	if (unpub->n > 0 && (dialect_call(pc, 'u', NULL, unpub) == -1 ||
	    pc->status != 0))
		return -1;
	if (pub->n > 0 && (dialect_call(pc, 'p', pub, NULL) == -1 ||
	    pc->status != 0))
		return -1;
	return 0;
}

void
sbx_portcli_free(struct sbx_portcli *pc)
{
	sbx_buf_free(&pc->out);
	sbx_buf_free(&pc->err);
}
