/*
 * Fuzz target (libFuzzer) for the marker readers sbx-gc trusts least:
 * NAME.owner and NAME.created with any content.  No crash, and a value
 * is only ever returned in range, read from the first KEY= line, whose
 * value is nothing but an optional '-' and digits.  The files live in one scratch
 * directory, removed at exit.  Built by "make fuzz".
 */
#include <sys/types.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxmarker.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int dfd = -1;
static char dir[] = "/tmp/fuzz-marker.XXXXXX";

static void
cleanup(void)
{
	unlinkat(dfd, "pi-sbx-1-fuzz.owner", 0);
	unlinkat(dfd, "pi-sbx-1-fuzz.created", 0);
	rmdir(dir);
}

static void
put(const char *file, const uint8_t *data, size_t size)
{
	int fd;

	fd = openat(dfd, file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1 || sbx_io_writeall(fd, data, size) == -1)
		abort();
	close(fd);
}

/* The first KEY= line of the text (up to a NUL) says v, in digits. */
static void
agree(const uint8_t *data, size_t size, const char *key, long long v)
{
	const uint8_t *nul, *eol;
	size_t klen = strlen(key), i, e, j;
	long long w = 0;
	int neg;

	if ((nul = memchr(data, '\0', size)) != NULL)
		size = (size_t)(nul - data);
	for (i = 0; i < size; i = e + 1) {
		eol = memchr(data + i, '\n', size - i);
		e = eol != NULL ? (size_t)(eol - data) : size;
		if (e - i <= klen || memcmp(data + i, key, klen) != 0 ||
		    data[i + klen] != '=')
			continue;
		j = i + klen + 1;
		neg = data[j] == '-';
		if ((j += (size_t)neg) == e)
			abort();
		for (; j < e; j++) {
			if (data[j] < '0' || data[j] > '9')
				abort();
			w = w * 10 + (data[j] - '0');
		}
		if ((neg ? -w : w) != v)
			abort();
		return;
	}
	abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long long start;
	long long when;
	pid_t pid;

	if (dfd == -1) {
		if (mkdtemp(dir) == NULL ||
		    (dfd = open(dir, O_RDONLY | O_DIRECTORY)) == -1)
			abort();
		atexit(cleanup);
	}
	put("pi-sbx-1-fuzz.owner", data, size);
	put("pi-sbx-1-fuzz.created", data, size);
	if (sbx_markerio_owner_read(dfd, "pi-sbx-1-fuzz", &pid, &start) == 0) {
		if (pid < 1)
			abort();
		agree(data, size, "pid", pid);
		agree(data, size, "start", (long long)start);
	}
	if (sbx_markerio_created_read(dfd, "pi-sbx-1-fuzz", &when) == 0) {
		if (when < 0)
			abort();
		agree(data, size, "created", when);
	}
	return 0;
}
