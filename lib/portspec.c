/*
 * portspec.c: port mappings: "[host:]sandboxport[/proto]" specs and sbx's
 * JSON listing.  The protocol keeps its family (tcp4, tcp), since sbx
 * unpublishes by the exact protocol it listed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxjson.h"
#include "sbxports.h"
#include "sbx-internal.h"

#define PORTS_MAX	65536

const char *
sbx_portspec_proto_name(int proto)
{
	return proto == SBX_UDP ? "udp" : "tcp";
}

const char *
sbx_portspec_proto(const struct sbx_port *p)
{
	static const char *const name[2][3] = {
		{ "tcp", "tcp4", "tcp6" }, { "udp", "udp4", "udp6" }
	};

	return name[p->proto == SBX_UDP][p->fam == 4 ? 1 : p->fam == 6 ? 2 :
	    0];
}

/* The protocol, exactly: SBX_TCP or SBX_UDP, the family in *fam; or -1. */
int
sbx_portspec_proto_parse(const char *s, size_t len, int *fam)
{
	int f = 0, proto;

	if (len == 4 && (s[3] == '4' || s[3] == '6')) {
		f = s[3] - '0';
		len = 3;
	}
	if (len == 3 && strncmp(s, "tcp", 3) == 0)
		proto = SBX_TCP;
	else if (len == 3 && strncmp(s, "udp", 3) == 0)
		proto = SBX_UDP;
	else
		return -1;
	if (fam != NULL)
		*fam = f;
	return proto;
}

int
sbx_portspec_parse(const char *s, size_t len, const char **errstr)
{
	char buf[8];
	size_t i;
	long long v;

	*errstr = "invalid";
	if (len == 0 || len >= sizeof(buf))
		return len >= sizeof(buf) ? (*errstr = "too large", -1) : -1;
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = sbx_strtonum(buf, 1, 65535, errstr);
	return *errstr != NULL ? -1 : (int)v;
}

/* A host address before the ports (sbx-ports binds loopback only): why. */
static const char *
hostaddr(const char *spec, size_t len)
{
	static char msg[128];
	const char *end = NULL, *c;
	size_t colons = 0, i;

	for (i = 0; i < len; i++)
		colons += spec[i] == ':';
	if (len > 0 && spec[0] == '[') {
		if ((c = memchr(spec, ']', len)) == NULL)
			c = spec + len - 1;
		end = c + 1;
	} else if (colons >= 2) {
		/* the last two fields are the ports: the rest is the address */
		for (c = spec + len, i = 0; c > spec && i < 2; )
			if (*--c == ':')
				i++;
		end = c;
	} else if (colons == 1 && memchr(spec, '.',
	    (size_t)((const char *)memchr(spec, ':', len) - spec)) != NULL)
		end = memchr(spec, ':', len);
	if (end == NULL)
		return NULL;
	snprintf(msg, sizeof(msg), "host address %.*s is not supported (ports "
	    "are published on the loopback only)", (int)((end - spec) > 64 ?
	    64 : end - spec), spec);
	return sbx_shown(msg, msg, sizeof(msg));
}

/* "[host:]sandboxport[/proto]" into p; 0, or -1 with *errstr. */
int
sbx_portspec(const char *spec, struct sbx_port *p, const char **errstr)
{
	const char *slash, *colon, *vm, *e;
	size_t vmlen;

	memset(p, 0, sizeof(*p));
	p->proto = SBX_TCP;
	if ((slash = strchr(spec, '/')) != NULL) {
		if ((p->proto = sbx_portspec_proto_parse(slash + 1,
		    strlen(slash + 1), &p->fam)) == -1) {
			*errstr = "protocol is not tcp, tcp4, tcp6, udp, udp4 "
			    "or udp6";
			return -1;
		}
	} else
		slash = spec + strlen(spec);
	if ((*errstr = hostaddr(spec, (size_t)(slash - spec))) != NULL)
		return -1;
	vm = spec;
	if ((colon = memchr(spec, ':', (size_t)(slash - spec))) != NULL) {
		if ((p->host = sbx_portspec_parse(spec, (size_t)(colon - spec),
		    &e)) == -1) {
			*errstr = e[0] == 't' ? "host port is out of range" :
			    "host port is not a number";
			return -1;
		}
		vm = colon + 1;
	}
	vmlen = (size_t)(slash - vm);
	if ((p->vm = sbx_portspec_parse(vm, vmlen, &e)) == -1) {
		*errstr = e[0] == 't' ? "sandbox port is out of range" :
		    "sandbox port is not a number";
		return -1;
	}
	*errstr = NULL;
	return 0;
}

int
sbx_portspec_add(struct sbx_ports *l, const struct sbx_port *p)
{
	struct sbx_port *v;
	size_t cap;

	if (l->n == l->cap) {
		if (l->cap >= PORTS_MAX)
			return errno = E2BIG, -1;
		cap = l->cap ? l->cap * 2 : 16;
		if ((v = realloc(l->v, cap * sizeof(*v))) == NULL)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *p;
	return 0;
}

void
sbx_portspec_free(struct sbx_ports *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const struct sbx_port *
sbx_portspec_findvm(const struct sbx_ports *l, int vm, int proto)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].vm == vm && l->v[i].proto == proto)
			return &l->v[i];
	return NULL;
}

int
sbx_portspec_ip_loopback(const char *ip)
{
	return strcmp(ip, "127.0.0.1") == 0 || strcmp(ip, "::1") == 0;
}

static int
jport(const struct sbx_json *o, const char *key)
{
	const struct sbx_json *m = sbx_json_get(o, key);
	const char *e;

	if (m == NULL || (m->type != SBX_JNUM && m->type != SBX_JSTR))
		return -1;
	return sbx_portspec_parse(m->str, strlen(m->str), &e);
}

/* sbx's listing: a JSON array, maybe after notices; empty output is none. */
int
sbx_portspec_sbxjson(const char *buf, size_t len, struct sbx_ports *l,
    const char **errstr)
{
	struct sbx_json *j;
	const struct sbx_json *m;
	const char *ip, *proto;
	struct sbx_port p;
	size_t i;

	for (i = 0; i < len && (buf[i] == ' ' || buf[i] == '\n' ||
	    buf[i] == '\t' || buf[i] == '\r'); i++)
		;
	if (i == len)
		return 0;
	if ((j = sbx_json_doc(buf, len, errstr)) == NULL)
		return -1;
	if (j->type != SBX_JARR) {
		*errstr = "not a JSON array";
		goto bad;
	}
	for (m = j->child; m != NULL; m = m->next) {
		memset(&p, 0, sizeof(p));
		if ((ip = sbx_json_str(m, "host_ip")) == NULL ||
		    strlen(ip) >= sizeof(p.ip) ||
		    (proto = sbx_json_str(m, "protocol")) == NULL ||
		    (p.proto = sbx_portspec_proto_parse(proto, strlen(proto),
		    &p.fam)) == -1 ||
		    (p.host = jport(m, "host_port")) == -1 ||
		    (p.vm = jport(m, "sandbox_port")) == -1) {
			*errstr = "a mapping lacks host_ip, host_port, "
			    "sandbox_port or protocol";
			goto bad;
		}
		memcpy(p.ip, ip, strlen(ip) + 1);
		if (sbx_portspec_add(l, &p) == -1) {
			*errstr = strerror(errno);
			goto bad;
		}
	}
	sbx_json_free(j);
	*errstr = NULL;
	return 0;
bad:
	sbx_json_free(j);
	return -1;
}

/* sbx's spec for a mapping, address given: a bare one binds per version. */
int
sbx_portspec_sbxspec(const struct sbx_port *p, char *buf, size_t size)
{
	const char *ip = p->ip[0] ? p->ip : "127.0.0.1";
	int v6 = strchr(ip, ':') != NULL, n;

	n = snprintf(buf, size, "%s%s%s:%d:%d/%s", v6 ? "[" : "", ip,
	    v6 ? "]" : "", p->host, p->vm, sbx_portspec_proto(p));
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

int
sbx_portspec_url(const struct sbx_port *p, char *buf, size_t size)
{
	const char *ip = p->ip[0] ? p->ip : "127.0.0.1";
	int v6 = strchr(ip, ':') != NULL, n;

	/* a wildcard bind is reached on loopback too */
	if (strcmp(ip, "0.0.0.0") == 0)
		ip = "127.0.0.1";
	else if (strcmp(ip, "::") == 0)
		ip = "::1";
	n = snprintf(buf, size, "%s://%s%s%s:%d%s",
	    p->proto == SBX_UDP ? "udp" : "http", v6 ? "[" : "", ip,
	    v6 ? "]" : "", p->host, p->proto == SBX_UDP ? "" : "/");
	return n < 0 || (size_t)n >= size ? -1 : 0;
}
