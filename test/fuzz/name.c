/*
 * Fuzz target (libFuzzer) for sandbox names: sbx_name_valid agrees with
 * the rule written out plainly ([A-Za-z0-9][A-Za-z0-9.-]{0,61}[A-Za-z0-9], not
 * "default"), so no accepted name starts with '-' or holds a '/' or a
 * blank; and a fresh name from sbx_name_new, for a pid and buffer size
 * taken from the input, is valid or refused for length.  Built by
 * "make fuzz".
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbxname.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
plain(const char *s)
{
	size_t i, len = strlen(s);

	if (len < 2 || len > 63 || strcmp(s, "default") == 0)
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') ||
		    (i > 0 && i < len - 1 && (s[i] == '.' || s[i] == '-'))))
			return 0;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, buf[80];
	long pid = 0;
	size_t i, bufsize;
	int v;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	v = sbx_name_valid(s);
	if (v != plain(s) || (v && (s[0] == '-' || strpbrk(s, "/ \t\n"))))
		abort();
	free(s);

	/* a few inputs also make a name: pid from the bytes, a buffer size */
	if (size >= 2 && data[0] == 'N') {
		for (i = 1; i < size && i < 9; i++)
			pid = (long)((unsigned long)pid << 8 | data[i]);
		bufsize = (size_t)data[size - 1] % sizeof(buf) + 1;
		memset(buf, 'x', sizeof(buf));
		if (sbx_name_new(buf, bufsize, pid) == 0) {
			if (!sbx_name_valid(buf) ||
			    strncmp(buf, "pi-sbx-", 7) != 0 ||
			    strlen(buf) >= bufsize)
				abort();
		} else if (errno != ENAMETOOLONG)
			abort();
	}
	return 0;
}
