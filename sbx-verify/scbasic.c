/*
 * scbasic.c: the self-check's checks of the life of a sandbox: sbx's
 * version, a missing sandbox's answer, the listing, create (twice), exec
 * and rm.  Each judgement is the one a program makes, with its function:
 * sbx-run's first-line matcher, sbx-watch's and sbx-gc's not-found
 * substring, sbx_ls_listed, sbx-run's create argv and its "already
 * exists".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxjson.h"
#include "result.h"
#include "selfcheck.h"

#define CREATE_TIMEOUT	600	/* as sbx-run's, when no bound is set */

/* The version token after "version:" on a line of text, or NULL. */
static const char *
textver(const char *s, char *buf, size_t size)
{
	const char *p;
	size_t n;

	for (p = s; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ?
	    p + 1 : NULL) {
		if (strncmp(p, "sbx version:", 12) != 0 &&
		    strncmp(p, "Client Version:", 15) != 0)
			continue;
		p = strchr(p, ':') + 1;
		p += strspn(p, " \t");
		n = strcspn(p, " \t\r\n");
		if (n == 0 || n >= size)
			return NULL;
		memcpy(buf, p, n);
		buf[n] = '\0';
		return buf;
	}
	return NULL;
}

/* {"version"} or {"client":{"version"},"server":{...}} */
static const char *
jsonver(const char *s, size_t len, char *buf, size_t size, char *srv,
    size_t ssize)
{
	const struct sbx_json *cl, *sv;
	struct sbx_json *j;
	const char *errstr, *v, *st;

	srv[0] = '\0';
	if (s == NULL || (j = sbx_json_doc(s, len, &errstr)) == NULL)
		return NULL;
	if ((v = sbx_json_str(j, "version")) == NULL &&
	    (cl = sbx_json_get(j, "client")) != NULL)
		v = sbx_json_str(cl, "version");
	if (v != NULL)
		snprintf(buf, size, "%s", v);
	if ((sv = sbx_json_get(j, "server")) != NULL) {
		st = sbx_json_str(sv, "state");
		snprintf(srv, ssize, "server %s%s%s", sbx_json_str(sv,
		    "version") ? sbx_json_str(sv, "version") : "?",
		    st ? " " : "", st ? st : "");
	}
	sbx_json_free(j);
	return v != NULL ? buf : NULL;
}

int
sc_basic_version(struct sc *sc)
{
	char *av[] = { NULL, "version", NULL, NULL };
	struct sbx_result c;
	char tv[64], jv[64], srv[96], said[2][1024], shown[2][64];
	const char *t = NULL, *jn = NULL;

	srv[0] = '\0';
	if (sc_sbx(sc, &c, av) == -1)
		return -1;
	if (c.status == 0)
		t = textver(c.out.data, tv, sizeof(tv));
	sc_heard(&c, said[0], sizeof(said[0]));
	av[2] = "--json";
	if (sc_sbx(sc, &c, av) == -1)
		return -1;
	if (c.status == 0)
		jn = jsonver(c.out.data, c.out.len, jv, sizeof(jv), srv,
		    sizeof(srv));
	sc_heard(&c, said[1], sizeof(said[1]));
	if (t == NULL && jn == NULL) {
		snprintf(sc->version, sizeof(sc->version), "unknown");
		sc_say(sc, SC_VERSION, FAIL, "%s: no version in either form: "
		    "version: %s; version --json: %s", sc->sbx, said[0],
		    said[1]);
		return 0;
	}
	snprintf(sc->version, sizeof(sc->version), "%s", sbx_shown(t ? t :
	    jn, shown[0], sizeof(shown[0])));
	sc_say(sc, SC_VERSION, PASS, "%s %s; text form %s, --json form %s%s%s",
	    sc->sbx, sc->version, t ? sbx_shown(t, shown[0],
	    sizeof(shown[0])) : "unreadable", jn ? sbx_shown(jn, shown[1],
	    sizeof(shown[1])) : "unreadable", *srv ? ", " : "",
	    sbx_shown(srv, said[0], sizeof(said[0])));
	return 0;
}

/*
 * Before the sandbox exists: exec must say so in words sbx-run's
 * first-line matcher takes (it then provisions), rm --force in words
 * sbx-watch and sbx-gc take (the teardown then has nothing to do).
 */
int
sc_basic_missing(struct sc *sc)
{
	char *ex[] = { NULL, "exec", sc->name, "--", "true", NULL };
	char *rm[] = { NULL, "rm", "--force", sc->name, NULL };
	struct sbx_result c;
	char said[2][1024];
	int line, gone;

	if (sc_sbx(sc, &c, ex) == -1)
		return -1;
	line = c.status == 1 && sbx_says_notfound_line(c.err.data,
	    c.err.len, sc->name) == SBX_NF_LINE;
	sc_heard(&c, said[0], sizeof(said[0]));
	if (sc_sbx(sc, &c, rm) == -1)
		return -1;
	gone = c.status == 0 || sbx_says_notfound(c.err.data, sc->name);
	sc_heard(&c, said[1], sizeof(said[1]));
	if (line && gone)
		sc_say(sc, SC_MISSING, PASS, "recognised: exec (sbx-run would "
		    "create the sandbox): %s; rm --force (a teardown has "
		    "nothing to do): %s", said[0], said[1]);
	else
		sc_say(sc, SC_MISSING, FAIL, "%s%s%s%s%s%s",
		    line ? "" : "exec of a missing sandbox not recognised "
		    "(sbx-run would fail the first call of every session "
		    "instead of creating the sandbox): ", line ? "" : said[0],
		    !line && !gone ? "; " : "",
		    gone ? "" : "rm --force of a missing sandbox not "
		    "recognised (sbx-watch and sbx-gc would count it as a "
		    "failed teardown): ", gone ? "" : said[1], "");
	return 0;
}

/*
 * `sbx ls --json` through sbx_ls_listed, as sbx-run confirms with it:
 * 1 listed, 0 not, -1 no listing (said says why).
 */
static int
sc_listed(struct sc *sc, char *said, size_t size)
{
	char *av[] = { NULL, "ls", "--json", NULL };
	struct sbx_result c;
	const char *errstr = NULL;
	char why[1024];
	int found = -1;

	if (sc_sbx(sc, &c, av) == -1) {
		snprintf(said, size, "sbx ls --json could not run");
		return -1;
	}
	if (c.status == 0)
		found = sbx_ls_listed(c.out.data ? c.out.data : "", c.out.len,
		    sc->name, &errstr);
	sc_said(&c, why, sizeof(why));
	snprintf(said, size, "%s%s%s", errstr ? errstr : "", errstr ? ": " :
	    "", why);
	sbx_supervise_result_free(&c);
	return found;
}

int
sc_basic_ls(struct sc *sc)
{
	char said[1100];
	int found = sc_listed(sc, said, sizeof(said));

	if (found == 0)
		sc_say(sc, SC_LS, PASS, "ls --json parses, %s not listed",
		    sc->name);
	else if (found == 1)
		sc_say(sc, SC_LS, FAIL, "ls --json lists %s before it was "
		    "created: %s", sc->name, said);
	else
		sc_say(sc, SC_LS, FAIL, "ls --json does not parse (sbx-run "
		    "and sbx-gc would fail): %s", said);
	return found == -1 ? -1 : 0;
}

/* Run sbx-run's create argv once. */
static int
create(struct sc *sc, struct sbx_result *c)
{
	struct sbx_create how;
	char *av[SBX_CREATE_ARGC], ws[PATH_MAX + 8], ro[PATH_MAX + 8];
	int t = sc->timeout, r;

	sbx_xcreateargv_conf(&how);
	snprintf(ws, sizeof(ws), "%s/%s", sc->ws, sc->readonly ? "p" : "w");
	snprintf(ro, sizeof(ro), "%s/w:ro", sc->ws);
	sbx_create_argv(av, sc->sbx, sc->name, &how, 1, ws, sc->readonly ?
	    ro : NULL);
	if (!sc->given)
		sc->timeout = CREATE_TIMEOUT;
	sc->created = 1;
	r = sc_sbx(sc, c, av);
	sc->timeout = t;
	return r;
}

int
sc_basic_create(struct sc *sc)
{
	struct sbx_result c;
	char said[1024], ls[1100];
	int status, found;

	if (create(sc, &c) == -1)
		return -1;
	status = c.status;
	sc_heard(&c, said, sizeof(said));
	if (status != 0) {
		sc_say(sc, SC_CREATE, FAIL, "sbx-run's create failed: %s",
		    said);
		return -1;
	}
	if ((found = sc_listed(sc, ls, sizeof(ls))) != 1) {
		sc_say(sc, SC_CREATE, FAIL, "create said %s, but ls --json "
		    "%s: %s", said, found == 0 ? "does not list it" :
		    "gives no listing", ls);
		return -1;
	}
	sc_say(sc, SC_CREATE, PASS, "sbx-run's create (%s mode) made %s: %s; "
	    "ls --json lists it", sc->readonly ? "read-only" : "read-write",
	    sc->name, said);
	return 0;
}

/*
 * A second create of the name must be refused in words sbx-run takes
 * for "made meanwhile": its create is its proof that the sandbox was
 * missing, so a create that succeeds twice would break the never-twice
 * rule.
 */
int
sc_basic_exists(struct sc *sc)
{
	struct sbx_result c;
	char said[1024];
	int ok;

	if (create(sc, &c) == -1)
		return -1;
	ok = c.status != 0 && !c.timedout && c.signo == 0 &&
	    sbx_says_exists(c.err.data);
	sc_heard(&c, said, sizeof(said));
	if (ok)
		sc_say(sc, SC_EXISTS, PASS, "a second create is refused in "
		    "words sbx-run recognises: %s", said);
	else
		sc_say(sc, SC_EXISTS, FAIL, "a second create of %s was %s "
		    "(sbx-run takes a create's success as proof that the "
		    "sandbox was missing): %s", sc->name, c.status == 0 ?
		    "accepted" : "refused in words sbx-run does not recognise",
		    said);
	return 0;
}

/* exec passes the status through and keeps stdout and stderr apart. */
int
sc_basic_exec(struct sc *sc)
{
	char *av[] = { NULL, "exec", sc->name, "--", "sh", "-c",
	    "echo out.sbxv; echo err.sbxv >&2; exit 7", NULL };
	struct sbx_result c;
	char said[1024];
	int ok;

	if (sc_sbx(sc, &c, av) == -1)
		return -1;
	/* stdout exactly: a notice there would land in docker's output */
	ok = c.status == 7 && c.out.len == 9 &&
	    memcmp(c.out.data, "out.sbxv\n", 9) == 0 && c.err.data != NULL &&
	    strstr(c.err.data, "err.sbxv\n") != NULL &&
	    strstr(c.err.data, "out.sbxv") == NULL;
	sc_say(sc, SC_EXEC, ok ? PASS : FAIL, "%s: %s", ok ? "exit 7 passed "
	    "through, stdout and stderr apart" : "wanted exit 7, stdout "
	    "exactly \"out.sbxv\", \"err.sbxv\" on stderr only",
	    sc_heard(&c, said, sizeof(said)));
	return ok ? 0 : -1;
}

int
sc_basic_remove(struct sc *sc)
{
	char *av[] = { NULL, "rm", "--force", sc->name, NULL };
	struct sbx_result c;
	char said[1024], ls[1100];
	int ok, found;

	if (sc_sbx(sc, &c, av) == -1)
		return -1;
	/* as a teardown judges: a sandbox sbx does not know is gone */
	ok = c.status == 0 || sbx_says_notfound(c.err.data, sc->name);
	sc_heard(&c, said, sizeof(said));
	found = sc_listed(sc, ls, sizeof(ls));
	sc->gone = found == 0;
	if (ok && found == 0)
		sc_say(sc, SC_REMOVE, PASS, "rm --force removed %s (%s); ls "
		    "--json no longer lists it", sc->name, said);
	else
		sc_say(sc, SC_REMOVE, FAIL, "rm --force: %s; then ls --json: "
		    "%s", said, found == 1 ? "still lists it" : ls);
	return 0;
}

/*
 * The sandbox's status in `sbx ls --json`, read with lib's parser of the
 * listing (sbx_ls_status): 1 with it in buf, 0 not listed, -1 no listing.
 */
int
sc_basic_status(struct sc *sc, char *buf, size_t size)
{
	char *av[] = { NULL, "ls", "--json", NULL };
	struct sbx_result c;
	const char *errstr;
	char st[64];
	int found = -1;

	if (sc_sbx(sc, &c, av) == -1)
		return -1;
	if (c.status == 0 && (found = sbx_ls_status(c.out.data ? c.out.data :
	    "", c.out.len, sc->name, st, sizeof(st), &errstr)) == 1)
		sbx_shown(*st ? st : "unknown", buf, size);
	sbx_supervise_result_free(&c);
	return found;
}
