/*
 * outward.c: what the session's sandbox may reach.  At provisioning,
 * under the lock and before the sandbox is ready: the session's rules
 * (DOCKER_SANDBOX_EGRESS_ALLOW, _DENY) in force and its registry
 * credentials handed to sbx for it alone.  After a call that failed:
 * the hosts sbx blocked meanwhile, named, and the session's own allow
 * rules put back when sbx dropped them at a stop.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxconf.h"
#include "sbxegress.h"
#include "sbxpolicy.h"
#include "sbxregauth.h"
#include "sbxstate.h"
#include "sbx-run.h"

extern char **environ;

static void
outward_cli(const struct request *r, int dfd, struct sbx_policycli *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->sbx = r->sbx;
	pc->env = r->env;
	pc->name = r->name;
	pc->timeout = r->calltimeout;
	pc->dfd = dfd;
}

/* One setting's rules: recorded in NAME.egress, listed in items. */
static int
rules(const struct request *r, int dfd, unsigned conf, const char *var,
    int kind, struct sbx_egress *eg, const char **items, char *why,
    size_t size)
{
	const char *list = sbx_xconf_str(conf);
	size_t i;

	eg->n = 0;
	if (list == NULL || *list == '\0')
		return 0;
	if (sbx_egress_parse(var, list, eg, why, size) == -1)
		return -1;	/* sbx_xconf_check refused it already */
	for (i = 0; i < eg->n; i++)
		items[i] = eg->v[i].res;
	if (sbx_egressrec_add(dfd, r->name, kind, items, eg->n) == -1) {
		snprintf(why, size, "%s.egress: %s", r->name, strerror(errno));
		return -1;
	}
	return 0;
}

static int
credentials(const struct request *r, int dfd, struct sbx_policycli *pc,
    char *why, size_t size)
{
	static struct sbx_regauth ra;
	struct sbx_result res;
	struct sbx_buf v;
	const char *list = sbx_xconf_str(SBX_CONF_REGISTRY_AUTH), *host;
	size_t i;
	int rv;

	if (list == NULL || *list == '\0')
		return 0;
	if (sbx_regauth_parse("DOCKER_SANDBOX_REGISTRY_AUTH", list, &ra, why,
	    size) == -1)
		return -1;
	for (i = 0; i < ra.n; i++) {
		host = ra.v[i].host;
		if (sbx_egressrec_add(dfd, r->name, SBX_RULE_REGISTRY, &host,
		    1) == -1) {
			snprintf(why, size, "%s.egress: %s", r->name,
			    strerror(errno));
			return -1;
		}
		memset(&v, 0, sizeof(v));
		if (sbx_regauth_read(&ra.v[i], environ, &v, why, size) == -1)
			return -1;
		rv = sbx_policycli_secret(pc, &res, host, ra.v[i].user[0] !=
		    '\0' ? ra.v[i].user : NULL, v.data, v.len);
		sbx_regauth_free(&v);
		if (rv == -1) {
			snprintf(why, size, "%s: %s", r->sbx, strerror(errno));
			return -1;
		}
		rv = res.status != 0 || res.timedout;
		if (rv)
			snprintf(why, size, "registry %s: sbx secret set "
			    "exited %d", host, res.status);
		sbx_supervise_result_free(&res);
		if (rv)
			return -1;
	}
	return 0;
}

/*
 * The session's rules and credentials for the sandbox just made: 0, or
 * -1 with why (the sandbox must not be called ready).
 */
int
outward_setup(const struct request *r, int dfd, char *why, size_t size)
{
	static const char *items[SBX_EGRESS_MAX];
	static struct sbx_egress eg;
	struct sbx_policycli pc;

	outward_cli(r, dfd, &pc);
	/* the settings' rules join any the user added before (sbx-ports) */
	if (rules(r, dfd, SBX_CONF_EGRESS_ALLOW, "DOCKER_SANDBOX_EGRESS_ALLOW",
	    SBX_RULE_ALLOW, &eg, items, why, size) == -1 ||
	    rules(r, dfd, SBX_CONF_EGRESS_DENY, "DOCKER_SANDBOX_EGRESS_DENY",
	    SBX_RULE_DENY, &eg, items, why, size) == -1 ||
	    sbx_egressapply_record(&pc, dfd, 0, why, size) == -1)
		return -1;
	return credentials(r, dfd, &pc, why, size);
}

/* Is host one the session's allow rules cover? */
static int
session_allows(const struct sbx_rules *rec, const char *host)
{
	static struct sbx_egress eg;
	char why[256];
	size_t i;

	for (i = 0; i < rec->n; i++) {
		if (rec->v[i].decision != SBX_RULE_ALLOW)
			continue;
		if (sbx_egress_parse("NAME.egress", rec->v[i].res, &eg, why,
		    sizeof(why)) == 0 && sbx_egress_match(&eg, host) != -1)
			return 1;
	}
	return 0;
}

/*
 * After a call that failed: one `sbx policy log`, each host sbx blocked
 * since `since` named on stderr (and in blocked, "a,b", for the journal;
 * in notes, a line "blocked HOST REASON" each, for -O), the session's
 * allow rules put back when one of them was refused ("reapplied").
 */
void
outward_denials(const struct request *r, long long since, char *blocked,
    size_t bsize, struct sbx_buf *notes)
{
	struct sbx_policycli pc;
	struct sbx_result res;
	struct sbx_denials d;
	struct sbx_rules rec;
	char dir[4096], why[512];
	const char *errstr;
	size_t i, bl = 0;
	int dfd, lost = 0;

	blocked[0] = '\0';
	if ((dfd = sbx_xstatedir_open(dir, sizeof(dir))) == -1)
		return;
	outward_cli(r, dfd, &pc);
	if (sbx_policycli_log(&pc, &res) == -1) {
		close(dfd);
		return;
	}
	if (sbx_policycli_absent(&res))
		goto out;	/* an sbx without a policy log: nothing to say */
	if (res.status != 0 || res.timedout) {
		warnx("sandbox %s: sbx policy log exited %d; the hosts sbx "
		    "blocked are not known", r->name, res.status);
		goto out;
	}
	if (sbx_policylog_parse(res.out.data != NULL ? res.out.data : "",
	    res.out.len, r->name, since, &d, &errstr) == -1) {
		warnx("sandbox %s: sbx policy log: %s; the hosts sbx blocked "
		    "are not known", r->name, errstr);
		goto out;
	}
	if (sbx_egressrec_read(dfd, r->name, &rec) == -1)
		memset(&rec, 0, sizeof(rec));
	for (i = 0; i < d.n; i++) {
		warnx("sandbox %s: sbx blocked %s: %s", r->name, d.v[i].host,
		    d.v[i].reason);
		(void)(sbx_io_buf_add(notes, "blocked ", 8) == -1 ||
		    sbx_io_buf_add(notes, d.v[i].host, strlen(d.v[i].host)) ==
		    -1 || sbx_io_buf_add(notes, " ", 1) == -1 ||
		    sbx_io_buf_add(notes, d.v[i].reason, strlen(d.v[i].reason))
		    == -1 || sbx_io_buf_add(notes, "\n", 1) == -1);
		if (bl + strlen(d.v[i].host) + 2 < bsize) {
			bl += (size_t)snprintf(blocked + bl, bsize - bl, "%s%s",
			    bl > 0 ? "," : "", d.v[i].host);
		}
		if (!lost && session_allows(&rec, d.v[i].host))
			lost = 1;
	}
	sbx_policylog_free(&d);
	sbx_policyls_free(&rec);
	if (lost) {
		if (sbx_egressapply_record(&pc, dfd, SBX_APPLY_MISSING, why,
		    sizeof(why)) == 0) {
			warnx("sandbox %s: the session's network rules were "
			    "lost (sbx drops them when the sandbox stops); "
			    "re-applied: run it again", r->name);
			(void)sbx_io_buf_add(notes, "reapplied\n", 10);
		}
		else
			warnx("sandbox %s: the session's network rules were "
			    "lost and could not be put back: %s", r->name, why);
	}
out:
	sbx_supervise_result_free(&res);
	close(dfd);
}
