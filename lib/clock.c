/* clock.c: the monotonic clock, which no change of the wall clock moves. */
#include <errno.h>
#include <time.h>

#include "sbxtime.h"

long long
sbx_clock_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleep ms milliseconds, whatever signals come meanwhile. */
void
sbx_clock_pause_ms(long ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}
