/*
 * sbx-watch.h: what the parts of sbx-watch share.
 */
#ifndef SBX_WATCH_H
#define SBX_WATCH_H

#include <limits.h>

#include "sbx.h"
#include "sbxconf.h"

struct sbx_result;		/* sbxchild.h */

#ifndef PATH_MAX
#define PATH_MAX	4096
#endif

enum {
	MODE_REMOVE = SBX_TEARDOWN_REMOVE,
	MODE_STOP = SBX_TEARDOWN_STOP,
	MODE_NONE = SBX_TEARDOWN_NONE
};

struct watch {
	char	 name[SBX_NAME_MAX + 1];
	int	 mode;		/* MODE_* */
	int	 keepalive;	/* SBX_KEEPALIVE_*: when to hold the VM up */
	int	 kaperiod;	/* seconds: the least between two held execs */
	int	 prewarmhold;	/* seconds held after a prewarm; 0: not */
	int	 lifeline;	/* -f: the read end, or -1 */
	pid_t	 pid;		/* -p (or the parent): the session, or -1 */
	unsigned long long start;	/* its start time; 0 if unknown */
	int	 pidfd;		/* from pidwait_open, or -1 */
	int	 dfd;		/* the state directory */
	char	 sbx[PATH_MAX];	/* the sbx CLI, absolute */
	char	**envp;		/* its scrubbed environment */
	int	 timeout;	/* seconds per sbx call */
	long	 backoff;	/* ms before the second try; doubles */
	int	 held;		/* the keepalive held the VM up to the end */
};

/* loop.c: after detaching: wait for the end, then tear down once */
void	 loop_run(struct watch *);

/* teardown.c: the one teardown, and the sbx of every call */
int	 teardown_run(const struct watch *, int);
int	 teardown_sbxpath(const struct watch *, char *, size_t,
	    struct sbx_result *);

/* rules.c: the session's network rules: held, put back, removed */
int	 rules_deny_held(const struct watch *);
int	 rules_reapply(const struct watch *);
int	 rules_remove(const struct watch *);

/* imgsave.c: the image cache's save, while the VM is up */
int	 imgsave(const struct watch *, int, unsigned long long *);
void	 imgsave_abandon(const struct watch *, long);

/* now.c: -n */
int	 now_teardown(const struct watch *, const char *);

/* warmhold.c: the hold after sbx-run -P */
int	 warmhold(const struct watch *);

/* pidwait.c: learn of a process's death without polling, where we can */
int	 pidwait_open(pid_t);
int	 pidwait_arm(pid_t, int);
int	 pidwait_ended(int);
int	 pidwait_recheck_ms(void);

#endif /* SBX_WATCH_H */
