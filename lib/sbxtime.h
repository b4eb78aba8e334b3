/* sbxtime.h: time, from the monotonic clock and from outside text */
#ifndef SBXTIME_H
#define SBXTIME_H

/* clock.c: the monotonic clock in milliseconds; a pause */
long long sbx_clock_now_ms(void);
void	 sbx_clock_pause_ms(long);

/* rfc3339.c: an RFC 3339 timestamp to Unix seconds */
int	 sbx_rfc3339_parse(const char *, long long *);

#endif /* SBXTIME_H */
