/*
 * policycli.c: sbx's per-sandbox policy and secret verbs, in whichever
 * spelling the installed sbx takes: `--sandbox NAME` (the newer) or NAME
 * as the first operand.  The operand form is used only with a binary that
 * refused --sandbox: given to an sbx that reads operands as resources, it
 * would make the sandbox's name a rule of the global policy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxpolicy.h"
#include "sbxstate.h"
#include "sbx-internal.h"

#define ARGV_MAX	16

static int
spelling_cached(const struct sbx_policycli *pc)
{
	char id[128], buf[128];

	sbx_call_identity(pc->sbx, id, sizeof(id));
	return pc->dfd != -1 && id[0] != '\0' &&
	    sbx_state_read(pc->dfd, SBX_SPELLING_CACHE, buf, sizeof(buf)) !=
	    -1 && strcmp(buf, id) == 0;
}

static void
spelling_cache(const struct sbx_policycli *pc)
{
	char id[128];

	sbx_call_identity(pc->sbx, id, sizeof(id));
	if (pc->dfd != -1 && id[0] != '\0')
		(void)sbx_state_write(pc->dfd, SBX_SPELLING_CACHE, id);
}

/*
 * av: sbx, group, verb, [kind], the sandbox as spelled, then rest
 * (NULL-ended).  in: stdin for sbx, or NULL.
 */
static int
call(struct sbx_policycli *pc, struct sbx_result *res, const char *const *head,
    int spell, const char *const *rest, const char *in, size_t inlen)
{
	char *av[ARGV_MAX];
	size_t n = 0;
	int r;

	av[n++] = (char *)pc->sbx;
	for (; *head != NULL && n < ARGV_MAX - 4; head++)
		av[n++] = (char *)*head;
	if (spell == SBX_SPELL_FLAG)
		av[n++] = "--sandbox";
	av[n++] = (char *)pc->name;
	for (; rest != NULL && *rest != NULL && n < ARGV_MAX - 1; rest++)
		av[n++] = (char *)*rest;
	av[n] = NULL;
	r = sbx_call_input(res, av, pc->env, pc->timeout, pc->dfd, in, inlen);
	if (r == 0)
		pc->calls += res->tries;
	return r;
}

/*
 * One call naming the sandbox, the spelling found on the way.  A cached
 * operand spelling that fails is dropped and the flag asked again: the
 * flag is the safe one to try.
 */
static int
spelled(struct sbx_policycli *pc, struct sbx_result *res,
    const char *const *head, const char *const *rest, const char *in,
    size_t inlen)
{
	int cached = 0;

	if (pc->spelling == SBX_SPELL_UNKNOWN) {
		cached = spelling_cached(pc);
		pc->spelling = cached ? SBX_SPELL_ARG : SBX_SPELL_FLAG;
	}
	if (call(pc, res, head, pc->spelling, rest, in, inlen) == -1)
		return -1;
	if (cached && res->status != 0 && !res->timedout &&
	    !sbx_says_notfound(res->err.data, pc->name)) {
		if (pc->dfd != -1)
			(void)sbx_state_remove(pc->dfd, SBX_SPELLING_CACHE);
		pc->spelling = SBX_SPELL_FLAG;
		sbx_supervise_result_free(res);
		if (call(pc, res, head, pc->spelling, rest, in, inlen) == -1)
			return -1;
	}
	if (pc->spelling == SBX_SPELL_FLAG && res->status != 0 &&
	    sbx_says_unknown_flag(res->err.data, "--sandbox")) {
		spelling_cache(pc);
		pc->spelling = SBX_SPELL_ARG;
		sbx_supervise_result_free(res);
		return call(pc, res, head, pc->spelling, rest, in, inlen);
	}
	return 0;
}

/* `policy allow|deny network` of resources (a,b,c) for the sandbox. */
int
sbx_policycli_rule(struct sbx_policycli *pc, struct sbx_result *res,
    const char *decision, const char *resources)
{
	const char *head[] = { "policy", decision, "network", NULL };
	const char *rest[] = { resources, NULL };

	if (strcmp(decision, "allow") != 0 && strcmp(decision, "deny") != 0) {
		errno = EINVAL;
		return -1;
	}
	return spelled(pc, res, head, rest, NULL, 0);
}

/* `policy rm network` of the sandbox's rules of those resources. */
int
sbx_policycli_unrule(struct sbx_policycli *pc, struct sbx_result *res,
    const char *resources)
{
	const char *head[] = { "policy", "rm", "network", NULL };
	const char *rest[] = { "--resource", resources, "-f", NULL };

	return spelled(pc, res, head, rest, NULL, 0);
}

/*
 * `policy check network` of one target for the sandbox.  check took
 * --sandbox before the rule verbs did: the flag first whatever the rule
 * verbs' spelling, the operand only if refused, and neither remembered.
 */
int
sbx_policycli_check(struct sbx_policycli *pc, struct sbx_result *res,
    const char *target)
{
	const char *head[] = { "policy", "check", "network", NULL };
	const char *rest[] = { target, NULL };

	if (call(pc, res, head, SBX_SPELL_FLAG, rest, NULL, 0) == -1)
		return -1;
	if (res->status == 0 || res->timedout ||
	    !sbx_says_unknown_flag(res->err.data, "--sandbox"))
		return 0;
	sbx_supervise_result_free(res);
	return call(pc, res, head, SBX_SPELL_ARG, rest, NULL, 0);
}

/* `policy ls NAME --json`: an operand in every spelling. */
int
sbx_policycli_ls(struct sbx_policycli *pc, struct sbx_result *res)
{
	const char *head[] = { "policy", "ls", NULL };
	const char *rest[] = { "--json", NULL };

	return call(pc, res, head, SBX_SPELL_ARG, rest, NULL, 0);
}

/* `policy log NAME --json`: the log refuses --sandbox. */
int
sbx_policycli_log(struct sbx_policycli *pc, struct sbx_result *res)
{
	const char *head[] = { "policy", "log", NULL };
	const char *rest[] = { "--json", NULL };

	return call(pc, res, head, SBX_SPELL_ARG, rest, NULL, 0);
}

/*
 * A registry credential for this sandbox alone: its value goes on sbx's
 * stdin, never in an argv.  user may be NULL.
 */
int
sbx_policycli_secret(struct sbx_policycli *pc, struct sbx_result *res,
    const char *host, const char *user, const char *value, size_t len)
{
	const char *head[] = { "secret", "set", NULL };
	const char *rest[] = { "--registry", host, "--password-stdin",
	    user != NULL ? "--username" : NULL, user, NULL };

	if (value == NULL) {
		errno = EINVAL;
		return -1;
	}
	return call(pc, res, head, SBX_SPELL_FLAG, rest, value, len);
}

/* The sandbox's credential for host, removed. */
int
sbx_policycli_unsecret(struct sbx_policycli *pc, struct sbx_result *res,
    const char *host)
{
	const char *head[] = { "secret", "rm", NULL };
	const char *rest[] = { "--registry", host, "-f", NULL };

	return call(pc, res, head, SBX_SPELL_FLAG, rest, NULL, 0);
}

/* Does sbx's answer say it has no such verbs (an sbx before them)? */
int
sbx_policycli_absent(const struct sbx_result *res)
{
	return res->status != 0 && !res->timedout &&
	    (sbx_says_unknown_verb(res->err.data, "policy") ||
	    sbx_says_unknown_verb(res->err.data, "log") ||
	    sbx_says_unknown_verb(res->err.data, "secret"));
}
