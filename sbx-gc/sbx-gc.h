/*
 * sbx-gc.h: what the parts of sbx-gc share.
 */
#ifndef SBX_GC_H
#define SBX_GC_H

#include <sys/types.h>

#include <limits.h>
#include <time.h>

#ifndef PATH_MAX
#define PATH_MAX	4096
#endif

/* A sandbox of the listing; the strings point into the parsed JSON. */
struct box {
	const char	*name;
	const char	*status;
	const char	*used;	/* last_used_at, or NULL */
};

extern int	 gc_nflag, gc_vflag;	/* -n, -v */
extern int	 gc_dfd;		/* the state directory */
extern char	 gc_statedir[PATH_MAX];
extern const char *gc_prefix;		/* -P */

/* sbx-gc.c */
int	 gc_excluded(const char *);
int	 gc_boxcmp(const void *, const void *);
void	 gc_say(const char *, const char *, const char *);

/* markers.c */
void	 gc_drop(const char *);
int	 gc_alive(const char *, char *, size_t);
int	 gc_namepid(const char *, pid_t *);
void	 gc_sweep_orphans(const struct box *, size_t, time_t);
char	**gc_workspaces(void);
int	 gc_provlock(const char *, const char *);

/* imgevict.c */
void	 gc_imgevict(void);

#endif /* SBX_GC_H */
