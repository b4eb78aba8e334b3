/*
 * clock.c: milliseconds of the monotonic clock, for deadlines that a
 * change of the wall clock must not move.
 */
#include <time.h>

#include "sbx.h"

long long
sbx_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
