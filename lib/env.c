/*
 * env.c: a child's environment from an allow-list, never inherited.
 * DOCKER_* and COMPOSE_* never pass, but sbx's own DOCKER_SANDBOXES_*.
 */
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sbx.h"
#include "sbxenv.h"
#include "sbx-internal.h"

/* What the sbx CLI needs to work, and nothing secret-bearing. */
static const char *const hostset[] = {
	"HOME", "PATH", "USER", "LOGNAME", "TMPDIR", "SHELL", "LANG", "TZ",
	"TERM", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
	"XDG_DATA_HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
};
static const char *const hostprefix[] = { "LC_", "SBX_", "DOCKER_SANDBOXES_" };

static size_t
namelen(const char *s)
{
	const char *eq;

	return (eq = strchr(s, '=')) != NULL ? (size_t)(eq - s) : strlen(s);
}

static int
hasprefix(const char *s, size_t len, const char *p)
{
	size_t plen = strlen(p);

	return len > plen && strncmp(s, p, plen) == 0;
}

int
sbx_env_isdocker(const char *s)
{
	size_t len = namelen(s);

	if (hasprefix(s, len, "DOCKER_SANDBOXES_"))
		return 0;
	return (len >= 7 && strncasecmp(s, "DOCKER_", 7) == 0) ||
	    (len >= 8 && strncasecmp(s, "COMPOSE_", 8) == 0);
}

int
sbx_env_ishostset(const char *s)
{
	size_t i, len = namelen(s);

	for (i = 0; i < sizeof(hostset) / sizeof(hostset[0]); i++)
		if (strlen(hostset[i]) == len &&
		    strncmp(s, hostset[i], len) == 0)
			return 1;
	for (i = 0; i < sizeof(hostprefix) / sizeof(hostprefix[0]); i++)
		if (hasprefix(s, len, hostprefix[i]))
			return 1;
	return 0;
}

int
sbx_env_validname(const char *s, size_t len)
{
	size_t i;
	int c;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (!(c == '_' || (c >= 'A' && c <= 'Z') ||
		    (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9')))
			return 0;
	}
	return 1;
}

static int
listed(char *const *list, size_t n, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(list[i]) == len && strncmp(list[i], s, len) == 0)
			return 1;
	return 0;
}

/* Add src's comma-separated names to pol->allow; a bad one exits 64. */
int
sbx_env_addnames(struct sbx_envpolicy *pol, const char *src, const char *from)
{
	const char *p, *end;
	size_t len;
	char **a;

	for (p = src; *p != '\0'; p = *end ? end + 1 : end) {
		if ((end = strchr(p, ',')) == NULL)
			end = p + strlen(p);
		len = (size_t)(end - p);
		if (len == 0)
			continue;
		if (!sbx_env_validname(p, len))
			errx(SBX_EX_USAGE, "%s: invalid variable name \"%.*s\"",
			    from, len > 64 ? 64 : (int)len, p);
		if (sbx_env_isdocker(p)) {
			warnx("%s: %.*s: docker and compose variables are "
			    "never passed", from, (int)len, p);
			continue;
		}
		if (listed(pol->allow, pol->nallow, p, len))
			continue;
		a = realloc(pol->allow, (pol->nallow + 2) * sizeof(*a));
		if (a == NULL)
			return -1;
		pol->allow = a;
		if ((a[pol->nallow] = strndup(p, len)) == NULL)
			return -1;
		a[++pol->nallow] = NULL;
	}
	return 0;
}

void
sbx_env_policy_free(struct sbx_envpolicy *pol)
{
	size_t i;

	for (i = 0; i < pol->nallow; i++)
		free(pol->allow[i]);
	free(pol->allow);
	pol->allow = NULL;
	pol->nallow = 0;
}

static size_t
hashname(const char *s, size_t len)
{
	size_t h = 2166136261u, i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/*
 * The environment for a child from in: a repeated name keeps its first
 * value, as getenv(3) does.  It points into in; free the array alone.
 */
char **
sbx_env_build(char *const *in, const struct sbx_envpolicy *pol)
{
	const char **seen;
	char **out;
	size_t n, i, j, o, mask, len;

	for (n = 0; in[n] != NULL; n++)
		;
	for (mask = 16; mask < 2 * n; mask *= 2)
		if (mask > (size_t)-1 / 4)
			return errno = ENOMEM, NULL;
	if ((seen = calloc(mask, sizeof(*seen))) == NULL)
		return NULL;
	if ((out = calloc(n + 1, sizeof(*out))) == NULL) {
		free(seen);
		return NULL;
	}
	mask--;
	for (i = o = 0; i < n; i++) {
		if (strchr(in[i], '=') == NULL)
			continue;
		len = namelen(in[i]);
		if (!sbx_env_validname(in[i], len))
			continue;
		for (j = hashname(in[i], len) & mask; seen[j] != NULL;
		    j = (j + 1) & mask)
			if (strncmp(seen[j], in[i], len + 1) == 0)
				break;
		if (seen[j] != NULL)
			continue;
		seen[j] = in[i];
		if (sbx_env_isdocker(in[i]))
			continue;
		if (pol->passthrough || sbx_env_ishostset(in[i]) ||
		    listed(pol->allow, pol->nallow, in[i], len))
			out[o++] = in[i];
	}
	out[o] = NULL;
	free(seen);
	return out;
}

/* The names that go into the sandbox as "-e NAME": all but the host set. */
char **
sbx_env_forwarded(char *const *env)
{
	char **names;
	size_t n, i, o;

	for (n = 0; env[n] != NULL; n++)
		;
	if ((names = calloc(n + 1, sizeof(*names))) == NULL)
		return NULL;
	for (i = o = 0; i < n; i++) {
		if (sbx_env_ishostset(env[i]))
			continue;
		if ((names[o] = strndup(env[i], namelen(env[i]))) == NULL) {
			while (o > 0)
				free(names[--o]);
			free(names);
			return NULL;
		}
		o++;
	}
	names[o] = NULL;
	return names;
}

/* getenv(3) over an arbitrary environment: the first match wins. */
const char *
sbx_env_get(char *const *env, const char *name)
{
	size_t len = strlen(name);

	for (; *env != NULL; env++)
		if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
			return *env + len + 1;
	return NULL;
}
