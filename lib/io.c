/* io.c: whole writes, a growable buffer, a checked stdout, a cloexec pipe. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"

int
sbx_io_writeall(int fd, const void *p, size_t n)
{
	const char *s = p;
	struct pollfd pfd;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, s, n)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				/* a non-blocking descriptor we were given: wait */
				pfd.fd = fd;
				pfd.events = POLLOUT;
				(void)poll(&pfd, 1, -1);
				continue;
			}
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int
sbx_io_buf_add(struct sbx_buf *b, const void *p, size_t n)
{
	char *d;
	size_t cap;

	if (n > (size_t)-1 / 2 - b->len - 1) {
		errno = ENOMEM;
		return -1;
	}
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		if ((d = realloc(b->data, cap)) == NULL)
			return -1;
		b->data = d;
		b->cap = cap;
	}
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

void
sbx_io_buf_free(struct sbx_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int
sbx_io_buf_readfd(struct sbx_buf *b, int fd, size_t max)
{
	char chunk[4096];
	ssize_t r;

	for (;;) {
		if ((r = read(fd, chunk, sizeof(chunk))) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			return 0;
		if (b->len + (size_t)r > max) {
			errno = ERANGE;
			return -1;
		}
		if (sbx_io_buf_add(b, chunk, (size_t)r) == -1)
			return -1;
	}
}

int
sbx_io_fshut(void)
{
	int bad;

	bad = fflush(stdout) != 0;
	bad |= ferror(stdout) != 0;
	bad |= fclose(stdout) != 0;
	return bad ? -1 : 0;
}

int
sbx_io_pipe(int fd[2])
{
	int e;

	if (pipe(fd) == -1)
		return -1;
	if (fcntl(fd[0], F_SETFD, FD_CLOEXEC) == -1 ||
	    fcntl(fd[1], F_SETFD, FD_CLOEXEC) == -1) {
		e = errno;
		close(fd[0]);
		close(fd[1]);
		errno = e;
		return -1;
	}
	return 0;
}
