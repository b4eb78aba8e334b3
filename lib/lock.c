/*
 * lock.c: fcntl(2) record locks, which die with their holder.  A lock is
 * a whole file, or one byte per sandbox of a shared file that is never
 * removed, so no waiter holds a lock on a file that is gone.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbxstate.h"
#include "sbxtime.h"

static int
lockfd(int dfd, const char *file, int create)
{
	struct stat st;
	int fd;

	fd = openat(dfd, file, O_RDWR | O_NOFOLLOW | O_CLOEXEC |
	    (create ? O_CREAT : 0), 0600);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid()) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* A write lock on file, waiting if wait is set: the fd holding it, or -1. */
int
sbx_lock(int dfd, const char *file, int wait)
{
	struct flock fl;
	int fd, r, e;

	if ((fd = lockfd(dfd, file, 1)) == -1)
		return -1;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	while ((r = fcntl(fd, wait ? F_SETLKW : F_SETLK, &fl)) == -1 &&
	    errno == EINTR)
		;
	if (r == -1) {
		e = errno == EACCES ? EAGAIN : errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The pid holding bytes start..start+len of file (len 0: to its end). */
static pid_t
holder(int dfd, const char *file, off_t start, off_t len)
{
	struct flock fl;
	int fd;

	if ((fd = lockfd(dfd, file, 0)) == -1)
		return errno == ENOENT ? 0 : -1;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = start;
	fl.l_len = len;
	if (fcntl(fd, F_GETLK, &fl) == -1) {
		close(fd);
		return -1;
	}
	close(fd);
	return fl.l_type == F_UNLCK ? 0 : fl.l_pid;
}

pid_t
sbx_lock_holder(int dfd, const char *file)
{
	return holder(dfd, file, 0, 0);
}

/* The byte of a shared lock file that stands for name: FNV-1a, positive. */
static off_t
slot(const char *name)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *name != '\0'; name++) {
		h ^= (unsigned char)*name;
		h *= 1099511628211ULL;
	}
	return (off_t)(h >> (sizeof(off_t) > 4 ? 2 : 34));
}

/* A lock of type on fd within ms (< 0: no limit); -1: EAGAIN, ETIMEDOUT. */
int
sbx_lock_setlk(int fd, short type, off_t start, off_t len, long long ms)
{
	struct flock fl;
	struct timespec ts;
	long long until = ms > 0 ? sbx_clock_now_ms() + ms : 0, left;
	int e;

	for (;;) {
		memset(&fl, 0, sizeof(fl));
		fl.l_type = type;
		fl.l_whence = SEEK_SET;
		fl.l_start = start;
		fl.l_len = len;
		if (fcntl(fd, ms < 0 ? F_SETLKW : F_SETLK, &fl) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		e = errno == EACCES ? EAGAIN : errno;
		if (e != EAGAIN || ms == 0 ||
		    (left = until - sbx_clock_now_ms()) <= 0)
			break;
		/* no timed wait for a record lock: a short poll instead */
		ts.tv_sec = 0;
		ts.tv_nsec = (left < 50 ? left : 50) * 1000000L;
		(void)nanosleep(&ts, NULL);
	}
	errno = e == EAGAIN && ms > 0 ? ETIMEDOUT : e;
	return -1;
}

/*
 * name's lock in the shared file, waiting as sbx_lock_setlk does; closing
 * any fd of the file releases it.
 */
int
sbx_lock_name(int dfd, const char *file, const char *name, long long ms)
{
	int fd, e;

	if ((fd = lockfd(dfd, file, 1)) == -1)
		return -1;
	if (sbx_lock_setlk(fd, F_WRLCK, slot(name), 1, ms) == 0)
		return fd;
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

pid_t
sbx_lock_name_holder(int dfd, const char *file, const char *name)
{
	return holder(dfd, file, slot(name), 1);
}
