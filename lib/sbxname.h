/* sbxname.h: sandbox names (name.c), at most SBX_NAME_MAX bytes (sbx.h). */
#ifndef SBXNAME_H
#define SBXNAME_H

#include <sys/types.h>

#include <stddef.h>

#define SBX_NAME_RULE \
	"[A-Za-z0-9][A-Za-z0-9.-]{0,61}[A-Za-z0-9], not \"default\""
#define SBX_NAME_PREFIX	"pi-sbx-"	/* of the names sbx_name_new makes */
int	 sbx_name_valid(const char *);
#define SBX_SELFCHECK_PREFIX "selfcheck."	/* sbx_name_selfcheck's */
int	 sbx_name_new(char *, size_t, long);
int	 sbx_name_selfcheck(char *, size_t, long);
int	 sbx_name_pid(const char *, const char *, pid_t *);

#endif /* SBXNAME_H */
