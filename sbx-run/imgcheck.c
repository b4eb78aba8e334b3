/*
 * imgcheck.c: the host's look at a cached image archive, written by the
 * agent's daemon and so hostile.  It is used only when plain: a ustar
 * archive of files and directories every tar reader reads alike, naming
 * no image, with no compression magic or compressed data.  Anything else
 * refuses it whole, and costs a normal pull.  Its JSON is imgjson.c's.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbx-run.h"

/*
 * Each rule closes a way for two readers to see two archives: the magic
 * is POSIX ustar or GNU; the prefix field is empty, so a name is the
 * 100-byte field up to its first NUL (all 100 bytes with none), as Go,
 * GNU tar and Python read it; a directory has size 0 (Go skips no data
 * after one); a name is printable ASCII; no link name; a size is plain
 * octal with a terminator; the checksum is the unsigned sum; a file's name
 * is nobody's directory.  One symbolic link is taken, as docker 20.10
 * writes it when two saved images share a layer: HEX/layer.tar pointing
 * to ../HEX2/layer.tar, a file of the archive (layer_link).  The file
 * offset of fd is left as it was.
 */

#define BLOCK		IMG_BLOCK
#define NAME_LEN	IMG_NAME_LEN
#define MEMBERS_MAX	65536		/* docker writes ~4 per layer */

struct scan {
	int		 fd;
	long long	 size;		/* of the file */
	struct img_member	*m;
	size_t		 n;
	size_t		 cap;
	char		*why;
	size_t		 whysize;
};

static int
refuse(struct scan *s, const char *name, const char *reason)
{
	char shown[NAME_LEN + 1];

	if (s->whysize == 0)
		return -1;
	if (name != NULL)
		(void)snprintf(s->why, s->whysize, "\"%s\": %s",
		    sbx_shown(name, shown, sizeof(shown)), reason);
	else
		(void)snprintf(s->why, s->whysize, "%s", reason);
	return -1;
}

/* n bytes at off, whole; -1 on an error or a short file */
int
imgcheck_readat(int fd, void *buf, size_t n, long long off)
{
	char *p = buf;
	ssize_t r;

	while (n > 0) {
		if ((r = pread(fd, p, n, (off_t)off)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			return -1;
		p += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

static int
hex64(const char *s)
{
	return strspn(s, "0123456789abcdef") == 64;
}

/*
 * The one symbolic link docker 20.10 writes: when two layer directories
 * hold the same layer, the second's layer.tar is "../FIRST/layer.tar".
 * Only that shape is taken, and its target must be a file member of the
 * archive (checked in names_apart).
 */
static const char *
layer_link(const char *name, const char *link, char *target)
{
	if (!hex64(name) || strcmp(name + 64, "/layer.tar") != 0 ||
	    strncmp(link, "../", 3) != 0 || !hex64(link + 3) ||
	    strcmp(link + 67, "/layer.tar") != 0 || strcmp(name, link + 3) == 0)
		return "a symbolic link other than docker's shared layer.tar";
	memcpy(target, link + 3, strlen(link + 3) + 1);
	return NULL;
}

static int
check_json(struct scan *s, const char *name, long long off, long long len)
{
	const char *why;
	char *buf;

	if (len > IMG_JSON_MAX)
		return refuse(s, name, "larger than 1 MiB");
	if ((buf = malloc(len > 0 ? (size_t)len : 1)) == NULL)
		return refuse(s, name, "out of memory");
	if (imgcheck_readat(s->fd, buf, (size_t)len, off) == -1) {
		free(buf);
		return refuse(s, name, "unreadable");
	}
	why = imgjson_names(buf, (size_t)len);
	free(buf);
	return why != NULL ? refuse(s, name, why) : 0;
}

/*
 * Why a file's data at off would be decompressed by docker, which sniffs
 * each layer's first bytes, or NULL.  Only plain data writes no more in
 * the sandbox than the host measured.
 */
static const char *
data_magic(struct scan *s, long long off, long long size)
{
	unsigned char b[8];
	size_t n = size < (long long)sizeof(b) ? (size_t)size : sizeof(b);

	if (n == 0 || off + BLOCK + (long long)n > s->size)
		return NULL;	/* past the end: refused as such */
	if (imgcheck_readat(s->fd, b, n, off + BLOCK) == -1)
		return "unreadable";
	return imgwrite_magic(b, n) != NULL ? "compressed data, which the load "
	    "would expand past what was measured" : NULL;
}

/* One header at off: the member is recorded, *datap is its data size. */
static int
header(struct scan *s, const unsigned char *h, long long off,
    long long *datap)
{
	struct img_member *m;
	const char *why;
	char name[NAME_LEN + 1], link[NAME_LEN + 1], target[NAME_LEN + 1];
	char type[64];
	long long sum, size;
	size_t len;
	int dir;

	*datap = 0;
	memcpy(name, h, NAME_LEN);
	name[NAME_LEN] = '\0';
	len = strlen(name);
	memcpy(link, h + 157, NAME_LEN);
	link[NAME_LEN] = '\0';
	target[0] = '\0';
	if (imgtar_octal(h + 148, 8, &sum) == -1 || sum != imgtar_checksum(h))
		return refuse(s, NULL, "a bad header checksum");
	if (memcmp(h + 257, "ustar\0" "00", 8) != 0 &&
	    memcmp(h + 257, "ustar  \0", 8) != 0)
		return refuse(s, name, "not a ustar header");
	if (h[156] != '0' && h[156] != '\0' && h[156] != '5' &&
	    h[156] != '2') {
		(void)snprintf(type, sizeof(type), "member type '%c': not a "
		    "file or directory", h[156] >= ' ' && h[156] <= '~' ?
		    h[156] : '?');
		return refuse(s, name, type);
	}
	if (!imgtar_zero(h + 345, 155))
		return refuse(s, name, "the ustar name prefix is used");
	if (h[156] == '2') {
		if ((why = layer_link(name, link, target)) != NULL)
			return refuse(s, name, why);
	} else if (!imgtar_zero(h + 157, 100))
		return refuse(s, name, "a link name");
	if (imgtar_octal(h + 124, 12, &size) == -1)
		return refuse(s, name, "a size field that is not octal");
	dir = h[156] == '5';
	if (len > 0 && name[len - 1] == '/') {
		if (h[156] == '0')
			return refuse(s, name, "a file name ending in /");
		dir = 1;
		name[--len] = '\0';
	}
	if ((dir || target[0] != '\0') && size != 0)
		return refuse(s, name, dir ? "a directory with data" :
		    "a link with data");
	if ((why = imgtar_badname(name, len)) != NULL)
		return refuse(s, name, why);
	if (size > s->size - off - BLOCK)
		return refuse(s, name, "its data runs past the end of the file");
	if (off == 0 && imgwrite_magic(h, BLOCK) != NULL) {
		(void)snprintf(type, sizeof(type), "the archive begins with "
		    "%s's magic", imgwrite_magic(h, BLOCK));
		return refuse(s, name, type);
	}
	if (!dir && target[0] == '\0' && (why = data_magic(s, off, size)) !=
	    NULL)
		return refuse(s, name, why);
	if (strcmp(name, "repositories") == 0)
		return refuse(s, name, "it names images (the repositories file)");
	if (imgjson_member(name)) {
		if (dir)
			return refuse(s, name, "not a file");
		if (check_json(s, name, off + BLOCK, size) == -1)
			return -1;
	}
	if (s->n == s->cap) {
		if (s->cap == MEMBERS_MAX)
			return refuse(s, NULL, "more than 65536 members");
		s->cap = s->cap == 0 ? 64 : s->cap * 2;
		if ((m = realloc(s->m, s->cap * sizeof(*m))) == NULL)
			return refuse(s, NULL, "out of memory");
		s->m = m;
	}
	memcpy(s->m[s->n].name, name, len + 1);
	memcpy(s->m[s->n].link, target, strlen(target) + 1);
	s->m[s->n].off = off + BLOCK;
	s->m[s->n].size = size;
	s->m[s->n++].dir = dir;
	*datap = size;
	return 0;
}

static int
byname(const void *a, const void *b)
{
	return strcmp(((const struct img_member *)a)->name,
	    ((const struct img_member *)b)->name);
}

static int
byoffset(const void *a, const void *b)
{
	long long x = ((const struct img_member *)a)->off;
	long long y = ((const struct img_member *)b)->off;

	return x < y ? -1 : x > y;
}

/*
 * No name twice, no file's name a directory of another member, and each
 * link's target a file member that is no link.
 */
static int
names_apart(struct scan *s)
{
	struct img_member key;
	const struct img_member *f;
	size_t i, j;

	if (s->n == 0)
		return refuse(s, NULL, "no members");
	qsort(s->m, s->n, sizeof(*s->m), byname);
	for (i = 0; i < s->n; i++) {
		if (i > 0 && strcmp(s->m[i - 1].name, s->m[i].name) == 0)
			return refuse(s, s->m[i].name, "a name that repeats");
		if (s->m[i].link[0] != '\0') {
			memcpy(key.name, s->m[i].link, sizeof(key.name));
			f = bsearch(&key, s->m, s->n, sizeof(*s->m), byname);
			if (f == NULL || f->dir || f->link[0] != '\0')
				return refuse(s, s->m[i].name,
				    "a link to no layer file of the archive");
		}
		for (j = 0; s->m[i].name[j] != '\0'; j++) {
			if (s->m[i].name[j] != '/')
				continue;
			memcpy(key.name, s->m[i].name, j);
			key.name[j] = '\0';
			f = bsearch(&key, s->m, s->n, sizeof(*s->m), byname);
			if (f != NULL && !f->dir)
				return refuse(s, f->name,
				    "a file that another member's name "
				    "takes as a directory");
		}
	}
	return 0;
}

/* After the first of the two zero blocks: the second, then only zeros. */
static int
the_end(struct scan *s, long long off)
{
	unsigned char b[BLOCK];

	if (off + 2 * BLOCK > s->size)
		return refuse(s, NULL, "a missing end of archive");
	for (off += BLOCK; off < s->size; off += BLOCK) {
		if (imgcheck_readat(s->fd, b, BLOCK, off) == -1)
			return refuse(s, NULL, "unreadable");
		if (!imgtar_zero(b, BLOCK))
			return refuse(s, NULL,
			    "trailing data after the end of archive");
	}
	return names_apart(s);
}

static int
scan(struct scan *s)
{
	unsigned char h[BLOCK];
	long long off = 0, data;

	for (;;) {
		if (off + BLOCK > s->size)
			return refuse(s, NULL, "a missing end of archive");
		if (imgcheck_readat(s->fd, h, BLOCK, off) == -1)
			return refuse(s, NULL, "unreadable");
		if (imgtar_zero(h, BLOCK))
			return the_end(s, off);
		if (header(s, h, off, &data) == -1)
			return -1;
		/* whole blocks: data that fits, fits with its padding */
		off += BLOCK + (data + BLOCK - 1) / BLOCK * BLOCK;
	}
}

/*
 * Is the image archive on fd (a regular file) plain?  0 if so, with its
 * members in a (free a->m); -1 with the reason in why if refused.  limit
 * bounds its size (< 0: none).
 */
int
imgcheck_scan(int fd, long long limit, struct img_archive *a, char *why,
    size_t whysize)
{
	struct scan s;
	struct stat st;

	memset(&s, 0, sizeof(s));
	s.fd = fd;
	s.why = why;
	s.whysize = whysize;
	if (whysize > 0)
		why[0] = '\0';
	if (fstat(fd, &st) == -1)
		return refuse(&s, NULL, "unreadable");
	if (!S_ISREG(st.st_mode))
		return refuse(&s, NULL, "not a regular file");
	s.size = (long long)st.st_size;
	if (limit >= 0 && s.size > limit)
		return refuse(&s, NULL, "larger than the cache's budget");
	if (s.size % BLOCK != 0)
		return refuse(&s, NULL, "a size that is not whole blocks");
	if (scan(&s) == -1) {
		free(s.m);
		return -1;
	}
	qsort(s.m, s.n, sizeof(*s.m), byoffset);
	a->m = s.m;
	a->n = s.n;
	return 0;
}

/* imgcheck_scan, for its answer alone */
int
imgcheck(int fd, long long limit, char *why, size_t whysize)
{
	struct img_archive a;

	if (imgcheck_scan(fd, limit, &a, why, whysize) == -1)
		return -1;
	free(a.m);
	return 0;
}
