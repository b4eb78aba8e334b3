/*
 * portsmark.c: NAME.ports, the mappings sbx-ports made, so a later sync
 * removes only its own: lines "PROTO HOSTPORT SANDBOXPORT".  Unlike the
 * other markers (lib/markerio.c) it is not "key=value", and only
 * sbx-ports reads or writes it.
 */
#include <sys/types.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxports.h"
#include "sbxstate.h"
#include "sbx-ports.h"

/* NAME.ports into l, appended; none is no error, a bad line is dropped. */
int
portsmark_read(int dfd, const char *name, struct sbx_ports *l)
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
		    (p.proto = sbx_proto_parse(proto, strlen(proto), NULL)) == -1 ||
		    (p.host = sbx_port_parse(host, strlen(host), &e)) == -1 ||
		    (p.vm = sbx_port_parse(vm, strlen(vm), &e)) == -1)
			continue;
		if (sbx_ports_add(l, &p) == -1)
			return -1;
	}
	return 0;
}

/* Write NAME.ports as l; an empty l removes it. */
int
portsmark_write(int dfd, const char *name, const struct sbx_ports *l)
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
		    sbx_proto_name(l->v[i].proto), l->v[i].host, l->v[i].vm);
		if (sbx_buf_add(&b, line, strlen(line)) == -1) {
			sbx_buf_free(&b);
			return -1;
		}
	}
	r = sbx_state_write(dfd, file, b.data);
	sbx_buf_free(&b);
	return r;
}

/* warn(3) of a failed read or write, naming STATEDIR/NAME.ports. */
void
portsmark_warn(const char *statedir, const char *name)
{
	char file[SBX_MARKER_MAX] = "";
	int e = errno;

	(void)sbx_marker_path(file, sizeof(file), name, SBX_M_PORTS);
	errno = e;
	warn("%s/%s", statedir, file);
}
