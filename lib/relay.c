/*
 * relay.c: one output stream of a supervised child.  What it writes is
 * captured, held back (stderr, while a predicate says so) or passed on to
 * our own descriptor.  Passing on never blocks the supervision: the text
 * waits in a pending buffer until the destination polls writable, goes
 * out at most PIPE_BUF bytes at a time (a pipe that polls writable takes
 * that much without blocking; a regular file takes it all), and the
 * child's pipe is not read while anything is pending, so a reader that
 * stalls stalls the child, not us.  Our descriptors stay blocking: they
 * are shared with others.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbx-internal.h"

#define HOLD_MAX	(64 * 1024)	/* stderr held back at most */
#define CAPTURE_MAX	(64 * 1024 * 1024)

/* A regular file never makes a writer wait: it takes all at once. */
void
sbx_stream_init(struct sbx_stream *st, int dst, int capture,
    struct sbx_buf *buf)
{
	struct stat sb;

	memset(st, 0, sizeof(*st));
	st->fd = -1;
	st->dst = dst;
	st->capture = capture;
	st->buf = buf;
	st->file = fstat(dst, &sb) == 0 && S_ISREG(sb.st_mode);
}

int
sbx_stream_pending(const struct sbx_stream *st)
{
	return st->off < st->pend.len;
}

static int
pass(struct sbx_stream *st, const char *p, size_t n)
{
	if (st->gone)
		return 0;
	if (st->off == st->pend.len)
		st->off = st->pend.len = 0;
	return sbx_buf_add(&st->pend, p, n);
}

static int
held(const struct sbx_stream *st)
{
	return st->holding != NULL && *st->holding;
}

/* Held stderr goes out once the predicate lets go of it. */
static int
hold_check(struct sbx_stream *st)
{
	if (!held(st) || st->buf->len == 0)
		return 0;
	/* asked at every piece, so a prompt without a newline goes out */
	if (st->buf->len < HOLD_MAX &&
	    st->hold(st->buf->data, st->buf->len, st->hold_arg))
		return 0;
	*st->holding = 0;
	if (pass(st, st->buf->data, st->buf->len) == -1)
		return -1;
	st->buf->len = 0;
	return 0;
}

/* Read what is there; 0 at EOF, -1 on a real error. */
int
sbx_stream_read(struct sbx_stream *st)
{
	char chunk[8192];
	ssize_t r;

	if ((r = read(st->fd, chunk, sizeof(chunk))) == -1)
		return errno == EINTR || errno == EAGAIN ? 1 : -1;
	if (r == 0)
		return 0;
	if (st->counted != NULL)
		*st->counted += (unsigned long long)r;
	if (st->capture || held(st)) {
		if (st->buf->len + (size_t)r > CAPTURE_MAX)
			return 1;	/* drop beyond the cap, keep reading */
		if (sbx_buf_add(st->buf, chunk, (size_t)r) == -1)
			return -1;
		return held(st) && hold_check(st) == -1 ? -1 : 1;
	}
	return pass(st, chunk, (size_t)r) == -1 ? -1 : 1;
}

/*
 * One write of what is pending, once dst polled writable.  A reader that
 * is gone drops the rest; when relaying, the child's pipe closes too, so
 * the child meets EPIPE as it would writing there itself.
 */
void
sbx_stream_write(struct sbx_stream *st)
{
	size_t n = st->pend.len - st->off;
	ssize_t w;

	if (n > PIPE_BUF && !st->file)
		n = PIPE_BUF;
	while ((w = write(st->dst, st->pend.data + st->off, n)) == -1 &&
	    errno == EINTR)
		;
	if (w > 0) {
		st->off += (size_t)w;
		return;
	}
	if (w == -1 && errno == EAGAIN)
		return;
	st->gone = 1;
	st->off = st->pend.len = 0;
	if (st->counted != NULL && st->fd != -1) {
		close(st->fd);
		st->fd = -1;
	}
}
