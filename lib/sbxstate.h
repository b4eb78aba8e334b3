/*
 * sbxstate.h: the state directory.  Where it is and its files (statedir.c,
 * state.c), record locks on them (lock.c), its vocabulary of markers
 * (marker.c) and one reader or writer per marker (markerio.c).
 */
#ifndef SBXSTATE_H
#define SBXSTATE_H

#include <sys/types.h>

#include <stddef.h>

#include "sbx.h"

/* statedir.c, state.c: the state directory and its marker files */
int	 sbx_xstate_path(char *, size_t);
int	 sbx_xstate_open(char *, size_t);
int	 sbx_state_write(int, const char *, const char *);
int	 sbx_state_read(int, const char *, char *, size_t);
int	 sbx_state_remove(int, const char *);
int	 sbx_state_rmtree(int, const char *);
const char *sbx_state_field(const char *, const char *, char *, size_t);

/* lock.c: record locks, whole files or one sandbox's byte of a shared one */
int	 sbx_lock(int, const char *, int);
pid_t	 sbx_lock_holder(int, const char *);
int	 sbx_setlk(int, short, off_t, off_t, long long);
int	 sbx_lock_name(int, const char *, const char *, long long);
pid_t	 sbx_lock_name_holder(int, const char *, const char *);

/*
 * marker.c: the NAME.SUFFIX files (sbx-tools(7), FILES); the directory's
 * own files start with '.', or have no dot, so none is a marker.
 */
#define SBX_PROVISION_LOCK	".provision.lock"	/* a byte per sandbox */
#define SBX_IMGLOAD_LOCK	".imgload.lock"	/* a byte per sandbox: a load */
#define SBX_PORTS_LOCK		".ports.lock"	/* a byte per sandbox: its ports */
#define SBX_GC_LOCK		".gc.lock"		/* sbx-gc sweeps */
#define SBX_DIALECT_CACHE	"sbx-port-dialect"	/* sbx's port verbs */
#define SBX_NOINPUT_CACHE	"sbx-no-input"		/* sbx refused --no-input */
#define SBX_UNPLACED_CACHE	"sbx-unplaced"	/* its version was shown */
enum sbx_marker {
	SBX_M_CREATED,		/* sbx-run provisioned it */
	SBX_M_FAILED,		/* sbx-watch's teardown gave up */
	SBX_M_JOURNAL,		/* sbx-run's calls */
	SBX_M_PRIME,		/* the scratch workspace of read-only mode */
	SBX_M_PORTS,		/* sbx-ports' mappings */
	SBX_M_PREWARM,		/* sbx-run -P: how its provisioning ended */
	SBX_M_IMGNOTE,		/* an image cache load's drop, to be said */
	SBX_M_OWNER,		/* the session and its watcher */
	SBX_M_LOCK,		/* held by the watcher */
	SBX_M_VERIFY,		/* NAME.verify-NONCE: sbx-verify's canary */
	SBX_M_COUNT
};
#define SBX_MF_OURS	0x1	/* proves the sandbox was ours: swept by it */
#define SBX_MF_DIR	0x2	/* a directory */
#define SBX_MF_LOCK	0x4	/* removed only when nobody holds it */
#define SBX_MF_NONCE	0x8	/* named with a nonce; its program removes it */
#define SBX_MB(m)	(1u << (m))
#define SBX_MB_ALL	(SBX_MB(SBX_M_COUNT) - 1)	/* nonce-named ones skipped */
#define SBX_MB_WATCH	(SBX_MB(SBX_M_OWNER) | SBX_MB(SBX_M_LOCK))
#define SBX_DROP_HELD	1	/* the caller holds NAME.lock */
#define SBX_MARKER_MAX	(SBX_NAME_MAX + 48)	/* a buffer for any of them */
unsigned sbx_marker_flags(enum sbx_marker);
int	 sbx_marker_path(char *, size_t, const char *, enum sbx_marker);
int	 sbx_marker_canary(char *, size_t, const char *, const char *);
int	 sbx_marker_present(int, const char *, enum sbx_marker);
int	 sbx_marker_parse(const char *, char *, size_t);
unsigned sbx_marker_drop(int, const char *, unsigned, int);

/* markerio.c (NAME.ports is sbxports.h's) */
int	 sbx_owner_write(int, const char *, pid_t, unsigned long long, pid_t);
int	 sbx_owner_read(int, const char *, pid_t *, unsigned long long *);
int	 sbx_created_read(int, const char *, long long *);
#define SBX_CREATING	"creating"	/* state= before sbx create runs */
#define SBX_READY	"ready"		/* state= once it succeeded */
#define SBX_PREWARM_SAID	2048	/* bytes kept of what sbx-run -P said */
int	 sbx_created_write(int, const char *, const char *, const char *,
	    const char *);
int	 sbx_created_text(int, const char *, char *, size_t);
int	 sbx_created_workspace(int, const char *, char *, size_t);
char	**sbx_xsession_ws(const char *, char *, size_t, char *[2]);
int	 sbx_failed_write(int, const char *, const char *, int, int,
	    const char *);
int	 sbx_prewarm_write(int, const char *, int, const char *, size_t);
int	 sbx_prewarm_read(int, const char *, long long *, int *, char *,
	    size_t);

#endif /* SBXSTATE_H */
