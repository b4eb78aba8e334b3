/*
 * sbxports.h: port mappings (sbx-ports, sbx-verify).  portspec.c: specs,
 * sbx's JSON listing, URLs; portcli.c: sbx's two port dialects.  What
 * running containers publish, and NAME.ports, are sbx-ports' own.
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
	char	cid[72];	/* docker ps: the container's ID, or "" */
	char	cname[256];	/* docker ps: its Names, or "" */
};
struct sbx_ports {
	struct sbx_port	*v;
	size_t		 n;
	size_t		 cap;
};
int	 sbx_portspec_proto_parse(const char *, size_t, int *);
const char *sbx_portspec_proto_name(int);
int	 sbx_portspec_parse(const char *, size_t, const char **);
const char *sbx_portspec_proto(const struct sbx_port *);
int	 sbx_portspec(const char *, struct sbx_port *, const char **);
int	 sbx_portspec_add(struct sbx_ports *, const struct sbx_port *);
void	 sbx_portspec_free(struct sbx_ports *);
const struct sbx_port *sbx_portspec_findvm(const struct sbx_ports *, int, int);
int	 sbx_portspec_ip_loopback(const char *);
int	 sbx_portspec_url(const struct sbx_port *, char *, size_t);

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

#endif /* SBXPORTS_H */
