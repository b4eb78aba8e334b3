/* capture.c: run a child for its output, in its own group; stdin /dev/null or one given. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sbxchild.h"

int
sbx_capture(struct sbx_result *res, char *const *argv, char *const *envp,
    int timeout)
{
	return sbx_capture_in(res, argv, envp, timeout, -1);
}

/* sbx_capture with stdin fd (the caller's to close), or /dev/null for -1. */
int
sbx_capture_in(struct sbx_result *res, char *const *argv, char *const *envp,
    int timeout, int fd)
{
	struct sbx_spawn s;
	int in = fd, r, e;

	memset(res, 0, sizeof(*res));
	if (fd == -1 && (in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	memset(&s, 0, sizeof(s));
	s.argv = argv;
	s.envp = envp;
	s.timeout = timeout;
	s.newpgrp = 1;
	s.in = in;
	s.capture_out = 1;
	s.capture_err = 1;
	r = sbx_supervise(&s, res);
	e = errno;
	if (fd == -1)
		close(in);
	errno = e;
	return r;
}
