/*
 * Fuzz target (libFuzzer) for the marker readers sbx-gc trusts least:
 * NAME.owner and NAME.created with any content.  No crash, and a value
 * is only ever returned in range.  The files live in one scratch
 * directory, removed at exit.  Built by "make fuzz".
 */
#include <sys/types.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sbx.h"

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
	if (fd == -1 || sbx_writeall(fd, data, size) == -1)
		abort();
	close(fd);
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
	if (sbx_owner_read(dfd, "pi-sbx-1-fuzz", &pid, &start) == 0 &&
	    pid < 1)
		abort();
	if (sbx_created_read(dfd, "pi-sbx-1-fuzz", &when) == 0 && when < 0)
		abort();
	return 0;
}
