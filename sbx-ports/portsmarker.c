/*
 * portsmarker.c: NAME.ports, the mappings sbx-ports made, so a later sync
 * removes only its own: lines "PROTO HOSTPORT SANDBOXPORT", read and
 * written by sbx-ports alone.  Each verb that changes ports holds the
 * sandbox's byte of .ports.lock from before it reads anything until the
 * record is written, or two syncs would drop each other's mappings.
 */
#include <sys/types.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxmarker.h"
#include "sbxports.h"
#include "sbxstate.h"
#include "sbx-ports.h"

/* NAME.ports into l, appended; none is no error, a bad line is dropped. */
int
portsmarker_read(int dfd, const char *name, struct sbx_ports *l)
{
	char file[SBX_MARKER_MAX], buf[8192], *line, *next;
	char proto[8], host[8], vm[8];
	struct sbx_port p;
	const char *e;

	if (sbx_marker_path(file, sizeof(file), name, SBX_M_PORTS) == -1)
		return -1;
	if (sbx_state_read(dfd, file, buf, sizeof(buf)) == -1)
		return errno == ENOENT ? 0 : -1;
	for (line = buf; *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) == NULL)
			next = line + strlen(line);
		else
			*next++ = '\0';
		memset(&p, 0, sizeof(p));
		if (sscanf(line, "%7s %7s %7s", proto, host, vm) != 3 ||
		    (p.proto = sbx_portspec_proto_parse(proto, strlen(proto),
		    NULL)) == -1 ||
		    (p.host = sbx_portspec_parse(host, strlen(host),
		    &e)) == -1 ||
		    (p.vm = sbx_portspec_parse(vm, strlen(vm), &e)) == -1)
			continue;
		if (sbx_portspec_add(l, &p) == -1)
			return -1;
	}
	return 0;
}

/* Write NAME.ports as l; an empty l removes it. */
int
portsmarker_write(int dfd, const char *name, const struct sbx_ports *l)
{
	char file[SBX_MARKER_MAX], line[48];
	struct sbx_buf b;
	size_t i;
	int r;

	if (sbx_marker_path(file, sizeof(file), name, SBX_M_PORTS) == -1)
		return -1;
	if (l->n == 0)
		return sbx_state_remove(dfd, file);
	memset(&b, 0, sizeof(b));
	for (i = 0; i < l->n; i++) {
		snprintf(line, sizeof(line), "%s %d %d\n",
		    sbx_portspec_proto_name(l->v[i].proto), l->v[i].host,
		    l->v[i].vm);
		if (sbx_io_buf_add(&b, line, strlen(line)) == -1) {
			sbx_io_buf_free(&b);
			return -1;
		}
	}
	r = sbx_state_write(dfd, file, b.data);
	sbx_io_buf_free(&b);
	return r;
}

/*
 * Take the sandbox's ports lock, waiting as long as the holder's own sbx
 * calls may take (PORTS_LOCK_CALLS of them), without limit when they
 * have none; exits 75 if it is still held then, 1 if it cannot be had.
 * Returns the descriptor that holds it.
 */
int
portsmarker_lock(const struct ctx *c)
{
	long long ms;
	pid_t pid;
	int fd;

	ms = c->pc.timeout > 0 ? (long long)c->pc.timeout * 1000 *
	    PORTS_LOCK_CALLS : -1;
	if ((fd = sbx_lock_name(c->pc.dfd, SBX_PORTS_LOCK, c->pc.name,
	    ms)) != -1)
		return fd;
	if (errno != ETIMEDOUT)
		err(SBX_EX_FAIL, "%s/%s", c->statedir, SBX_PORTS_LOCK);
	pid = sbx_lock_name_holder(c->pc.dfd, SBX_PORTS_LOCK, c->pc.name);
	errx(SBX_EX_BUSY, "sandbox %s: its ports are being changed by process "
	    "%ld, still after %lld s (%s/%s)", c->pc.name, (long)pid,
	    ms / 1000, c->statedir, SBX_PORTS_LOCK);
}

/* warn(3) of a failed read or write, naming STATEDIR/NAME.ports. */
void
portsmarker_warn(const char *statedir, const char *name)
{
	char file[SBX_MARKER_MAX] = "";
	int e = errno;

	(void)sbx_marker_path(file, sizeof(file), name, SBX_M_PORTS);
	errno = e;
	warn("%s/%s", statedir, file);
}
