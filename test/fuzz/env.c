/*
 * Fuzz target (libFuzzer) for the environment builder, sbx_env_build and
 * sbx_env_forwarded.  The input is split on NUL into entries; the first
 * byte picks passthrough (odd) or strict, and the first entry is also an
 * allow-list of comma-separated names, taken as given (even docker ones:
 * the builder must drop them anyway).  Invariants: every entry out is an
 * entry in, with '=' and a portable name; no DOCKER_* or COMPOSE_* name
 * in any case but DOCKER_SANDBOXES_*; no name twice, and each is its
 * first entry in; strict mode passes only the host set and the allowed;
 * the forwarded names are the built ones minus the host set, in order.
 * Built by "make fuzz".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sbxenv.h"
#include "sbx-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static size_t
namelen(const char *s)
{
	return strcspn(s, "=");
}

static int
isdocker(const char *s, size_t len)
{
	if (len > 17 && strncmp(s, "DOCKER_SANDBOXES_", 17) == 0)
		return 0;
	return (len >= 7 && strncasecmp(s, "DOCKER_", 7) == 0) ||
	    (len >= 8 && strncasecmp(s, "COMPOSE_", 8) == 0);
}

static int
portable(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (i = 0; i < len; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_envpolicy pol;
	char **in, **out, **fw, *text, *p, *allow, *tok;
	size_t n, i, j, k, len;

	if (size == 0 || (text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (n = 1, i = 0; i < size; i++)
		n += data[i] == '\0';
	if ((in = calloc(n + 1, sizeof(*in))) == NULL)
		abort();
	for (p = text, i = 0; i < n; i++, p += strlen(p) + 1)
		in[i] = p;
	in[n] = NULL;

	memset(&pol, 0, sizeof(pol));
	pol.passthrough = data[0] & 1;
	if ((allow = strdup(in[0])) == NULL)
		abort();
	for (tok = strtok(allow, ","); tok != NULL; tok = strtok(NULL, ",")) {
		pol.allow = realloc(pol.allow, (pol.nallow + 2) *
		    sizeof(*pol.allow));
		if (pol.allow == NULL)
			abort();
		pol.allow[pol.nallow++] = tok;
		pol.allow[pol.nallow] = NULL;
	}

	if ((out = sbx_env_build(in, &pol)) == NULL)
		abort();
	for (i = 0; out[i] != NULL; i++) {
		len = namelen(out[i]);
		if (out[i][len] != '=' || !portable(out[i], len) ||
		    isdocker(out[i], len) != sbx_env_isdocker(out[i]) ||
		    isdocker(out[i], len))
			abort();
		/* an entry of in, and the first one of its name */
		for (j = 0; j < n && in[j] != out[i]; j++)
			if (strncmp(in[j], out[i], len + 1) == 0)
				abort();
		if (j == n)
			abort();
		for (k = 0; k < i; k++)
			if (strncmp(out[k], out[i], len + 1) == 0)
				abort();
		if (!pol.passthrough && !sbx_env_ishostset(out[i])) {
			for (k = 0; k < pol.nallow; k++)
				if (strlen(pol.allow[k]) == len &&
				    strncmp(pol.allow[k], out[i], len) == 0)
					break;
			if (k == pol.nallow)
				abort();
		}
	}
	/* nothing lost: a first, well-formed, allowed entry comes out */
	for (j = 0; j < n; j++) {
		len = namelen(in[j]);
		if (in[j][len] != '=' || !portable(in[j], len) ||
		    isdocker(in[j], len) || !pol.passthrough)
			continue;
		for (k = 0; k < j; k++)
			if (strncmp(in[k], in[j], len + 1) == 0)
				break;
		if (k < j)
			continue;
		for (i = 0; out[i] != NULL && out[i] != in[j]; i++)
			;
		if (out[i] == NULL)
			abort();
	}

	if ((fw = sbx_env_forwarded(out)) == NULL)
		abort();
	for (i = k = 0; out[i] != NULL; i++) {
		if (sbx_env_ishostset(out[i]))
			continue;
		len = namelen(out[i]);
		if (fw[k] == NULL || strlen(fw[k]) != len ||
		    strncmp(fw[k], out[i], len) != 0)
			abort();
		k++;
	}
	if (fw[k] != NULL)
		abort();
	for (k = 0; fw[k] != NULL; k++)
		free(fw[k]);
	free(fw);
	free(out);
	free(pol.allow);
	free(allow);
	free(in);
	free(text);
	return 0;
}
