/* sbxpolicy.h: sbx's network policy as its log and failed calls tell it */
#ifndef SBXPOLICY_H
#define SBXPOLICY_H

#include <stddef.h>

#define SBX_POLICYLOG_MAX	64	/* denials kept; the rest counted */
#define SBX_POLICYLOG_HOST	272	/* a host:port shown, and a NUL */
#define SBX_POLICYLOG_REASON	320	/* a reason in plain words */

/* the envelope sbx_policylog_parse saw */
#define SBX_POLICYLOG_UNKNOWN	0	/* not read: it returned -1 */
#define SBX_POLICYLOG_EMPTY	1	/* nothing, null or {} */
#define SBX_POLICYLOG_HOSTS	2	/* blocked_hosts, allowed_hosts */
#define SBX_POLICYLOG_ARRAY	3	/* a bare array of entries */
#define SBX_POLICYLOG_LIST	4	/* {"entries"|"log"|"events":[]} */

/*
 * One host sbx blocked.  host: printable ASCII only; a byte outside a
 * host:port's alphabet is shown as \ooo, and a host too long to show
 * ends in "...".  reason: in plain words, as sbx_policylog_reason.
 */
struct sbx_denial {
	char		 host[SBX_POLICYLOG_HOST];
	char		 reason[SBX_POLICYLOG_REASON];
	long long	 last_seen;	/* Unix seconds; -1 unknown */
	long		 count;		/* at least 1 */
};

/* The denials kept, latest first; more: how many others were left out. */
struct sbx_denials {
	struct sbx_denial *v;
	size_t		 n;
	size_t		 more;
	int		 shape;		/* SBX_POLICYLOG_* */
};

/*
 * policylog.c: what `sbx policy log [SANDBOX] --json` printed: 0, or -1
 * and a short phrase in *why, for one warning (the JSON reader's fault,
 * or which envelope it is not); sbx_policylog_host shows a host as
 * struct sbx_denial does.
 */
int	 sbx_policylog_parse(const char *, size_t, const char *, long long,
	    struct sbx_denials *, const char **);
void	 sbx_policylog_free(struct sbx_denials *);
const char *sbx_policylog_shape(int);
const char *sbx_policylog_host(const char *, char *, size_t);

/* policylogreason.c: sbx's reason for a denial, in plain words */
const char *sbx_policylog_reason(const char *, char *, size_t);

/* policylogcert.c: a container refusing the sandbox proxy's certificate */
int	 sbx_policylog_certhint(const char *, size_t);
const char *sbx_policylog_certadvice(void);

#endif /* SBXPOLICY_H */
