/*
 * proc.c: process identity: a pid with its start time names one process
 * for good.  Without /proc or sysctl(3) (or SBX_PORTABLE_ONLY) the start
 * time is 0 and only kill(pid, 0) is left.
 */
#if defined(__FreeBSD__) && !defined(SBX_PORTABLE_ONLY)
#define __BSD_VISIBLE 1		/* kinfo_proc's types; strict POSIX hides them */
#endif

#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(SBX_PORTABLE_ONLY)
/* kill(2) alone, as on a platform with neither /proc nor sysctl */
#elif defined(__linux__)
#define HAVE_PROCFS
#elif defined(__APPLE__) || defined(__FreeBSD__)
#include <sys/sysctl.h>		/* macOS: kinfo_proc is here */
#if defined(__FreeBSD__)
#include <sys/user.h>		/* FreeBSD: and here */
#endif
#define HAVE_SYSCTL
#endif

#include "sbxchild.h"

#if defined(HAVE_PROCFS)
/* Field 22 of /proc/PID/stat, ticks since boot; 'Z' is dead. */
static int
start_linux(pid_t pid, unsigned long long *start)
{
	char path[64], buf[1024], *p, *end;
	size_t n;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the command name may hold spaces and ')': skip to the last ')' */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return errno = EINVAL, -1;
	p += 2;
	if (*p == 'Z' || *p == 'X')
		return errno = ESRCH, -1;
	for (field = 3; field < 22; field++) {
		if ((p = strchr(p, ' ')) == NULL)
			return errno = EINVAL, -1;
		p++;
	}
	errno = 0;
	*start = strtoull(p, &end, 10);
	if (errno != 0 || end == p)
		return errno = EINVAL, -1;
	return 0;
}
#endif

#if defined(HAVE_SYSCTL)
static int
start_sysctl(pid_t pid, unsigned long long *start)
{
	int mib[4] = { CTL_KERN, KERN_PROC, KERN_PROC_PID, (int)pid };
	struct kinfo_proc kp;
	size_t len = sizeof(kp);

	if (sysctl(mib, 4, &kp, &len, NULL, 0) == -1)
		return -1;
	if (len == 0)
		return errno = ESRCH, -1;
#if defined(__APPLE__)
	if (kp.kp_proc.p_stat == SZOMB)
		return errno = ESRCH, -1;
	*start = (unsigned long long)kp.kp_proc.p_starttime.tv_sec * 1000000 +
	    (unsigned long long)kp.kp_proc.p_starttime.tv_usec;
#else
	if (kp.ki_stat == SZOMB)
		return errno = ESRCH, -1;
	*start = (unsigned long long)kp.ki_start.tv_sec * 1000000 +
	    (unsigned long long)kp.ki_start.tv_usec;
#endif
	return 0;
}
#endif

int
sbx_proc_start(pid_t pid, unsigned long long *start)
{
	*start = 0;
	if (pid <= 0)
		return errno = ESRCH, -1;
#if defined(HAVE_PROCFS)
	if (start_linux(pid, start) == 0)
		return 0;
	if (errno != ENOENT)
		return -1;
	/* no /proc mounted: fall through to kill(2) */
#elif defined(HAVE_SYSCTL)
	return start_sysctl(pid, start);
#endif
	if (kill(pid, 0) == -1 && errno != EPERM)
		return -1;
	*start = 0;
	return 0;
}

int
sbx_proc_alive(pid_t pid, unsigned long long start)
{
	unsigned long long now;

	if (sbx_proc_start(pid, &now) == -1)
		return 0;
	return start == 0 || now == 0 || now == start;
}
