/*
 * scports.c: the self-check's port checks, made through lib/portcli.c as
 * sbx-ports makes them (the dialect found afresh): the port verbs sbx
 * speaks, a publication and its listing, its removal, and both on a
 * stopped sandbox, where sbx-ports takes a 409 for "start it first".
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxports.h"
#include "result.h"
#include "selfcheck.h"

#define VMPORT	8080	/* nothing need listen: sbx maps it all the same */

static const char *const dialect_word[] = { "?", "ports", "port" };

/* What the last port call said, shortened. */
static const char *
pcsaid(const struct sbx_portcli *pc, char *buf, size_t size)
{
	struct sbx_result c;

	memset(&c, 0, sizeof(c));
	c.status = pc->status;
	c.out = pc->out;
	c.err = pc->err;
	return sc_said(&c, buf, size);
}

/* Count what portcli ran, and take note of signals and the restart. */
static void
counted(struct sc *sc, int before)
{
	sc_after(sc, sc->pc.calls - before, sc->pc.status, sc->pc.err.data);
	sc_place(sc, sc->pc.status, &sc->pc.out, &sc->pc.err, 0);
}

/*
 * The listing as sbx-ports' ports_list takes it: a 409 for a stopped
 * sandbox gets one exec to start it and one more ask.  0, or -1 with
 * the reason in why.  *woke says whether the exec was needed.
 */
static int
plist(struct sc *sc, struct sbx_ports *l, int *woke, char *why, size_t size)
{
	const char *errstr;
	char said[1024];
	int before = sc->pc.calls, r;

	sbx_portspec_free(l);
	memset(l, 0, sizeof(*l));
	if (woke != NULL)
		*woke = 0;
	r = sbx_portcli_list(&sc->pc, l, &errstr);
	if (r == -1 && sc->pc.status > 0 &&
	    sbx_says_stopped(sc->pc.err.data)) {
		if (woke != NULL)
			*woke = 1;
		if (sbx_portcli_wake(&sc->pc) == 0 && sc->pc.status == 0)
			r = sbx_portcli_list(&sc->pc, l, &errstr);
	}
	counted(sc, before);
	if (r == -1)
		snprintf(why, size, "%s: %s", errstr, pcsaid(&sc->pc, said,
		    sizeof(said)));
	return r;
}

/* The mapping of l on host port h to VMPORT, or NULL. */
static const struct sbx_port *
row(const struct sbx_ports *l, int h)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].host == h && l->v[i].vm == VMPORT)
			return &l->v[i];
	return NULL;
}

/* A host port free on 127.0.0.1 now, as the kernel picks one. */
static int
freeport(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd, port = -1;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

/* One change through portcli: 0, or -1 with the reason in why. */
static int
change(struct sc *sc, const struct sbx_port *p, int publish, char *why,
    size_t size)
{
	struct sbx_ports set, none;
	const char *errstr;
	char said[1024];
	int before = sc->pc.calls, r;

	memset(&set, 0, sizeof(set));
	memset(&none, 0, sizeof(none));
	if (sbx_portspec_add(&set, p) == -1)
		return -1;
	r = publish ? sbx_portcli_change(&sc->pc, &set, &none, &errstr) :
	    sbx_portcli_change(&sc->pc, &none, &set, &errstr);
	counted(sc, before);
	if (r == -1)
		snprintf(why, size, "%s: %s", errstr, pcsaid(&sc->pc, said,
		    sizeof(said)));
	sbx_portspec_free(&set);
	return r;
}

int
sc_ports_dialect(struct sc *sc)
{
	struct sbx_ports l;
	char why[1200];

	memset(&sc->pc, 0, sizeof(sc->pc));
	sc->pc.sbx = sc->sbx;
	sc->pc.env = sc->env;
	sc->pc.name = sc->name;
	sc->pc.timeout = sc->timeout;
	sc->pc.dfd = sc->cdfd;	/* the self-check's own: found afresh */
	memset(&l, 0, sizeof(l));
	if (plist(sc, &l, NULL, why, sizeof(why)) == -1) {
		sc_say(sc, SC_DIALECT, FAIL, "no port listing in either "
		    "dialect (sbx-ports and sbx-verify's audit would fail): %s",
		    why);
		return -1;
	}
	sc_say(sc, SC_DIALECT, PASS, "sbx speaks `%s`%s; its listing parses "
	    "(%zu mappings)", dialect_word[sc->pc.dialect], sc->pc.noport ?
	    " (it has no `port` group)" : " (the `port` group)", l.n);
	sbx_portspec_free(&l);
	return 0;
}

/*
 * Publish as sbx-ports does, list, unpublish what is listed with its
 * protocol, list.  Its verdicts go to pk and uk; "where" says in which
 * state the sandbox was.
 */
static int
roundtrip(struct sc *sc, enum sccheck pk, enum sccheck uk, const char *where)
{
	struct sbx_ports l;
	struct sbx_port p, listed;
	const struct sbx_port *have = NULL;
	char why[1200];
	int h;

	why[0] = '\0';
	memset(&l, 0, sizeof(l));
	memset(&p, 0, sizeof(p));
	if ((h = freeport()) == -1) {
		sc_say(sc, pk, FAIL, "no free host port: %s", strerror(errno));
		return -1;
	}
	snprintf(p.ip, sizeof(p.ip), "127.0.0.1");
	p.host = h;
	p.vm = VMPORT;
	p.proto = SBX_TCP;
	p.fam = 4;	/* as sbx-ports publishes: one loopback stack, named */
	if (change(sc, &p, 1, why, sizeof(why)) == -1) {
		sc_say(sc, pk, FAIL, "%spublish 127.0.0.1:%d:%d/tcp4 failed: "
		    "%s", where, h, VMPORT, why);
		return -1;
	}
	if (plist(sc, &l, NULL, why, sizeof(why)) == -1 ||
	    (have = row(&l, h)) == NULL) {
		sc_say(sc, pk, FAIL, "%spublished 127.0.0.1:%d:%d/tcp4, then "
		    "the listing %s", where, h, VMPORT, have == NULL && *why ==
		    '\0' ? "does not show it" : why);
		sbx_portspec_free(&l);
		return -1;
	}
	listed = *have;
	sc_say(sc, pk, PASS, "%spublished 127.0.0.1:%d:%d/tcp4; listed as "
	    "%s:%d -> %d/%s", where, h, VMPORT, listed.ip, listed.host,
	    listed.vm, sbx_portspec_proto(&listed));
	why[0] = '\0';
	if (change(sc, &listed, 0, why, sizeof(why)) == -1 ||
	    plist(sc, &l, NULL, why, sizeof(why)) == -1 ||
	    row(&l, h) != NULL) {
		sc_say(sc, uk, FAIL, "%sunpublish of %s:%d:%d/%s as listed: "
		    "%s", where, listed.ip, h, VMPORT,
		    sbx_portspec_proto(&listed),
		    *why ? why : "still listed after");
		sbx_portspec_free(&l);
		return -1;
	}
	sc_say(sc, uk, PASS, "%sunpublish with the listed protocol (%s) "
	    "removed it", where, sbx_portspec_proto(&listed));
	sbx_portspec_free(&l);
	return 0;
}

int
sc_ports_publish(struct sc *sc)
{
	return roundtrip(sc, SC_PUBLISH, SC_UNPUBLISH, "");
}

/*
 * On a stopped sandbox (the idle stop, or `sbx stop`, the teardown of
 * DOCKER_SANDBOX_TEARDOWN=stop): the listing as sbx-ports takes it, and
 * a publication made after it.
 */
int
sc_ports_stopped(struct sc *sc)
{
	char *av[] = { NULL, "stop", sc->name, NULL };
	struct sbx_result c;
	struct sbx_ports l;
	char why[1200], said[1024], st[32];
	int woke, r;

	if (sc_basic_status(sc, st, sizeof(st)) != 1 ||
	    strcmp(st, "stopped") != 0) {
		if (sc_sbx(sc, &c, av) == -1)
			return -1;
		r = c.status;
		sc_heard(&c, said, sizeof(said));
		if (r != 0) {
			sc_say(sc, SC_STOPPED, FAIL, "sbx stop (the teardown of "
			    "DOCKER_SANDBOX_TEARDOWN=stop) failed: %s", said);
			return 0;
		}
	}
	sc->stopped = 1;
	memset(&l, 0, sizeof(l));
	if (plist(sc, &l, &woke, why, sizeof(why)) == -1) {
		sc_say(sc, SC_STOPPED, FAIL, "the listing of the stopped "
		    "sandbox%s: %s", woke ? " was refused as sbx-ports expects "
		    "(409), but after one exec to start it" : "", why);
		return 0;
	}
	sbx_portspec_free(&l);
	/* its publish and unpublish lines are taken by this one */
	r = roundtrip(sc, SC_STOPPED, SC_STOPPED, "on the stopped sandbox: ");
	if (r == 0)
		sc_say(sc, SC_STOPPED, PASS, "stopped: %s; then a publish, "
		    "its listing and its unpublish worked", woke ? "the "
		    "listing was refused (409, as sbx-ports expects); one exec "
		    "started it and it was listed" : "listed without being "
		    "started");
	return 0;
}
