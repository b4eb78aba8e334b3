/*
 * sbx-internal.h: what the files of libsbx share among themselves and
 * with the tests only; no program includes it.
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
struct sbx_envpolicy;		/* sbxenv.h */
struct sbx_egress_rule;		/* sbxegress.h */

/* spawn.c: fork and exec one child (supervise.c; test/tools/orphan) */
pid_t	 sbx_spawn(const struct sbx_spawn *, int, int, pid_t);
void SBX_DEAD sbx_spawn_child(const struct sbx_spawn *, int, int, pid_t,
	    pid_t, const sigset_t *, int);
int	 sbx_spawn_waitstatus(int);

/* stream.c: one output stream of a supervised child */
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
	char	*tail;		/* relayed: the last SBX_TAIL_MAX bytes */
	size_t	*taillen;
};
void	 sbx_stream_init(struct sbx_stream *, int, int, struct sbx_buf *);
int	 sbx_stream_pending(const struct sbx_stream *);
int	 sbx_stream_read(struct sbx_stream *);
void	 sbx_stream_write(struct sbx_stream *);

/* selfpipe.c: supervise.c's and test/tools/selfpipe's */
int	 sbx_selfpipe_trapped(int);
void	 sbx_selfpipe_push(int);

/* guard.c: a guardian that kills its group when the program dies */
struct sbx_guard {
	pid_t	 pid;		/* the guardian, which leads the group */
	int	 line;		/* the lifeline's write end, ours alone */
};
int	 sbx_guard_start(struct sbx_guard *);
void	 sbx_guard_stop(struct sbx_guard *);

/* conf.c: the settings that only the library reads (createargv.c) */
const char *sbx_xconf_memory(char *, size_t);

/* confparse.c: the grammars of the settings' values, read for conf.c */
struct sbx_word {		/* a word a setting takes, and its value */
	const char	*word;
	int		 value;
};
int	 sbx_confparse_word(const char *, const struct sbx_word *);
int	 sbx_xconfparse_word(const char *, const char *,
	    const struct sbx_word *);
long long sbx_xconfparse_num(const char *, const char *, long long, long long);
long long sbx_xconfparse_hours(const char *, const char *, long long);
long long sbx_xconfparse_bytes(const char *, const char *, long long);
void	 sbx_xconfparse_memory(const char *, const char *, char *, size_t);
const char *sbx_xconfparse_ref(const char *, const char *);
const char *sbx_xconfparse_names(const char *, const char *);
const char *sbx_xconfparse_name(const char *, const char *);
const char *sbx_xconfparse_egress(const char *, const char *);
const char *sbx_xconfparse_regauth(const char *, const char *);

/* env.c: its name tests (confparse.c; test/fuzz/env), an allow-list */
int	 sbx_env_isdocker(const char *);
int	 sbx_env_ishostset(const char *);
int	 sbx_env_validname(const char *, size_t);
int	 sbx_env_addnames(struct sbx_envpolicy *, const char *, const char *);

/*
 * egress.c: one entry (regauth.c's hosts), a list; egressrefuse.c: what
 * reaches the host; egressaddr.c: addresses
 */
int	 sbx_egress_rule(struct sbx_egress_rule *, const char *, size_t, char *,
	    size_t);
int	 sbx_egress_each(const char *, const char *, size_t,
	    int (*)(void *, const char *, size_t, char *, size_t), void *,
	    char *, size_t);
int	 sbx_egressrefuse_name(const struct sbx_egress_rule *, char *, size_t);
int	 sbx_egressrefuse_addr(const struct sbx_egress_rule *, char *, size_t);
int	 sbx_egressaddr_parse4(const char *, size_t, unsigned char[4]);
int	 sbx_egressaddr_parse6(const char *, size_t, unsigned char[16]);
size_t	 sbx_egressaddr_format6(const unsigned char[16], char *);
int	 sbx_egressaddr_within(const unsigned char *, const unsigned char *,
	    int);
void	 sbx_egressaddr_mask(unsigned char *, size_t, int);

/* name.c: random bytes (stamp.c) */
int	 sbx_name_urandom(unsigned char *, size_t);

/* sbxcli.c: the search that sibling.c shares */
int	 sbx_cli_path_search(char *const *, char *const *, const char *, char *,
	    size_t);
int	 sbx_cli_prog_ok(char *const *, const char *, char *, size_t);

/* sbxline.c: what one line of sbx's standard error is */
#define SBX_LINE_MAX	512	/* longer is no line of sbx's */
enum sbx_line {
	SBX_L_OTHER,	/* no line of sbx's, or an answer not asked about */
	SBX_L_NOISE,	/* sbx's notices, banner, versions, hints, blanks */
	SBX_L_MISSING,	/* the sandbox asked about does not exist */
	SBX_L_RESTART,	/* the daemon waits for its restart */
	SBX_L_RACE	/* the daemon start race was lost */
};
enum sbx_line sbx_line_kind(const char *, size_t, const char *, int);
long	 sbx_line_find(const char *, size_t, const char *);
const char *sbx_line_name(const char *);

/* sbxsays.c: the words only the library matches */
int	 sbx_says_unknown_verb(const char *, const char *);	/* portcli.c */
int	 sbx_says_unknown_flag(const char *, const char *);	/* sbxcall.c */

/* stampsh.c: the shell text of stamp.c */
extern const char sbx_stamp_prologue[];
extern const char sbx_stamp_ender[];
extern const char sbx_stamp_asker[];

/* portspec.c: the parsers below sbxports.h (test/fuzz/ports) */
int	 sbx_portspec_sbxjson(const char *, size_t, struct sbx_ports *,
	    const char **);
int	 sbx_portspec_sbxspec(const struct sbx_port *, char *, size_t);

/* tripscan.c: test/tools/tripscan's, called once a file's hash began */
extern void (*sbx_tripscan_hook)(int, const char *);

/* shown.c: which characters no reader gets raw (jsonout.c's too) */
size_t	 sbx_shown_utf8len(const char *, size_t, unsigned *);
int	 sbx_shown_unsafe(unsigned);

#endif
