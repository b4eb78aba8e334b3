/*
 * bound.c: what sbx-ports never takes on the host.  The container list is
 * the agent's, so an unasked host port is never below 1024 nor in the
 * ephemeral range: those get a kernel-chosen port (hostport.c), and what
 * passes DOCKER_SANDBOX_PORTS_MAX is refused by name.
 */
#include <sys/types.h>
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || \
    defined(__OpenBSD__) || defined(__DragonFly__)
#include <sys/sysctl.h>
#define HAVE_PORTRANGE_SYSCTL
#endif

#include <err.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxports.h"
#include "sbx-ports.h"

/* IANA's dynamic ports (RFC 6335), the range macOS and the BSDs use */
#define FALLBACK_LO	49152
#define FALLBACK_HI	65535
#define LINUX_RANGE	"/proc/sys/net/ipv4/ip_local_port_range"
#define NAMED_MAX	200	/* bytes of refused ports named, then a count */

static int
kernel_range(int *lo, int *hi)
{
#ifdef HAVE_PORTRANGE_SYSCTL
	size_t len;

	len = sizeof(*lo);
	if (sysctlbyname("net.inet.ip.portrange.first", lo, &len, NULL,
	    0) == -1)
		return -1;
	len = sizeof(*hi);
	if (sysctlbyname("net.inet.ip.portrange.last", hi, &len, NULL,
	    0) == -1)
		return -1;
	return 0;
#else
	char buf[64], *p, *q;
	const char *e1, *e2;
	FILE *fp;

	if ((fp = fopen(LINUX_RANGE, "re")) == NULL)
		return -1;
	p = fgets(buf, sizeof(buf), fp);
	fclose(fp);
	if (p == NULL)
		return -1;
	/* "LO<tab>HI\n": two port numbers and nothing else */
	p += strspn(p, " \t");
	q = p + strcspn(p, " \t");
	if (*q == '\0')
		return -1;
	*q++ = '\0';
	q += strspn(q, " \t");
	q[strcspn(q, " \t\n")] = '\0';
	*lo = (int)sbx_strtonum(p, 1, 65535, &e1);
	*hi = (int)sbx_strtonum(q, 1, 65535, &e2);
	return e1 == NULL && e2 == NULL ? 0 : -1;
#endif
}

static void
ephemeral_range(int *lo, int *hi)
{
	static int rlo, rhi;

	if (rlo == 0) {
		if (kernel_range(&rlo, &rhi) == -1 || rlo < 1 ||
		    rhi > 65535 || rlo > rhi) {
			rlo = FALLBACK_LO;
			rhi = FALLBACK_HI;
		}
	}
	*lo = rlo;
	*hi = rhi;
}

int
bound_in_ephemeral(int port)
{
	int lo, hi;

	ephemeral_range(&lo, &hi);
	return port >= lo && port <= hi;
}

static size_t
name_run(char *buf, size_t size, size_t o, int lo, int hi, int proto)
{
	int n;

	if (o >= size)
		return o;
	n = lo == hi ? snprintf(buf + o, size - o, "%s%d/%s", o ? ", " : "",
	    lo, sbx_portspec_proto_name(proto)) : snprintf(buf + o, size - o,
	    "%s%d-%d/%s", o ? ", " : "", lo, hi,
	    sbx_portspec_proto_name(proto));
	return n < 0 ? size : o + (size_t)n;
}

/* One line naming the refused VM ports in over, if any; 1 if it said it. */
int
bound_refused_say(const struct ctx *c, const struct portset *over)
{
	char named[NAMED_MAX + 64];
	size_t o = 0;
	long more = 0;
	int proto, port, lo;

	named[0] = '\0';
	for (proto = SBX_TCP; proto <= SBX_UDP; proto++)
		for (port = 1; port < 65536; port++) {
			if (!dockerps_portset_has(over, port, proto))
				continue;
			for (lo = port; port + 1 < 65536 &&
			    dockerps_portset_has(over, port + 1, proto); port++)
				;
			if (o < NAMED_MAX)
				o = name_run(named, sizeof(named), o, lo, port,
				    proto);
			else
				more += port - lo + 1;
		}
	if (o == 0)
		return 0;
	if (more > 0)
		snprintf(named + (o < sizeof(named) ? o : sizeof(named) - 1),
		    sizeof(named) - (o < sizeof(named) ? o : sizeof(named) - 1),
		    " and %ld more", more);
	warnx("sandbox %s: not published (a sandbox holds at most %d host "
	    "ports: DOCKER_SANDBOX_PORTS_MAX): %s", c->pc.name, c->max, named);
	return 1;
}
