/*
 * sbx.h: the one header of libsbx, shared by every sbx-* program.
 * Every external symbol is sbx_-prefixed; each file in lib/ holds one concern.
 * A function that may end the process (a bad setting or name is exit 64,
 * a missing sbx 127) is named sbx_x..., as skalibs names its x functions,
 * so a reader of a program sees which calls can exit; the rest return.
 */
#ifndef SBX_H
#define SBX_H

#include <sys/types.h>

#include <signal.h>
#include <stddef.h>

/* Exit statuses shared by every program (see sbx-tools(7)). */
#define SBX_EX_OK	0
#define SBX_EX_FAIL	1
#define SBX_EX_NOAUDIT	2	/* sbx-verify: the audit could not run */
#define SBX_EX_USAGE	64
#define SBX_EX_NOSANDBOX 68	/* the sandbox does not exist */
#define SBX_EX_RESTART	69	/* sbx's daemon restart awaits a terminal */
#define SBX_EX_BUSY	75	/* a lock is held: sbx-gc's sweep, sbx-watch -n */
#define SBX_EX_NOTOURS	77	/* sbx-watch -n: it exists, the tools did not make it */
#define SBX_EX_TIMEOUT	124
#define SBX_EX_CANTRUN	125
#define SBX_EX_NOEXEC	126
#define SBX_EX_NOTFOUND	127
#define SBX_SIGSTATUS(n)	(128 + (n))	/* ended by signal n */

/* The canonical socket every inner docker call is pinned to. */
#define SBX_DOCKER_HOST	"unix:///var/run/docker.sock"

#if defined(__GNUC__) || defined(__clang__)
#define SBX_DEAD	__attribute__((__noreturn__))
#else
#define SBX_DEAD
#endif

/* io.c: whole writes, a growable buffer, checked stdout */
struct sbx_buf {
	char	*data;		/* always NUL-terminated when non-NULL */
	size_t	 len;
	size_t	 cap;
};
int	 sbx_writeall(int, const void *, size_t);
int	 sbx_buf_add(struct sbx_buf *, const void *, size_t);
void	 sbx_buf_free(struct sbx_buf *);
int	 sbx_buf_readfd(struct sbx_buf *, int, size_t);
int	 sbx_fshut(void);

/* clock.c: the monotonic clock in milliseconds; a pause */
long long sbx_now_ms(void);
void	 sbx_pause_ms(long);

/* num.c: bounded number parsing, strtonum(3) semantics */
long long sbx_strtonum(const char *, long long, long long, const char **);

/*
 * conf.c: the DOCKER_SANDBOX* settings, one parser each; a bad value
 * exits 64 naming the variable.  sbx_xconf_check() takes SBX_CONF_* bits.
 */
#define SBX_CONF_PINNED		0x001	/* DOCKER_SANDBOX */
#define SBX_CONF_AUTOCREATE	0x002
#define SBX_CONF_CPUS		0x004
#define SBX_CONF_MEMORY		0x008
#define SBX_CONF_TEMPLATE	0x010
#define SBX_CONF_WORKSPACE_RO	0x020
#define SBX_CONF_TEARDOWN	0x040
#define SBX_CONF_KEEPALIVE	0x080
#define SBX_CONF_GC_HOURS	0x100
#define SBX_CONF_ALLOWLIST	0x200
#define SBX_CONF_PASSTHROUGH	0x400
#define SBX_CONF_TIMEOUT	0x800
#define SBX_CONF_PORTS_MAX	0x1000	/* host ports a sandbox may hold */
#define SBX_CONF_PREWARM	0x2000	/* provision at session start */
#define SBX_CONF_IMAGE_CACHE	0x4000	/* the image cache's budget */
#define SBX_CONF_ALL		0x7fff
#define SBX_CONF_ENV		(SBX_CONF_ALLOWLIST | SBX_CONF_PASSTHROUGH)
/* what sbx-run may read, whichever path a call takes */
#define SBX_CONF_RUN		(SBX_CONF_ENV | SBX_CONF_TIMEOUT | \
	SBX_CONF_AUTOCREATE | SBX_CONF_CPUS | SBX_CONF_MEMORY | \
	SBX_CONF_TEMPLATE | SBX_CONF_WORKSPACE_RO | SBX_CONF_IMAGE_CACHE)
#define SBX_TIMEOUT_MAX		86400	/* seconds: a day per sbx call */
#define SBX_TEARDOWN_REMOVE	0
#define SBX_TEARDOWN_STOP	1
#define SBX_TEARDOWN_NONE	2
#define SBX_PREWARM_AUTO	2	/* sbx_xconf_prewarm(): the workspace decides */
int	 sbx_parsebool(const char *);
int	 sbx_xconf_bool(const char *, int);
long long sbx_xconf_num(const char *, long long, long long, long long);
const char *sbx_conf_str(const char *);
int	 sbx_xconf_autocreate(void);
#define SBX_KEEPALIVE_NEVER	0
#define SBX_KEEPALIVE_ALWAYS	1
#define SBX_KEEPALIVE_PORTS	2	/* while the sandbox has published ports */
int	 sbx_xconf_keepalive(void);
int	 sbx_xconf_passthrough(void);
int	 sbx_xconf_workspace_ro(void);
int	 sbx_xconf_timeout(void);
int	 sbx_xconf_ports_max(void);
int	 sbx_xconf_prewarm(void);
long long sbx_xconf_image_cache(void);
int	 sbx_xconf_cpus(void);
int	 sbx_teardown_parse(const char *);
const char *sbx_teardown_name(int);
int	 sbx_xconf_teardown(void);
long long sbx_xconf_gc_hours(void);
void	 sbx_xconf_memory(char *, size_t);
const char *sbx_xconf_template(void);
const char *sbx_xconf_allowlist(void);
const char *sbx_xconf_pinned(void);
const char *sbx_xconf_value(unsigned, char *, size_t);
void	 sbx_xconf_check(unsigned);
const char *sbx_conf_name(unsigned);

/* env.c: environment policy */
struct sbx_envpolicy {
	int	  passthrough;	/* keep every name but docker/compose ones */
	char	**allow;	/* extra names; NULL-terminated */
	size_t	  nallow;
};
int	 sbx_env_isdocker(const char *);
int	 sbx_env_ishostset(const char *);
int	 sbx_env_validname(const char *, size_t);
int	 sbx_xenv_policy(struct sbx_envpolicy *, const char *, int);
void	 sbx_env_policy_free(struct sbx_envpolicy *);
char	**sbx_env_build(char *const *, const struct sbx_envpolicy *);
char	**sbx_env_forwarded(char *const *);
const char *sbx_env_get(char *const *, const char *);

/* spawn.c: start one child; supervise.c: run it to its end */
struct sbx_spawn {		/* what to run, and how */
	char	*const *argv;	/* argv[0] is an absolute path */
	char	*const *envp;
	int	 timeout;	/* seconds; 0 means none */
	int	 newpgrp;	/* child leads its own process group */
	int	 fgtty;		/* hand it the controlling terminal */
	int	 in;		/* stdin for the child; -1: inherit */
	int	 out;		/* > 2: the child's stdout (a file), not ours */
	int	 err;		/* > 2: the child's stderr, not ours */
	long long outmax;	/* out: the child is stopped once it is larger */
	int	 capture_out;	/* collect stdout into the result's out */
	int	 capture_err;	/* collect stderr into the result's err */
	int	 relay;		/* both streams pass through us, counted */
	/*
	 * hold_err: stderr passes through, but while this returns non-zero
	 * for the text held so far (called as each piece arrives) it is kept
	 * in the result's err instead; at exit the caller decides what to do
	 * with it.
	 */
	int	(*hold_err)(const char *, size_t, void *);
	void	*hold_arg;
};
struct sbx_result {		/* what came of it */
	struct sbx_buf out;
	struct sbx_buf err;
	int	 status;	/* exit status, 128+sig, or 124 */
	int	 timedout;
	int	 signo;		/* a signal we forwarded, or 0 */
	int	 holding;	/* stderr still held at exit */
	int	 tries;		/* sbx_call: the sbx runs it took (1 and up) */
	int	 toolarge;	/* out grew past outmax: stopped */
	unsigned long long relayed;	/* bytes read from both streams */
};
int	 sbx_pipe(int[2]);
pid_t	 sbx_spawn(const struct sbx_spawn *, int, int, pid_t);
void SBX_DEAD sbx_spawn_child(const struct sbx_spawn *, int, int, pid_t,
	    pid_t, const sigset_t *, int);
int	 sbx_supervise(const struct sbx_spawn *, struct sbx_result *);
void	 sbx_result_free(struct sbx_result *);
int	 sbx_waitstatus(int);
int	 sbx_exec_status(int);

/* relay.c: one output stream of a supervised child */
struct sbx_stream {
	int	 fd;		/* the child's pipe; -1 once closed */
	int	 dst;		/* where passed-on output goes */
	int	 capture;	/* collect into buf instead */
	int	 gone;		/* dst failed: what comes is dropped */
	int	 file;		/* dst is a regular file: no PIPE_BUF bound */
	struct sbx_buf *buf;	/* captured or held output */
	struct sbx_buf pend;	/* on its way to dst */
	size_t	 off;		/* of pend, written already */
	int	(*hold)(const char *, size_t, void *);
	void	*hold_arg;
	int	*holding;	/* held back now; NULL: never */
	unsigned long long *counted;	/* relayed: bytes read, else NULL */
};
void	 sbx_stream_init(struct sbx_stream *, int, int, struct sbx_buf *);
int	 sbx_stream_pending(const struct sbx_stream *);
int	 sbx_stream_read(struct sbx_stream *);
void	 sbx_stream_write(struct sbx_stream *);

/*
 * selfpipe.c: the process's one self-pipe; trapped signals arrive on its
 * read end, in order.
 */
int	 sbx_selfpipe(void);
int	 sbx_selfpipe_trap(int);
int	 sbx_selfpipe_trapped(int);
void	 sbx_selfpipe_untrap(int);
int	 sbx_selfpipe_read(void);
void	 sbx_selfpipe_push(int);
void	 sbx_selfpipe_child(void);

/*
 * guard.c: a guardian leads a new process group and kills it with SIGKILL
 * when the program that started it dies, however it dies.
 */
struct sbx_guard {
	pid_t	 pid;		/* the guardian, which leads the group */
	int	 line;		/* the lifeline's write end, ours alone */
};
int	 sbx_guard_start(struct sbx_guard *);
void	 sbx_guard_stop(struct sbx_guard *);

/* name.c: sandbox names */
#define SBX_NAME_MAX	63
#define SBX_NAME_PREFIX	"pi-sbx-"	/* of the names sbx_name_new makes */
int	 sbx_name_valid(const char *);
#define SBX_SELFCHECK_PREFIX "selfcheck."	/* sbx_name_selfcheck's */
int	 sbx_name_new(char *, size_t, long);
int	 sbx_name_selfcheck(char *, size_t, long);
int	 sbx_urandom(unsigned char *, size_t);
int	 sbx_name_pid(const char *, const char *, pid_t *);
const char *sbx_xname_pick(const char *);

/* state.c: the state directory and its marker files */
int	 sbx_xstate_path(char *, size_t);
int	 sbx_xstate_open(char *, size_t);
int	 sbx_state_write(int, const char *, const char *);
int	 sbx_state_read(int, const char *, char *, size_t);
int	 sbx_state_remove(int, const char *);
int	 sbx_state_rmtree(int, const char *);
const char *sbx_state_field(const char *, const char *, char *, size_t);

/*
 * lock.c: fcntl(2) record locks on files in the state directory, whole
 * or (the _name ones) one sandbox's byte of a shared file
 */
int	 sbx_lock(int, const char *, int);
pid_t	 sbx_lock_holder(int, const char *);
int	 sbx_setlk(int, short, off_t, off_t, long long);
int	 sbx_lock_name(int, const char *, const char *, long long);
pid_t	 sbx_lock_name_holder(int, const char *, const char *);

/* proc.c: is a process (pid plus start time) still the one we knew? */
int	 sbx_proc_start(pid_t, unsigned long long *);
int	 sbx_proc_alive(pid_t, unsigned long long);

/* json.c: a small reader for sbx and docker output */
enum sbx_jtype {
	SBX_JNULL, SBX_JBOOL, SBX_JNUM, SBX_JSTR, SBX_JARR, SBX_JOBJ
};
struct sbx_json {
	enum sbx_jtype	 type;
	char		*key;	/* member name inside an object */
	char		*str;	/* string value, or number text */
	size_t		 len;
	int		 boolean;
	struct sbx_json	*child;	/* first element or member */
	struct sbx_json	*next;
};
struct sbx_json *sbx_json_parse(const char *, size_t, const char **);
void	 sbx_json_free(struct sbx_json *);
const struct sbx_json *sbx_json_get(const struct sbx_json *, const char *);
const char *sbx_json_str(const struct sbx_json *, const char *);
struct sbx_json *sbx_json_doc(const char *, size_t, const char **);

/* shown.c: outside text fit for a message */
const char *sbx_shown(const char *, char *, size_t);

/*
 * sbxcli.c: which sbx binary to run.  sbx_xcli_find may end the process
 * (the x says so): 127 when there is none, 126 when it cannot run or lies
 * in a session workspace (the second argument, a NULL-terminated list of
 * directories, or NULL), 64 for a relative DOCKER_SANDBOX_SBX.
 */
void	 sbx_xcli_find(char *const *, char *const *, char *, size_t);
int	 sbx_cli_find(char *const *, char *const *, char *, size_t);
int	 sbx_path_search(char *const *, char *const *, const char *, char *,
	    size_t);
int	 sbx_prog_ok(char *const *, const char *, char *, size_t);
int	 sbx_runnable(const char *);

/*
 * marker.c: the state directory's vocabulary, one table of NAME.SUFFIX
 * files (see sbx-tools(7), FILES); markerio.c: one writer per marker.
 * Beside the markers, the directory holds files of its own; no sandbox
 * name starts with '.' or has the dialect cache's name and no dot, so
 * none of them can be a marker.  Atomic writes pass through temporary
 * files named .FILE.PID.SEQ (state.c).
 */
#define SBX_PROVISION_LOCK	".provision.lock"	/* a byte per sandbox */
#define SBX_GC_LOCK		".gc.lock"		/* sbx-gc sweeps */
#define SBX_DIALECT_CACHE	"sbx-port-dialect"	/* sbx's port verbs */
#define SBX_NOINPUT_CACHE	"sbx-no-input"		/* sbx refused --no-input */
enum sbx_marker {
	SBX_M_CREATED,		/* sbx-run provisioned it */
	SBX_M_FAILED,		/* sbx-watch's teardown gave up */
	SBX_M_JOURNAL,		/* sbx-run's calls */
	SBX_M_PRIME,		/* the scratch workspace of read-only mode */
	SBX_M_PORTS,		/* sbx-ports' mappings */
	SBX_M_PREWARM,		/* sbx-run -P: how its provisioning ended */
	SBX_M_OWNER,		/* the session and its watcher */
	SBX_M_LOCK,		/* held by the watcher */
	SBX_M_VERIFY,		/* NAME.verify-NONCE: sbx-verify's canary */
	SBX_M_COUNT
};
#define SBX_MF_OURS	0x1	/* proves the sandbox was ours: swept by it */
#define SBX_MF_DIR	0x2	/* a directory */
#define SBX_MF_LOCK	0x4	/* removed only when nobody holds it */
#define SBX_MF_NONCE	0x8	/* named with a nonce; its program removes it */
#define SBX_MB(m)	(1u << (m))
#define SBX_MB_ALL	(SBX_MB(SBX_M_COUNT) - 1)	/* nonce-named ones skipped */
#define SBX_MB_WATCH	(SBX_MB(SBX_M_OWNER) | SBX_MB(SBX_M_LOCK))
#define SBX_DROP_HELD	1	/* the caller holds NAME.lock */
#define SBX_MARKER_MAX	(SBX_NAME_MAX + 48)	/* a buffer for any of them */
const char *sbx_marker_suffix(enum sbx_marker);
unsigned sbx_marker_flags(enum sbx_marker);
int	 sbx_marker_path(char *, size_t, const char *, enum sbx_marker);
int	 sbx_marker_canary(char *, size_t, const char *, const char *);
int	 sbx_marker_present(int, const char *, enum sbx_marker);
int	 sbx_marker_parse(const char *, char *, size_t);
unsigned sbx_marker_drop(int, const char *, unsigned, int);
int	 sbx_owner_write(int, const char *, pid_t, unsigned long long, pid_t);
int	 sbx_owner_read(int, const char *, pid_t *, unsigned long long *);
int	 sbx_created_read(int, const char *, long long *);
#define SBX_CREATING	"creating"	/* state= before sbx create runs */
#define SBX_READY	"ready"		/* state= once it succeeded */
#define SBX_PREWARM_SAID	2048	/* bytes kept of what sbx-run -P said */
int	 sbx_created_write(int, const char *, const char *, const char *,
	    const char *);
int	 sbx_created_text(int, const char *, char *, size_t);
int	 sbx_created_workspace(int, const char *, char *, size_t);
char	**sbx_xsession_ws(const char *, char *, size_t, char *[2]);
int	 sbx_failed_write(int, const char *, const char *, int, int,
	    const char *);
int	 sbx_prewarm_write(int, const char *, int, const char *, size_t);
int	 sbx_prewarm_read(int, const char *, long long *, int *, char *,
	    size_t);

/* rfc3339.c: an RFC 3339 timestamp to Unix seconds */
int	 sbx_rfc3339(const char *, long long *);

/* sbxsays.c: what sbx's words mean (every wording matched is there) */
#define SBX_NF_NO	0	/* not sbx's line, and cannot become it */
#define SBX_NF_PREFIX	1	/* could still become it */
#define SBX_NF_LINE	2	/* the first line is sbx's, complete */
int	 sbx_says_notfound(const char *, const char *);
int	 sbx_says_notfound_line(const char *, size_t, const char *);
int	 sbx_says_exists(const char *);
int	 sbx_says_unknown_verb(const char *, const char *);
int	 sbx_says_stopped(const char *);
int	 sbx_says_unknown_flag(const char *, const char *);
int	 sbx_says_restart(const char *);
int	 sbx_says_restart_line(const char *, size_t);
int	 sbx_says_race_line(const char *, size_t);
int	 sbx_says_race(const char *);
int	 sbx_says_notice(const char *, size_t);
void	 sbx_restart_exit(void) SBX_DEAD;

/*
 * Ports (sbx-ports, sbx-verify).  portspec.c: specs, sbx's JSON listing,
 * URLs; dockerps.c: what running containers publish; portcli.c: sbx's
 * two port dialects; sibling.c: the programs installed beside us.
 */
#define SBX_TCP		0
#define SBX_UDP		1
struct sbx_port {
	char	ip[48];		/* host address ("" : 127.0.0.1) */
	int	host;		/* host port; 0 when not given */
	int	vm;		/* sandbox (VM) port */
	int	proto;		/* SBX_TCP or SBX_UDP */
	int	fam;		/* 4 or 6 (tcp4, udp6...); 0: both or unsaid */
	char	cid[72];	/* dockerps.c: the container's ID, or "" */
	char	cname[256];	/* dockerps.c: its Names, or "" */
};
struct sbx_ports {
	struct sbx_port	*v;
	size_t		 n;
	size_t		 cap;
};
const char *sbx_proto_name(int);
const char *sbx_port_proto(const struct sbx_port *);
int	 sbx_proto_parse(const char *, size_t, int *);
int	 sbx_port_parse(const char *, size_t, const char **);
int	 sbx_portspec(const char *, struct sbx_port *, const char **);
int	 sbx_ports_add(struct sbx_ports *, const struct sbx_port *);
void	 sbx_ports_free(struct sbx_ports *);
const struct sbx_port *sbx_ports_findvm(const struct sbx_ports *, int, int);
int	 sbx_ip_loopback(const char *);
int	 sbx_ports_sbxjson(const char *, size_t, struct sbx_ports *,
	    const char **);
int	 sbx_port_sbxspec(const struct sbx_port *, char *, size_t);
int	 sbx_port_url(const struct sbx_port *, char *, size_t);
#define SBX_PORTS_WANT_MAX	4096	/* VM ports one docker ps may name */
struct sbx_portset {		/* one bit a port: tcp, udp */
	unsigned char	bit[2][65536 / 8];
};
int	 sbx_portset_has(const struct sbx_portset *, int, int);
void	 sbx_portset_add(struct sbx_portset *, int, int);
int	 sbx_ports_dockertext(const char *, struct sbx_ports *,
	    struct sbx_portset *, const char **);
int	 sbx_ports_dockerps(const char *, size_t, struct sbx_ports *,
	    struct sbx_portset *, size_t *, const char **);

#define SBX_DIALECT_UNKNOWN	0
#define SBX_DIALECT_PORTS	1	/* sbx ports NAME --publish SPEC */
#define SBX_DIALECT_PORT	2	/* sbx port publish NAME SPEC */
struct sbx_portcli {
	const char	 *sbx;		/* absolute path */
	char		**env;		/* for the sbx child */
	const char	 *name;		/* the sandbox */
	int		  timeout;	/* seconds per call; 0: none */
	int		  dfd;		/* state directory (dialect cache), or -1 */
	int		  dialect;	/* SBX_DIALECT_* */
	int		  noport;	/* sbx said it has no `port` group */
	int		  calls;	/* out: sbx invocations made */
	int		  status;	/* out: exit status of the last one, or
					   -1 if it could not be run */
	int		  error;	/* out: then, the errno */
	int		  timedout;	/* out: the last one timed out */
	struct sbx_buf	  out;		/* out: its stdout */
	struct sbx_buf	  err;		/* out: its stderr */
};
int	 sbx_portcli_list(struct sbx_portcli *, struct sbx_ports *,
	    const char **);
int	 sbx_portcli_change(struct sbx_portcli *, const struct sbx_ports *,
	    const struct sbx_ports *, const char **);
int	 sbx_portcli_missing(const struct sbx_portcli *);
int	 sbx_portcli_wake(struct sbx_portcli *);
void	 sbx_portcli_free(struct sbx_portcli *);

int	 sbx_sibling(const char *, char *const *, char *const *, const char *,
	    char *, size_t);

/* markerio.c: NAME.ports, the mappings sbx-ports made */
int	 sbx_portsmark_read(int, const char *, struct sbx_ports *);
int	 sbx_portsmark_write(int, const char *, const struct sbx_ports *);

/* createargv.c: the `sbx create` of provisioning (sbx-run, sbx-verify -S) */
#define SBX_CREATE_ARGC	20
struct sbx_create {
	char	 cpus[24];
	char	 memory[32];
	const char *template;	/* or NULL */
};
void	 sbx_xcreate_conf(struct sbx_create *);
char	**sbx_create_argv(char **, const char *, const char *,
	    const struct sbx_create *, int, const char *, const char *);

/* capture.c: run for the output, stdin on /dev/null, own process group */
int	 sbx_capture(struct sbx_result *, char *const *, char *const *, int);

/*
 * sbxcall.c: one sbx call of sbx's own words: no stdin, --no-input, races.
 * A call that lost the daemon start race is made at most SBX_RACE_TRIES
 * times, after a pause of SBX_RACE_MS, doubling (sbx-run's exec too).
 */
#define SBX_RACE_TRIES	5
#define SBX_RACE_MS	100
int	 sbx_call(struct sbx_result *, char *const *, char *const *, int, int);

/* sbxls.c: is a sandbox in the output of `sbx ls --json`, and how? */
int	 sbx_ls_listed(const char *, size_t, const char *, const char **);
int	 sbx_ls_status(const char *, size_t, const char *, char *, size_t,
	    const char **);

/*
 * holdargv.c: the keepalive's one exec that stays open (sbx-watch, and
 * sbx-verify -S, which checks that it holds a VM up): `sbx exec NAME --
 * sleep SBX_HOLD_SECONDS`, bounded by SBX_HOLD_TIMEOUT.
 */
#define SBX_HOLD_ARGC		7
#define SBX_HOLD_SECONDS	3600
#define SBX_HOLD_TIMEOUT	(SBX_HOLD_SECONDS + 60)	/* a minute over */
char	**sbx_hold_argv(char **, const char *, const char *);

/* jsonout.c: a JSON string into a buffer, or on a stream (needs <stdio.h>) */
size_t	 sbx_json_esc(char *, size_t, const char *, size_t *);
#ifdef EOF
void	 sbx_json_puts(FILE *, const char *);
void	 sbx_json_putline(FILE *, const char *, size_t);
#endif

/*
 * mark.c, marksh.c: each exec's command runs under a mark, so that one
 * short second exec ends exactly what it started (in the sandbox, and in
 * a container for an inner docker exec) and says what it found.
 */
#define SBX_MARK_LEN	16	/* hex digits of a mark */
#define SBX_MARK_NWORDS	5	/* the words sbx_mark_words puts first */
#define SBX_END_ENDED	0	/* all it found was ended */
#define SBX_END_NONE	1	/* nothing of it was still running */
#define SBX_END_LEFT	2	/* some of it could not be ended */
#define SBX_END_UNMARKED 3	/* no record: it had not begun */
#define SBX_END_REBOOTED 4	/* the sandbox stopped since: that ended it */
#define SBX_END_GONE	5	/* the sandbox does not exist */
#define SBX_END_UNREACHED 6	/* the ending exec failed: it may still run */
#define SBX_END_NOINNER	(-1)	/* no container part */
struct sbx_ended {
	int	 state;		/* SBX_END_* of the sandbox's part */
	int	 found, left;	/* processes found; of those, still running */
	int	 inner;		/* SBX_END_* of the container's part */
	int	 ifound, ileft;
	char	 why[128];	/* SBX_END_UNREACHED: what the exec said */
};
extern const char sbx_mark_prologue[];
extern const char sbx_mark_ender[];
extern const char sbx_mark_asker[];
int	 sbx_mark_new(char *, size_t);
void	 sbx_mark_words(char **, const char *);
int	 sbx_mark_end(const char *, char *const *, const char *, const char *,
	    char *const *, int, struct sbx_ended *);
void	 sbx_mark_said(const struct sbx_ended *, const char *, char *, size_t);
int	 sbx_mark_done(const struct sbx_ended *);
int	 sbx_mark_began(const char *, char *const *, const char *, const char *,
	    int);

/*
 * The image cache (issue 19.2): a project's pulled images, saved by
 * sbx-watch at teardown, loaded into the project's next sandbox by
 * sbx-run, evicted by sbx-gc.  imgcache.c: the root and the entries
 * (needs <sys/stat.h> for the name); imgmeta.c: an entry's meta;
 * imglru.c: the budget.  Kept together for the split of this header.
 */
#define SBX_IMGLOAD_LOCK	".imgload.lock"	/* a byte per sandbox: a load */
#define SBX_IMG_REFS_MAX	64	/* references per entry */
#define SBX_IMG_REF_MAX		255	/* bytes of one */
#define SBX_IMG_STORE_MAX	64	/* bytes of a store driver's name */
#define SBX_IMG_NAME_MAX	48	/* an entry's name, "DEV-INO" */
#define SBX_IMG_STALE		0x1	/* sbx_img_evict: gone workspaces too */
#define SBX_IMG_DRY		0x2	/* only say what would go */
struct sbx_imgmeta {
	char	 workspace[4096];
	char	 store[SBX_IMG_STORE_MAX + 1];
	long long size, saved, used;	/* bytes; Unix seconds */
	size_t	 nrefs;
	char	 refs[SBX_IMG_REFS_MAX][SBX_IMG_REF_MAX + 1];
};
struct stat;
int	 sbx_img_open(const char *, int, char *, size_t);
void	 sbx_img_name(char *, size_t, const struct stat *);
int	 sbx_img_isname(const char *);
int	 sbx_img_entry(int, const char *, int);
int	 sbx_img_file(int, const char *, int);
int	 sbx_img_drop(int, const char *);
long long sbx_img_bytes(int, const char *, long long *);
int	 sbx_img_ref_valid(const char *, size_t);
int	 sbx_img_id_valid(const char *, size_t);
int	 sbx_img_meta_read(int, struct sbx_imgmeta *);
int	 sbx_img_meta_write(int, const struct sbx_imgmeta *);
int	 sbx_img_current(const struct sbx_imgmeta *, const char *);
int	 sbx_img_evict(int, long long, const char *, unsigned,
	    void (*)(const char *, long long, const char *));

#endif /* SBX_H */
