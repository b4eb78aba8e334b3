/*
 * sbxpolicy.h: the sandbox's network policy and registry credentials as
 * sbx keeps them: its verbs in either spelling (policycli.c), the rules
 * it lists (policyls.c), its log (policylog*.c), what the session asked
 * of it (egressrec.c), and that put in force (egressapply.c).
 */
#ifndef SBXPOLICY_H
#define SBXPOLICY_H

#include <stddef.h>

#include "sbx.h"

struct sbx_result;		/* sbxchild.h */

#define SBX_SPELL_UNKNOWN	0
#define SBX_SPELL_FLAG		1	/* --sandbox NAME */
#define SBX_SPELL_ARG		2	/* NAME, the first operand */
struct sbx_policycli {
	const char	 *sbx;		/* absolute path */
	char		**env;		/* for the sbx child */
	const char	 *name;		/* the sandbox */
	int		  timeout;	/* seconds per call; 0: none */
	int		  dfd;		/* state directory (spelling cache), or -1 */
	int		  spelling;	/* SBX_SPELL_*, found on the first call */
	int		  calls;	/* out: sbx invocations made */
};
int	 sbx_policycli_rule(struct sbx_policycli *, struct sbx_result *,
	    const char *, const char *);
int	 sbx_policycli_unrule(struct sbx_policycli *, struct sbx_result *,
	    const char *);
int	 sbx_policycli_check(struct sbx_policycli *, struct sbx_result *,
	    const char *);
int	 sbx_policycli_ls(struct sbx_policycli *, struct sbx_result *);
int	 sbx_policycli_log(struct sbx_policycli *, struct sbx_result *);
int	 sbx_policycli_secret(struct sbx_policycli *, struct sbx_result *,
	    const char *, const char *, const char *, size_t);
int	 sbx_policycli_unsecret(struct sbx_policycli *, struct sbx_result *,
	    const char *);
int	 sbx_policycli_absent(const struct sbx_result *);

/* policyls.c: the rules sbx lists for the sandbox */
#define SBX_RULE_ALLOW	1
#define SBX_RULE_DENY	2
#define SBX_RULE_REGISTRY	3	/* NAME.egress: a credential set */
#define SBX_RULES_MAX	1024	/* more are not read */
struct sbx_rule {
	int	 decision;	/* SBX_RULE_* */
	int	 active;	/* an organisation's policy may void it */
	char	 res[272];	/* one resource, as sbx lists it */
};
struct sbx_rules {
	struct sbx_rule	*v;
	size_t		 n;
	size_t		 cap;
};
int	 sbx_policyls_parse(const char *, size_t, const char *,
	    struct sbx_rules *, const char **);
int	 sbx_policyls_has(const struct sbx_rules *, int, const char *);
int	 sbx_policyls_add(struct sbx_rules *, int, int, const char *, size_t);
void	 sbx_policyls_free(struct sbx_rules *);

/* egressrec.c: NAME.egress, what the session asked of sbx */
int	 sbx_egressrec_read(int, const char *, struct sbx_rules *);
int	 sbx_egressrec_add(int, const char *, int, const char *const *,
	    size_t);

/* egressapply.c: rules put in force and proven by sbx's listing */
#define SBX_APPLY_MISSING	0x1	/* add only what sbx's listing lacks */
int	 sbx_egressapply(struct sbx_policycli *, const char *const *, size_t,
	    const char *const *, size_t, int, char *, size_t);
int	 sbx_egressapply_record(struct sbx_policycli *, int, int, char *,
	    size_t);
int	 sbx_egressapply_remove(struct sbx_policycli *, int, char *, size_t);

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
