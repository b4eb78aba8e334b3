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

#define GC_XMAX		64	/* -x names */

/* One sweep: its options and its state directory, passed down. */
struct gc {
	int		 nflag, vflag;		/* -n, -v */
	const char	*prefix;		/* -P */
	const char	*excluded[GC_XMAX];	/* -x */
	size_t		 nexcluded;
	int		 dfd;			/* the state directory */
	char		 statedir[PATH_MAX];
	const char	*sbx;			/* the sbx CLI, absolute */
	char		**env;			/* for the sbx child */
	int		 timeout;		/* seconds per sbx call */
};

/* markers.c (sbx-gc.c calls it; it calls nothing of sbx-gc.c) */
int	 markers_excluded(const struct gc *, const char *);
int	 markers_boxcmp(const void *, const void *);
void	 markers_say(const char *, const char *, const char *);
void	 markers_drop(const struct gc *, const char *, unsigned);
int	 markers_rules(const struct gc *, const char *);
int	 markers_alive(const struct gc *, const char *, char *, size_t);
int	 markers_namepid(const struct gc *, const char *, pid_t *);
void	 markers_sweep_orphans(const struct gc *, const struct box *, size_t,
	    time_t);
char	**markers_workspaces(const struct gc *);
int	 markers_provlock(const struct gc *, const char *, const char *);

/* records.c */
void	 records_trim(const struct gc *, long long);

#endif /* SBX_GC_H */
