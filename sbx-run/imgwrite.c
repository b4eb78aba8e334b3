/*
 * imgwrite.c: the archive `docker load` reads is the host's own: for each
 * member imgcheck_scan took, a header the host makes (checked name, size
 * and type; fixed modes, owners, times), its data and padding, then two
 * zero blocks.  Nothing else the agent's daemon wrote reaches docker, and
 * what docker would decompress is refused (imgwrite_magic).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbx-run.h"

#define BLOCK		IMG_BLOCK
#define CHUNK		65536

/*
 * The compression docker (and containerd) would find in the first bytes
 * b, by the magic numbers they sniff, or NULL: bzip2, gzip, xz, zstd and
 * zstd's skippable frames.
 */
const char *
imgwrite_magic(const unsigned char *b, size_t n)
{
	static const struct {
		const char	*name;
		unsigned char	 mask, first;	/* of b[0] */
		const char	*rest;
		size_t		 len;		/* of rest */
	} m[] = {
		{ "bzip2", 0xff, 'B', "Zh", 2 },
		{ "gzip", 0xff, 0x1f, "\x8b\x08", 2 },
		{ "xz", 0xff, 0xfd, "7zXZ\0", 5 },
		{ "zstd", 0xff, 0x28, "\xb5\x2f\xfd", 3 },
		{ "zstd", 0xf0, 0x50, "\x2a\x4d\x18", 3 },
	};
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (n > m[i].len && (b[0] & m[i].mask) == m[i].first &&
		    memcmp(b + 1, m[i].rest, m[i].len) == 0)
			return m[i].name;
	return NULL;
}

static void
octal(char *f, size_t len, long long v)
{
	(void)snprintf(f, len, "%0*llo", (int)len - 1, v);
}

/* The header the host writes for member m. */
static void
header(unsigned char *h, const struct img_member *m)
{
	static const char ustar[8] = { 'u', 's', 't', 'a', 'r', '\0', '0', '0' };
	unsigned long sum = 0;
	size_t i, len = strlen(m->name);
	char f[13], l[IMG_NAME_LEN + 4];	/* "../" and a target */

	memset(h, 0, BLOCK);
	memcpy(h, m->name, len);
	if (m->dir && len < IMG_NAME_LEN)
		h[len] = '/';
	octal(f, 8, m->link[0] != '\0' ? 0777 : m->dir ? 0755 : 0644);
	memcpy(h + 100, f, 8);
	octal(f, 8, 0);
	memcpy(h + 108, f, 8);
	memcpy(h + 116, f, 8);
	octal(f, 12, m->dir || m->link[0] != '\0' ? 0 : m->size);
	memcpy(h + 124, f, 12);
	octal(f, 12, 0);
	memcpy(h + 136, f, 12);
	h[156] = m->link[0] != '\0' ? '2' : m->dir ? '5' : '0';
	if (m->link[0] != '\0') {
		memset(l, 0, sizeof(l));
		(void)snprintf(l, sizeof(l), "../%s", m->link);
		memcpy(h + 157, l, IMG_NAME_LEN);
	}
	memcpy(h + 257, ustar, sizeof(ustar));
	memset(h + 148, ' ', 8);
	for (i = 0; i < BLOCK; i++)
		sum += h[i];
	(void)snprintf(f, 8, "%06lo", sum);
	memcpy(h + 148, f, 7);
}

/*
 * Member m's data and padding, from in to out (a name file's already in
 * buf), the first bytes looked at again: the file may have changed since
 * the check.
 */
static int
data(int in, const struct img_member *m, int out, char *buf)
{
	long long done;
	size_t n;

	if (imgjson_member(m->name)) {
		if (sbx_io_writeall(out, buf, (size_t)m->size) == -1)
			return -1;
	} else
		for (done = 0; done < m->size; done += (long long)n) {
			n = m->size - done < CHUNK ? (size_t)(m->size - done) :
			    CHUNK;
			if (imgcheck_readat(in, buf, n, m->off + done) == -1 ||
			    (done == 0 && imgwrite_magic((unsigned char *)buf, n) !=
			    NULL) || sbx_io_writeall(out, buf, n) == -1)
				return -1;
		}
	memset(buf, 0, BLOCK);
	n = (size_t)((BLOCK - m->size % BLOCK) % BLOCK);
	return sbx_io_writeall(out, buf, n);
}

/* One member; a name file is read and checked anew before its header. */
static int
member(int in, const struct img_member *m, int out, char *buf)
{
	unsigned char h[BLOCK];

	if (imgjson_member(m->name) && (m->size > IMG_JSON_MAX ||
	    imgcheck_readat(in, buf, (size_t)m->size, m->off) == -1 ||
	    imgjson_names(buf, (size_t)m->size) != NULL))
		return -1;
	header(h, m);
	if (sbx_io_writeall(out, h, BLOCK) == -1)
		return -1;
	return m->dir || m->link[0] != '\0' ? 0 : data(in, m, out, buf);
}

/*
 * Write to out the archive of a's members, reading their data from in.
 * On a failure (the archive changed, out closed) the stream ends with a
 * block no tar reader takes for a header or an end, so that what was
 * written cannot pass for a whole archive; -1.
 */
int
imgwrite(int in, const struct img_archive *a, int out)
{
	char *buf;
	size_t i;
	int rc = 0;

	if ((buf = malloc(IMG_JSON_MAX)) == NULL)	/* not less than CHUNK */
		return -1;
	for (i = 0; i < a->n && rc == 0; i++)
		rc = member(in, &a->m[i], out, buf);
	if (rc == 0) {
		memset(buf, 0, 2 * BLOCK);
		rc = sbx_io_writeall(out, buf, 2 * BLOCK);
	} else {
		memset(buf, 0xff, BLOCK);
		(void)sbx_io_writeall(out, buf, BLOCK);
	}
	free(buf);
	return rc;
}
