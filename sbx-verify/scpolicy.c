/*
 * scpolicy.c: the self-check of sbx's network policy and registry
 * credentials, through lib/policycli.c as the programs call them: an
 * allow and a deny put in force and judged by `policy check`, their fate
 * at a stop, the log's envelope, a credential scoped to the sandbox.
 * What they add goes at the end, whatever failed (sc_policy_end); never
 * `sbx policy reset`, which stops every sandbox.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxpolicy.h"
#include "sbxstamp.h"
#include "result.h"
#include "selfcheck.h"

#define ALLOW		"**.selfcheck.invalid"
#define DENY		"denied.selfcheck.invalid"
#define ALLOWED		"allowed.selfcheck.invalid:443"
#define DENIED		"denied.selfcheck.invalid:443"	/* under ALLOW too */
#define REGISTRY	"selfcheck.invalid"

static const char *const spelled[] = { "?", "--sandbox NAME", "NAME" };

/* Does s[0..n) hold w? */
static int
has(const char *s, size_t n, const char *w)
{
	size_t i, wl = strlen(w);

	for (i = 0; s != NULL && i + wl <= n; i++)
		if (memcmp(s + i, w, wl) == 0)
			return 1;
	return 0;
}

/* A policycli for the self-check's sandbox, its own cache for spellings. */
static void
cli(struct sc *sc, struct sbx_policycli *pc)
{
	memset(pc, 0, sizeof(*pc));
	pc->sbx = sc->sbx;
	pc->env = sc->env;
	pc->name = sc->name;
	pc->timeout = sc->timeout;
	pc->dfd = sc->cdfd;
}

/* After a policycli call: counted, looked at as sc_sbx looks at a call. */
static void
counted(struct sc *sc, struct sbx_policycli *pc, int *before,
    const struct sbx_result *c)
{
	sc_after(sc, pc->calls - *before, c != NULL ? c->status : 0,
	    c != NULL ? c->err.data : "");
	if (c != NULL)
		sc_place(sc, c->status, &c->out, &c->err, 0);
	*before = pc->calls;
}

/* `policy check` of target: 1 allowed, 0 denied, -1 neither (said). */
static int
check(struct sc *sc, const char *target, char *said, size_t size)
{
	struct sbx_policycli pc;
	struct sbx_result c;
	int before = 0, got;

	cli(sc, &pc);
	if (sbx_policycli_check(&pc, &c, target) == -1) {
		snprintf(said, size, "%s", strerror(errno));
		return -1;
	}
	counted(sc, &pc, &before, &c);
	got = sbx_says_checked(c.out.data, c.err.data);
	sc_heard(&c, said, size);
	return got;
}

int
sc_policy_rules(struct sc *sc)
{
	const char *allow[] = { ALLOW }, *deny[] = { DENY };
	struct sbx_policycli pc;
	char why[1024], said[2][1024], *av[SBX_HOLD_ARGC];
	int before = 0, a, d, r;
	pid_t hold;

	cli(sc, &pc);
	sc->ruled = 1;
	/*
	 * Held up as a session's keepalive holds it: an idle stop in between
	 * would drop the rules before policy check judges them.
	 */
	hold = sc_spawn(sc, sbx_hold_argv(av, sc->sbx, sc->name));
	r = sbx_egressapply(&pc, allow, 1, deny, 1, 0, why, sizeof(why));
	counted(sc, &pc, &before, NULL);
	if (r == -1) {
		if (hold != -1)
			sc_unspawn(hold, 0);
		sc_say(sc, SC_RULES, FAIL, "a per-sandbox allow %s and deny %s, "
		    "as sbx-run puts a session's in force: %s", ALLOW, DENY,
		    why);
		return 0;
	}
	sc->held = 1;
	a = check(sc, ALLOWED, said[0], sizeof(said[0]));
	d = check(sc, DENIED, said[1], sizeof(said[1]));
	if (hold != -1)
		sc_unspawn(hold, 0);
	if (a == 1 && d == 0)
		sc_say(sc, SC_RULES, PASS, "a per-sandbox allow %s and deny %s "
		    "put in force (%s), listed active; policy check says %s "
		    "allowed and %s denied (the deny beats the allow): %s; %s",
		    ALLOW, DENY, spelled[pc.spelling], ALLOWED, DENIED,
		    said[0], said[1]);
	else
		sc_say(sc, SC_RULES, FAIL, "a per-sandbox allow %s and deny %s "
		    "listed active, but policy check says %s %s and %s %s "
		    "(sbx-verify's audit reads it so): %s; %s", ALLOW, DENY,
		    ALLOWED, a == 1 ? "allowed" : a == 0 ? "denied" :
		    "neither allowed nor denied", DENIED, d == 1 ? "allowed" :
		    d == 0 ? "denied" : "neither allowed nor denied", said[0],
		    said[1]);
	return 0;
}

/*
 * After the stop of stopped-ports: does sbx still list the rules?  The
 * programs assume they may be lost (the watcher puts them back), so
 * either answer passes; a listing that cannot be read fails.
 */
int
sc_policy_kept(struct sc *sc)
{
	struct sbx_policycli pc;
	struct sbx_result c;
	struct sbx_rules l;
	const char *errstr = NULL;
	char said[1024];
	int before = 0, a, d, r = -1;

	if (!sc->held) {
		sc_say(sc, SC_KEPT, SKIP, "no rules were put in force");
		return 0;
	}
	if (!sc->stopped) {
		sc_say(sc, SC_KEPT, SKIP, "the sandbox was not seen stopped");
		return 0;
	}
	cli(sc, &pc);
	if (sbx_policycli_ls(&pc, &c) == -1) {
		sc_say(sc, SC_KEPT, FAIL, "sbx: %s", strerror(errno));
		return 0;
	}
	counted(sc, &pc, &before, &c);
	memset(&l, 0, sizeof(l));
	if (c.status == 0 && !c.timedout)
		r = sbx_policyls_parse(c.out.data != NULL ? c.out.data : "",
		    c.out.len, sc->name, &l, &errstr);
	sc_heard(&c, said, sizeof(said));
	if (r == -1) {
		sc_say(sc, SC_KEPT, FAIL, "after a stop, policy ls %s --json "
		    "cannot be read (sbx-ports rules and the watcher read it): "
		    "%s%s%s", sc->name, errstr != NULL ? errstr : "",
		    errstr != NULL ? ": " : "", said);
		return 0;
	}
	a = sbx_policyls_has(&l, SBX_RULE_ALLOW, ALLOW) == 1;
	d = sbx_policyls_has(&l, SBX_RULE_DENY, DENY) == 1;
	sbx_policyls_free(&l);
	if (!a && !d)
		sc->ruled = 0;	/* nothing left to remove */
	if (a && d)
		sc_say(sc, SC_KEPT, PASS, "kept over a stop: policy ls still "
		    "lists the allow and the deny active");
	else if (!a && !d)
		sc_say(sc, SC_KEPT, PASS, "lost at a stop, as the tools "
		    "expect: the watcher puts them back (policy ls lists "
		    "neither)");
	else
		sc_say(sc, SC_KEPT, PASS, "partly lost at a stop: the %s is "
		    "listed, the %s is not; the tools expect losses: the "
		    "watcher puts them back", a ? "allow" : "deny", a ? "deny" :
		    "allow");
	return 0;
}

/* One `policy log NAME --json`, read as sbx-run reads it after a call. */
int
sc_policy_log(struct sc *sc)
{
	struct sbx_policycli pc;
	struct sbx_result c;
	struct sbx_denials dl;
	const char *why = NULL;
	char said[1024];
	int before = 0, ok, r = -1;

	cli(sc, &pc);
	if (sbx_policycli_log(&pc, &c) == -1) {
		sc_say(sc, SC_LOG, FAIL, "sbx: %s", strerror(errno));
		return 0;
	}
	counted(sc, &pc, &before, &c);
	memset(&dl, 0, sizeof(dl));
	if ((ok = c.status == 0 && !c.timedout))
		r = sbx_policylog_parse(c.out.data, c.out.len, sc->name, 0, &dl,
		    &why);
	sc_heard(&c, said, sizeof(said));
	if (r == 0)
		sc_say(sc, SC_LOG, PASS, "policy log %s --json: %s (%zu "
		    "denial%s of the sandbox)", sc->name,
		    sbx_policylog_shape(dl.shape), dl.n + dl.more, dl.n +
		    dl.more == 1 ? "" : "s");
	else
		sc_say(sc, SC_LOG, FAIL, "policy log %s --json %s (sbx-run "
		    "could not name what sbx blocked): %s", sc->name, ok ?
		    "is in a shape no program reads" : "failed", ok && why ?
		    why : said);
	sbx_policylog_free(&dl);
	return 0;
}

/* `secret ls`: 1 when a line names the sandbox and the registry. */
static int
listed(const char *s, const char *name)
{
	const char *nl;
	size_t n;

	for (; s != NULL && *s != '\0'; s = nl + 1) {
		if ((nl = strchr(s, '\n')) == NULL)
			nl = s + strlen(s);
		n = (size_t)(nl - s);
		if (has(s, n, name) && has(s, n, REGISTRY))
			return 1;
		if (*nl == '\0')
			break;
	}
	return 0;
}

/*
 * A registry credential for this sandbox alone, its value random and on
 * sbx's stdin: listed for the sandbox and masked by `secret ls` (its
 * value nowhere in what it says), then removed.  The listing is not
 * kept as unplaced words: it would carry the value were it unmasked.
 */
int
sc_policy_secret(struct sc *sc)
{
	char *ls[] = { sc->sbx, "secret", "ls", NULL };
	struct sbx_policycli pc;
	struct sbx_result c;
	char value[SBX_STAMP_LEN + 8], said[1024];
	int before = 0, leak, seen, status;

	if (sbx_stamp_new(value, sizeof(value)) == -1) {
		sc_say(sc, SC_SECRET, FAIL, "no random value: %s",
		    strerror(errno));
		return 0;
	}
	cli(sc, &pc);
	sc->secret = 1;
	if (sbx_policycli_secret(&pc, &c, REGISTRY, NULL, value,
	    strlen(value)) == -1) {
		sc_say(sc, SC_SECRET, FAIL, "sbx: %s", strerror(errno));
		return 0;
	}
	counted(sc, &pc, &before, &c);
	status = c.status != 0 || c.timedout;
	sc_heard(&c, said, sizeof(said));
	if (status) {
		sc_say(sc, SC_SECRET, FAIL, "secret set --sandbox %s --registry "
		    "%s --password-stdin, as sbx-run hands a credential to sbx, "
		    "failed: %s", sc->name, REGISTRY, said);
		return 0;
	}
	if (sbx_call(&c, ls, sc->env, sc->timeout, sc->cdfd) == -1) {
		sc_say(sc, SC_SECRET, FAIL, "sbx: %s", strerror(errno));
		return 0;
	}
	sc_after(sc, c.tries, c.status, c.err.data);
	leak = has(c.out.data, c.out.len, value) ||
	    has(c.err.data, c.err.len, value);
	seen = c.status == 0 && listed(c.out.data, sc->name);
	if (leak)
		snprintf(said, sizeof(said), "exit %d", c.status);
	else
		sc_said(&c, said, sizeof(said));
	sbx_supervise_result_free(&c);
	if (leak)
		sc_say(sc, SC_SECRET, FAIL, "secret ls shows the credential's "
		    "value (not quoted here): it is not masked (%s)", said);
	else if (!seen)
		sc_say(sc, SC_SECRET, FAIL, "secret ls does not list %s for %s "
		    "after secret set --sandbox: %s", REGISTRY, sc->name, said);
	else if (sc_policy_unsecret(sc, said, sizeof(said)) == -1)
		sc_say(sc, SC_SECRET, FAIL, "set for %s and listed masked, but "
		    "secret rm --sandbox %s --registry %s -f failed: %s",
		    sc->name, sc->name, REGISTRY, said);
	else
		sc_say(sc, SC_SECRET, PASS, "secret set --sandbox %s "
		    "--registry %s --password-stdin took a random value on "
		    "stdin; secret ls lists it for the sandbox, masked (the "
		    "value nowhere in its output); secret rm removed it",
		    sc->name, REGISTRY);
	return 0;
}

/* The credential removed: 0, or -1 with what sbx said. */
int
sc_policy_unsecret(struct sc *sc, char *said, size_t size)
{
	struct sbx_policycli pc;
	struct sbx_result c;
	int before = 0, bad;

	cli(sc, &pc);
	if (sbx_policycli_unsecret(&pc, &c, REGISTRY) == -1) {
		snprintf(said, size, "%s", strerror(errno));
		return -1;
	}
	counted(sc, &pc, &before, &c);
	bad = (c.status != 0 || c.timedout) && !sbx_says_nomatch(c.err.data);
	sc_heard(&c, said, size);
	if (!bad)
		sc->secret = 0;
	return bad ? -1 : 0;
}

/*
 * At the end, before the sandbox goes: the rules and the credential the
 * checks added and did not remove, whatever failed.  -1 when something
 * may be left (said says what sbx answered).
 */
int
sc_policy_end(struct sc *sc, char *said, size_t size)
{
	struct sbx_policycli pc;
	struct sbx_result c;
	int before = 0, r = 0;

	said[0] = '\0';
	if (sc->ruled) {
		cli(sc, &pc);
		if (sbx_policycli_unrule(&pc, &c, ALLOW "," DENY) == -1) {
			snprintf(said, size, "%s", strerror(errno));
			r = -1;
		} else {
			counted(sc, &pc, &before, &c);
			if ((c.status != 0 || c.timedout) &&
			    !sbx_says_nomatch(c.err.data))
				r = -1;
			sc_heard(&c, said, size);
		}
		sc->ruled = r == -1;
	}
	if (sc->secret && sc_policy_unsecret(sc, said, size) == -1)
		r = -1;
	return r;
}
