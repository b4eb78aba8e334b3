/*
 * Fuzz target (libFuzzer) for the egress and registry settings: what
 * sbx_egress_parse accepts is canonical (its joined text parses to the
 * same rules), holds only the bytes sbx's resources have, and covers no
 * target that reaches the host, whichever spelling; sbx_regauth_parse
 * accepts only whole entries.  Built by "make fuzz".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbxegress.h"
#include "sbxregauth.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Targets that reach the host: no accepted rule may cover one. */
static const char *const host[] = { "localhost", "localhost:80",
	"a.localhost:443", "LOCALHOST.", "host.docker.internal:443",
	"gateway.docker.internal:3128", "127.0.0.1:22", "127.255.0.1",
	"0.0.0.0:80", "169.254.169.254:80", "[::1]:80", "::", "[::]:1",
	"[fe80::1]:22", "[febf::ffff]:1", "[::ffff:127.0.0.1]:80",
	"::ffff:7f00:1", "[::127.0.0.1]:80", "[::ffff:0:7f00:1]:80",
	"[::ffff:169.254.169.254]:80" };

static struct sbx_egress e, again;
static struct sbx_regauth ra;
static char joined[SBX_EGRESS_JOINMAX], why[1024];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p;
	char *s;
	size_t i, k;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (sbx_egress_parse("V", s, &e, why, sizeof(why)) == 0) {
		if (e.n > SBX_EGRESS_MAX || sbx_egress_join(&e, joined,
		    sizeof(joined)) >= sizeof(joined))
			abort();
		for (i = 0; i < e.n; i++)
			for (p = e.v[i].res; *p != '\0'; p++)
				if (!strchr("abcdefghijklmnopqrstuvwxyz"
				    "0123456789.-*:[]/", *p) ||
				    e.v[i].res[0] == '-')
					abort();
		if (sbx_egress_parse("V", joined, &again, why,
		    sizeof(why)) == -1 || again.n != e.n)
			abort();
		for (i = 0; i < e.n; i++)
			if (strcmp(e.v[i].res, again.v[i].res) != 0)
				abort();
		for (k = 0; k < sizeof(host) / sizeof(host[0]); k++)
			if (sbx_egress_match(&e, host[k]) != -1)
				abort();
	} else if (e.n != 0 || strncmp(why, "V: ", 3) != 0)
		abort();
	if (sbx_regauth_parse("V", s, &ra, why, sizeof(why)) == 0) {
		for (i = 0; i < ra.n; i++)
			if (ra.v[i].host[0] == '\0' || ra.v[i].src[0] == '\0' ||
			    ra.v[i].user[0] == '-')
				abort();
	} else if (ra.n != 0 || strncmp(why, "V: ", 3) != 0)
		abort();
	free(s);
	return 0;
}
