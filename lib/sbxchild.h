/*
 * sbxchild.h: child processes: start, supervise, capture, guard, detach,
 * and tell whether a process is still the one we knew.  Nothing here
 * knows sbx.
 */
#ifndef SBXCHILD_H
#define SBXCHILD_H

#include <sys/types.h>

#include <signal.h>

#include "sbx.h"

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
	/* stderr passes through, but is kept in err while this says so */
	int	(*hold_err)(const char *, size_t, void *);
	void	*hold_arg;
};
#define SBX_TAIL_MAX	4096
#define SBX_KILL_GRACE_MS 2000	/* a group that ignores TERM: KILL after */
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
	char	 tail[SBX_TAIL_MAX];	/* relayed: the last of both, as read */
	size_t	 taillen;
};
int	 sbx_supervise(const struct sbx_spawn *, struct sbx_result *);
void	 sbx_supervise_result_free(struct sbx_result *);

/*
 * selfpipe.c: the process's one self-pipe; trapped signals arrive on its
 * read end, in order.
 */
int	 sbx_selfpipe(void);
int	 sbx_selfpipe_trap(int);
void	 sbx_selfpipe_untrap(int);
int	 sbx_selfpipe_read(void);
void	 sbx_selfpipe_child(void);

/* capture.c: run for the output, stdin on /dev/null, own process group */
int	 sbx_capture(struct sbx_result *, char *const *, char *const *, int);
int	 sbx_capture_in(struct sbx_result *, char *const *, char *const *, int,
	    int);

/* guard.c: a child that reads EOF on its lifeline when the caller ends */
pid_t	 sbx_guard_lifeline(int *, void (*)(int, const sigset_t *, void *),
	    void *);

/* detach.c: what a process that outlives its caller lets go of */
void	 sbx_detach_stdio_null(void);
void	 sbx_detach_close_others(const int *, size_t);

/* proc.c: is a process (pid plus start time) still the one we knew? */
int	 sbx_proc_start(pid_t, unsigned long long *);
int	 sbx_proc_alive(pid_t, unsigned long long);

#endif
