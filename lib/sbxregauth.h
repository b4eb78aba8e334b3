/*
 * sbxregauth.h: the registry credentials of a session (regauth.c), from
 * DOCKER_SANDBOX_REGISTRY_AUTH: where the host user keeps each one.
 */
#ifndef SBXREGAUTH_H
#define SBXREGAUTH_H

#include <stddef.h>

#include "sbx.h"
#include "sbxegress.h"

#define SBX_REGAUTH_MAX		16	/* registries in the variable */
#define SBX_REGAUTH_USERMAX	255
#define SBX_REGAUTH_SRCMAX	1023	/* a path, or a variable's name */
#define SBX_REGAUTH_VALUEMAX	8192	/* a credential's bytes */
#define SBX_REGAUTH_FILE	0	/* file:/ABS/PATH */
#define SBX_REGAUTH_ENV		1	/* env:NAME */

struct sbx_regauth_entry {
	char	 host[SBX_EGRESS_RESMAX];	/* HOST[:PORT], canonical */
	char	 user[SBX_REGAUTH_USERMAX + 1];	/* "": none given */
	int	 kind;				/* SBX_REGAUTH_FILE or _ENV */
	char	 src[SBX_REGAUTH_SRCMAX + 1];	/* the path or the name */
};

struct sbx_regauth {
	struct sbx_regauth_entry v[SBX_REGAUTH_MAX];
	size_t	 n;
};

/*
 * parse: 0, or -1 with why naming the variable and the entry; read: the
 * credential into the buffer (free it with sbx_regauth_free, which zeroes
 * it), or -1 with why naming the registry and the source, never a byte
 * of the credential.
 */
int	 sbx_regauth_parse(const char *, const char *, struct sbx_regauth *,
	    char *, size_t);
int	 sbx_regauth_read(const struct sbx_regauth_entry *, char *const *,
	    struct sbx_buf *, char *, size_t);
void	 sbx_regauth_free(struct sbx_buf *);

#endif /* SBXREGAUTH_H */
