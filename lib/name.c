/* name.c: sandbox names: one rule for every program, none like an option. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxname.h"
#include "sbx-internal.h"

static int
isalnum_ascii(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/* SBX_NAME_RULE: sbx's own, "default" being its reserved name. */
int
sbx_name_valid(const char *s)
{
	size_t i;

	if (s == NULL || !isalnum_ascii((unsigned char)s[0]))
		return 0;
	for (i = 1; s[i] != '\0'; i++) {
		if (i >= SBX_NAME_MAX)
			return 0;
		if (!isalnum_ascii((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '-')
			return 0;
	}
	/* sbx refuses a name that does not end in a letter or digit */
	if (i < 2 || !isalnum_ascii((unsigned char)s[i - 1]))
		return 0;
	return strcmp(s, "default") != 0;
}

int
sbx_name_urandom(unsigned char *p, size_t n)
{
	ssize_t r;
	int fd;

	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while (n > 0) {
		if ((r = read(fd, p, n)) == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(fd);
			errno = EIO;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return close(fd);
}

static int
compose(char *buf, size_t size, const char *prefix, long pid, char sep)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[32];
	char tail[9];
	size_t i, t;
	int n;

	for (t = 0; t < sizeof(tail) - 1; ) {
		if (sbx_name_urandom(rnd, sizeof(rnd)) == -1)
			return -1;
		/* dropping bytes above 252 = 7 * 36 avoids modulo bias */
		for (i = 0; i < sizeof(rnd) && t < sizeof(tail) - 1; i++)
			if (rnd[i] < 252)
				tail[t++] = set[rnd[i] % 36];
	}
	tail[t] = '\0';
	n = snprintf(buf, size, "%s%ld%c%s", prefix, pid, sep, tail);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
sbx_name_new(char *buf, size_t size, long pid)
{
	return compose(buf, size, SBX_NAME_PREFIX, pid, '-');
}

/* sbx-verify -S's throwaway, selfcheck.<pid>.<random>: no '-', no session's. */
int
sbx_name_selfcheck(char *buf, size_t size, long pid)
{
	return compose(buf, size, SBX_SELFCHECK_PREFIX, pid, '.');
}

/* Is name of sbx_name_new's shape with this prefix?  Its pid into *pid. */
int
sbx_name_pid(const char *name, const char *prefix, pid_t *pid)
{
	const char *p, *errstr;
	char digits[16];
	size_t plen = strlen(prefix), n, i;
	long long v;

	if (strncmp(name, prefix, plen) != 0)
		return 0;
	p = name + plen;
	n = strspn(p, "0123456789");
	if (n == 0 || n >= sizeof(digits) || p[0] == '0' || p[n] != '-')
		return 0;
	memcpy(digits, p, n);
	digits[n] = '\0';
	v = sbx_strtonum(digits, 1, INT_MAX, &errstr);
	if (errstr != NULL)
		return 0;
	for (p += n + 1, i = 0; p[i] != '\0'; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') ||
		    (p[i] >= '0' && p[i] <= '9')))
			return 0;
	if (i != 8)
		return 0;
	if (pid != NULL)
		*pid = (pid_t)v;
	return 1;
}
