/*
 * rfc3339: print the Unix seconds of each RFC 3339 argument as
 * sbx_rfc3339_parse reads it, or "invalid"; the sbx-gc suite compares them
 * with date(1).
 */
#include <stdio.h>

#include "sbx.h"
#include "sbxtime.h"

int
main(int argc, char *argv[])
{
	long long t;
	int i;

	for (i = 1; i < argc; i++) {
		if (sbx_rfc3339_parse(argv[i], &t) == 0)
			printf("%lld\n", t);
		else
			printf("invalid\n");
	}
	return sbx_io_fshut() == 0 ? 0 : 1;
}
