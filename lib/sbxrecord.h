/*
 * sbxrecord.h: a session's record, NAME.journal: one JSON line per
 * sbx-run call and per event of the session (record.c), appended under a
 * shared lock and bounded in size (sbx-tools(7), FILES).
 */
#ifndef SBXRECORD_H
#define SBXRECORD_H

#include <stddef.h>
#include <time.h>

#define SBX_RECORD_MAX		(1024 * 1024)	/* past it, the newest half */
#define SBX_RECORD_LINE		4096		/* a line at most */
#define SBX_RECORD_TIME		32		/* a line's "time" and its NUL */
#define SBX_RECORD_EVENT_TIMEOUT 2		/* seconds an event waits */
#define SBX_RECORD_TRIMMED	"{\"trimmed\":"	/* the first line of a trim */

void	 sbx_record_time(char *, const struct timespec *);
int	 sbx_record_append(int, const char *, const char *, size_t, int);
int	 sbx_record_event(int, const char *, const char *, const char *);
long long sbx_record_trimmed(const char *, size_t);
int	 sbx_record_lock(int, short, int);
int	 sbx_record_begin(int, const char *, const char *);
int	 sbx_record_keep(int, const char *, const char *);

#endif /* SBXRECORD_H */
