/*
 * dockerps.c: the VM ports that running containers publish, from `docker
 * ps --format '{{json .}}'`'s "Ports" text.  The text is the agent's, so
 * each port is taken once, wide ranges are not expanded, and what is left
 * out is marked for the caller to name.
 */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sbxcli.h"
#include "sbxjson.h"
#include "sbxports.h"
#include "sbx-ports.h"

#define RANGE_MAX	1024

struct take {
	struct sbx_ports	*l;
	struct portset	*seen;	/* in l already, or left out */
	struct portset	*over;	/* left out: the caller names them */
	struct vmlocal	*local;	/* bound to the VM's loopback, or NULL */
	struct portset	*lo;	/* those ports, each once */
};

int
dockerps_portset_has(const struct portset *s, int port, int proto)
{
	return port > 0 && port < 65536 &&
	    (s->bit[proto == SBX_UDP][port >> 3] >> (port & 7)) & 1;
}

void
dockerps_portset_add(struct portset *s, int port, int proto)
{
	if (port > 0 && port < 65536)
		s->bit[proto == SBX_UDP][port >> 3] |= 1u << (port & 7);
}

static int
range(const char *s, size_t len, int *lo, int *hi)
{
	const char *dash = memchr(s, '-', len), *e;

	if (dash == NULL) {
		*lo = *hi = sbx_portspec_parse(s, len, &e);
		return *lo == -1 ? -1 : 0;
	}
	if ((*lo = sbx_portspec_parse(s, (size_t)(dash - s), &e)) == -1 ||
	    (*hi = sbx_portspec_parse(dash + 1, len - (size_t)(dash - s) - 1,
	    &e)) == -1 || *hi < *lo)
		return -1;
	return 0;
}

/* VM ports lo..hi into t->l, each once; what does not fit into t->over. */
static int
take(struct take *t, const struct sbx_port *tmpl, int lo, int hi,
    const char **errstr)
{
	struct sbx_port p = *tmpl;
	int port, wide = hi - lo >= RANGE_MAX;

	for (port = lo; port <= hi; port++) {
		if (dockerps_portset_has(t->seen, port, p.proto))
			continue;
		dockerps_portset_add(t->seen, port, p.proto);
		if (wide || t->l->n >= PORTS_WANT_MAX) {
			if (t->over != NULL)
				dockerps_portset_add(t->over, port, p.proto);
			continue;
		}
		p.vm = port;
		p.host = 0;
		if (sbx_portspec_add(t->l, &p) == -1) {
			*errstr = strerror(errno);
			return -1;
		}
	}
	return 0;
}

/* On the VM's loopback?  sbx forwards to the VM's own address only. */
static int
vm_loopback(const char *ip)
{
	return strncmp(ip, "127.", 4) == 0 || strcmp(ip, "::1") == 0 ||
	    strncasecmp(ip, "::ffff:127.", 11) == 0;
}

/* VM ports lo..hi bound to the VM's loopback, into t->local. */
static void
take_local(struct take *t, const struct sbx_port *tmpl, int lo, int hi)
{
	struct vmlocal *v = t->local;
	int port;

	if (hi - lo >= RANGE_MAX)
		hi = lo + RANGE_MAX - 1;
	for (port = lo; port <= hi; port++) {
		if (dockerps_portset_has(t->lo, port, tmpl->proto))
			continue;
		dockerps_portset_add(t->lo, port, tmpl->proto);
		if (v->n < LOCAL_NAMED) {
			v->v[v->n] = *tmpl;
			v->v[v->n++].vm = port;
		}
	}
}

static int
entry(const char *s, size_t len, struct take *t, const char **errstr)
{
	const char *arrow = NULL, *colon = NULL, *slash, *ip;
	struct sbx_port p;
	size_t i, iplen;
	int lo, hi, clo, chi, proto;

	for (i = 0; i + 1 < len; i++)
		if (s[i] == '-' && s[i + 1] == '>') {
			arrow = s + i;
			break;
		}
	if (arrow == NULL)
		return 0;	/* exposed only */
	if ((slash = memchr(arrow, '/', len - (size_t)(arrow - s))) == NULL)
		goto bad;
	if ((proto = sbx_portspec_proto_parse(slash + 1,
	    len - (size_t)(slash + 1 - s), NULL)) == -1)
		return 0;	/* sctp: nothing sbx can forward */
	for (i = 0; s + i < arrow; i++)
		if (s[i] == ':')
			colon = s + i;
	if (colon == NULL)
		goto bad;
	if (range(colon + 1, (size_t)(arrow - colon - 1), &lo, &hi) == -1 ||
	    range(arrow + 2, (size_t)(slash - arrow - 2), &clo, &chi) == -1 ||
	    chi - clo != hi - lo)
		goto bad;
	ip = s;
	iplen = (size_t)(colon - s);
	if (iplen >= 2 && ip[0] == '[' && ip[iplen - 1] == ']') {
		ip++;
		iplen -= 2;
	}
	memset(&p, 0, sizeof(p));
	if (iplen >= sizeof(p.ip))
		goto bad;
	memcpy(p.ip, ip, iplen);
	p.ip[iplen] = '\0';
	p.proto = proto;
	if (vm_loopback(p.ip)) {
		if (t->local != NULL)
			take_local(t, &p, lo, hi);
		return 0;
	}
	return take(t, &p, lo, hi, errstr);
bad:
	*errstr = "a Ports entry is not IP:PORT->PORT/PROTO";
	return -1;
}

static int
text(const char *s, struct take *t, const char **errstr)
{
	const char *end, *a, *b;

	for (; *s != '\0'; s = *end ? end + 1 : end) {
		if ((end = strchr(s, ',')) == NULL)
			end = s + strlen(s);
		for (a = s; a < end && (*a == ' ' || *a == '\t'); a++)
			;
		for (b = end; b > a && (b[-1] == ' ' || b[-1] == '\t'); b--)
			;
		if (b > a && entry(a, (size_t)(b - a), t, errstr) == -1)
			return -1;
	}
	return 0;
}

/* docker's Ports text alone (the fuzz target's entry). */
int
dockerps_text(const char *s, struct sbx_ports *l,
    struct portset *over, const char **errstr)
{
	struct take t;
	int r;

	t.l = l;
	t.over = over;
	t.local = NULL;
	if ((t.seen = calloc(1, sizeof(*t.seen))) == NULL) {
		*errstr = strerror(errno);
		return -1;
	}
	r = text(s, &t, errstr);
	free(t.seen);
	return r;
}

static int
member(const struct sbx_json *o, const char *key, char *buf, size_t size,
    const char **errstr)
{
	const struct sbx_json *v;

	buf[0] = '\0';
	if ((v = sbx_json_get(o, key)) == NULL || v->type == SBX_JNULL)
		return 0;
	if (v->type != SBX_JSTR || v->len >= size || strlen(v->str) != v->len) {
		*errstr = v->type != SBX_JSTR ? "ID or Names is not a string" :
		    "ID or Names is too long";
		return -1;
	}
	memcpy(buf, v->str, v->len + 1);
	return 0;
}

static int
container(const struct sbx_json *o, struct take *t, const char **errstr)
{
	const struct sbx_json *ports;
	struct sbx_port who;
	size_t i, first = t->l->n, lfirst = t->local ? t->local->n : 0;

	if (o->type != SBX_JOBJ) {
		*errstr = "a line is not a JSON object";
		return -1;
	}
	if ((ports = sbx_json_get(o, "Ports")) == NULL ||
	    ports->type == SBX_JNULL)
		return 0;
	if (ports->type != SBX_JSTR) {
		*errstr = "Ports is not a string";
		return -1;
	}
	if (member(o, "ID", who.cid, sizeof(who.cid), errstr) == -1 ||
	    member(o, "Names", who.cname, sizeof(who.cname), errstr) == -1 ||
	    text(ports->str, t, errstr) == -1)
		return -1;
	for (i = first; i < t->l->n; i++) {
		memcpy(t->l->v[i].cid, who.cid, sizeof(who.cid));
		memcpy(t->l->v[i].cname, who.cname, sizeof(who.cname));
	}
	for (i = lfirst; t->local != NULL && i < t->local->n; i++) {
		memcpy(t->local->v[i].cid, who.cid, sizeof(who.cid));
		memcpy(t->local->v[i].cname, who.cname, sizeof(who.cname));
	}
	return 0;
}

/* Loopback alone: a port also bound elsewhere is published through that. */
static void
local_only(struct take *t)
{
	struct vmlocal *v = t->local;
	size_t i, k;
	int proto, port;

	for (i = k = 0; i < v->n; i++)
		if (!dockerps_portset_has(t->seen, v->v[i].vm, v->v[i].proto))
			v->v[k++] = v->v[i];
	v->n = k;
	v->all = 0;
	for (proto = SBX_TCP; proto <= SBX_UDP; proto++)
		for (port = 1; port < 65536; port++)
			if (dockerps_portset_has(t->lo, port, proto) &&
			    !dockerps_portset_has(t->seen, port, proto))
				v->all++;
}

/*
 * The whole output, JSON lines or an array.  Other lines are sbx's noise,
 * skipped by shape; output with no JSON and a line of no sbx shape, or a
 * truncated object, is an error: acting on it would unpublish every port.
 * Returns 0, or -1 with *errstr; n counts the containers.
 */
int
dockerps_parse(const char *buf, size_t len, struct sbx_ports *l,
    struct portset *over, struct vmlocal *local, size_t *n,
    const char **errstr)
{
	const char *p = buf, *end = buf + len, *nl;
	const struct sbx_json *c;
	struct sbx_json *j;
	struct take t;
	int r = 0, other = 0;

	*n = 0;
	*errstr = NULL;
	t.l = l;
	t.over = over;
	t.local = local;
	if (local != NULL)
		local->n = local->all = 0;
	if ((t.seen = calloc(1, sizeof(*t.seen))) == NULL ||
	    (t.lo = calloc(1, sizeof(*t.lo))) == NULL) {
		*errstr = strerror(errno);
		free(t.seen);
		return -1;
	}
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		while (p < nl && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == nl)
			continue;
		if (*p != '{' && *p != '[') {
			other |= !sbx_says_notice(p, (size_t)(nl - p));
			continue;
		}
		if ((j = sbx_json_parse(p, (size_t)(nl - p), errstr)) == NULL) {
			if (*p == '[') {
				*errstr = NULL;
				continue;
			}
			r = -1;
			break;
		}
		if (j->type == SBX_JARR) {
			for (c = j->child; c != NULL && r == 0; c = c->next) {
				r = container(c, &t, errstr);
				(*n)++;
			}
		} else {
			r = container(j, &t, errstr);
			(*n)++;
		}
		sbx_json_free(j);
		if (r == -1 || nl == end)
			break;
	}
	/* no listing to act on */
	if (r == 0 && *n == 0 && other) {
		*errstr = "no JSON in its output";
		r = -1;
	}
	if (r == 0 && local != NULL)
		local_only(&t);
	free(t.seen);
	free(t.lo);
	return r;
}

/* Each VM port bound to the VM's loopback alone, named on stderr. */
void
dockerps_local_say(const char *sandbox, const struct vmlocal *v)
{
	char name[sizeof(v->v[0].cname) * 4], id[sizeof(v->v[0].cid) * 4],
	    ip[sizeof(v->v[0].ip) * 4];
	size_t i;

	for (i = 0; i < v->n; i++)
		warnx("sandbox %s: container %s (%s): %s:%d/%s listens on the "
		    "sandbox's loopback only, which sbx cannot forward: not "
		    "published (bind it to 0.0.0.0 inside)", sandbox,
		    sbx_shown(v->v[i].cname, name, sizeof(name)),
		    sbx_shown(v->v[i].cid, id, sizeof(id)),
		    sbx_shown(v->v[i].ip, ip, sizeof(ip)), v->v[i].vm,
		    sbx_portspec_proto_name(v->v[i].proto));
	if (v->all > v->n)
		warnx("sandbox %s: and %zu more on the sandbox's loopback only,"
		    " not published", sandbox, v->all - v->n);
}
