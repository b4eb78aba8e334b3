/*
 * hostport.c: which host port a sandbox port gets.  The record of the
 * mappings that sync made (NAME.ports in the state directory, so that
 * sync removes only what it published and never a mapping made by hand)
 * is read and written by lib/markerio.c.
 */
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

#include "sbx.h"
#include "sbx-ports.h"

#define EPHEMERAL_TRIES	32

/* A socket bound to 127.0.0.1:port (0: any free one), or -1. */
static int
bound(int port, int proto)
{
	struct sockaddr_in sin;
	int fd, one = 1;

	fd = socket(AF_INET, proto == SBX_UDP ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (fd == -1)
		return -1;
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	/* a TIME_WAIT leftover does not make a tcp port taken */
	if (proto == SBX_TCP)
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
		    sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Can we have port on the host's loopback right now? */
int
host_free(int port, int proto)
{
	int fd;

	if ((fd = bound(port, proto)) == -1)
		return 0;
	close(fd);
	return 1;
}

static int
used(const struct sbx_ports *batch, int port, int proto)
{
	size_t i;

	for (i = 0; i < batch->n; i++)
		if (batch->v[i].host == port && batch->v[i].proto == proto)
			return 1;
	return 0;
}

/* A port the kernel calls free, not already chosen in this batch. */
static int
ephemeral(int proto, const struct sbx_ports *batch)
{
	struct sockaddr_in sin;
	socklen_t len;
	int i, fd, port;

	for (i = 0; i < EPHEMERAL_TRIES; i++) {
		if ((fd = bound(0, proto)) == -1)
			return -1;
		len = sizeof(sin);
		if (getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
			close(fd);
			return -1;
		}
		close(fd);
		port = ntohs(sin.sin_port);
		if (!used(batch, port, proto))
			return port;
	}
	return errno = EADDRINUSE, -1;
}

/*
 * Set p->host for sandbox port p->vm: the same number when it is at least
 * 1024 and free on the host, an ephemeral port otherwise.  Returns the
 * WHY_* reason, or -1.
 */
int
choose_host(struct sbx_port *p, const struct sbx_ports *batch)
{
	int why;

	if (p->vm >= 1024 && !used(batch, p->vm, p->proto) &&
	    host_free(p->vm, p->proto)) {
		p->host = p->vm;
		return WHY_SAME;
	}
	why = p->vm < 1024 ? WHY_LOW : WHY_TAKEN;
	if ((p->host = ephemeral(p->proto, batch)) == -1)
		return -1;
	return why;
}
