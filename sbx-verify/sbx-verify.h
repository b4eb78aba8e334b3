/* sbx-verify.h: what the files of sbx-verify share. */

#include <limits.h>

#include "sbx.h"
#include "sbxports.h"
#include "sbxstate.h"

struct sbx_result;		/* sbxchild.h */

#if defined(__GNUC__) || defined(__clang__)
#define PRINTFLIKE(f, a)	__attribute__((__format__(__printf__, f, a)))
#else
#define PRINTFLIKE(f, a)
#endif

#define NCHECKS		10
#define NMOUNTS		6	/* the canary and five host directories */

enum verdict { PASS, FAIL, SKIP };

struct result {
	const char	*name;
	enum verdict	 verdict;
	char		 evidence[1024];
};

struct audit {
	const char	*name;		/* the sandbox */
	const char	*argv0;
	char		 sbx[PATH_MAX];	/* the sbx CLI */
	char		 run[PATH_MAX];	/* sbx-run, the transport */
	char		 statedir[PATH_MAX];
	int		 dfd;
	char		 nonce[17];
	char		 value[17];	/* the allowed probe's value */
	char		 tmpdir[PATH_MAX];	/* holds the canary docker */
	char		 ran[PATH_MAX + 8];	/* made if the canary runs */
	char		 canary[PATH_MAX + 128];	/* the mounts canary */
	char		 canaryfile[SBX_MARKER_MAX];
	const char	*home;		/* the host's HOME, or NULL */
	int		 readonly;	/* read-only mode */
	int		 marker;	/* NAME.created was read */
	char		 project[PATH_MAX];	/* the project's path */
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
};

/* probe.c */
void	 probe_prepare(struct audit *);
int	 probe_run(struct audit *);
void	 probe_cleanup(struct audit *);

/* answers.c: the script's lines "sbxv KEY [VALUE]" */
#define PROBE_PREFIX	"sbxv "
const char *probe_get(const struct audit *, const char *, char *, size_t);
int	 probe_has(const struct audit *, const char *, const char *);
int	 probe_all(const struct audit *, const char *, char *, size_t);

/* checks.c */
void	 run_checks(struct audit *, struct result *);

/* sbx-verify.c: the lines of -j, -t or text */
void	 report(const struct result *, int, int, int);

/*
 * -S, the self-check: each assumption the programs make about sbx, tried
 * with the programs' own functions on a throwaway sandbox.
 * selfcheck.c runs it; sccall.c makes the sbx calls and words the
 * evidence; scremove.c makes sure the sandbox goes; scbasic.c,
 * scwords.c, scmark.c, scguest.c and scports.c hold the checks.
 */
enum sccheck {
	SC_VERSION, SC_NOINPUT, SC_MISSING, SC_LS, SC_CREATE, SC_EXISTS,
	SC_EXEC, SC_GUEST, SC_DIALECT, SC_PUBLISH, SC_UNPUBLISH, SC_IDLE,
	SC_HOLD, SC_STOPPED, SC_RESTART, SC_REMOVE, SC_COUNT
};

#define SC_SHOWN	720	/* an escaped stream of sc_said, and room */
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
	struct sbx_portcli pc;		/* the port calls, dialect found once */
	char		 version[64];
	pid_t		 remover;	/* scremove.c's child */
	int		 line;		/* its lifeline */
	struct result	 r[SC_COUNT];
};

/* selfcheck.c */
int	 selfcheck(int, int, int);
void	 sc_say(struct sc *, enum sccheck, enum verdict, const char *, ...)
	    PRINTFLIKE(4, 5);

/* sccall.c */
int	 sc_sbx(struct sc *, struct sbx_result *, char **);
void	 sc_after(struct sc *, int, int, const char *);
int	 sc_sleep(struct sc *, long long);
pid_t	 sc_spawn(struct sc *, char **);
void	 sc_unspawn(pid_t);
const char *sc_said(const struct sbx_result *, char *, size_t);
const char *sc_esc(const char *, size_t, size_t, char *, size_t);

/* scremove.c */
int	 sc_workspace(struct sc *);
int	 sc_remover_start(struct sc *);
int	 sc_remover_fire(struct sc *);
void	 sc_remover_release(struct sc *);

/* scbasic.c */
int	 sc_version(struct sc *);
int	 sc_missing(struct sc *);
int	 sc_ls(struct sc *);
int	 sc_create(struct sc *);
int	 sc_exists(struct sc *);
int	 sc_exec(struct sc *);
int	 sc_remove(struct sc *);
int	 sc_listed(struct sc *, char *, size_t);
int	 sc_status(struct sc *, char *, size_t);

/* scwords.c */
int	 sc_noinput(struct sc *);
void	 sc_restart(struct sc *);

/* scmark.c */
int	 sc_guest(struct sc *);

/* scguest.c */
int	 sc_idle(struct sc *);
int	 sc_hold(struct sc *);

/* scports.c */
int	 sc_dialect(struct sc *);
int	 sc_publish(struct sc *);
int	 sc_stopped(struct sc *);
