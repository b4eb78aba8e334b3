/*
 * sbxmarker.h: the markers, the NAME.SUFFIX files of the state directory
 * (sbx-tools(7), FILES): their vocabulary (marker.c) and one reader or
 * writer per marker (markerio.c; NAME.ports is sbxports.h's).
 */
#ifndef SBXMARKER_H
#define SBXMARKER_H

#include <sys/types.h>

#include <stddef.h>

#include "sbx.h"

enum sbx_marker {
	SBX_M_CREATED,		/* sbx-run provisioned it */
	SBX_M_FAILED,		/* sbx-watch's teardown gave up */
	SBX_M_JOURNAL,		/* sbx-run's calls */
	SBX_M_PRIME,		/* the scratch workspace of read-only mode */
	SBX_M_PORTS,		/* sbx-ports' mappings */
	SBX_M_PREWARM,		/* sbx-run -P: how its provisioning ended */
	SBX_M_IMGNOTE,		/* an image cache load's drop, to be said */
	SBX_M_EGRESS,		/* the session's network rules and credentials */
	SBX_M_TRIPWIRE,		/* the workspace's host-run files at provisioning */
	SBX_M_OWNER,		/* the session and its watcher */
	SBX_M_LOCK,		/* held by the watcher */
	SBX_M_VERIFY,		/* NAME.verify-NONCE: sbx-verify's canary */
	SBX_M_PAST,		/* NAME.past-END: a past session's record */
	SBX_M_COUNT
};
#define SBX_MF_OURS	0x1	/* proves the sandbox was ours: swept by it */
#define SBX_MF_DIR	0x2	/* a directory */
#define SBX_MF_LOCK	0x4	/* removed only when nobody holds it */
#define SBX_MF_NONCE	0x8	/* named with a nonce; its program removes it */
#define SBX_MF_RECORD	0x10	/* what a session made in sbx: swept with it */
#define SBX_MB(m)	(1u << (m))
#define SBX_MB_ALL	(SBX_MB(SBX_M_COUNT) - 1)	/* nonce-named ones skipped */
#define SBX_MB_WATCH	(SBX_MB(SBX_M_OWNER) | SBX_MB(SBX_M_LOCK))
#define SBX_DROP_HELD	1	/* the caller holds NAME.lock */
#define SBX_MARKER_MAX	(SBX_NAME_MAX + 48)	/* a buffer for any of them */
unsigned sbx_marker_flags(enum sbx_marker);
int	 sbx_marker_path(char *, size_t, const char *, enum sbx_marker);
int	 sbx_marker_canary(char *, size_t, const char *, const char *);
int	 sbx_marker_past(char *, size_t, const char *, const char *);
int	 sbx_marker_past_parse(const char *, char *, size_t, long long *,
	    long long *);
int	 sbx_marker_present(int, const char *, enum sbx_marker);
int	 sbx_marker_parse(const char *, char *, size_t);
unsigned sbx_marker_drop(int, const char *, unsigned, int);

/* markerio.c */
int	 sbx_markerio_owner_write(int, const char *, pid_t, unsigned long long,
	    pid_t);
int	 sbx_markerio_owner_read(int, const char *, pid_t *,
	    unsigned long long *);
int	 sbx_markerio_created_read(int, const char *, long long *);
#define SBX_CREATING	"creating"	/* state= before sbx create runs */
#define SBX_READY	"ready"		/* state= once it succeeded */
#define SBX_PREWARM_SAID	2048	/* bytes kept of what sbx-run -P said */
int	 sbx_markerio_created_write(int, const char *, const char *,
	    const char *, const char *);
int	 sbx_markerio_created_text(int, const char *, char *, size_t);
int	 sbx_markerio_created_workspace(int, const char *, char *, size_t);
char	**sbx_xmarkerio_session_ws(const char *, char *, size_t, char *[2]);
int	 sbx_markerio_failed_write(int, const char *, const char *, int, int,
	    const char *);
int	 sbx_markerio_prewarm_write(int, const char *, int, const char *,
	    size_t);
int	 sbx_markerio_prewarm_read(int, const char *, long long *, int *,
	    char *, size_t);

#endif /* SBXMARKER_H */
