/*
 * outbound.c: the sandbox's openings outward.  allow and deny add the
 * user's rules to the session's (NAME.egress) and to sbx, proven by its
 * listing; rules lists what sbx holds for the sandbox, and what of the
 * session's it lost; blocked says what sbx's log says it refused.  No
 * verb here takes a rule away: widening is the user's alone, and pi
 * gives the agent only the two listings.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxegress.h"
#include "sbxjson.h"
#include "sbxpolicy.h"
#include "sbxstate.h"
#include "sbx-ports.h"

static void
outbound_cli(const struct ctx *c, struct sbx_policycli *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->sbx = c->pc.sbx;
	pc->env = c->pc.env;
	pc->name = c->pc.name;
	pc->timeout = c->pc.timeout;
	pc->dfd = c->pc.dfd;
}

/* The operands as one rule list; exits 64 naming a bad entry. */
void
outbound_hosts(const char *verb, int argc, char **argv, struct sbx_egress *eg)
{
	char *list, why[512], var[32];
	size_t i, len = 0;

	if (argc == 0)
		errx(SBX_EX_USAGE, "%s: no host given", verb);
	for (i = 0; i < (size_t)argc; i++)
		len += strlen(argv[i]) + 1;
	if ((list = malloc(len + 1)) == NULL)
		err(SBX_EX_FAIL, NULL);
	list[0] = '\0';
	for (i = 0, len = 0; i < (size_t)argc; i++)
		len += (size_t)sprintf(list + len, "%s%s", i > 0 ? "," : "",
		    argv[i]);
	snprintf(var, sizeof(var), "sbx-ports %s", verb);
	if (sbx_egress_parse(var, list, eg, why, sizeof(why)) == -1)
		errx(SBX_EX_USAGE, "%s", why);
	free(list);
}

/* sbx's answer to a call that failed; exits 1 (68: no such sandbox). */
static void SBX_DEAD
outbound_failed(const struct ctx *c, struct sbx_result *res, const char *what)
{
	if (res->timedout)
		errx(SBX_EX_TIMEOUT, "sandbox %s: %s: timed out after %d s",
		    c->pc.name, what, c->pc.timeout);
	if (sbx_says_restart(res->err.data))
		sbx_says_restart_exit();
	if (sbx_says_notfound(res->err.data, c->pc.name))
		errx(SBX_EX_NOSANDBOX, "sandbox %s does not exist", c->pc.name);
	if (res->err.len > 0)
		(void)sbx_shown_write(STDERR_FILENO, res->err.data,
		    res->err.len);
	errx(SBX_EX_FAIL, "sandbox %s: %s failed (exit %d)", c->pc.name, what,
	    res->status);
}

static int
outbound_add(struct ctx *c, int decision, int argc, char **argv)
{
	static struct sbx_egress eg;
	const char *items[SBX_EGRESS_MAX];
	struct sbx_policycli pc;
	char why[768];
	size_t i;
	int lfd;

	outbound_hosts(decision == SBX_RULE_ALLOW ? "allow" : "deny", argc,
	    argv, &eg);
	for (i = 0; i < eg.n; i++)
		items[i] = eg.v[i].res;
	/* a provisioning puts the record in force: never meet it halfway */
	if ((lfd = sbx_lock_name(c->pc.dfd, SBX_PROVISION_LOCK, c->pc.name,
	    c->pc.timeout > 0 ? c->pc.timeout * 1000LL : -1)) == -1)
		err(errno == ETIMEDOUT ? SBX_EX_TIMEOUT : SBX_EX_FAIL, "%s/%s",
		    c->statedir, SBX_PROVISION_LOCK);
	if (sbx_egressrec_add(c->pc.dfd, c->pc.name, decision, items,
	    eg.n) == -1)
		err(SBX_EX_FAIL, "%s/%s.egress", c->statedir, c->pc.name);
	outbound_cli(c, &pc);
	if (sbx_egressapply(&pc, decision == SBX_RULE_ALLOW ? items : NULL,
	    decision == SBX_RULE_ALLOW ? eg.n : 0,
	    decision == SBX_RULE_DENY ? items : NULL,
	    decision == SBX_RULE_DENY ? eg.n : 0, SBX_APPLY_MISSING, why,
	    sizeof(why)) == -1) {
		if (errno != ENOENT)
			errx(SBX_EX_FAIL, "sandbox %s: %s", c->pc.name, why);
		warnx("sandbox %s does not exist yet: the session's rules are "
		    "put in force when it is made", c->pc.name);
	}
	close(lfd);
	return SBX_EX_OK;
}

int
outbound_allow(struct ctx *c, int argc, char **argv)
{
	return outbound_add(c, SBX_RULE_ALLOW, argc, argv);
}

int
outbound_deny(struct ctx *c, int argc, char **argv)
{
	return outbound_add(c, SBX_RULE_DENY, argc, argv);
}

static void
outbound_rule(const struct ctx *c, int decision, const char *res, int active,
    int session, int held)
{
	char shown[SBX_POLICYLOG_HOST * 4];
	const char *d = decision == SBX_RULE_ALLOW ? "allow" : "deny";

	if (c->jflag) {
		printf("{\"decision\":\"%s\",\"resource\":", d);
		sbx_jsonout_puts(stdout, res);
		printf(",\"active\":%s,\"session\":%s,\"held\":%s}\n",
		    active ? "true" : "false", session ? "true" : "false",
		    held ? "true" : "false");
		return;
	}
	printf("%s %s%s%s\n", d, sbx_shown(res, shown, sizeof(shown)),
	    !held ? " (lost: sbx no longer holds it)" :
	    !active ? " (inactive)" : "", session && held ? " (session)" : "");
}

/* What sbx holds for the sandbox, and what of the session's it lost. */
int
outbound_rules(struct ctx *c, int argc, char **argv)
{
	struct sbx_policycli pc;
	struct sbx_result res;
	struct sbx_rules l, rec;
	const char *errstr;
	size_t i;

	(void)argc;
	(void)argv;
	outbound_cli(c, &pc);
	if (sbx_egressrec_read(c->pc.dfd, c->pc.name, &rec) == -1)
		err(SBX_EX_FAIL, "%s/%s.egress", c->statedir, c->pc.name);
	if (sbx_policycli_ls(&pc, &res) == -1)
		err(sbx_spawn_exec_status(errno), "%s", pc.sbx);
	if (res.status != 0 || res.timedout)
		outbound_failed(c, &res, "sbx policy ls");
	if (sbx_policyls_parse(res.out.data != NULL ? res.out.data : "",
	    res.out.len, c->pc.name, &l, &errstr) == -1) {
		sbx_unplaced(&res, pc.sbx, pc.env, pc.dfd, "sbx policy ls");
		errx(SBX_EX_FAIL, "sandbox %s: sbx policy ls: %s", c->pc.name,
		    errstr);
	}
	for (i = 0; i < l.n; i++)
		outbound_rule(c, l.v[i].decision, l.v[i].res, l.v[i].active,
		    sbx_policyls_has(&rec, l.v[i].decision, l.v[i].res) != 0,
		    1);
	for (i = 0; i < rec.n; i++)
		if (rec.v[i].decision != SBX_RULE_REGISTRY &&
		    sbx_policyls_has(&l, rec.v[i].decision, rec.v[i].res) == 0)
			outbound_rule(c, rec.v[i].decision, rec.v[i].res, 0, 1,
			    0);
	sbx_policyls_free(&l);
	sbx_policyls_free(&rec);
	sbx_supervise_result_free(&res);
	return SBX_EX_OK;
}

/* The hosts sbx's log says it blocked for the sandbox. */
int
outbound_blocked(struct ctx *c, int argc, char **argv)
{
	struct sbx_policycli pc;
	struct sbx_result res;
	struct sbx_denials d;
	const char *errstr;
	char when[32];
	struct tm tm;
	time_t t;
	size_t i;

	(void)argc;
	(void)argv;
	outbound_cli(c, &pc);
	if (sbx_policycli_log(&pc, &res) == -1)
		err(sbx_spawn_exec_status(errno), "%s", pc.sbx);
	if (res.status != 0 || res.timedout)
		outbound_failed(c, &res, "sbx policy log");
	if (sbx_policylog_parse(res.out.data != NULL ? res.out.data : "",
	    res.out.len, c->pc.name, 0, &d, &errstr) == -1) {
		sbx_unplaced(&res, pc.sbx, pc.env, pc.dfd, "sbx policy log");
		errx(SBX_EX_FAIL, "sandbox %s: sbx policy log: %s", c->pc.name,
		    errstr);
	}
	for (i = 0; i < d.n; i++) {
		when[0] = '\0';
		t = (time_t)d.v[i].last_seen;
		if (d.v[i].last_seen >= 0 && gmtime_r(&t, &tm) != NULL)
			(void)strftime(when, sizeof(when),
			    "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (c->jflag) {
			printf("{\"host\":");
			sbx_jsonout_puts(stdout, d.v[i].host);
			printf(",\"reason\":");
			sbx_jsonout_puts(stdout, d.v[i].reason);
			printf(",\"count\":%ld,\"last_seen\":", d.v[i].count);
			if (when[0] != '\0')
				sbx_jsonout_puts(stdout, when);
			else
				printf("null");
			printf("}\n");
		} else
			printf("%s: %s (%ld time%s%s%s)\n", d.v[i].host,
			    d.v[i].reason, d.v[i].count, d.v[i].count == 1 ?
			    "" : "s", when[0] != '\0' ? ", last " : "", when);
	}
	if (d.more > 0 && !c->jflag)
		printf("... and %zu more\n", d.more);
	sbx_policylog_free(&d);
	sbx_supervise_result_free(&res);
	return SBX_EX_OK;
}
