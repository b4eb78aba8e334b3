/*
 * sbx.h: what nearly every program uses: the exit table, whole writes, a
 * growable buffer, bounded numbers, outside text fit for a message.  Each
 * other concern of libsbx has its own header.  A function named sbx_x...
 * may end the process; the rest return.
 */
#ifndef SBX_H
#define SBX_H

#include <sys/types.h>

#include <stddef.h>

/* Exit statuses shared by every program (see sbx-tools(7)). */
#define SBX_EX_OK	0
#define SBX_EX_FAIL	1
#define SBX_EX_NOAUDIT	2	/* sbx-verify: the audit could not run */
#define SBX_EX_USAGE	64
#define SBX_EX_NOSANDBOX 68	/* the sandbox does not exist */
#define SBX_EX_RESTART	69	/* sbx's daemon restart awaits a terminal */
#define SBX_EX_BUSY	75	/* a lock is held: sbx-gc, sbx-watch -n, sbx-ports */
#define SBX_EX_NOTOURS	77	/* sbx-watch -n: it exists, the tools did not make it */
#define SBX_EX_TIMEOUT	124
#define SBX_EX_CANTRUN	125
#define SBX_EX_NOEXEC	126
#define SBX_EX_NOTFOUND	127
#define SBX_SIGSTATUS(n)	(128 + (n))	/* ended by signal n */
/* spawn.c: the status above for the errno of an exec that failed */
int	 sbx_spawn_exec_status(int);

/* The canonical socket every inner docker call is pinned to. */
#define SBX_DOCKER_HOST	"unix:///var/run/docker.sock"

/* The longest sandbox name (name.c checks them, sbxname.h). */
#define SBX_NAME_MAX	63

#if defined(__GNUC__) || defined(__clang__)
#define SBX_DEAD	__attribute__((__noreturn__))
#else
#define SBX_DEAD
#endif

/* io.c: whole writes, a growable buffer, checked stdout, a pipe */
struct sbx_buf {
	char	*data;		/* always NUL-terminated when non-NULL */
	size_t	 len;
	size_t	 cap;
};
int	 sbx_io_writeall(int, const void *, size_t);
int	 sbx_io_buf_add(struct sbx_buf *, const void *, size_t);
void	 sbx_io_buf_free(struct sbx_buf *);
int	 sbx_io_buf_readfd(struct sbx_buf *, int, size_t);
int	 sbx_io_fshut(void);
int	 sbx_io_pipe(int[2]);

/* strtonum.c: bounded number parsing, strtonum(3) semantics */
long long sbx_strtonum(const char *, long long, long long, const char **);

/*
 * mode.c: a program's modes as rows of data, the flag that chooses each
 * and what may go with it; a main checks its flags against the row.
 */
#define SBX_OPT(c)	(1ULL << ((c) - 'A'))	/* flag c, of A-Z and a-z */
struct sbx_mode {
	int		 flag;		/* the flag choosing it; 0: the default */
	const char	*also;		/* the other flags it takes */
	const char	*oneof;		/* of these, at most one */
	int		 min, max;	/* operands; max -1: no bound */
};
int	 sbx_mode_pick(const void *, size_t, unsigned long long, int);

/* shown.c: outside text fit for a message */
const char *sbx_shown(const char *, char *, size_t);
int	 sbx_shown_write(int, const char *, size_t);

#endif /* SBX_H */
