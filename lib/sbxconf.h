/*
 * sbxconf.h: the settings (conf.c), the environment a child gets (env.c)
 * and sandbox names (name.c): what a program reads from its caller before
 * it does anything.  conf.c checks names and lists with the other two.
 */
#ifndef SBXCONF_H
#define SBXCONF_H

#include <sys/types.h>

#include <stddef.h>

/*
 * conf.c: the DOCKER_SANDBOX* settings, one row each; a bad value exits
 * 64 naming the variable.  sbx_xconf_check() takes SBX_CONF_* bits, and
 * sbx_xconf_word() reads a setting of a few words: its value, -1 unset.
 */
#define SBX_CONF_PINNED		0x001	/* DOCKER_SANDBOX */
#define SBX_CONF_AUTOCREATE	0x002
#define SBX_CONF_CPUS		0x004
#define SBX_CONF_MEMORY		0x008
#define SBX_CONF_TEMPLATE	0x010
#define SBX_CONF_WORKSPACE_RO	0x020
#define SBX_CONF_TEARDOWN	0x040
#define SBX_CONF_KEEPALIVE	0x080
#define SBX_CONF_GC_HOURS	0x100
#define SBX_CONF_ALLOWLIST	0x200
#define SBX_CONF_PASSTHROUGH	0x400
#define SBX_CONF_TIMEOUT	0x800
#define SBX_CONF_PORTS_MAX	0x1000	/* host ports a sandbox may hold */
#define SBX_CONF_PREWARM	0x2000	/* provision at session start */
#define SBX_CONF_IMAGE_CACHE	0x4000	/* the image cache's budget */
#define SBX_CONF_SBX		0x8000	/* the sbx CLI; shown resolved */
#define SBX_CONF_ALL		(~0u)	/* every row of conf.c's table */
#define SBX_CONF_ENV		(SBX_CONF_ALLOWLIST | SBX_CONF_PASSTHROUGH)
/* what sbx-run may read, whichever path a call takes */
#define SBX_CONF_RUN		(SBX_CONF_ENV | SBX_CONF_TIMEOUT | \
	SBX_CONF_AUTOCREATE | SBX_CONF_CPUS | SBX_CONF_MEMORY | \
	SBX_CONF_TEMPLATE | SBX_CONF_WORKSPACE_RO | SBX_CONF_IMAGE_CACHE)
#define SBX_TIMEOUT_MAX		86400	/* seconds: a day per sbx call */
#define SBX_GC_HOURS_MAX	1000000	/* DOCKER_SANDBOX_GC_HOURS and -H */
#define SBX_TEARDOWN_REMOVE	0
#define SBX_TEARDOWN_STOP	1
#define SBX_TEARDOWN_NONE	2
const char *sbx_conf_str(const char *);
const char *sbx_conf_given(unsigned);
long long sbx_xconf_num(const char *, long long, long long, long long);
int	 sbx_conf_word(unsigned, const char *);
int	 sbx_xconf_word(unsigned);
const char *sbx_xconf_str(unsigned);
long long sbx_xconf_int(unsigned);
#define SBX_KEEPALIVE_NEVER	0
#define SBX_KEEPALIVE_ALWAYS	1
#define SBX_KEEPALIVE_PORTS	2	/* while the sandbox has published ports */
int	 sbx_xconf_keepalive(void);
#define SBX_PREWARM_NEVER	0
#define SBX_PREWARM_ALWAYS	1
#define SBX_PREWARM_AUTO	2	/* when the workspace shows docker */
int	 sbx_xconf_timeout(void);
long long sbx_xconf_image_cache(void);
int	 sbx_xconf_teardown(void);
const char *sbx_xconf_value(unsigned, char *, size_t);
void	 sbx_xconf_check(unsigned);
unsigned sbx_conf_bit(size_t);
const char *sbx_conf_name(unsigned);
const char *sbx_xname_pick(const char *);

/* env.c: environment policy */
struct sbx_envpolicy {
	int	  passthrough;	/* keep every name but docker/compose ones */
	char	**allow;	/* extra names; NULL-terminated */
	size_t	  nallow;
};
int	 sbx_xenv_policy(struct sbx_envpolicy *, const char *, int);
void	 sbx_env_policy_free(struct sbx_envpolicy *);
char	**sbx_env_build(char *const *, const struct sbx_envpolicy *);
char	**sbx_env_forwarded(char *const *);
const char *sbx_env_get(char *const *, const char *);

/* name.c: sandbox names (at most SBX_NAME_MAX bytes, sbx.h) */
#define SBX_NAME_RULE \
	"[A-Za-z0-9][A-Za-z0-9.-]{0,61}[A-Za-z0-9], not \"default\""
#define SBX_NAME_PREFIX	"pi-sbx-"	/* of the names sbx_name_new makes */
int	 sbx_name_valid(const char *);
#define SBX_SELFCHECK_PREFIX "selfcheck."	/* sbx_name_selfcheck's */
int	 sbx_name_new(char *, size_t, long);
int	 sbx_name_selfcheck(char *, size_t, long);
int	 sbx_name_pid(const char *, const char *, pid_t *);

#endif /* SBXCONF_H */
