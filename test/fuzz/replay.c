/*
 * replay.c: a main for the fuzz targets where libFuzzer is missing (gcc):
 * each file named on the command line goes to LLVMFuzzerTestOneInput
 * once.  A failed invariant aborts, as under libFuzzer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sbx.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
main(int argc, char *argv[])
{
	struct sbx_buf b;
	FILE *fp;
	char chunk[8192];
	size_t n;
	int i;

	for (i = 1; i < argc; i++) {
		if ((fp = fopen(argv[i], "rb")) == NULL) {
			perror(argv[i]);
			return 1;
		}
		b.data = NULL;
		b.len = b.cap = 0;
		while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
			if (sbx_io_buf_add(&b, chunk, n) == -1)
				abort();
		if (ferror(fp))
			abort();
		fclose(fp);
		LLVMFuzzerTestOneInput((const uint8_t *)(b.data ? b.data : ""),
		    b.len);
		sbx_io_buf_free(&b);
	}
	printf("replayed %d inputs\n", argc - 1);
	return 0;
}
