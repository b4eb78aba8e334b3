/*
 * sbxstate.h: the state directory: where it is and its files (statedir.c,
 * state.c), and record locks on them (lock.c).  The markers, one file of
 * it per sandbox and purpose, are sbxmarker.h's.
 */
#ifndef SBXSTATE_H
#define SBXSTATE_H

#include <sys/types.h>

#include <stddef.h>

#include "sbx.h"

/* statedir.c, state.c: the state directory and its marker files */
int	 sbx_xstatedir_path(char *, size_t);
int	 sbx_xstatedir_open(char *, size_t);
int	 sbx_state_write(int, const char *, const char *);
int	 sbx_state_read(int, const char *, char *, size_t);
int	 sbx_state_readmax(int, const char *, char *, size_t);
int	 sbx_state_remove(int, const char *);
int	 sbx_state_rmtree(int, const char *);
const char *sbx_state_field(const char *, const char *, char *, size_t);

/* lock.c: record locks, whole files or one sandbox's byte of a shared one */
int	 sbx_lock(int, const char *, int);
pid_t	 sbx_lock_holder(int, const char *);
int	 sbx_lock_setlk(int, short, off_t, off_t, long long);
int	 sbx_lock_name(int, const char *, const char *, long long);
pid_t	 sbx_lock_name_holder(int, const char *, const char *);

/* the directory's own files: they start with '.', or have no dot */
#define SBX_PROVISION_LOCK	".provision.lock"	/* a byte per sandbox */
#define SBX_IMGLOAD_LOCK	".imgload.lock"	/* a byte per sandbox: a load */
#define SBX_PORTS_LOCK		".ports.lock"	/* a byte per sandbox: its ports */
#define SBX_GC_LOCK		".gc.lock"		/* sbx-gc sweeps */
#define SBX_TRIPWIRE_LOCK	".tripwire.lock"	/* the two below */
#define SBX_TRIPWIRE_UNSEEN	"tripwire-unseen"	/* findings not seen yet */
#define SBX_DIALECT_CACHE	"sbx-port-dialect"	/* sbx's port verbs */
#define SBX_NOINPUT_CACHE	"sbx-no-input"		/* sbx refused --no-input */
#define SBX_SPELLING_CACHE	"sbx-policy-operand"	/* sbx refused --sandbox */
#define SBX_UNPLACED_CACHE	"sbx-unplaced"	/* its version was shown */

#endif /* SBXSTATE_H */
