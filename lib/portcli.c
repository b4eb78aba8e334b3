/*
 * portcli.c: sbx's port verbs in whichever dialect the installed sbx
 * speaks, `sbx port ls|publish|unpublish` or the older `sbx ports`.  The
 * newest is tried first; the one that worked is cached in the state
 * directory and found again when it stops working.  A change is two
 * calls, removals first: sbx's order within one call is undocumented.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxports.h"
#include "sbxstate.h"
#include "sbx-internal.h"

#define SPEC_MAX	80	/* "[IPv6]:65535:65535/tcp6" with room */

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
cache_write(const struct sbx_portcli *pc, int d)
{
	char buf[32];

	if (pc->dfd == -1)
		return;
	if (d == SBX_DIALECT_UNKNOWN) {
		(void)sbx_state_remove(pc->dfd, SBX_DIALECT_CACHE);
		return;
	}
	snprintf(buf, sizeof(buf), "%s\n", dialect_word[d]);
	(void)sbx_state_write(pc->dfd, SBX_DIALECT_CACHE, buf);
}

static int
run(struct sbx_portcli *pc, char **av)
{
	struct sbx_result c;

	sbx_io_buf_free(&pc->out);
	sbx_io_buf_free(&pc->err);
	av[0] = (char *)pc->sbx;
	if (sbx_call(&c, av, pc->env, pc->timeout, pc->dfd) == -1) {
		pc->status = -1;
		pc->error = errno;
		return -1;
	}
	pc->calls += c.tries;	/* sbx_call may run sbx more than once */
	pc->status = c.status;
	pc->timedout = c.timedout;
	pc->out = c.out;
	pc->err = c.err;
	return 0;
}

static int
unknown_verb(const struct sbx_portcli *pc, int d)
{
	return pc->status != 0 &&
	    sbx_says_unknown_verb(pc->err.data, dialect_word[d]);
}

int
sbx_portcli_missing(const struct sbx_portcli *pc)
{
	return pc->status != 0 && sbx_says_notfound(pc->err.data, pc->name);
}

/* One call of dialect d: 'l' list, 'p' publish, 'u' unpublish specs. */
static int
call(struct sbx_portcli *pc, int d, int what, const struct sbx_ports *set)
{
	char **av, (*specs)[SPEC_MAX] = NULL;
	size_t n = 0, i, ns = set != NULL ? set->n : 0;
	int r = -1;

	if ((av = calloc(2 * ns + 8, sizeof(*av))) == NULL ||
	    (specs = calloc(ns + 1, sizeof(*specs))) == NULL)
		goto out;
	for (i = 0; i < ns; i++)
		if (sbx_portspec_sbxspec(&set->v[i], specs[i],
		    SPEC_MAX) == -1) {
			errno = EINVAL;
			goto out;
		}
	av[n++] = NULL;
	if (d == SBX_DIALECT_PORTS) {
		av[n++] = "ports";
		if (what == 'l')
			av[n++] = "--json";
		for (i = 0; i < ns; i++) {
			av[n++] = what == 'u' ? "--unpublish" : "--publish";
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
	free(specs);
	free(av);
	return r;
}

/* One call, finding the dialect if needed; -1 (errno) if sbx did not run. */
static int
dialect_call(struct sbx_portcli *pc, int what, const struct sbx_ports *set)
{
	struct sbx_buf out, err;
	int cached, status;

	if (pc->dialect == SBX_DIALECT_UNKNOWN)
		pc->dialect = cache_read(pc);
	cached = pc->dialect;
	if (pc->dialect == SBX_DIALECT_UNKNOWN)
		pc->dialect = SBX_DIALECT_PORT;
	if (call(pc, pc->dialect, what, set) == -1)
		return -1;
	if (pc->dialect == SBX_DIALECT_PORT && unknown_verb(pc,
	    SBX_DIALECT_PORT)) {
		/* an sbx from before the group */
		pc->noport = 1;
		pc->dialect = SBX_DIALECT_PORTS;
		if (call(pc, pc->dialect, what, set) == -1)
			return -1;
	} else if (pc->dialect == SBX_DIALECT_PORTS && pc->status != 0 &&
	    !pc->noport && !sbx_portcli_missing(pc)) {
		/* `ports` gone, or an alias of the group: ask `port` once */
		out = pc->out;
		err = pc->err;
		status = pc->status;
		memset(&pc->out, 0, sizeof(pc->out));
		memset(&pc->err, 0, sizeof(pc->err));
		if (call(pc, SBX_DIALECT_PORT, what, set) == -1) {
			sbx_io_buf_free(&out);
			sbx_io_buf_free(&err);
			return -1;
		}
		if (unknown_verb(pc, SBX_DIALECT_PORT)) {
			/* no group: the `ports` answer stands */
			pc->noport = 1;
			sbx_io_buf_free(&pc->out);
			sbx_io_buf_free(&pc->err);
			pc->out = out;
			pc->err = err;
			pc->status = status;
		} else {
			pc->dialect = SBX_DIALECT_PORT;
			sbx_io_buf_free(&out);
			sbx_io_buf_free(&err);
		}
	}
	if (pc->status == 0 && pc->dialect != cached)
		cache_write(pc, pc->dialect);
	else if (pc->status != 0 && cached != SBX_DIALECT_UNKNOWN &&
	    pc->dialect != cached)
		cache_write(pc, SBX_DIALECT_UNKNOWN);
	return 0;
}

/* The sandbox's mappings into l; -1: see pc->status, pc->err, *errstr. */
int
sbx_portcli_list(struct sbx_portcli *pc, struct sbx_ports *l,
    const char **errstr)
{
	if (dialect_call(pc, 'l', NULL) == -1) {
		*errstr = strerror(errno);
		return -1;
	}
	if (pc->status != 0) {
		*errstr = "sbx failed";
		return -1;
	}
	return sbx_portspec_sbxjson(pc->out.data ? pc->out.data : "",
	    pc->out.len, l, errstr);
}

/* Unpublish unpub, then publish pub; -1 as for list. */
int
sbx_portcli_change(struct sbx_portcli *pc, const struct sbx_ports *pub,
    const struct sbx_ports *unpub, const char **errstr)
{
	*errstr = "sbx failed";
	if (unpub->n > 0 && dialect_call(pc, 'u', unpub) == -1)
		goto noexec;
	if (unpub->n > 0 && pc->status != 0)
		return -1;
	if (pub->n > 0 && dialect_call(pc, 'p', pub) == -1)
		goto noexec;
	if (pub->n > 0 && pc->status != 0)
		return -1;
	return 0;
noexec:
	*errstr = strerror(errno);
	return -1;
}

/* Start the stopped sandbox with `sbx exec NAME -- true`; as list. */
int
sbx_portcli_wake(struct sbx_portcli *pc)
{
	char *av[] = { NULL, "exec", (char *)pc->name, "--", "true", NULL };

	return run(pc, av);
}

void
sbx_portcli_free(struct sbx_portcli *pc)
{
	sbx_io_buf_free(&pc->out);
	sbx_io_buf_free(&pc->err);
}
