/*
 * Fuzz target (libFuzzer) for the port parsers of sbx-ports and
 * sbx-verify: the user's spec, docker's Ports text and `docker ps` JSON
 * lines, and sbx's JSON listing.  Any input, no crash; whatever is
 * accepted holds ports 1 to 65535 and a known protocol, and a spec
 * prints back to a URL and an sbx spec that fit their buffers.  Built
 * by "make fuzz".
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbxports.h"
#include "sbx-internal.h"
#include "../../sbx-ports/sbx-ports.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
valid(const struct sbx_ports *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].vm < 1 || l->v[i].vm > 65535 ||
		    l->v[i].host < 0 || l->v[i].host > 65535 ||
		    (l->v[i].proto != SBX_TCP && l->v[i].proto != SBX_UDP) ||
		    (l->v[i].fam != 0 && l->v[i].fam != 4 &&
		    l->v[i].fam != 6) ||
		    memchr(l->v[i].ip, '\0', sizeof(l->v[i].ip)) == NULL)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_ports l;
	struct sbx_port p;
	struct vmlocal loc;
	const char *errstr;
	char *s, buf[128];
	size_t n;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	if (sbx_portspec(s, &p, &errstr) == 0) {
		if (p.vm < 1 || p.vm > 65535 || p.host < 0 || p.host > 65535 ||
		    sbx_portspec_url(&p, buf, sizeof(buf)) == -1 ||
		    sbx_portspec_sbxspec(&p, buf, sizeof(buf)) == -1)
			abort();
	} else if (errstr == NULL)
		abort();

	memset(&l, 0, sizeof(l));
	if (dockerps_text(s, &l, NULL, &errstr) == 0)
		valid(&l);
	sbx_portspec_free(&l);

	/* the parse of what the VM says is bounded whatever it says */
	if (dockerps_parse(s, size, &l, NULL, &loc, &n, &errstr) == 0) {
		valid(&l);
		if (l.n > PORTS_WANT_MAX || loc.n > LOCAL_NAMED ||
		    loc.all < loc.n)
			abort();
		/* a port bound to the VM's loopback alone is never wanted */
		for (n = 0; n < loc.n; n++)
			if (sbx_portspec_findvm(&l, loc.v[n].vm,
			    loc.v[n].proto))
				abort();
	}
	sbx_portspec_free(&l);

	if (sbx_portspec_sbxjson(s, size, &l, &errstr) == 0) {
		valid(&l);
		if (l.n > 0 &&
		    (sbx_portspec_url(&l.v[0], buf, sizeof(buf)) == -1 ||
		    sbx_portspec_sbxspec(&l.v[0], buf, sizeof(buf)) == -1))
			abort();
	}
	sbx_portspec_free(&l);
	free(s);
	return 0;
}
