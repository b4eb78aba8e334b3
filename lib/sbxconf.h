/*
 * sbxconf.h: the DOCKER_SANDBOX* settings (conf.c, confparse.c), what a
 * program reads from its caller before it does anything.
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
#define SBX_CONF_EGRESS_ALLOW	0x10000	/* the session's network rules */
#define SBX_CONF_EGRESS_DENY	0x20000
#define SBX_CONF_REGISTRY_AUTH	0x40000	/* where its credentials are kept */
#define SBX_CONF_TRIPWIRE	0x80000	/* paths the tripwire watches too */
#define SBX_CONF_SESSIONS_KEPT	0x100000	/* past sessions' records kept */
#define SBX_CONF_ALL		(~0u)	/* every row of conf.c's table */
#define SBX_CONF_ENV		(SBX_CONF_ALLOWLIST | SBX_CONF_PASSTHROUGH)
/* what sbx-run may read, whichever path a call takes */
#define SBX_CONF_RUN		(SBX_CONF_ENV | SBX_CONF_TIMEOUT | \
	SBX_CONF_AUTOCREATE | SBX_CONF_CPUS | SBX_CONF_MEMORY | \
	SBX_CONF_TEMPLATE | SBX_CONF_WORKSPACE_RO | SBX_CONF_IMAGE_CACHE | \
	SBX_CONF_EGRESS_ALLOW | SBX_CONF_EGRESS_DENY | SBX_CONF_REGISTRY_AUTH | \
	SBX_CONF_TRIPWIRE)
#define SBX_TIMEOUT_MAX		86400	/* seconds: a day per sbx call */
#define SBX_GC_HOURS_MAX	1000000	/* DOCKER_SANDBOX_GC_HOURS and -H */
#define SBX_SESSIONS_KEPT_MAX	100000	/* DOCKER_SANDBOX_SESSIONS_KEPT */
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
const char *sbx_xconf_name_pick(const char *);

#endif /* SBXCONF_H */
