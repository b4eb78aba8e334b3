/*
 * dockerps.c: the ports that running containers publish, from the output
 * of `docker ps --format '{{json .}}'`: one JSON object per line, whose
 * "Ports" member is docker's own text, such as
 *
 *	0.0.0.0:8080->8000/tcp, :::8080->8000/tcp
 *	[::]:8080->8000/tcp, 127.0.0.1:5000-5001->5000-5001/udp, 9000/tcp
 *
 * The JSON is read with the JSON reader; only that one string is taken
 * apart here.  What matters is the left side of each "->": inside the
 * sandbox, `docker run -p H:C` publishes the container on the VM's port
 * H, and that VM port is what sbx forwards a host port to.  An entry
 * without "->" is only exposed, not published, and is skipped.
 */
#include <errno.h>
#include <string.h>

#include "sbx.h"

#define RANGE_MAX	1024	/* ports in one published range */

/* "P" or "P1-P2" of exactly len bytes. */
static int
range(const char *s, size_t len, int *lo, int *hi)
{
	const char *dash = memchr(s, '-', len), *e;

	if (dash == NULL) {
		*lo = *hi = sbx_port_parse(s, len, &e);
		return *lo == -1 ? -1 : 0;
	}
	if ((*lo = sbx_port_parse(s, (size_t)(dash - s), &e)) == -1 ||
	    (*hi = sbx_port_parse(dash + 1, len - (size_t)(dash - s) - 1,
	    &e)) == -1 || *hi < *lo || *hi - *lo >= RANGE_MAX)
		return -1;
	return 0;
}

/* One entry "IP:P[-P]->C[-C]/proto" (blanks trimmed) into l. */
static int
entry(const char *s, size_t len, struct sbx_ports *l, const char **errstr)
{
	const char *arrow = NULL, *colon = NULL, *slash, *ip;
	struct sbx_port p;
	size_t i, iplen;
	int lo, hi, clo, chi, port, proto;

	for (i = 0; i + 1 < len; i++)
		if (s[i] == '-' && s[i + 1] == '>') {
			arrow = s + i;
			break;
		}
	if (arrow == NULL)
		return 0;	/* exposed only */
	if ((slash = memchr(arrow, '/', len - (size_t)(arrow - s))) == NULL)
		goto bad;
	if ((proto = sbx_proto_parse(slash + 1, len - (size_t)(slash + 1 -
	    s))) == -1)
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
	for (port = lo; port <= hi; port++) {
		p.vm = port;
		p.host = 0;
		if (sbx_ports_add(l, &p) == -1) {
			*errstr = strerror(errno);
			return -1;
		}
	}
	return 0;
bad:
	*errstr = "a Ports entry is not IP:PORT->PORT/PROTO";
	return -1;
}

/* docker's Ports text: entries separated by commas. */
int
sbx_ports_dockertext(const char *s, struct sbx_ports *l, const char **errstr)
{
	const char *end, *a, *b;

	for (; *s != '\0'; s = *end ? end + 1 : end) {
		if ((end = strchr(s, ',')) == NULL)
			end = s + strlen(s);
		for (a = s; a < end && (*a == ' ' || *a == '\t'); a++)
			;
		for (b = end; b > a && (b[-1] == ' ' || b[-1] == '\t'); b--)
			;
		if (b > a && entry(a, (size_t)(b - a), l, errstr) == -1)
			return -1;
	}
	return 0;
}

/* A string member of a docker ps object into buf, "" when absent. */
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

/* One container: its published ports, each knowing whose it is. */
static int
container(const struct sbx_json *o, struct sbx_ports *l, const char **errstr)
{
	const struct sbx_json *ports;
	struct sbx_port who;
	size_t i, first = l->n;

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
	    sbx_ports_dockertext(ports->str, l, errstr) == -1)
		return -1;
	for (i = first; i < l->n; i++) {
		memcpy(l->v[i].cid, who.cid, sizeof(who.cid));
		memcpy(l->v[i].cname, who.cname, sizeof(who.cname));
	}
	return 0;
}

/*
 * The whole output: JSON lines (blank lines and sbx's notices skipped);
 * an array of objects is taken too.  Returns 0, or -1 with *errstr.  n counts the containers.
 */
int
sbx_ports_dockerps(const char *buf, size_t len, struct sbx_ports *l,
    size_t *n, const char **errstr)
{
	const char *p = buf, *end = buf + len, *nl;
	const struct sbx_json *c;
	struct sbx_json *j;
	int r;

	*n = 0;
	*errstr = NULL;
	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		while (p < nl && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == nl)
			continue;
		/* sbx's own notices, on the exec's stdout where it puts them */
		if (sbx_says_notice(p, (size_t)(nl - p)))
			continue;
		if ((j = sbx_json_parse(p, (size_t)(nl - p), errstr)) == NULL)
			return -1;
		r = 0;
		if (j->type == SBX_JARR) {
			for (c = j->child; c != NULL && r == 0; c = c->next) {
				r = container(c, l, errstr);
				(*n)++;
			}
		} else {
			r = container(j, l, errstr);
			(*n)++;
		}
		sbx_json_free(j);
		if (r == -1)
			return -1;
		if (nl == end)
			break;
	}
	return 0;
}
