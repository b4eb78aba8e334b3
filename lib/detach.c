/* detach.c: what a process outliving its caller lets go of: no reader waits. */
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

#include "sbxchild.h"

#define FD_SCAN_MAX	65536	/* descriptors looked at past stderr */

void
sbx_detach_stdio_null(void)
{
	int fd;

	if ((fd = open("/dev/null", O_RDWR)) == -1)
		return;
	(void)dup2(fd, STDIN_FILENO);
	(void)dup2(fd, STDOUT_FILENO);
	(void)dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

void
sbx_detach_close_others(const int *keep, size_t nkeep)
{
	long max, fd;
	size_t i;

	if ((max = sysconf(_SC_OPEN_MAX)) <= 0 || max > FD_SCAN_MAX)
		max = FD_SCAN_MAX;
	for (fd = STDERR_FILENO + 1; fd < max; fd++) {
		for (i = 0; i < nkeep && keep[i] != fd; i++)
			;
		if (i == nkeep)
			(void)close((int)fd);
	}
}
