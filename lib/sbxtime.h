/* sbxtime.h: time, from the monotonic clock and from outside text */
#ifndef SBXTIME_H
#define SBXTIME_H

/* clock.c: the monotonic clock in milliseconds; a pause */
long long sbx_clock_now_ms(void);
void	 sbx_clock_pause_ms(long);

#endif /* SBXTIME_H */
