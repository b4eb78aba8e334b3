/*
 * lock.c: fcntl(2) record locks on files in the state directory.  The
 * kernel drops a lock when its holder dies, so a lock never goes stale.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"

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

/*
 * Take a write lock on file, waiting for it if wait is set.  Returns the
 * descriptor that holds it (close it to release), or -1: EAGAIN when
 * another process holds it and wait is not set.
 */
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

/* The pid holding a lock on file, 0 if none, -1 on error. */
pid_t
sbx_lock_holder(int dfd, const char *file)
{
	struct flock fl;
	int fd;

	if ((fd = lockfd(dfd, file, 0)) == -1)
		return errno == ENOENT ? 0 : -1;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	if (fcntl(fd, F_GETLK, &fl) == -1) {
		close(fd);
		return -1;
	}
	close(fd);
	return fl.l_type == F_UNLCK ? 0 : fl.l_pid;
}
