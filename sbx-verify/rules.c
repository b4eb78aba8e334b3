/*
 * rules.c: the session's network rules as sbx holds them.  Each rule of
 * NAME.egress is asked of sbx with `policy check network` on a host it
 * covers, the answer read for its meaning: a deny rule's host denied, an
 * allow rule's allowed.  Deny rules go first, as one sbx lost fails open;
 * of RULES_ASKED at most, a deny rule left unasked FAILs, an allow rule
 * (which fails closed) is named.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxegress.h"
#include "sbxpolicy.h"
#include "result.h"
#include "audit.h"

#define RULES_ASKED	16	/* sbx calls of one audit at most */
#define LIST_MAX	640	/* the rules named; the rest is cut */
#define TARGET_MAX	(SBX_EGRESS_NAMEMAX + 16)
#define LABEL		"sbxv."	/* what stands for a wildcard's label */

static const char *const word[] = { "", "allow", "deny" };

/* The one rule of res into e; -1 when it is none (a record edited). */
static int
rule(const char *res, struct sbx_egress *e)
{
	char why[256];

	return sbx_egress_parse("NAME.egress", res, e, why, sizeof(why)) ==
	    -1 || e->n != 1 ? -1 : 0;
}

/*
 * A target the rule covers, as `policy check` takes it: the host (some
 * label under *., two under **.) or a prefix's first address, with the
 * rule's port or 443.  0, or -1 when it makes no host.
 */
static int
target(const struct sbx_egress_rule *r, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];
	int port = r->port != 0 ? r->port : 443, n;

	switch (r->kind) {
	case SBX_EGRESS_IP4:
	case SBX_EGRESS_IP6:
		if (inet_ntop(r->kind == SBX_EGRESS_IP4 ? AF_INET : AF_INET6,
		    r->addr, a, sizeof(a)) == NULL)
			return -1;
		n = snprintf(buf, size, r->kind == SBX_EGRESS_IP4 ? "%s:%d" :
		    "[%s]:%d", a, port);
		break;
	default:
		n = snprintf(buf, size, "%s%s%.*s:%d", r->kind ==
		    SBX_EGRESS_NAME ? "" : LABEL, r->kind == SBX_EGRESS_ANY ?
		    LABEL : "", (int)r->hostlen, r->res + r->host, port);
		if (n > 0 && strchr(buf, ':') - buf > SBX_EGRESS_NAMEMAX)
			return -1;
	}
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* sbx's first line of an answer it gave no reading of, for the evidence. */
static const char *
firstline(const struct sbx_result *res, char *buf, size_t size)
{
	char line[96];
	const char *t = res->err.len > 0 ? res->err.data : res->out.data;
	size_t n;

	if (res->timedout)
		return "timed out";
	n = t != NULL ? strcspn(t, "\n") : 0;
	snprintf(line, sizeof(line), "%.*s", (int)n, t != NULL ? t : "");
	snprintf(buf, size, "exit %d%s", res->status, n > 0 ? ": " : "");
	sbx_shown(line, buf + strlen(buf), size - strlen(buf));
	return buf;
}

struct tally {
	int	 held[3], unasked[3], covered, asked;
	char	 bad[LIST_MAX];
};

/*
 * Ask sbx about one rule.  want: 1 allowed, 0 denied.  -1 when sbx could
 * not be run (errno).
 */
static int
ask(struct sbx_policycli *pc, struct tally *t, int d, const char *res,
    const char *tgt, int want)
{
	struct sbx_result c;
	char said[256];
	int got;

	if (t->asked == RULES_ASKED) {
		t->unasked[d]++;
		return 0;
	}
	if (sbx_policycli_check(pc, &c, tgt) == -1)
		return -1;
	t->asked++;
	got = sbx_says_checked(c.out.data, c.err.data);
	if (got == want)
		t->held[d]++;
	else if (got == -1)
		result_append(t->bad, sizeof(t->bad), "%s %s (asked %s: no "
		    "answer read, %s)", word[d], res, tgt, firstline(&c, said,
		    sizeof(said)));
	else
		result_append(t->bad, sizeof(t->bad), "%s %s (sbx says %s is "
		    "%s)", word[d], res, tgt, got ? "allowed" : "denied");
	sbx_supervise_result_free(&c);
	return 0;
}

/* The session's deny rules, those that parse, for the allows they cover. */
static void
denials(const struct sbx_rules *rec, struct sbx_egress *deny,
    struct sbx_egress *one)
{
	size_t i;

	deny->n = 0;
	for (i = 0; i < rec->n && deny->n < SBX_EGRESS_MAX; i++)
		if (rec->v[i].decision == SBX_RULE_DENY &&
		    rule(rec->v[i].res, one) == 0)
			deny->v[deny->n++] = one->v[0];
}

static void
verdict(const struct tally *t, struct result *r)
{
	char more[256];

	more[0] = '\0';
	if (t->unasked[SBX_RULE_ALLOW] > 0)
		result_append(more, sizeof(more), "%d allow rule%s not asked "
		    "(%d asked at most; an allow sbx lost fails closed)",
		    t->unasked[SBX_RULE_ALLOW], t->unasked[SBX_RULE_ALLOW] ==
		    1 ? "" : "s", RULES_ASKED);
	if (t->covered > 0)
		result_append(more, sizeof(more), "%d allow rule%s not asked "
		    "(a deny rule of the session covers %s)", t->covered,
		    t->covered == 1 ? "" : "s", t->covered == 1 ? "it" :
		    "them");
	if (t->bad[0] != '\0')
		result_say(r, FAIL, "sbx does not hold: %s; %d held%s%s",
		    t->bad, t->held[1] + t->held[2], more[0] ? "; " : "",
		    more);
	else if (t->unasked[SBX_RULE_DENY] > 0)
		result_say(r, FAIL, "%d deny rule%s not asked: %d are asked "
		    "at most, and a deny rule sbx lost would fail open; %d "
		    "held", t->unasked[SBX_RULE_DENY],
		    t->unasked[SBX_RULE_DENY] == 1 ? "" : "s", RULES_ASKED,
		    t->held[1] + t->held[2]);
	else
		result_say(r, PASS, "%d rule%s held (%d deny, %d allow), each "
		    "asked of sbx with policy check on a host it covers%s%s",
		    t->held[1] + t->held[2], t->held[1] + t->held[2] == 1 ?
		    "" : "s", t->held[SBX_RULE_DENY], t->held[SBX_RULE_ALLOW],
		    more[0] ? "; " : "", more);
}

/*
 * The check, its sbx calls made now (counted in a->calls) and its
 * verdict kept in a->rules for rules_judge.  No call without rules.
 */
void
rules_ask(struct audit *a, char **env)
{
	static struct sbx_egress deny, one;
	struct sbx_policycli pc;
	struct sbx_rules rec;
	struct tally t;
	char tgt[TARGET_MAX];
	size_t i, n = 0;
	int d, want;

	if (sbx_egressrec_read(a->dfd, a->name, &rec) == -1) {
		result_say(&a->rules, FAIL, "%s/%s.egress cannot be read: %s",
		    a->statedir, a->name, strerror(errno));
		return;
	}
	for (i = 0; i < rec.n; i++)
		n += rec.v[i].decision != SBX_RULE_REGISTRY;
	if (n == 0) {
		result_say(&a->rules, PASS, "no rules of the session");
		sbx_policyls_free(&rec);
		return;
	}
	memset(&t, 0, sizeof(t));
	memset(&pc, 0, sizeof(pc));
	pc.sbx = a->sbx;
	pc.env = env;
	pc.name = a->name;
	pc.timeout = sbx_xconf_timeout();
	pc.dfd = a->dfd;
	denials(&rec, &deny, &one);
	for (d = SBX_RULE_DENY; d >= SBX_RULE_ALLOW; d--)
		for (i = 0; i < rec.n; i++) {
			if (rec.v[i].decision != d)
				continue;
			if (rule(rec.v[i].res, &one) == -1 ||
			    target(&one.v[0], tgt, sizeof(tgt)) == -1) {
				result_append(t.bad, sizeof(t.bad), "%s %s (no "
				    "host it covers could be made)", word[d],
				    rec.v[i].res);
				continue;
			}
			want = d == SBX_RULE_ALLOW;
			if (want && sbx_egress_match(&deny, tgt) != -1) {
				t.covered++;
				continue;
			}
			if (ask(&pc, &t, d, rec.v[i].res, tgt, want) == -1) {
				result_say(&a->rules, FAIL, "%s: %s", a->sbx,
				    strerror(errno));
				goto out;
			}
		}
	verdict(&t, &a->rules);
out:
	a->calls += pc.calls;
	sbx_policyls_free(&rec);
}

void
rules_judge(const struct audit *a, struct result *r)
{
	r->verdict = a->rules.verdict;
	memcpy(r->evidence, a->rules.evidence, sizeof(r->evidence));
}
