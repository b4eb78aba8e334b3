/*
 * audit.h: what the files of the isolation audit share (probe.c runs the
 * script, answers.c reads what it said, rules.c asks sbx about the
 * session's rules, checks.c judges).
 */
#ifndef AUDIT_H
#define AUDIT_H

#include <limits.h>

#include "sbx.h"
#include "sbxmarker.h"
#include "sbxports.h"
#include "result.h"

#define NCHECKS		13
#define NMOUNTS		6	/* the canary and five host directories */

struct audit {
	const char	*name;
	const char	*argv0;
	char		 sbx[PATH_MAX];
	char		 sbxrun[PATH_MAX];	/* sbx-run, the transport */
	char		 statedir[PATH_MAX];
	int		 dfd;
	char		 nonce[17];
	char		 value[17];	/* the allowed probe's value */
	char		 tmpdir[PATH_MAX];	/* holds the canary docker */
	char		 ran[PATH_MAX + 8];	/* made if the canary runs */
	char		 canary[PATH_MAX + 128];	/* the mounts canary */
	char		 canaryfile[SBX_MARKER_MAX];
	const char	*home;		/* the host's HOME, or NULL */
	int		 readonly;
	int		 marker;	/* NAME.created was read */
	char		 project[PATH_MAX];
	/* names planted in the transport's environment */
	char		 sentinel[64];	/* DOCKER_*: scrubbed before sbx */
	char		 sbxsentinel[64];	/* DOCKER_SANDBOXES_*: reaches sbx */
	char		 denied[64];	/* SBX_*: reaches sbx, never forwarded */
	char		 allowed[64];	/* allow-listed: must arrive */
	char		 poisonhost[128];	/* DOCKER_HOST pointing nowhere */
	char		 poisonctx[64];	/* DOCKER_CONTEXT naming nothing */
	/* what came back */
	struct sbx_buf	 out;		/* the probe script's stdout */
	struct sbx_buf	 err;
	int		 status;
	int		 calls;		/* sbx invocations (counted here) */
	struct sbx_ports ports;		/* sbx's listing */
	int		 portsok;
	char		 portserr[512];
	struct result	 rules;		/* egress-rules, judged when asked */
};

/* probe.c */
void	 probe_prepare(struct audit *);
int	 probe_run(struct audit *);
void	 probe_cleanup(struct audit *);

/* answers.c: the script's lines "sbxv KEY [VALUE]" */
const char *answers_get(const struct audit *, const char *, char *, size_t);
int	 answers_has(const struct audit *, const char *, const char *);
int	 answers_all(const struct audit *, const char *, char *, size_t);
int	 answers_next(const struct audit *, const char *, const char **, char *,
	    size_t);

/* chprobe.c: the script's lines for the SSH agent and the MCP gateway */
void	 chprobe_script(const struct audit *, struct sbx_buf *);

/* channels.c: their verdicts */
void	 channels_ssh_agent(const struct audit *, struct result *);
void	 channels_mcp_gateway(const struct audit *, struct result *);

/* rules.c: the session's network rules, asked of sbx */
void	 rules_ask(struct audit *, char **);
void	 rules_judge(const struct audit *, struct result *);

/* checks.c */
void	 checks_run(const struct audit *, struct result *);

#endif /* AUDIT_H */
