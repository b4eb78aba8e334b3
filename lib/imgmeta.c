/*
 * imgmeta.c: an image cache entry's `meta`, text lines in this order:
 * workspace=PATH, store=DRIVER, size=BYTES, saved=UNIXSECONDS,
 * used=UNIXSECONDS, then one ref=REF per reference the host itself
 * recorded.  Written to a temporary name in the entry and renamed into
 * place; read strictly (a line out of place, a bad value, an unknown
 * key: no entry), since the daemon that filled it was the agent's.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbximg.h"

#define META_MAX	(32 * 1024)	/* 64 refs of 255 bytes and the rest */

/* A reference: [a-z0-9][a-z0-9._/:@-]*, at most 255 bytes, tag or digest. */
int
sbx_imgmeta_refvalid(const char *s, size_t len)
{
	const char *slash, *colon;
	size_t i;

	if (len == 0 || len > SBX_IMG_REF_MAX ||
	    !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return 0;
	for (i = 0; i < len; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') &&
		    !(s[i] >= '0' && s[i] <= '9') &&
		    (s[i] == '\0' || strchr("._/:@-", s[i]) == NULL))
			return 0;
	if (memchr(s, '@', len) != NULL)
		return 1;
	/* a tag: a colon after the last slash (a registry's port is none) */
	for (slash = NULL, i = 0; i < len; i++)
		if (s[i] == '/')
			slash = s + i;
	colon = memchr(slash != NULL ? slash : s, ':', len - (size_t)((slash !=
	    NULL ? slash : s) - s));
	return colon != NULL && colon + 1 < s + len;
}

/* An image ID: sha256: and 64 lowercase hex digits. */
int
sbx_imgmeta_idvalid(const char *s, size_t len)
{
	return len == 71 && strncmp(s, "sha256:", 7) == 0 &&
	    strspn(s + 7, "0123456789abcdef") >= 64;
}

/* A store driver's name, as docker info says it: [A-Za-z0-9._-]{1,64}. */
static int
store_valid(const char *s)
{
	size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789._-");

	return n > 0 && n <= SBX_IMG_STORE_MAX && s[n] == '\0';
}

static int
number(const char *s, long long *n)
{
	const char *errstr;

	*n = sbx_strtonum(s, 0, LLONG_MAX, &errstr);
	return errstr == NULL ? 0 : -1;
}

/* Line k of a meta, key and value, into m; 0, or -1 when out of place. */
static int
field(struct sbx_imgmeta *m, size_t k, const char *key, const char *v)
{
	static const char *const keys[] = {
		"workspace", "store", "size", "saved", "used"
	};
	long long *num[] = { &m->size, &m->saved, &m->used };
	size_t len = strlen(v);

	if (strcmp(key, k < 5 ? keys[k] : "ref") != 0)
		return -1;
	switch (k) {
	case 0:
		if (v[0] != '/' || len >= sizeof(m->workspace))
			return -1;
		memcpy(m->workspace, v, len + 1);
		return 0;
	case 1:
		if (!store_valid(v))
			return -1;
		memcpy(m->store, v, len + 1);
		return 0;
	case 2:
	case 3:
	case 4:
		return number(v, num[k - 2]);
	default:
		if (m->nrefs == SBX_IMG_REFS_MAX || !sbx_imgmeta_refvalid(v, len))
			return -1;
		memcpy(m->refs[m->nrefs++], v, len + 1);
		return 0;
	}
}

/* The meta of the entry efd into m; -1 (EINVAL: not a meta we wrote). */
int
sbx_imgmeta_read(int efd, struct sbx_imgmeta *m)
{
	struct sbx_buf b;
	char *line, *next, *eq;
	size_t k;
	int fd, rv = -1;

	memset(m, 0, sizeof(*m));
	memset(&b, 0, sizeof(b));
	if ((fd = sbx_imgcache_file(efd, "meta", O_RDONLY)) == -1)
		return -1;
	if (sbx_io_buf_readfd(&b, fd, META_MAX + 1) == -1 || b.len > META_MAX ||
	    b.data == NULL || memchr(b.data, '\0', b.len) != NULL)
		goto out;
	for (k = 0, line = b.data; *line != '\0'; line = next, k++) {
		if ((next = strchr(line, '\n')) == NULL)
			goto out;	/* cut short */
		*next++ = '\0';
		if ((eq = strchr(line, '=')) == NULL)
			goto out;
		*eq++ = '\0';
		if (field(m, k, line, eq) == -1)
			goto out;
	}
	if (m->nrefs > 0)
		rv = 0;
out:
	if (rv == -1)
		errno = EINVAL;
	sbx_io_buf_free(&b);
	close(fd);
	return rv;
}

/*
 * Write m as the entry's meta: to .meta.PID, then renamed over meta, so
 * a reader finds the old one or the new one, whole.  0, or -1.
 */
int
sbx_imgmeta_write(int efd, const struct sbx_imgmeta *m)
{
	struct sbx_buf b;
	char tmp[32], line[SBX_IMG_REF_MAX + 8];
	size_t i;
	int fd, rv = -1, e;

	memset(&b, 0, sizeof(b));
	if (!store_valid(m->store) || m->workspace[0] != '/' ||
	    strchr(m->workspace, '\n') != NULL) {
		errno = EINVAL;
		return -1;
	}
	if (sbx_io_buf_add(&b, "workspace=", 10) == -1 ||
	    sbx_io_buf_add(&b, m->workspace, strlen(m->workspace)) == -1)
		goto out;
	snprintf(line, sizeof(line), "\nstore=%s\nsize=%lld\nsaved=%lld\n"
	    "used=%lld\n", m->store, m->size, m->saved, m->used);
	if (sbx_io_buf_add(&b, line, strlen(line)) == -1)
		goto out;
	for (i = 0; i < m->nrefs; i++) {
		snprintf(line, sizeof(line), "ref=%s\n", m->refs[i]);
		if (sbx_io_buf_add(&b, line, strlen(line)) == -1)
			goto out;
	}
	snprintf(tmp, sizeof(tmp), ".meta.%ld", (long)getpid());
	(void)unlinkat(efd, tmp, 0);
	if ((fd = sbx_imgcache_file(efd, tmp, O_WRONLY | O_CREAT | O_EXCL)) == -1)
		goto out;
	if (sbx_io_writeall(fd, b.data, b.len) == -1 || fsync(fd) == -1) {
		e = errno;
		close(fd);
		(void)unlinkat(efd, tmp, 0);
		errno = e;
		goto out;
	}
	close(fd);
	if (renameat(efd, tmp, efd, "meta") == -1) {
		e = errno;
		(void)unlinkat(efd, tmp, 0);
		errno = e;
		goto out;
	}
	rv = 0;
out:
	sbx_io_buf_free(&b);
	return rv;
}

/*
 * Is m's workspace= still the directory the entry name stands for (by
 * identity)?  Inode reuse gives another directory the same name.
 */
int
sbx_imgmeta_current(const struct sbx_imgmeta *m, const char *name)
{
	struct stat st;
	char want[SBX_IMG_NAME_MAX];

	if (stat(m->workspace, &st) == -1 || !S_ISDIR(st.st_mode))
		return 0;
	sbx_imgcache_name(want, sizeof(want), &st);
	return strcmp(want, name) == 0;
}
