/* capture.c: run a child for its output, stdin /dev/null, in its own group. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sbxchild.h"

int
sbx_capture(struct sbx_result *res, char *const *argv, char *const *envp,
    int timeout)
{
	struct sbx_spawn s;
	int in, r, e;

	memset(res, 0, sizeof(*res));
	if ((in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
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
	close(in);
	errno = e;
	return r;
}
