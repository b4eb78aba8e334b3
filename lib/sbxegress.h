/*
 * sbxegress.h: the network rules of a session (egress.c), the entries of
 * DOCKER_SANDBOX_EGRESS_ALLOW and _DENY in the text sbx takes.
 */
#ifndef SBXEGRESS_H
#define SBXEGRESS_H

#include <stddef.h>

#define SBX_EGRESS_MAX		64	/* entries in one variable */
#define SBX_EGRESS_NAMEMAX	253	/* a DNS name's bytes */
#define SBX_EGRESS_RESMAX	264	/* "**." NAME ":65535" and its NUL */
#define SBX_EGRESS_JOINMAX	(SBX_EGRESS_MAX * SBX_EGRESS_RESMAX)

/* What a rule's resource names */
#define SBX_EGRESS_NAME		0	/* one DNS name */
#define SBX_EGRESS_ONE		1	/* *.x: x under exactly one label */
#define SBX_EGRESS_ANY		2	/* **.x: x under one label or more */
#define SBX_EGRESS_IP4		3	/* an IPv4 address or prefix */
#define SBX_EGRESS_IP6		4	/* an IPv6 address or prefix */

struct sbx_egress_rule {
	char	 res[SBX_EGRESS_RESMAX];	/* canonical, as sbx takes it */
	int	 kind;			/* SBX_EGRESS_* */
	int	 port;			/* 1-65535; 0: any */
	size_t	 host, hostlen;		/* names: x of res, past any "*." */
	unsigned char addr[16];		/* IP4, IP6: masked to bits */
	int	 bits;			/* the prefix; 32 or 128: one address */
};

struct sbx_egress {
	struct sbx_egress_rule v[SBX_EGRESS_MAX];
	size_t	 n;
};

/*
 * parse: 0, or -1 with why naming the variable and the entry; match: the
 * first rule covering host[:port], [v6]:port or a bare host (one without
 * a port only by a rule without one), else -1; join: "a,b,c" and its
 * length, buf "" when that is size or more.
 */
int	 sbx_egress_parse(const char *, const char *, struct sbx_egress *,
	    char *, size_t);
int	 sbx_egress_match(const struct sbx_egress *, const char *);
size_t	 sbx_egress_join(const struct sbx_egress *, char *, size_t);

#endif /* SBXEGRESS_H */
