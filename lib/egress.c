/*
 * egress.c: the entries of DOCKER_SANDBOX_EGRESS_ALLOW and _DENY, each
 * host[:port] (a DNS name, maybe under *. or **.; an IPv4 or IPv6
 * address or prefix) in the one text handed to sbx.  A form that could
 * smuggle in another host is refused; what reaches the host, in either
 * list, is egressrefuse.c's.
 */
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxegress.h"
#include "sbx-internal.h"

#define LABEL_MAX	63
#define SHOWN_CUT	80	/* bytes of a refused entry shown */

static int
say(char *why, size_t size, const char *what)
{
	snprintf(why, size, "%s", what);
	return -1;
}

/* A port: decimal, 1 to 65535, no sign or leading zero; -1 if not. */
static long
portnum(const char *s, size_t len)
{
	long v = 0;
	size_t i;

	if (len == 0 || len > 5 || s[0] == '0')
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= 65535 ? v : -1;
}

static int
hasbytes(const char *s, size_t len, const char *what)
{
	size_t i, n = strlen(what);

	for (i = 0; i + n <= len; i++)
		if (memcmp(s + i, what, n) == 0)
			return 1;
	return 0;
}


/* An address, maybe with /bits, into r; text is what sbx gets. */
static int
address(struct sbx_egress_rule *r, const char *s, size_t len, int bracket,
    char *text, char *why, size_t size)
{
	const char *slash = memchr(s, '/', len);
	size_t alen = slash != NULL ? (size_t)(slash - s) : len, i;
	int max;

	if (!bracket && sbx_egressaddr_parse4(s, alen, r->addr) == 0) {
		r->kind = SBX_EGRESS_IP4;
		max = 32;
	} else if (memchr(s, ':', alen) != NULL) {
		if (sbx_egressaddr_parse6(s, alen, r->addr) == -1)
			return say(why, size, "is not an IPv6 address");
		r->kind = SBX_EGRESS_IP6;
		max = 128;
	} else if (bracket)
		return say(why, size, "is not an IPv6 address");
	else
		return say(why, size, "has a path: give the host alone");
	r->bits = max;
	if (slash != NULL) {
		for (i = 1, r->bits = 0; slash + i < s + len && i < 5; i++)
			if (slash[i] < '0' || slash[i] > '9' ||
			    (i == 2 && slash[1] == '0') ||
			    (r->bits = r->bits * 10 + slash[i] - '0') > max)
				break;
		if (i == 1 || slash + i != s + len) {
			snprintf(why, size, "prefix length must be 0 to %d",
			    max);
			return -1;
		}
		sbx_egressaddr_mask(r->addr, (size_t)max / 8, r->bits);
	}
	if (r->kind == SBX_EGRESS_IP4)
		snprintf(text, 64, "%u.%u.%u.%u", r->addr[0], r->addr[1],
		    r->addr[2], r->addr[3]);
	else
		sbx_egressaddr_format6(r->addr, text);
	if (slash != NULL)
		snprintf(text + strlen(text), 8, "/%d", r->bits);
	return sbx_egressrefuse_addr(r, why, size);
}

static int
isalnum_ascii(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* A DNS name, maybe under *. or **., lower-cased into r->res. */
static int
name(struct sbx_egress_rule *r, const char *s, size_t len, char *why,
    size_t size)
{
	size_t i, start, skip = 0;
	int digits = 0;

	r->kind = SBX_EGRESS_NAME;
	if (len >= 3 && memcmp(s, "**.", 3) == 0)
		r->kind = SBX_EGRESS_ANY, skip = 3;
	else if (len >= 2 && memcmp(s, "*.", 2) == 0)
		r->kind = SBX_EGRESS_ONE, skip = 2;
	s += skip;
	len -= skip;
	if (memchr(s, '*', len) != NULL)
		return say(why, size, "has a * that is not a leading *. or "
		    "**.");
	if (len > 0 && s[len - 1] == '.')
		len--;
	if (len > SBX_EGRESS_NAMEMAX)
		return say(why, size, "has a host over 253 bytes");
	for (start = i = 0; i <= len; i++) {
		if (i < len && s[i] != '.') {
			if (!isalnum_ascii((unsigned char)s[i]) &&
			    s[i] != '-') {
				snprintf(why, size, "has '%c', which no host "
				    "name has", s[i]);
				return -1;
			}
			continue;
		}
		if (i == start)
			return say(why, size, "has an empty label");
		if (i - start > LABEL_MAX)
			return say(why, size, "has a label over 63 bytes");
		if (s[start] == '-' || s[i - 1] == '-')
			return say(why, size, "has a label that starts or ends "
			    "with -");
		if (s[start] == '0' && i - start > 1 && (s[start + 1] == 'x' ||
		    s[start + 1] == 'X'))
			return say(why, size, "is a number in hex, not a "
			    "dotted quad");
		for (digits = 1; start < i; start++)
			digits &= s[start] >= '0' && s[start] <= '9';
		start = i + 1;
	}
	if (digits)
		return say(why, size, "is a number, not a dotted quad");
	memcpy(r->res, r->kind == SBX_EGRESS_ANY ? "**." : "*.", skip);
	for (i = 0; i < len; i++)
		r->res[skip + i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ?
		    s[i] - 'A' + 'a' : s[i]);
	r->res[skip + len] = '\0';
	r->host = skip;
	r->hostlen = len;
	return sbx_egressrefuse_name(r, why, size);
}

/*
 * One entry into r, or -1 with why saying what is wrong with it (the
 * caller names the variable and the entry); regauth.c's hosts too.
 */
int
sbx_egress_rule(struct sbx_egress_rule *r, const char *s, size_t len,
    char *why, size_t size)
{
	const char *host = s, *p;
	size_t hlen = len, i;
	long port = 0;
	int bracket = 0;
	char text[64];

	memset(r, 0, sizeof(*r));
	for (i = 0; i < len; i++) {
		if (s[i] == ' ' || s[i] == '\t')
			return say(why, size, "has a blank");
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return say(why, size, "has a control byte");
		if ((unsigned char)s[i] >= 0x80)
			return say(why, size, "has a byte outside ASCII");
	}
	if (len > 0 && s[0] == '-')
		return say(why, size, "starts with -");
	if (hasbytes(s, len, "://"))
		return say(why, size, "is a URL: give the host alone");
	if ((len == 1 && s[0] == '*') || (len == 2 && memcmp(s, "**", 2) == 0))
		return say(why, size, "allows every host, which only the "
		    "user's own sbx policy may");
	if (len > 0 && s[0] == '[') {
		if ((p = memchr(s, ']', len)) == NULL)
			return say(why, size, "has [ without ]");
		host = s + 1;
		hlen = (size_t)(p - host);
		bracket = 1;
		if (p + 1 < s + len && p[1] != ':')
			return say(why, size, "has more than :PORT after ]");
		if (p + 1 < s + len)
			port = portnum(p + 2, (size_t)(s + len - p - 2));
	} else if ((p = memchr(s, ':', len)) != NULL &&
	    memchr(p + 1, ':', (size_t)(s + len - p - 1)) == NULL) {
		hlen = (size_t)(p - s);
		port = portnum(p + 1, (size_t)(s + len - p - 1));
	}
	if (port == -1)
		return say(why, size, "port must be 1 to 65535");
	if (hlen == 0)
		return say(why, size, "has no host");
	r->port = (int)port;
	if (bracket || memchr(host, '/', hlen) != NULL ||
	    memchr(host, ':', hlen) != NULL ||
	    sbx_egressaddr_parse4(host, hlen, r->addr) == 0) {
		if (address(r, host, hlen, bracket, text, why, size) == -1)
			return -1;
		if (port != 0 && memchr(host, '/', hlen) != NULL)
			return say(why, size, "is a prefix, which takes no "
			    "port");
		snprintf(r->res, sizeof(r->res), port != 0 &&
		    r->kind == SBX_EGRESS_IP6 ? "[%s]" : "%s", text);
	} else if (name(r, host, hlen, why, size) == -1)
		return -1;
	if (port != 0)
		snprintf(r->res + strlen(r->res), 7, ":%ld", port);
	return 0;
}

/* An entry shown in a message: escaped, and cut. */
static const char *
shown(const char *s, size_t len, char *buf, size_t size)
{
	char raw[SHOWN_CUT + 1];
	size_t n = len > SHOWN_CUT ? SHOWN_CUT : len;

	memcpy(raw, s, n);
	raw[n] = '\0';
	sbx_shown(raw, buf, size - 4);
	if (n < len)
		memcpy(buf + strlen(buf), "...", 4);
	return buf;
}

/*
 * Each entry of var's comma-separated list to one(arg, s, len, reason),
 * at most max of them and none empty; -1 with why at the first refused.
 */
int
sbx_egress_each(const char *var, const char *list, size_t max,
    int (*one)(void *, const char *, size_t, char *, size_t), void *arg,
    char *why, size_t size)
{
	const char *p = list, *end;
	char reason[128], entry[4 * SHOWN_CUT + 8];
	size_t k;

	if (*list == '\0')
		return 0;
	for (k = 1;; k++, p = end + 1) {
		if ((end = strchr(p, ',')) == NULL)
			end = p + strlen(p);
		if (end == p) {
			snprintf(why, size, "%s: entry %zu is empty", var, k);
			return -1;
		}
		if (k > max) {
			snprintf(why, size, "%s: more than %zu entries", var,
			    max);
			return -1;
		}
		if (one(arg, p, (size_t)(end - p), reason,
		    sizeof(reason)) == -1) {
			snprintf(why, size, "%s: \"%s\": %s", var,
			    shown(p, (size_t)(end - p), entry, sizeof(entry)),
			    reason);
			return -1;
		}
		if (*end == '\0')
			return 0;
	}
}

/* One more rule of e, unless it is one of e's already. */
static int
add(void *arg, const char *s, size_t len, char *why, size_t size)
{
	struct sbx_egress *e = arg;
	struct sbx_egress_rule *r = &e->v[e->n];
	size_t i;

	if (sbx_egress_rule(r, s, len, why, size) == -1)
		return -1;
	for (i = 0; i < e->n; i++)
		if (strcmp(e->v[i].res, r->res) == 0) {
			snprintf(why, size, "the same as entry %zu (%s)", i + 1,
			    r->res);
			return -1;
		}
	e->n++;
	return 0;
}

int
sbx_egress_parse(const char *var, const char *list, struct sbx_egress *e,
    char *why, size_t size)
{
	e->n = 0;
	if (sbx_egress_each(var, list, SBX_EGRESS_MAX, add, e, why,
	    size) == 0)
		return 0;
	e->n = 0;
	return -1;
}

/* The index of the first rule that covers target (host[:port]), or -1. */
int
sbx_egress_match(const struct sbx_egress *e, const char *target)
{
	const struct sbx_egress_rule *r;
	const char *p, *hp = target;
	char host[SBX_EGRESS_RESMAX];
	unsigned char a[16];
	size_t len = strlen(target), hlen = len, i, k;
	long port = 0;
	int fam = 0;

	if (target[0] == '[') {
		if ((p = strchr(target, ']')) == NULL ||
		    (p[1] != '\0' && p[1] != ':'))
			return -1;
		hp = target + 1;
		hlen = (size_t)(p - hp);
		if (p[1] == ':')
			port = portnum(p + 2, strlen(p + 2));
	} else if ((p = strchr(target, ':')) != NULL &&
	    strchr(p + 1, ':') == NULL) {
		hlen = (size_t)(p - target);
		port = portnum(p + 1, strlen(p + 1));
	}
	if (port == -1 || hlen == 0 || hlen >= sizeof(host))
		return -1;
	for (i = 0; i < hlen; i++)
		host[i] = (char)(hp[i] >= 'A' && hp[i] <= 'Z' ?
		    hp[i] - 'A' + 'a' : hp[i]);
	if (host[hlen - 1] == '.')
		hlen--;
	if (sbx_egressaddr_parse4(host, hlen, a) == 0)
		fam = SBX_EGRESS_IP4;
	else if (sbx_egressaddr_parse6(host, hlen, a) == 0)
		fam = SBX_EGRESS_IP6;
	for (i = 0; i < e->n; i++) {
		r = &e->v[i];
		if (r->port != 0 && r->port != port)
			continue;
		if (r->kind == SBX_EGRESS_IP4 || r->kind == SBX_EGRESS_IP6) {
			if (fam == r->kind &&
			    sbx_egressaddr_within(a, r->addr, r->bits))
				return (int)i;
			continue;
		}
		if (fam != 0 || hlen < r->hostlen ||
		    memcmp(host + hlen - r->hostlen, r->res + r->host,
		    r->hostlen) != 0)
			continue;
		if (r->kind == SBX_EGRESS_NAME) {
			if (hlen == r->hostlen)
				return (int)i;
			continue;
		}
		/* a wildcard: one label more (*.), or one or more (**.) */
		if (hlen < r->hostlen + 2 || host[hlen - r->hostlen - 1] != '.')
			continue;
		k = hlen - r->hostlen - 1;
		if (r->kind == SBX_EGRESS_ANY || memchr(host, '.', k) == NULL)
			return (int)i;
	}
	return -1;
}

/* a,b,c into buf, its length; when it is size or more, buf is "". */
size_t
sbx_egress_join(const struct sbx_egress *e, char *buf, size_t size)
{
	size_t i, need = 0, o = 0, n;

	for (i = 0; i < e->n; i++)
		need += strlen(e->v[i].res) + (i > 0);
	if (need >= size) {
		if (size > 0)
			buf[0] = '\0';
		return need;
	}
	for (i = 0; i < e->n; i++) {
		if (i > 0)
			buf[o++] = ',';
		n = strlen(e->v[i].res);
		memcpy(buf + o, e->v[i].res, n);
		o += n;
	}
	buf[o] = '\0';
	return need;
}
