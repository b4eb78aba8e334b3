/*
 * sbx-internal.h: what the files of libsbx share among themselves, and
 * what only the tests (test/tools, test/fuzz) call; no program includes
 * it.  The structures of a supervised child's streams and guardian live
 * here, as s6 keeps ftrigr's in ftrigr-internal.h.
 */
#ifndef SBX_INTERNAL_H
#define SBX_INTERNAL_H

#include <sys/types.h>

#include <signal.h>
#include <stddef.h>

#include "sbx.h"

struct sbx_spawn;		/* sbxchild.h */
struct sbx_port;		/* sbxports.h */
struct sbx_ports;
struct sbx_portset;

/* spawn.c: fork and exec one child (supervise.c; test/tools/orphan) */
int	 sbx_pipe(int[2]);
pid_t	 sbx_spawn(const struct sbx_spawn *, int, int, pid_t);
void SBX_DEAD sbx_spawn_child(const struct sbx_spawn *, int, int, pid_t,
	    pid_t, const sigset_t *, int);
int	 sbx_waitstatus(int);

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

/* selfpipe.c: supervise.c's and test/tools/selfpipe's */
int	 sbx_selfpipe_trapped(int);
void	 sbx_selfpipe_push(int);

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

/* conf.c: the settings that only the library reads */
const char *sbx_xconf_allowlist(void);	/* env.c */
int	 sbx_xconf_cpus(void);		/* createargv.c */
void	 sbx_xconf_memory(char *, size_t);
const char *sbx_xconf_template(void);

/* env.c: its name tests (conf.c; test/fuzz/env) */
int	 sbx_env_isdocker(const char *);
int	 sbx_env_ishostset(const char *);
int	 sbx_env_validname(const char *, size_t);

/* name.c: random bytes (mark.c) */
int	 sbx_urandom(unsigned char *, size_t);

/* sbxcli.c: the search that sibling.c shares */
int	 sbx_path_search(char *const *, char *const *, const char *, char *,
	    size_t);
int	 sbx_prog_ok(char *const *, const char *, char *, size_t);

/* sbxsays.c: the words only the library matches */
int	 sbx_says_unknown_verb(const char *, const char *);	/* portcli.c */
int	 sbx_says_unknown_flag(const char *, const char *);	/* sbxcall.c */
int	 sbx_says_race(const char *);				/* sbxcall.c */
int	 sbx_says_notice(const char *, size_t);			/* dockerps.c */

/* marksh.c: the shell text of mark.c */
extern const char sbx_mark_prologue[];
extern const char sbx_mark_ender[];
extern const char sbx_mark_asker[];

/* portspec.c, dockerps.c: the parsers below sbxports.h (test/fuzz/ports) */
int	 sbx_proto_parse(const char *, size_t, int *);
int	 sbx_port_parse(const char *, size_t, const char **);
int	 sbx_ports_sbxjson(const char *, size_t, struct sbx_ports *,
	    const char **);
int	 sbx_port_sbxspec(const struct sbx_port *, char *, size_t);
#define SBX_PORTS_WANT_MAX	4096	/* VM ports one docker ps may name */
int	 sbx_ports_dockertext(const char *, struct sbx_ports *,
	    struct sbx_portset *, const char **);

#endif /* SBX_INTERNAL_H */
