/*
 * selfpipe.c: the process's one self-pipe, so a poll(2) loop sees signals
 * as input, in order.  An outer user's trapped signal stays trapped and
 * is handed back with sbx_selfpipe_push.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbx-internal.h"

#define MAXTRAP	32

static int sp[2] = { -1, -1 };
static volatile sig_atomic_t wfd = -1;
static struct {
	int	 signo;
	struct sigaction old;
} trapped[MAXTRAP];
static size_t ntrapped;

static void
onsignal(int signo)
{
	unsigned char c = (unsigned char)signo;
	int saved = errno;

	(void)write(wfd, &c, 1);
	errno = saved;
}

int
sbx_selfpipe(void)
{
	if (sp[0] != -1)
		return sp[0];
	if (sbx_io_pipe(sp) == -1)
		return -1;
	/* a full pipe drops a signal rather than hang the handler */
	if (fcntl(sp[0], F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(sp[1], F_SETFL, O_NONBLOCK) == -1) {
		close(sp[0]);
		close(sp[1]);
		sp[0] = sp[1] = -1;
		return -1;
	}
	wfd = sp[1];
	return sp[0];
}

static size_t
slot(int signo)
{
	size_t i;

	for (i = 0; i < ntrapped; i++)
		if (trapped[i].signo == signo)
			break;
	return i;
}

int
sbx_selfpipe_trapped(int signo)
{
	return slot(signo) < ntrapped;
}

/* Route signo into the pipe: 1 trapped now, 0 already, -1 with errno. */
int
sbx_selfpipe_trap(int signo)
{
	struct sigaction sa;

	if (sbx_selfpipe_trapped(signo))
		return 0;
	if (ntrapped == MAXTRAP || sbx_selfpipe() == -1) {
		if (ntrapped == MAXTRAP)
			errno = ENOSPC;
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = onsignal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(signo, &sa, &trapped[ntrapped].old) == -1)
		return -1;
	trapped[ntrapped++].signo = signo;
	return 1;
}

void
sbx_selfpipe_untrap(int signo)
{
	size_t i = slot(signo);

	if (i == ntrapped)
		return;
	(void)sigaction(signo, &trapped[i].old, NULL);
	trapped[i] = trapped[--ntrapped];
}

int
sbx_selfpipe_read(void)
{
	unsigned char c;
	ssize_t r;

	if (sp[0] == -1)
		return 0;
	while ((r = read(sp[0], &c, 1)) == -1 && errno == EINTR)
		;
	return r == 1 ? c : 0;
}

void
sbx_selfpipe_push(int signo)
{
	unsigned char c = (unsigned char)signo;

	if (sp[1] != -1)
		(void)write(sp[1], &c, 1);
}

/* In a new child, before exec: signals to default, the pipe closed. */
void
sbx_selfpipe_child(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ntrapped; i++)
		(void)sigaction(trapped[i].signo, &sa, NULL);
	ntrapped = 0;
	wfd = -1;
	if (sp[0] != -1) {
		close(sp[0]);
		close(sp[1]);
	}
	sp[0] = sp[1] = -1;
}
