/*
 * Fuzz target (libFuzzer) for imgcheck, the host's check of a cached
 * image archive, and imgjson_names, its look at the JSON members.  Any
 * input, no crash; the answer comes with a reason exactly when it is a
 * refusal, is the same twice, leaves the file offset alone, and an
 * accepted archive is whole blocks with a member and its end, within
 * its own size as the limit and past one byte less.  sbx-run's two
 * files are compiled in here, since the build links lib/ only.
 * Built by "make fuzz".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbxjson.h"
#include "../../sbx-run/sbx-run.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int fd = -1;

static int
check(long long limit, char *why, size_t whysize)
{
	int rc;

	if (lseek(fd, 7, SEEK_SET) != 7)
		abort();
	rc = imgcheck(fd, limit, why, whysize);
	if ((rc != 0 && rc != -1) || (rc == 0) != (why[0] == '\0') ||
	    strlen(why) >= whysize || lseek(fd, 0, SEEK_CUR) != 7)
		abort();
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz-imgcheck.XXXXXX", why[256], again[256];
	struct sbx_json *j;
	int rc;

	if (fd == -1) {
		if ((fd = mkstemp(path)) == -1)
			abort();
		(void)unlink(path);
	}
	if (ftruncate(fd, 0) == -1 ||
	    (size > 0 && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	rc = check(-1, why, sizeof(why));
	if (check(-1, again, sizeof(again)) != rc || strcmp(why, again) != 0)
		abort();
	if (rc == 0) {
		if (size % 512 != 0 || size < 3 * 512 ||
		    check((long long)size, why, sizeof(why)) != 0 ||
		    check((long long)size - 1, why, sizeof(why)) != -1)
			abort();
	}
	/* a short reason buffer is cut, never overrun */
	(void)check(-1, why, 8);
	/* what imgjson_names passes is JSON */
	if (size > 0 && (data[0] == '[' || data[0] == '{') &&
	    imgjson_names((const char *)data, size) == NULL) {
		if ((j = sbx_json_parse((const char *)data, size, NULL)) == NULL)
			abort();
		sbx_json_free(j);
	}
	return 0;
}
