/*
 * sbxports.h: port mappings (sbx-ports, sbx-verify).  portspec.c: specs,
 * sbx's JSON listing, URLs; dockerps.c: what running containers publish;
 * portcli.c: sbx's two port dialects; markerio.c: NAME.ports.
 */
#ifndef SBXPORTS_H
#define SBXPORTS_H

#include <stddef.h>

#include "sbx.h"

#define SBX_TCP		0
#define SBX_UDP		1
struct sbx_port {
	char	ip[48];		/* host address ("" : 127.0.0.1) */
	int	host;		/* host port; 0 when not given */
	int	vm;		/* sandbox (VM) port */
	int	proto;		/* SBX_TCP or SBX_UDP */
	int	fam;		/* 4 or 6 (tcp4, udp6...); 0: both or unsaid */
	char	cid[72];	/* dockerps.c: the container's ID, or "" */
	char	cname[256];	/* dockerps.c: its Names, or "" */
};
struct sbx_ports {
	struct sbx_port	*v;
	size_t		 n;
	size_t		 cap;
};
const char *sbx_proto_name(int);
const char *sbx_port_proto(const struct sbx_port *);
int	 sbx_portspec(const char *, struct sbx_port *, const char **);
int	 sbx_ports_add(struct sbx_ports *, const struct sbx_port *);
void	 sbx_ports_free(struct sbx_ports *);
const struct sbx_port *sbx_ports_findvm(const struct sbx_ports *, int, int);
int	 sbx_ip_loopback(const char *);
int	 sbx_port_url(const struct sbx_port *, char *, size_t);
struct sbx_portset {		/* one bit a port: tcp, udp */
	unsigned char	bit[2][65536 / 8];
};
int	 sbx_portset_has(const struct sbx_portset *, int, int);
void	 sbx_portset_add(struct sbx_portset *, int, int);
int	 sbx_ports_dockerps(const char *, size_t, struct sbx_ports *,
	    struct sbx_portset *, size_t *, const char **);

#define SBX_DIALECT_UNKNOWN	0
#define SBX_DIALECT_PORTS	1	/* sbx ports NAME --publish SPEC */
#define SBX_DIALECT_PORT	2	/* sbx port publish NAME SPEC */
struct sbx_portcli {
	const char	 *sbx;		/* absolute path */
	char		**env;		/* for the sbx child */
	const char	 *name;		/* the sandbox */
	int		  timeout;	/* seconds per call; 0: none */
	int		  dfd;		/* state directory (dialect cache), or -1 */
	int		  dialect;	/* SBX_DIALECT_* */
	int		  noport;	/* sbx said it has no `port` group */
	int		  calls;	/* out: sbx invocations made */
	int		  status;	/* out: exit status of the last one, or
					   -1 if it could not be run */
	int		  error;	/* out: then, the errno */
	int		  timedout;	/* out: the last one timed out */
	struct sbx_buf	  out;		/* out: its stdout */
	struct sbx_buf	  err;		/* out: its stderr */
};
int	 sbx_portcli_list(struct sbx_portcli *, struct sbx_ports *,
	    const char **);
int	 sbx_portcli_change(struct sbx_portcli *, const struct sbx_ports *,
	    const struct sbx_ports *, const char **);
int	 sbx_portcli_missing(const struct sbx_portcli *);
int	 sbx_portcli_wake(struct sbx_portcli *);
void	 sbx_portcli_free(struct sbx_portcli *);

/* markerio.c: NAME.ports, the mappings sbx-ports made */
int	 sbx_portsmark_read(int, const char *, struct sbx_ports *);
int	 sbx_portsmark_write(int, const char *, const struct sbx_ports *);

#endif /* SBXPORTS_H */
