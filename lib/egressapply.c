/*
 * egressapply.c: the session's network rules put in force, and proven:
 * one sbx call per decision with every resource of it, then sbx's own
 * listing must show each rule for the sandbox, active.  A rule sbx does
 * not hold (an organisation's policy voids local allows, say) is a
 * failure: the sandbox is not ready without it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxpolicy.h"

#define JOINED_MAX	(64 * 272)

static const char *
decision_word(int d)
{
	return d == SBX_RULE_ALLOW ? "allow" : "deny";
}

/*
 * sbx's first line of stderr (else stdout) into why; errno ENOENT when
 * sbx says the sandbox does not exist, EIO otherwise.
 */
static void
said(const struct sbx_policycli *pc, const struct sbx_result *res,
    const char *what, char *why, size_t size)
{
	char line[256], shown[512];
	const char *t = res->err.len > 0 ? res->err.data : res->out.data;
	size_t n = 0;

	if (t != NULL)
		while (t[n] != '\0' && t[n] != '\n' && n < sizeof(line) - 1)
			n++;
	memcpy(line, t != NULL ? t : "", n);
	line[n] = '\0';
	errno = EIO;
	if (res->timedout)
		snprintf(why, size, "%s: timed out", what);
	else if (sbx_says_notfound(res->err.data, pc->name)) {
		snprintf(why, size, "sandbox %s does not exist", pc->name);
		errno = ENOENT;
	} else
		snprintf(why, size, "%s: sbx exited %d%s%s", what, res->status,
		    n > 0 ? ": " : "", sbx_shown(line, shown, sizeof(shown)));
}

static int
joined(const char *const *items, size_t n, char *buf, size_t size)
{
	size_t i, len = 0, l;

	for (i = 0; i < n; i++) {
		l = strlen(items[i]);
		if (len + l + 2 > size)
			return -1;
		if (i > 0)
			buf[len++] = ',';
		memcpy(buf + len, items[i], l);
		len += l;
	}
	buf[len] = '\0';
	return 0;
}

static int
put(struct sbx_policycli *pc, int d, const char *const *items, size_t n,
    char *why, size_t size)
{
	struct sbx_result res;
	char *buf, what[64];
	int r;

	if (n == 0)
		return 0;
	if ((buf = malloc(JOINED_MAX)) == NULL || joined(items, n, buf,
	    JOINED_MAX) == -1) {
		snprintf(why, size, "%s rules: %s", decision_word(d),
		    strerror(buf == NULL ? ENOMEM : E2BIG));
		free(buf);
		return -1;
	}
	snprintf(what, sizeof(what), "sbx policy %s network", decision_word(d));
	r = sbx_policycli_rule(pc, &res, decision_word(d), buf);
	free(buf);
	if (r == -1) {
		snprintf(why, size, "%s: %s", pc->sbx, strerror(errno));
		return -1;
	}
	if (res.status != 0 || res.timedout) {
		said(pc, &res, what, why, size);
		sbx_supervise_result_free(&res);
		return -1;
	}
	sbx_supervise_result_free(&res);
	return 0;
}

/* Does sbx list every one of items with decision d, active? */
static int
held(const struct sbx_rules *l, int d, const char *const *items, size_t n,
    char *why, size_t size)
{
	size_t i;
	int h;

	for (i = 0; i < n; i++)
		if ((h = sbx_policyls_has(l, d, items[i])) != 1) {
			snprintf(why, size, "sbx %s the rule %s %s: %s",
			    h == -1 ? "holds as inactive" : "does not list",
			    decision_word(d), items[i], h == -1 ?
			    "an organisation's policy may void local rules" :
			    "it cannot hold it");
			return -1;
		}
	return 0;
}

/* sbx's listing of the sandbox's rules into l; -1 with why. */
static int
listed(struct sbx_policycli *pc, struct sbx_rules *l, char *why, size_t size)
{
	struct sbx_result res;
	const char *errstr;
	int r;

	if (sbx_policycli_ls(pc, &res) == -1) {
		snprintf(why, size, "%s: %s", pc->sbx, strerror(errno));
		return -1;
	}
	if (res.status != 0 || res.timedout) {
		said(pc, &res, "sbx policy ls", why, size);
		sbx_supervise_result_free(&res);
		return -1;
	}
	r = sbx_policyls_parse(res.out.data != NULL ? res.out.data : "",
	    res.out.len, pc->name, l, &errstr);
	sbx_supervise_result_free(&res);
	if (r == -1)
		snprintf(why, size, "sbx policy ls: %s", errstr);
	return r;
}

/* Those of items sbx does not hold active with decision d, into out. */
static size_t
missing(const struct sbx_rules *l, int d, const char *const *items, size_t n,
    const char **out)
{
	size_t i, m = 0;

	for (i = 0; i < n; i++)
		if (sbx_policyls_has(l, d, items[i]) != 1)
			out[m++] = items[i];
	return m;
}

/*
 * The allow and deny items in force for pc's sandbox: 0, or -1 with why.
 * One sbx call per decision given and one listing; with SBX_APPLY_MISSING
 * a listing first, and only what it lacks is added (one listing when
 * nothing is).
 */
int
sbx_egressapply(struct sbx_policycli *pc, const char *const *allow,
    size_t nallow, const char *const *deny, size_t ndeny, int flags,
    char *why, size_t size)
{
	struct sbx_rules l;
	const char **ma = NULL, **md = NULL;
	size_t na = nallow, nd = ndeny;
	int r = -1;

	if (nallow + ndeny == 0)
		return 0;
	if (flags & SBX_APPLY_MISSING) {
		if (listed(pc, &l, why, size) == -1)
			return -1;
		ma = calloc(nallow + 1, sizeof(*ma));
		md = calloc(ndeny + 1, sizeof(*md));
		if (ma == NULL || md == NULL) {
			snprintf(why, size, "%s", strerror(ENOMEM));
			sbx_policyls_free(&l);
			goto out;
		}
		na = missing(&l, SBX_RULE_ALLOW, allow, nallow, ma);
		nd = missing(&l, SBX_RULE_DENY, deny, ndeny, md);
		sbx_policyls_free(&l);
		if (na + nd == 0) {
			r = 0;
			goto out;
		}
		allow = ma;
		deny = md;
	}
	/* denials first: for a moment the sandbox has less, never more */
	if (put(pc, SBX_RULE_DENY, deny, nd, why, size) == -1 ||
	    put(pc, SBX_RULE_ALLOW, allow, na, why, size) == -1 ||
	    listed(pc, &l, why, size) == -1)
		goto out;
	r = held(&l, SBX_RULE_DENY, deny, nd, why, size) == -1 ||
	    held(&l, SBX_RULE_ALLOW, allow, na, why, size) == -1 ? -1 : 0;
	sbx_policyls_free(&l);
out:
	free(ma);
	free(md);
	return r;
}

/* The rules NAME.egress records in force (flags: as sbx_egressapply). */
int
sbx_egressapply_record(struct sbx_policycli *pc, int dfd, int flags,
    char *why, size_t size)
{
	struct sbx_rules rec;
	const char **allow, **deny;
	size_t i, na = 0, nd = 0;
	int r;

	if (sbx_egressrec_read(dfd, pc->name, &rec) == -1) {
		snprintf(why, size, "%s.egress: %s", pc->name, strerror(errno));
		return -1;
	}
	allow = calloc(rec.n + 1, sizeof(*allow));
	deny = calloc(rec.n + 1, sizeof(*deny));
	if (allow == NULL || deny == NULL) {
		snprintf(why, size, "%s", strerror(ENOMEM));
		r = -1;
		goto out;
	}
	for (i = 0; i < rec.n; i++)
		if (rec.v[i].decision == SBX_RULE_ALLOW)
			allow[na++] = rec.v[i].res;
		else if (rec.v[i].decision == SBX_RULE_DENY)
			deny[nd++] = rec.v[i].res;
	r = sbx_egressapply(pc, allow, na, deny, nd, flags, why, size);
out:
	free(allow);
	free(deny);
	sbx_policyls_free(&rec);
	return r;
}

/* A removal's answer: 0 done (or nothing left to remove), -1 with why. */
static int
removed(struct sbx_policycli *pc, struct sbx_result *res, const char *what,
    char *why, size_t size)
{
	int r = 0;

	if ((res->status != 0 || res->timedout) && (res->timedout ||
	    (!sbx_says_notfound(res->err.data, pc->name) &&
	    !sbx_says_nomatch(res->err.data)))) {
		said(pc, res, what, why, size);
		r = -1;
	}
	sbx_supervise_result_free(res);
	return r;
}

/*
 * What NAME.egress records, removed from sbx: the session's rules in one
 * call, then each registry credential.  0 when all went (sbx no longer
 * knowing the sandbox counts), or -1 with why.
 */
int
sbx_egressapply_remove(struct sbx_policycli *pc, int dfd, char *why,
    size_t size)
{
	struct sbx_result res;
	struct sbx_rules rec;
	const char **items;
	char *buf = NULL;
	size_t i, n = 0;
	int r = 0;

	if (sbx_egressrec_read(dfd, pc->name, &rec) == -1) {
		snprintf(why, size, "%s.egress: %s", pc->name, strerror(errno));
		return -1;
	}
	if ((items = calloc(rec.n + 1, sizeof(*items))) == NULL ||
	    (buf = malloc(JOINED_MAX)) == NULL) {
		snprintf(why, size, "%s", strerror(ENOMEM));
		r = -1;
		goto out;
	}
	for (i = 0; i < rec.n; i++)
		if (rec.v[i].decision != SBX_RULE_REGISTRY)
			items[n++] = rec.v[i].res;
	if (n > 0 && joined(items, n, buf, JOINED_MAX) == 0) {
		if (sbx_policycli_unrule(pc, &res, buf) == -1) {
			snprintf(why, size, "%s: %s", pc->sbx, strerror(errno));
			r = -1;
		} else if (removed(pc, &res, "sbx policy rm network", why,
		    size) == -1)
			r = -1;
	}
	for (i = 0; i < rec.n; i++) {
		if (rec.v[i].decision != SBX_RULE_REGISTRY)
			continue;
		if (sbx_policycli_unsecret(pc, &res, rec.v[i].res) == -1) {
			snprintf(why, size, "%s: %s", pc->sbx, strerror(errno));
			r = -1;
		} else if (removed(pc, &res, "sbx secret rm", why, size) == -1)
			r = -1;
	}
out:
	free(buf);
	free(items);
	sbx_policyls_free(&rec);
	return r;
}
