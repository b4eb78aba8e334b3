/*
 * selfcheck.h: the self-check (-S), the one header of its files, as
 * audit.h is the audit's; result.h is all the two share.  selfcheck.c
 * runs it; sc.c makes the calls and words the verdicts; scremove.c
 * removes the sandbox; scbasic.c, scwords.c, scstamp.c, scguest.c,
 * scports.c and scpolicy.c hold the checks.
 */
#ifndef SELFCHECK_H
#define SELFCHECK_H

#include <limits.h>

#include "sbxports.h"
#include "result.h"

struct sbx_result;		/* sbxchild.h */
enum sccheck {
	SC_VERSION, SC_NOINPUT, SC_MISSING, SC_LS, SC_CREATE, SC_EXISTS,
	SC_EXEC, SC_GUEST, SC_DIALECT, SC_PUBLISH, SC_UNPUBLISH, SC_IDLE,
	SC_HOLD, SC_STOPPED, SC_RULES, SC_KEPT, SC_LOG, SC_SECRET, SC_RESTART,
	SC_REMOVE, SC_COUNT
};

#define SC_SHOWN	720	/* an escaped stream of sc_said, and room */
#define SC_UNPLACED	16	/* lines of sbx no reading placed, kept */
#define SC_LINE		240	/* bytes kept of each */
struct sc {
	char		 sbx[PATH_MAX];	/* the sbx CLI */
	char		**env;		/* for the sbx child */
	char		 name[64];	/* the throwaway sandbox */
	char		 ws[PATH_MAX];	/* its workspace, made for it */
	int		 cdfd;		/* ws/c: the self-check's own cache */
	int		 timeout;	/* seconds per sbx call */
	int		 given;		/* DOCKER_SANDBOX_TIMEOUT was set */
	int		 readonly;	/* create as in read-only mode */
	int		 fast;		/* -f: the slow checks are skipped */
	int		 calls;		/* sbx invocations */
	int		 signo;		/* a signal came: stop, clean up */
	int		 restart;	/* sbx asked for a daemon restart */
	char		 restartsaid[SC_SHOWN];	/* the first call that did */
	int		 created;	/* create was run: rm at the end */
	int		 gone;		/* rm done and the listing agrees */
	int		 cantrun;	/* errno: sbx could not be run */
	long long	 grace;		/* ms: the idle stop as measured, or 0 */
	int		 stopped;	/* stopped-ports saw it stopped */
	int		 ruled;		/* rules of scpolicy.c may be in sbx */
	int		 held;		/* they were listed active */
	int		 secret;	/* its credential may be in sbx */
	struct sbx_portcli pc;		/* the port calls, dialect found once */
	char		 version[64];
	pid_t		 remover;	/* scremove.c's child */
	int		 line;		/* its lifeline */
	struct result	 r[SC_COUNT];
	char		 unplaced[SC_UNPLACED][SC_LINE];	/* sbx said */
	int		 nunplaced;
	int		 moreunplaced;	/* kept no more: counted */
};

/* selfcheck.c */
int	 selfcheck(int, int, int);

/* sc.c */
void	 sc_say(struct sc *, enum sccheck, enum verdict, const char *, ...)
	    PRINTFLIKE(4, 5);
int	 sc_sbx(struct sc *, struct sbx_result *, char **);
void	 sc_after(struct sc *, int, int, const char *);
void	 sc_place(struct sc *, int, const struct sbx_buf *,
	    const struct sbx_buf *, int);
void	 sc_unplaced_say(const struct sc *);
int	 sc_sleep(struct sc *, long long);
pid_t	 sc_spawn(struct sc *, char **);
void	 sc_unspawn(pid_t, long long);
const char *sc_said(const struct sbx_result *, char *, size_t);
const char *sc_heard(struct sbx_result *, char *, size_t);

/* scremove.c */
int	 sc_remove_workspace(struct sc *);
int	 sc_remover_start(struct sc *);
int	 sc_remover_fire(struct sc *);
void	 sc_remover_release(struct sc *);

/* scbasic.c */
int	 sc_basic_version(struct sc *);
int	 sc_basic_missing(struct sc *);
int	 sc_basic_ls(struct sc *);
int	 sc_basic_create(struct sc *);
int	 sc_basic_exists(struct sc *);
int	 sc_basic_exec(struct sc *);
int	 sc_basic_remove(struct sc *);
int	 sc_basic_status(struct sc *, char *, size_t);

/* scwords.c */
int	 sc_words_noinput(struct sc *);
void	 sc_words_restart(struct sc *);

/* scstamp.c */
int	 sc_stamp_guest(struct sc *);

/* scguest.c */
int	 sc_guest_idle(struct sc *);
int	 sc_guest_hold(struct sc *);

/* scports.c */
int	 sc_ports_dialect(struct sc *);
int	 sc_ports_publish(struct sc *);
int	 sc_ports_stopped(struct sc *);

/* scpolicy.c */
int	 sc_policy_rules(struct sc *);
int	 sc_policy_kept(struct sc *);
int	 sc_policy_log(struct sc *);
int	 sc_policy_secret(struct sc *);
int	 sc_policy_unsecret(struct sc *, char *, size_t);
int	 sc_policy_end(struct sc *, char *, size_t);

#endif /* SELFCHECK_H */
