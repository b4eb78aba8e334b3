/* sbx-ports.h: what the files of sbx-ports share. */

#include <limits.h>

#include "sbx.h"
#include "sbxports.h"

/* Why a published host port differs from the sandbox port. */
#define WHY_SAME	0	/* it does not */
#define WHY_GIVEN	1	/* the user said so */
#define WHY_LOW		2	/* sandbox port below 1024 */
#define WHY_TAKEN	3	/* same host port already in use */
#define WHY_RANGE	4	/* sandbox port in the host's ephemeral range */

struct ctx {
	struct sbx_portcli pc;
	char	 sbx[PATH_MAX];
	char	 statedir[PATH_MAX];
	const char *argv0;
	int	 jflag;
	int	 max;		/* DOCKER_SANDBOX_PORTS_MAX */
	char	 wsbuf[PATH_MAX];	/* the session workspace, if known */
	char	*ws[2];		/* no program is run from it */
};

/* dockerps.c: what running containers publish, from `docker ps` */
#define PORTS_WANT_MAX	4096	/* VM ports one docker ps may name */
struct portset {		/* one bit a port: tcp, udp */
	unsigned char	bit[2][65536 / 8];
};
int	 dockerps_portset_has(const struct portset *, int, int);
void	 dockerps_portset_add(struct portset *, int, int);
#define LOCAL_NAMED	16	/* loopback-only VM ports named, then counted */
struct vmlocal {		/* VM ports bound to the VM's loopback alone */
	struct sbx_port	v[LOCAL_NAMED];	/* the first, with their container */
	size_t		n;		/* in v */
	size_t		all;		/* all of them */
};
int	 dockerps_text(const char *, struct sbx_ports *, struct portset *,
	    const char **);
int	 dockerps_parse(const char *, size_t, struct sbx_ports *,
	    struct portset *, struct vmlocal *, size_t *, const char **);
void	 dockerps_local_say(const char *, const struct vmlocal *);

/* portsmarker.c: NAME.ports, the mappings we made, and the ports lock */
#define PORTS_LOCK_CALLS	5	/* sbx calls a verb makes at most */
int	 portsmarker_read(int, const char *, struct sbx_ports *);
int	 portsmarker_write(int, const char *, const struct sbx_ports *);
void	 portsmarker_warn(const char *, const char *);
int	 portsmarker_lock(const struct ctx *);

/* sbx-ports.c */
void	 ports_usage(void) SBX_DEAD;
void	 ports_list(struct ctx *, struct sbx_ports *);
void	 ports_show(const struct ctx *, const struct sbx_port *, int);
void	 ports_change(struct ctx *, const struct sbx_ports *,
	    const struct sbx_ports *);

/* outbound.c: the rules outward, and what sbx blocked */
struct sbx_egress;
void	 outbound_hosts(const char *, int, char **, struct sbx_egress *);
int	 outbound_allow(struct ctx *, int, char **);
int	 outbound_deny(struct ctx *, int, char **);
int	 outbound_rules(struct ctx *, int, char **);
int	 outbound_blocked(struct ctx *, int, char **);

/* mapping.c: publish and unpublish */
void	 mapping_specs(int, char **, struct sbx_ports *);
int	 mapping_publish(struct ctx *, int, char **);
int	 mapping_unpublish(struct ctx *, int, char **);

/* sync.c */
int	 sync_cmd(struct ctx *, int, char **);

/* hostport.c */
int	 hostport_choose(struct sbx_port *, const struct sbx_ports *,
	    const struct sbx_ports *);

/* bound.c */
int	 bound_in_ephemeral(int);
int	 bound_refused_say(const struct ctx *, const struct portset *);

