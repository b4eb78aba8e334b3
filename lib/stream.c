/*
 * stream.c: one output stream of a supervised child: captured, held, or
 * passed on in PIPE_BUF pieces as the destination polls writable.  The
 * child's pipe is not read while anything is pending, so a stalled reader
 * stalls the child, not us.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbx-internal.h"

#define HOLD_MAX	(64 * 1024)	/* stderr held back at most */
#define CAPTURE_MAX	(64 * 1024 * 1024)

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
	return sbx_io_buf_add(&st->pend, p, n);
}

static int
held(const struct sbx_stream *st)
{
	return st->holding != NULL && *st->holding;
}

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

/* The last SBX_TAIL_MAX bytes relayed, kept for a reading after the end. */
static void
tail_add(struct sbx_stream *st, const char *p, size_t n)
{
	size_t keep;

	if (n >= SBX_TAIL_MAX) {
		memcpy(st->tail, p + n - SBX_TAIL_MAX, SBX_TAIL_MAX);
		*st->taillen = SBX_TAIL_MAX;
		return;
	}
	keep = *st->taillen + n > SBX_TAIL_MAX ? SBX_TAIL_MAX - n : *st->taillen;
	memmove(st->tail, st->tail + *st->taillen - keep, keep);
	memcpy(st->tail + keep, p, n);
	*st->taillen = keep + n;
}

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
	if (st->tail != NULL)
		tail_add(st, chunk, (size_t)r);
	if (st->capture || held(st)) {
		if (st->buf->len + (size_t)r > CAPTURE_MAX)
			return 1;
		if (sbx_io_buf_add(st->buf, chunk, (size_t)r) == -1)
			return -1;
		return held(st) && hold_check(st) == -1 ? -1 : 1;
	}
	return pass(st, chunk, (size_t)r) == -1 ? -1 : 1;
}

/* One write once dst polls writable; a reader gone closes the child's pipe. */
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
