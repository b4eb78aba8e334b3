/* hostport.c: which host port a sandbox port gets. */
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbxports.h"
#include "sbx-ports.h"

#define EPHEMERAL_TRIES	32

static int
bound(int port, int proto, int fam)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int fd, one = 1;

	fd = socket(fam == 6 ? AF_INET6 : AF_INET, proto == SBX_UDP ?
	    SOCK_DGRAM : SOCK_STREAM, 0);
	if (fd == -1)
		return -1;
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	/* a TIME_WAIT leftover does not make a tcp port taken */
	if (proto == SBX_TCP)
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof(one));
	memset(&ss, 0, sizeof(ss));
	if (fam == 6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((unsigned short)port);
		sin6->sin6_addr = in6addr_loopback;
		len = sizeof(*sin6);
	} else {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((unsigned short)port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*sin);
	}
	if (bind(fd, (struct sockaddr *)&ss, len) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
host_free(int port, int proto, int fam)
{
	int fd;

	if ((fd = bound(port, proto, fam)) == -1)
		return 0;
	close(fd);
	return 1;
}

static int
used(const struct sbx_ports *batch, int port, int proto)
{
	size_t i;

	for (i = 0; batch != NULL && i < batch->n; i++)
		if (batch->v[i].host == port && batch->v[i].proto == proto)
			return 1;
	return 0;
}

static int
ephemeral(const struct sbx_port *p, const struct sbx_ports *batch,
    const struct sbx_ports *avoid)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int i, fd, port;

	for (i = 0; i < EPHEMERAL_TRIES; i++) {
		if ((fd = bound(0, p->proto, p->fam)) == -1)
			return -1;
		len = sizeof(ss);
		if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1) {
			close(fd);
			return -1;
		}
		close(fd);
		port = ntohs(ss.ss_family == AF_INET6 ?
		    ((struct sockaddr_in6 *)&ss)->sin6_port :
		    ((struct sockaddr_in *)&ss)->sin_port);
		/* never the sandbox port's own number (it may lie in range) */
		if (port != p->vm && !used(batch, port, p->proto) &&
		    !used(avoid, port, p->proto))
			return port;
	}
	return errno = EADDRINUSE, -1;
}

/*
 * p->host for p->vm: the same number if it is >= 1024, not ephemeral and
 * free, else the kernel's.  No port freed in this sync (avoid) is reused
 * in it.  The WHY_* reason, or -1.
 */
int
hostport_choose(struct sbx_port *p, const struct sbx_ports *batch,
    const struct sbx_ports *avoid)
{
	int why;

	if (p->vm < 1024)
		why = WHY_LOW;
	else if (bound_in_ephemeral(p->vm))
		why = WHY_RANGE;
	else if (!used(batch, p->vm, p->proto) &&
	    !used(avoid, p->vm, p->proto) &&
	    host_free(p->vm, p->proto, p->fam)) {
		p->host = p->vm;
		return WHY_SAME;
	} else
		why = WHY_TAKEN;
	if ((p->host = ephemeral(p, batch, avoid)) == -1)
		return -1;
	return why;
}
