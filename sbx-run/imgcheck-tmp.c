/*
 * imgcheck-tmp.c: TEMPORARY stand-in for helper imgcheck's img_check()
 * (sbx-run/imgcheck.c, branch imgcheck), so that the load can be built
 * and tested meanwhile.  Deleted when that branch is merged; not the
 * check of the design.  It walks the ustar headers (checksum, regular
 * files and directories only, no repeated or odd names, no
 * `repositories`) and refuses a manifest.json or index.json that names
 * an image by a plain substring look.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbx-run.h"

#define NAMES_MAX	4096

static long long
octal(const unsigned char *p, size_t n)
{
	long long v = 0;
	size_t i;

	for (i = 0; i < n && p[i] == ' '; i++)
		;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++)
		v = v * 8 + (p[i] - '0');
	return v;
}

static int
readn(int fd, unsigned char *b, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		if ((r = read(fd, b + got, n - got)) == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int
names_image(const char *s)
{
	const char *p;

	if (strstr(s, "io.containerd.image.name") != NULL ||
	    strstr(s, "org.opencontainers.image.ref.name") != NULL)
		return 1;
	for (p = s; (p = strstr(p, "\"RepoTags\"")) != NULL; p++) {
		p += 10;
		p += strspn(p, " \t\r\n:");
		if (strncmp(p, "null", 4) != 0 && strncmp(p, "[]", 2) != 0)
			return 1;
	}
	return 0;
}

int
img_check(int fd, long long limit, char *why, size_t whysize)
{
	unsigned char h[512], *body = NULL;
	char name[101], *seen[NAMES_MAX];
	long long size, sum, total = 0;
	size_t nseen = 0, i, len;
	int rv = -1, zero;

	for (;;) {
		if (readn(fd, h, 512) == -1) {
			snprintf(why, whysize, "no end of archive");
			goto out;
		}
		for (zero = 1, i = 0; i < 512 && zero; i++)
			zero = h[i] == 0;
		if (zero) {
			rv = 0;
			goto out;
		}
		for (sum = 0, i = 0; i < 512; i++)
			sum += i >= 148 && i < 156 ? ' ' : h[i];
		if (sum != octal(h + 148, 8)) {
			snprintf(why, whysize, "a bad header checksum");
			goto out;
		}
		if (h[156] != '0' && h[156] != '\0' && h[156] != '5') {
			snprintf(why, whysize, "a member that is no file or "
			    "directory");
			goto out;
		}
		memcpy(name, h, 100);
		name[100] = '\0';
		len = strlen(name);
		while (len > 0 && name[len - 1] == '/')
			name[--len] = '\0';
		if (len == 0 || name[0] == '/' || strstr(name, "..") != NULL ||
		    strcmp(name, "repositories") == 0) {
			snprintf(why, whysize, "a member named \"%s\"", name);
			goto out;
		}
		for (i = 0; i < nseen; i++)
			if (strcmp(seen[i], name) == 0) {
				snprintf(why, whysize, "a repeated member");
				goto out;
			}
		if (nseen < NAMES_MAX && (seen[nseen] = strdup(name)) != NULL)
			nseen++;
		size = octal(h + 124, 12);
		if ((total += size + 512) > limit) {
			snprintf(why, whysize, "larger than the budget");
			goto out;
		}
		if (strcmp(name, "manifest.json") == 0 ||
		    strcmp(name, "index.json") == 0) {
			if (size > 1024 * 1024 ||
			    (body = calloc(1, (size_t)size + 1)) == NULL ||
			    readn(fd, body, (size_t)size) == -1 ||
			    names_image((char *)body)) {
				free(body);
				snprintf(why, whysize, "it names an image");
				goto out;
			}
			free(body);
			body = NULL;
			if (lseek(fd, (512 - size % 512) % 512, SEEK_CUR) == -1)
				goto out;
			continue;
		}
		if (lseek(fd, (size + 511) / 512 * 512, SEEK_CUR) == -1)
			goto out;
	}
out:
	for (i = 0; i < nseen; i++)
		free(seen[i]);
	return rv;
}
