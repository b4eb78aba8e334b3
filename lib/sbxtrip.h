/*
 * sbxtrip.h: the tripwire on the workspace files the host runs on its
 * own: the list of those paths (triplist.c), their fingerprint
 * (tripscan.c), NAME.tripwire (tripfile.c), the comparison (tripcmp.c)
 * and the findings told (tripseen.c).  Nothing here changes the workspace.
 */
#ifndef SBXTRIP_H
#define SBXTRIP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SBX_TRIP_PATH		512	/* a path, workspace-relative, with NUL */
#define SBX_TRIP_ENTRIES	1024	/* fingerprints in one scan */
#define SBX_TRIP_DIRENTS	512	/* entries read below one watched path */
#define SBX_TRIP_DEPTH		4	/* levels walked below a watched directory */
#define SBX_TRIP_FILEBYTES	(1 << 20)	/* hashed of one file */
#define SBX_TRIP_BYTES		(16 << 20)	/* hashed in one scan */
#define SBX_TRIP_EXTRA		32	/* paths DOCKER_SANDBOX_TRIPWIRE adds */
#define SBX_TRIP_ROWS		64	/* the list and the setting's paths */

/* triplist.c: the paths, who runs them, and the setting's paths */
struct sbx_triprow {
	char	 path[SBX_TRIP_PATH];
	int	 dir;		/* walked, to SBX_TRIP_DEPTH */
	int	 runner;	/* its runner: an index of the list */
};
struct sbx_triplist {
	struct sbx_triprow r[SBX_TRIP_ROWS];
	size_t	 n;
	size_t	 builtin;	/* the first n rows are the list's */
};
void	 sbx_triplist_builtin(struct sbx_triplist *);
int	 sbx_triplist_add(struct sbx_triplist *, const char *, char *, size_t);
const char *sbx_xtriplist_check(const char *, const char *);
const char *sbx_triplist_runner(int);

/* tripscan.c: one scan of the listed paths */
enum {
	SBX_TRIP_OK,
	SBX_TRIP_UNREADABLE,	/* open or read refused */
	SBX_TRIP_RACED,		/* replaced or written while hashed */
	SBX_TRIP_TOOMANY,	/* past a bound of entries */
	SBX_TRIP_TOODEEP,	/* below SBX_TRIP_DEPTH */
	SBX_TRIP_LONG,		/* its name is past SBX_TRIP_PATH */
	SBX_TRIP_STAT		/* it could not be looked at */
};
struct sbx_tripent {
	char	 path[SBX_TRIP_PATH];
	char	 target[SBX_TRIP_PATH];	/* a link's text, cut */
	char	 type;		/* f d l p c b s, ? */
	int	 why;		/* SBX_TRIP_*: what could not be checked */
	int	 runner;
	int	 hashed;	/* hash holds its first SBX_TRIP_FILEBYTES */
	unsigned mode;
	long long size, mtime, mtimens, ctime, ctimens;
	unsigned long long ino, dev;
	uint64_t hash;
};
struct sbx_trip {
	struct sbx_tripent *e;	/* sorted by path once a scan ends */
	size_t	 n;
	unsigned long long wsdev, wsino;	/* the workspace directory */
	unsigned long long bytes;	/* hashed so far */
};
int	 sbx_tripscan(int, const struct sbx_triplist *, const struct sbx_trip *,
	    struct sbx_trip *);
const struct sbx_tripent *sbx_tripscan_find(const struct sbx_trip *,
	    const char *);
void	 sbx_tripscan_free(struct sbx_trip *);
uint64_t sbx_tripscan_fnv(uint64_t, const void *, size_t);
#define SBX_TRIP_FNV0	0xcbf29ce484222325ULL

/* tripfile.c: NAME.tripwire; tripcmp.c: what changed since it was taken */
struct sbx_tripfind {
	const char *path;
	const char *change;	/* created changed executable link removed unchecked */
	const char *runner;
	char	 type;
	const char *target;	/* a link's, or NULL */
	int	 why;
};
struct sbx_tripstate {
	char	 ws[SBX_TRIP_PATH * 8];	/* the workspace, absolute */
	struct sbx_triplist list;
	struct sbx_trip base;	/* at provisioning */
	char	*told;		/* "CHANGE PATH\n" lines said already */
	size_t	 ntold;
};
int	 sbx_tripfile_take(int, const char *, const char *);
int	 sbx_tripfile_load(int, const char *, struct sbx_tripstate *);
int	 sbx_tripfile_save(int, const char *, const struct sbx_tripstate *);
void	 sbx_tripfile_free(struct sbx_tripstate *);
int	 sbx_tripcmp_compare(const struct sbx_trip *, const struct sbx_trip *,
	    int (*)(void *, const struct sbx_tripfind *), void *);
const char *sbx_tripcmp_what(char);
const char *sbx_tripcmp_why(int);

/* tripseen.c: each finding told once, and kept until the user saw it */
#define SBX_TRIP_FULL	1	/* hash everything, not only what changed */
#define SBX_TRIP_QUIET	2	/* a damaged fingerprint, a workspace gone: no word */
int	 sbx_tripseen_check(int, const char *, int);
int	 sbx_tripseen_list(int, const char *, FILE *);
int	 sbx_tripseen_mark(int, const char *, char *const *);

#endif /* SBXTRIP_H */
