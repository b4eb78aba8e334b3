/* sbx-run.h: what the files of sbx-run share. */
#ifndef SBX_RUN_H
#define SBX_RUN_H

#include <sys/types.h>

#include <time.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxrecord.h"
#include "sbxstamp.h"

struct request {
	const char	*name;		/* the sandbox */
	const char	*workspace;	/* -w, or NULL for the cwd */
	char		 sbx[4096];	/* the sbx CLI, absolute */
	char		**env;		/* for the sbx child */
	int		 timeout;	/* seconds for the exec; 0: none */
	int		 calltimeout;	/* seconds for ls and create; 0: none */
	int		 given;		/* -t or DOCKER_SANDBOX_TIMEOUT was set */
	pid_t		 session;	/* our parent when we started */
	char		 before[4096];	/* NAME.created before the exec, or "" */
	char		 wsmarker[4096];	/* the workspace NAME.created names */
	char		 wscall[4096];	/* the one this call would mount */
	char		*ws[3];		/* those of them known; NULL-ended */
	char		 stamp[SBX_STAMP_LEN + 1];	/* of this run's exec */
	char		**inner;	/* ends it in its container, or NULL */
	const char	*container;	/* that container (or service) */
	int		 prewarm;	/* -P's provisioning: its parent holds the lock */
	unsigned long long relayed;	/* out: output of the last exec */
	int		 cut;		/* out: the exec ended by timeout or signal */
	pid_t		 watcher;	/* NAME.lock's holder before the exec, or 0 */
	int		 imgneeds;	/* its command may need an image (imgload.c) */
	char		 tail[SBX_TAIL_MAX];	/* out: the exec's last output */
	size_t		 taillen;
};

/* What a held exec's stderr was: the command's, or sbx's answer of... */
#define SAID_OWN	0
#define SAID_ABSENT	1	/* ...no such sandbox */
#define SAID_RACE	2	/* ...the daemon start race it lost */

/* Provisioning's answer: run the command again, or keep what it said. */
#define PROV_KEEP	0
#define PROV_RETRY	1

/* check.c */
int	 check_workspace(const struct request *);

/* dockerargs.c */
void	 dockerargs_check(char *const *);
int	 dockerargs_long_running(char *const *);
int	 dockerargs_subcommand_in(char *const *, const char *const *);
int	 dockerargs_subcommand(char *const *);
int	 dockerargs_inner_exec(char *const *, int *, int *, const char **);

/* ending.c */
char	**ending_inner_words(char *const *, int *);
void	 ending_inside(const struct request *, const char *);

/* events.c: the session's event lines (sbxrecord.h) */
void	 events_session(const char *, const char *, const char *);
void	 events_call(const char *, char *const *, int, const char *, size_t);

/* exec.c */
char	**exec_argv(struct request *, char **, char **, int, int);
int	 exec_once(struct request *, char **, int, int *, struct sbx_buf *);

/* race.c */
int	 race_exec_first(struct request *, char **, int, int *,
	    struct sbx_buf *);

/* provision.c */
void	 provision_snapshot(struct request *);
int	 provision(const struct request *);
int	 provision_lock(const struct request *, int, const char *);

/* warmstart.c: -P, and a later call's wait for it */
int	 warmstart(struct request *, char **, int);
void	 warmstart_await(const struct request *);
void	 warmstart_report(const struct request *, int);

/* orphan.c */
struct stale {			/* NAME.owner before the create, if dead then */
	int	 dead;
	pid_t	 pid;
	unsigned long long start;
};
int	 orphan_session_ended(const struct request *);
void	 orphan_stale_read(const struct request *, int, struct stale *);
int	 orphaned(const struct request *, int, const struct stale *);
void SBX_DEAD orphan_withdraw(const struct request *, int, int, const char *);
#define ORPHAN_ENDED	"its session ended while it was being created"

/* outward.c: the sandbox's network rules and registry credentials */
int	 outward_setup(const struct request *, int, char *, size_t);
void	 outward_denials(const struct request *, long long, char *, size_t,
	    struct sbx_buf *);

/*
 * The image cache's check and load (sbx-tools(7), IMAGE CACHE): imgcheck.c
 * takes the archive's members, imgjson.c reads its JSON, imgwrite.c
 * writes the archive docker loads, imgload.c loads it after a create.
 */
#define IMG_BLOCK	512		/* a tar block */
#define IMG_NAME_LEN	100		/* a ustar name field */
#define IMG_JSON_MAX	(1024 * 1024)	/* manifest.json, index.json */
struct img_member {		/* one member the check took, as it is written */
	char	 name[IMG_NAME_LEN + 1];	/* without a trailing '/' */
	char	 link[IMG_NAME_LEN + 1];	/* a shared layer's target, or "" */
	int	 dir;
	long long off;		/* of its data in the archive */
	long long size;
};
struct img_archive {		/* the members, in the archive's order */
	struct img_member *m;
	size_t	 n;
};
int	 imgcheck_scan(int, long long, struct img_archive *, char *, size_t);
int	 imgcheck(int, long long, char *, size_t);
int	 imgtar_zero(const unsigned char *, size_t);
int	 imgtar_octal(const unsigned char *, size_t, long long *);
long long imgtar_checksum(const unsigned char *);
const char *imgtar_badname(const char *, size_t);
int	 imgcheck_readat(int, void *, size_t, long long);
int	 imgjson_member(const char *);
const char *imgjson_names(const char *, size_t);
const char *imgwrite_magic(const unsigned char *, size_t);
int	 imgwrite(int, const struct img_archive *, int);
void	 imgload_argv(struct request *, char *const *, int);
void	 imgload_wait(const struct request *);
void	 imgload(const struct request *, int, const char *);

/* journal.c */
struct jcall {			/* one call of sbx-run, as its record tells it */
	struct timespec	 began;		/* CLOCK_REALTIME: the record's time */
	struct timespec	 mbegan;	/* CLOCK_MONOTONIC: for its ms */
	unsigned long long bytes;	/* output of the last exec */
	int		 timeout;	/* its bound in seconds (the lock's); 0: none */
	const char	*blocked;	/* "a,b": hosts sbx blocked, or NULL */
};
#define JOURNAL_BLOCKED_MAX	1024	/* bytes of blocked recorded */
void	 journal_begin(struct jcall *);
void	 journal_add(const struct jcall *, const char *, char *const *, int,
	    int);
int	 journal_print(const char *, long long, int, int, int);

/* sessions.c: the records kept, live and past */
#define SESSIONS_READ_MAX	(8 * SBX_RECORD_MAX)	/* of one, read */
int	 sessions_openat(int, const char *);
int	 sessions_open(int, const char *, char *, size_t);
int	 sessions_list(int);
#define SESSIONS_TIME	21	/* a time to the second: 2026-12-05T10:00:00Z */
const char *sessions_time(const char *, char *);

/* readable.c: -J -h */
struct sbx_json;
void	 readable_line(const struct sbx_json *);
void	 readable_heading(const char *, const char *, int, const char *,
	    long long);

/* tripwire.c */
void	 tripwire_after(const char *);
int	 tripwire_findings(const char *, const char *, char *const *);

/* workspace.c */
int	 workspace_check(const struct request *, const char *, char *, char *,
	    size_t);
void	 workspace_prime_dir(int, const char *, const char *, int *);
void	 workspace_session(struct request *);

#endif
