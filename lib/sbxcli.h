/*
 * sbxcli.h: the sbx CLI: which binary, one call in sbx's own terms, what
 * its words mean, its listing, and the argv of its create and keepalive.
 */
#ifndef SBXCLI_H
#define SBXCLI_H

#include <stddef.h>

#include "sbx.h"

struct sbx_result;		/* sbxchild.h */

/* sbxcli.c: which sbx to run; sbx_xcli_find exits 127, 126 or 64 */
void	 sbx_xcli_find(char *const *, char *const *, char *, size_t);
int	 sbx_cli_find(char *const *, char *const *, char *, size_t);
int	 sbx_cli_runnable(const char *);

/* sibling.c: a program of ours installed beside us (sbx-ports) */
int	 sbx_sibling(const char *, char *const *, char *const *, const char *,
	    char *, size_t);

/* sbxcall.c: one sbx call: no stdin (or one given), --no-input, the start race retried */
#define SBX_RACE_TRIES	5
#define SBX_RACE_MS	100
#define SBX_CALL_INPUT_MAX	16384	/* bytes sbx_call_input hands sbx */
int	 sbx_call(struct sbx_result *, char *const *, char *const *, int, int);
int	 sbx_call_input(struct sbx_result *, char *const *, char *const *, int,
	    int, const char *, size_t);
void	 sbx_call_identity(const char *, char *, size_t);

/* sbxsays.c: what sbx's words mean (every wording matched is there) */
#define SBX_NF_NO	0	/* not sbx's line, and cannot become it */
#define SBX_NF_PREFIX	1	/* could still become it */
#define SBX_NF_LINE	2	/* the first line is sbx's, complete */
int	 sbx_says_notfound(const char *, const char *);
int	 sbx_says_notfound_line(const char *, size_t, const char *);
int	 sbx_says_exists(const char *);
int	 sbx_says_stopped(const char *);
int	 sbx_says_restart(const char *);
int	 sbx_says_restart_line(const char *, size_t);
int	 sbx_says_race(const char *);
int	 sbx_says_race_line(const char *, size_t);
int	 sbx_says_notice(const char *, size_t);
int	 sbx_says_norule(const char *);
int	 sbx_says_nomatch(const char *);
int	 sbx_says_checked(const char *, const char *);
void	 sbx_says_restart_exit(void) SBX_DEAD;
/* What to do when sbx awaits its daemon restart: said here alone. */
#define SBX_RESTART_FIX	"sbx was upgraded and its daemon must restart, " \
	"which stops every sandbox: run 'sbx daemon restart', or 'sbx ls' " \
	"in a terminal and confirm"

/* sbxgone.c: sbx's "not found" confirmed by its listing */
int	 sbx_gone(const struct sbx_result *, const char *, char *const *,
	    const char *, int, int);

/* unplaced.c: an answer of sbx's the programs cannot place, shown */
void	 sbx_unplaced(const struct sbx_result *, const char *, char *const *,
	    int, const char *);

/* sbxls.c: is a sandbox in the output of `sbx ls --json`, and how? */
int	 sbx_ls_listed(const char *, size_t, const char *, const char **);
int	 sbx_ls_status(const char *, size_t, const char *, char *, size_t,
	    const char **);

/* createargv.c: the `sbx create` of provisioning (sbx-run, sbx-verify -S) */
#define SBX_CREATE_ARGC	20
struct sbx_create {
	char	 cpus[24];
	char	 memory[32];
	const char *template;	/* or NULL */
};
void	 sbx_xcreateargv_conf(struct sbx_create *);
char	**sbx_create_argv(char **, const char *, const char *,
	    const struct sbx_create *, int, const char *, const char *);

/* holdargv.c: the keepalive's exec that stays open */
#define SBX_HOLD_ARGC		7
#define SBX_HOLD_SECONDS	3600
#define SBX_HOLD_TIMEOUT	(SBX_HOLD_SECONDS + 60)	/* a minute over */
char	**sbx_hold_argv(char **, const char *, const char *);

#endif /* SBXCLI_H */
