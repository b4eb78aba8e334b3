/*
 * pidwait.c: a descriptor readable when a process ends: a pidfd before
 * detaching (Linux), a kqueue after the last fork (macOS, BSD), else
 * none and the caller polls.  SBX_WATCH_POLL_ONLY tests the fallback.
 */
#if defined(__linux__)
#define _DEFAULT_SOURCE		/* syscall(2) */
#endif

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#if defined(SBX_WATCH_POLL_ONLY) || defined(SBX_PORTABLE_ONLY)
/* a build for tests and benchmarks of the portable fallback */
#elif defined(__linux__)
#include <sys/syscall.h>
#if !defined(SYS_pidfd_open)
#define SYS_pidfd_open	434	/* the same number on every architecture */
#endif
#define HAVE_PIDFD
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || \
    defined(__NetBSD__) || defined(__DragonFly__)
#include <sys/event.h>
#include <sys/time.h>
#include <time.h>
#define HAVE_KQUEUE
#endif

#include "sbx-watch.h"

int
pidwait_open(pid_t pid)
{
#if defined(HAVE_PIDFD)
	int fd;

	if ((fd = (int)syscall(SYS_pidfd_open, pid, 0)) == -1)
		return -1;
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
#else
	(void)pid;
	return -1;
#endif
}

/* After the last fork: the descriptor to poll, or -1 to poll kill(2). */
int
pidwait_arm(pid_t pid, int pidfd)
{
#if defined(HAVE_KQUEUE)
	struct kevent ev;
	int kq;

	(void)pidfd;
	if ((kq = kqueue()) == -1)
		return -1;
	(void)fcntl(kq, F_SETFD, FD_CLOEXEC);
	EV_SET(&ev, (uintptr_t)pid, EVFILT_PROC, EV_ADD | EV_ONESHOT,
	    NOTE_EXIT, 0, NULL);
	if (kevent(kq, &ev, 1, NULL, 0, NULL) == -1) {
		close(kq);
		return -1;
	}
	return kq;
#else
	(void)pid;
	return pidfd;
#endif
}

/* How often to check anyway: poll(2) on a kqueue fails on some macOS. */
int
pidwait_recheck_ms(void)
{
#if defined(HAVE_KQUEUE)
	return 1000;
#else
	return 60000;
#endif
}

int
pidwait_ended(int fd)
{
#if defined(HAVE_KQUEUE)
	struct timespec zero = { 0, 0 };
	struct kevent ev;

	return kevent(fd, NULL, 0, &ev, 1, &zero) > 0 &&
	    ev.filter == EVFILT_PROC;
#else
	(void)fd;
	return 1;	/* a pidfd is readable once its process has exited */
#endif
}
