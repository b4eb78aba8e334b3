/* answers.c: the probe's "sbxv KEY [VALUE]" lines, all read through scan(). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "result.h"
#include "audit.h"

#define PREFIX	"sbxv "	/* of each line of the script's answers */

/* The next "sbxv KEY[ VALUE]" line from *pos: 1 with *v (NULL: none), or 0. */
static int
scan(const struct audit *a, const char *key, const char **pos,
    const char **v, size_t *vlen)
{
	const char *p, *end;
	size_t klen = strlen(key), plen = strlen(PREFIX);

	if (a->out.data == NULL)
		return 0;
	for (p = *pos ? *pos : a->out.data; *p != '\0';
	    p = *end ? end + 1 : end) {
		if ((end = strchr(p, '\n')) == NULL)
			end = p + strlen(p);
		if ((size_t)(end - p) < plen + klen ||
		    strncmp(p, PREFIX, plen) != 0 ||
		    strncmp(p + plen, key, klen) != 0 ||
		    (p + plen + klen != end && p[plen + klen] != ' '))
			continue;
		*v = p + plen + klen == end ? NULL : p + plen + klen + 1;
		*vlen = *v == NULL ? 0 : (size_t)(end - *v);
		*pos = *end ? end + 1 : end;
		return 1;
	}
	*pos = p;
	return 0;
}

/* The first value of KEY, into buf; NULL if none. */
const char *
answers_get(const struct audit *a, const char *key, char *buf, size_t size)
{
	const char *pos = NULL, *v;
	size_t len;

	if (!scan(a, key, &pos, &v, &len))
		return NULL;
	if (len >= size)
		len = size - 1;
	if (len > 0)
		memcpy(buf, v, len);
	buf[len] = '\0';
	return buf;
}

int
answers_has(const struct audit *a, const char *key, const char *value)
{
	const char *pos = NULL, *v;
	size_t len;

	while (scan(a, key, &pos, &v, &len))
		if (v != NULL && len == strlen(value) &&
		    strncmp(v, value, len) == 0)
			return 1;
	return 0;
}

/* The next value of KEY after *pos (NULL: the first), into buf; 0 at the end. */
int
answers_next(const struct audit *a, const char *key, const char **pos,
    char *buf, size_t size)
{
	const char *v;
	size_t len;

	do {
		if (!scan(a, key, pos, &v, &len))
			return 0;
	} while (v == NULL);
	if (len >= size)
		len = size - 1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	return 1;
}

int
answers_all(const struct audit *a, const char *key, char *buf, size_t size)
{
	const char *pos = NULL, *v;
	char val[PATH_MAX];
	size_t len, o = 0;
	int n = 0;

	buf[0] = '\0';
	while (scan(a, key, &pos, &v, &len)) {
		if (v == NULL || len == 0)
			continue;
		snprintf(val, sizeof(val), "%.*s", (int)len, v);
		/* /var/run is /run on most systems: say each path once */
		if (strncmp(val, "/var/run/", 9) == 0 && strstr(buf, val + 4))
			continue;
		if (o + strlen(val) + 3 < size)
			o += (size_t)snprintf(buf + o, size - o, "%s%s",
			    n ? ", " : "", val);
		n++;
	}
	return n;
}
