/*
 * regauth.c: DOCKER_SANDBOX_REGISTRY_AUTH, HOST[:PORT]=[USER@]file:/PATH
 * or HOST[:PORT]=[USER@]env:NAME a registry, and the credential read
 * from where it names: a file of the real user's that nobody else may
 * open, or a variable of theirs.  A message names the registry and the
 * source, never a byte of the credential; what held one is zeroed.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxegress.h"
#include "sbxregauth.h"
#include "sbx-internal.h"

/*
 * explicit_bzero(3) where libc has one, which the feature-test macros
 * hide; elsewhere memset through a pointer no compiler can see through.
 */
#if !defined(SBX_PORTABLE_ONLY) && (defined(__OpenBSD__) || \
    defined(__FreeBSD__) || (defined(__GLIBC__) && (__GLIBC__ > 2 || \
    (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 25))))
void	 explicit_bzero(void *, size_t);
#define wipe(p, n)	explicit_bzero(p, n)
#else
static void *(*const volatile wipe_memset)(void *, int, size_t) = memset;
#define wipe(p, n)	((void)wipe_memset(p, 0, n))
#endif

#define STR(n)	#n
#define XSTR(n)	STR(n)
#define OVER	"is over " XSTR(SBX_REGAUTH_VALUEMAX) " bytes"

static int
isuserbyte(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr("._@+$-", c));
}

static int
say(char *why, size_t size, const char *what)
{
	snprintf(why, size, "%s", what);
	return -1;
}

/* One HOST=[USER@]SOURCE into e, or -1 with why. */
static int
entry(struct sbx_regauth_entry *e, const char *s, size_t len, char *why,
    size_t size)
{
	struct sbx_egress_rule r;
	const char *eq, *src, *end = s + len;
	size_t i, n;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f ||
		    (unsigned char)s[i] >= 0x80)
			return say(why, size, "has a control byte or a byte "
			    "outside ASCII");
	if ((eq = memchr(s, '=', len)) == NULL)
		return say(why, size, "expected HOST=file:/PATH or "
		    "HOST=env:NAME");
	if (sbx_egress_rule(&r, s, (size_t)(eq - s), why, size) == -1)
		return -1;
	if (r.kind == SBX_EGRESS_ONE || r.kind == SBX_EGRESS_ANY ||
	    memchr(s, '/', (size_t)(eq - s)) != NULL)
		return say(why, size, "names more than one host: a registry "
		    "is one");
	memcpy(e->host, r.res, sizeof(e->host));
	/* the user ends at the first @ that a source follows */
	for (src = eq + 1; src < end; src++)
		if ((size_t)(end - src) >= 5 && (memcmp(src, "file:", 5) == 0 ||
		    memcmp(src, "env:", 4) == 0) && (src == eq + 1 ||
		    src[-1] == '@'))
			break;
	if (src == end)
		return say(why, size, "expected file:/PATH or env:NAME "
		    "after =");
	if (src > eq + 1) {
		n = (size_t)(src - 1 - (eq + 1));
		if (n == 0 || n > SBX_REGAUTH_USERMAX || eq[1] == '-')
			return say(why, size, "has a user that is empty, too "
			    "long or starts with -");
		for (i = 0; i < n; i++)
			if (!isuserbyte((unsigned char)eq[1 + i]))
				return say(why, size, "has a user with a byte "
				    "other than A-Z a-z 0-9 . _ @ + $ -");
		memcpy(e->user, eq + 1, n);
	}
	e->kind = src[0] == 'f' ? SBX_REGAUTH_FILE : SBX_REGAUTH_ENV;
	src += e->kind == SBX_REGAUTH_FILE ? 5 : 4;
	if ((n = (size_t)(end - src)) > SBX_REGAUTH_SRCMAX)
		return say(why, size, "has a source over "
		    XSTR(SBX_REGAUTH_SRCMAX) " bytes");
	if (e->kind == SBX_REGAUTH_FILE && (n == 0 || src[0] != '/'))
		return say(why, size, "file: takes an absolute path");
	if (e->kind == SBX_REGAUTH_ENV && !sbx_env_validname(src, n))
		return say(why, size, "env: takes a variable's name");
	memcpy(e->src, src, n);
	return 0;
}

/* One more entry of ra, unless its registry has one already. */
static int
add(void *arg, const char *s, size_t len, char *why, size_t size)
{
	struct sbx_regauth *ra = arg;
	struct sbx_regauth_entry *e = &ra->v[ra->n];
	size_t i;

	if (entry(e, s, len, why, size) == -1)
		return -1;
	for (i = 0; i < ra->n; i++)
		if (strcmp(ra->v[i].host, e->host) == 0) {
			snprintf(why, size, "%s has a credential already "
			    "(entry %zu)", e->host, i + 1);
			return -1;
		}
	ra->n++;
	return 0;
}

int
sbx_regauth_parse(const char *var, const char *list, struct sbx_regauth *ra,
    char *why, size_t size)
{
	ra->n = 0;
	if (sbx_egress_each(var, list, SBX_REGAUTH_MAX, add, ra, why,
	    size) == 0)
		return 0;
	ra->n = 0;
	return -1;
}

/* why: "HOST: SOURCE: WHAT"; -1. */
static int
refuse(const struct sbx_regauth_entry *e, char *why, size_t size,
    const char *what)
{
	snprintf(why, size, "%s: %s:%s: %s", e->host,
	    e->kind == SBX_REGAUTH_FILE ? "file" : "env", e->src, what);
	return -1;
}

/* The file's bytes into buf (VALUEMAX + 1), *len of them. */
static int
readfile(const struct sbx_regauth_entry *e, char *buf, size_t *len,
    char *why, size_t size)
{
	struct stat st;
	char what[96];
	ssize_t n;
	int fd, r, saved;

	/* O_NONBLOCK: a fifo opens at once, and is refused below */
	if ((fd = open(e->src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY)) == -1) {
		if (errno == ELOOP || errno == EMLINK)
			return refuse(e, why, size, "is a symbolic link");
		return refuse(e, why, size, strerror(errno));
	}
	if (fstat(fd, &st) == -1) {
		saved = errno;
		(void)close(fd);
		return refuse(e, why, size, strerror(saved));
	}
	if (!S_ISREG(st.st_mode))
		r = refuse(e, why, size, "is not a regular file");
	else if (st.st_uid != getuid()) {
		snprintf(what, sizeof(what), "is owned by uid %lu, not by uid "
		    "%lu", (unsigned long)st.st_uid, (unsigned long)getuid());
		r = refuse(e, why, size, what);
	} else if ((st.st_mode & 077) != 0) {
		snprintf(what, sizeof(what), "has mode %04o: group or others "
		    "have access (want 0600 or 0400)",
		    (unsigned)st.st_mode & 07777);
		r = refuse(e, why, size, what);
	}
	else if (st.st_size > SBX_REGAUTH_VALUEMAX)
		r = refuse(e, why, size, OVER);
	else
		r = 0;
	for (*len = 0; r == 0 && *len <= SBX_REGAUTH_VALUEMAX;) {
		if ((n = read(fd, buf + *len, SBX_REGAUTH_VALUEMAX + 1 -
		    *len)) > 0)
			*len += (size_t)n;
		else if (n == 0)
			break;
		else if (errno != EINTR)
			r = refuse(e, why, size, strerror(errno));
	}
	(void)close(fd);
	if (r == -1)
		return -1;
	if (*len > SBX_REGAUTH_VALUEMAX)
		return refuse(e, why, size, OVER);
	return 0;
}

/* The variable's value into buf, *len bytes of it. */
static int
readenv(const struct sbx_regauth_entry *e, char *const *envp, char *buf,
    size_t *len, char *why, size_t size)
{
	size_t n = strlen(e->src);

	for (; envp != NULL && *envp != NULL; envp++)
		if (strncmp(*envp, e->src, n) == 0 && (*envp)[n] == '=')
			break;
	if (envp == NULL || *envp == NULL)
		return refuse(e, why, size, "is not set");
	if ((*len = strlen(*envp + n + 1)) > SBX_REGAUTH_VALUEMAX)
		return refuse(e, why, size, OVER);
	memcpy(buf, *envp + n + 1, *len);
	return 0;
}

/*
 * The credential of e into out (NUL-terminated; sbx_regauth_free() when
 * done): one trailing newline dropped, and no other, no NUL, not empty.
 */
int
sbx_regauth_read(const struct sbx_regauth_entry *e, char *const *envp,
    struct sbx_buf *out, char *why, size_t size)
{
	const size_t cap = SBX_REGAUTH_VALUEMAX + 2;
	char *buf;
	size_t len = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((buf = malloc(cap)) == NULL)
		return refuse(e, why, size, strerror(errno));
	if (e->kind == SBX_REGAUTH_FILE)
		rc = readfile(e, buf, &len, why, size);
	else
		rc = readenv(e, envp, buf, &len, why, size);
	if (rc == 0 && len > 0 && buf[len - 1] == '\n')
		len--;
	if (rc == -1)
		;
	else if (len == 0)
		rc = refuse(e, why, size, "is empty");
	else if (memchr(buf, '\0', len) != NULL)
		rc = refuse(e, why, size, "holds a NUL byte");
	else if (memchr(buf, '\n', len) != NULL)
		rc = refuse(e, why, size, "holds more than one line");
	if (rc == -1) {
		wipe(buf, cap);
		free(buf);
		return -1;
	}
	buf[len] = '\0';
	out->data = buf;
	out->len = len;
	out->cap = cap;
	return 0;
}

/* A credential's buffer zeroed, then freed. */
void
sbx_regauth_free(struct sbx_buf *b)
{
	if (b->data != NULL) {
		wipe(b->data, b->cap);
		free(b->data);
	}
	memset(b, 0, sizeof(*b));
}
