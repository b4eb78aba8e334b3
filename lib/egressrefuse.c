/*
 * egressrefuse.c: what reaches the host, which no rule may name or cover:
 * localhost and every name under it, the VM's names for the host,
 * 0.0.0.0/8, 127.0.0.0/8 and 169.254.0.0/16 in each of their IPv6 forms
 * (compatible, mapped, translated), and IPv6 link-local.
 */
#include <stdio.h>
#include <string.h>

#include "sbxegress.h"
#include "sbx-internal.h"

/* The names that reach the host, beside every name under localhost. */
static const char *const hostnames[] = { "localhost",
	"host.docker.internal", "gateway.docker.internal" };

/* The IPv4 ranges that reach the host, and the IPv6 forms they take. */
static const struct {
	unsigned char	 a[4];
	int		 bits;
} v4ranges[] = { { { 0 }, 8 }, { { 127 }, 8 }, { { 169, 254 }, 16 } };
static const unsigned char v4heads[3][12] = {
	{ 0 },							/* ::a.b.c.d */
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff },		/* mapped */
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0 },		/* translated */
};
static const unsigned char linklocal6[16] = { 0xfe, 0x80 };

static int
say(char *why, size_t size, const char *what)
{
	snprintf(why, size, "%s", what);
	return -1;
}

/* Whether name ends in the labels of base: "" when they are the same. */
static const char *
under(const char *name, const char *base, size_t blen)
{
	size_t n = strlen(name);

	if (n == blen)
		return memcmp(name, base, blen) == 0 ? "" : NULL;
	if (n < blen + 2 || name[n - blen - 1] != '.' ||
	    memcmp(name + n - blen, base, blen) != 0)
		return NULL;
	return name;
}

/* A name, or what a wildcard rule covers, against the host's names. */
int
sbx_egressrefuse_name(const struct sbx_egress_rule *r, char *why, size_t size)
{
	const char *base = r->res + r->host, *lead;
	size_t i;

	if (under("localhost", base, r->hostlen) != NULL ||
	    (r->hostlen > 10 && memcmp(base + r->hostlen - 10, ".localhost",
	    10) == 0))
		return say(why, size, r->kind == SBX_EGRESS_NAME ?
		    "reaches the host" :
		    "covers names under localhost, which reach the host");
	for (i = 0; i < sizeof(hostnames) / sizeof(hostnames[0]); i++) {
		if ((lead = under(hostnames[i], base, r->hostlen)) == NULL)
			continue;
		if (*lead == '\0' && r->kind == SBX_EGRESS_NAME)
			return say(why, size, "reaches the host");
		/* *.x covers a name of exactly one label more */
		if (*lead != '\0' && (r->kind == SBX_EGRESS_ANY ||
		    (r->kind == SBX_EGRESS_ONE && memchr(lead, '.',
		    strlen(lead) - r->hostlen - 1) == NULL))) {
			snprintf(why, size, "covers %s, which reaches the host",
			    hostnames[i]);
			return -1;
		}
	}
	return 0;
}

/* An address or prefix against one range: inside it, or covering it. */
static int
refuserange(const struct sbx_egress_rule *r, const unsigned char *a,
    int bits, char *why, size_t size)
{
	char text[64];

	if (!sbx_egressaddr_within(r->addr, a, r->bits < bits ? r->bits : bits))
		return 0;
	if (r->bits >= bits)
		return say(why, size, "reaches the host");
	if (r->kind == SBX_EGRESS_IP4)
		snprintf(text, sizeof(text), "%u.%u.%u.%u", a[0], a[1], a[2],
		    a[3]);
	else
		sbx_egressaddr_format6(a, text);
	snprintf(why, size, "covers %s/%d, which reaches the host", text, bits);
	return -1;
}

/* An address or prefix against the ranges that reach the host. */
int
sbx_egressrefuse_addr(const struct sbx_egress_rule *r, char *why, size_t size)
{
	unsigned char a[16];
	size_t i, h;

	for (i = 0; i < sizeof(v4ranges) / sizeof(v4ranges[0]); i++) {
		if (r->kind == SBX_EGRESS_IP4) {
			if (refuserange(r, v4ranges[i].a, v4ranges[i].bits,
			    why, size) == -1)
				return -1;
			continue;
		}
		for (h = 0; h < 3; h++) {
			memcpy(a, v4heads[h], 12);
			memcpy(a + 12, v4ranges[i].a, 4);
			if (refuserange(r, a, 96 + v4ranges[i].bits, why,
			    size) == -1)
				return -1;
		}
	}
	if (r->kind == SBX_EGRESS_IP6)
		return refuserange(r, linklocal6, 10, why, size);
	return 0;
}
