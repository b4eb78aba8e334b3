/*
 * capture.c: run a child for its output: standard input on /dev/null,
 * its own process group (a timeout kills all of it), standard output and
 * standard error collected.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"

/* As sbx_cmd_run; c is filled in here.  Free it with sbx_cmd_free. */
int
sbx_cmd_capture(struct sbx_cmd *c, char *const *argv, char *const *envp,
    int timeout)
{
	int in, r, e;

	memset(c, 0, sizeof(*c));
	if ((in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	c->argv = argv;
	c->envp = envp;
	c->timeout = timeout;
	c->newpgrp = 1;
	c->in = in;
	c->capture_out = 1;
	c->capture_err = 1;
	r = sbx_cmd_run(c);
	e = errno;
	close(in);
	errno = e;
	return r;
}
