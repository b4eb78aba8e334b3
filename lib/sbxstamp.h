/*
 * sbxstamp.h (stamp.c, stampsh.c): each exec's command runs under a
 * stamp, so that one short second exec ends exactly what it started (in
 * the sandbox, and in a container for an inner docker exec) and says
 * what it found.  The pages call it the exec's mark; a marker is a file
 * of the state directory (marker.c).
 */
#ifndef SBXSTAMP_H
#define SBXSTAMP_H

#include <stddef.h>

#define SBX_STAMP_LEN	16	/* hex digits of a stamp */
#define SBX_STAMP_NWORDS	5	/* the words sbx_stamp_words puts first */
#define SBX_END_ENDED	0	/* all it found was ended */
#define SBX_END_NONE	1	/* nothing of it was still running */
#define SBX_END_LEFT	2	/* some of it could not be ended */
#define SBX_END_UNSTAMPED 3	/* no record: it had not begun */
#define SBX_END_REBOOTED 4	/* the sandbox stopped since: that ended it */
#define SBX_END_GONE	5	/* the sandbox does not exist */
#define SBX_END_UNREACHED 6	/* the ending exec failed: it may still run */
#define SBX_END_NOINNER	(-1)	/* no container part */
struct sbx_ended {
	int	 state;		/* SBX_END_* of the sandbox's part */
	int	 found, left;	/* processes found; of those, still running */
	int	 cg;		/* its cgroup was searched, not only its tree */
	int	 inner;		/* SBX_END_* of the container's part */
	int	 ifound, ileft, icg;
	char	 why[128];	/* SBX_END_UNREACHED: what the exec said */
};
int	 sbx_stamp_new(char *, size_t);
void	 sbx_stamp_words(char **, const char *);
int	 sbx_stamp_end(const char *, char *const *, const char *, const char *,
	    char *const *, int, struct sbx_ended *);
void	 sbx_stamp_said(const struct sbx_ended *, const char *, char *, size_t);
int	 sbx_stamp_done(const struct sbx_ended *);
int	 sbx_stamp_began(const char *, char *const *, const char *, const char *,
	    int);

#endif /* SBXSTAMP_H */
