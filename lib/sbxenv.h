/*
 * sbxenv.h: the environment a child gets (env.c): built from a policy,
 * never from what the program inherited.
 */
#ifndef SBXENV_H
#define SBXENV_H

#include <stddef.h>

struct sbx_envpolicy {
	int	  passthrough;	/* keep every name but docker/compose ones */
	char	**allow;	/* extra names; NULL-terminated */
	size_t	  nallow;
};
int	 sbx_xconf_env_policy(struct sbx_envpolicy *, const char *, int);
void	 sbx_env_policy_free(struct sbx_envpolicy *);
char	**sbx_env_build(char *const *, const struct sbx_envpolicy *);
char	**sbx_env_forwarded(char *const *);
const char *sbx_env_get(char *const *, const char *);

#endif /* SBXENV_H */
