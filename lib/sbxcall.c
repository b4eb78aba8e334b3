/*
 * sbxcall.c: one sbx call whose output is all sbx's own.  stdin is
 * /dev/null, so sbx never asks the caller's terminal; --no-input goes
 * after the verb, dropped (and the refusal cached per binary) where sbx
 * refuses it; a lost daemon start race is tried again.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxstate.h"
#include "sbxtime.h"
#include "sbx-internal.h"

/* Which sbx binary this is, as a cache of its refusals records it. */
void
sbx_call_identity(const char *sbx, char *buf, size_t size)
{
	struct stat st;

	if (stat(sbx, &st) == -1) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, size, "refused %llu %llu %lld %lld\n",
	    (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
	    (long long)st.st_size, (long long)st.st_mtime);
}

static int
refused_before(int dfd, const char *id)
{
	char buf[128];

	return dfd != -1 && id[0] != '\0' &&
	    sbx_state_read(dfd, SBX_NOINPUT_CACHE, buf, sizeof(buf)) != -1 &&
	    strcmp(buf, id) == 0;
}

/* Run argv (sbx, verb, ...); dfd the state directory or -1.  As sbx_capture. */
int
sbx_call(struct sbx_result *res, char *const *argv, char *const *envp,
    int timeout, int dfd)
{
	return sbx_call_input(res, argv, envp, timeout, dfd, NULL, 0);
}

/* A pipe holding the whole of in, for the child's stdin; -1 (errno). */
static int
input_pipe(const char *in, size_t len)
{
	int p[2], e;

	if (sbx_io_pipe(p) == -1)
		return -1;
	/* a credential's bound is far below any pipe's capacity */
	if (len > SBX_CALL_INPUT_MAX || sbx_io_writeall(p[1], in, len) == -1) {
		e = len > SBX_CALL_INPUT_MAX ? EFBIG : errno;
		close(p[0]);
		close(p[1]);
		errno = e;
		return -1;
	}
	close(p[1]);
	return p[0];
}

/* sbx_call with in (len bytes, NULL: nothing) on sbx's stdin. */
int
sbx_call_input(struct sbx_result *res, char *const *argv, char *const *envp,
    int timeout, int dfd, const char *in, size_t len)
{
	char **av, id[128];
	size_t n, i;
	long delay = SBX_RACE_MS;
	int try, flag, fd, r, rv = 0;

	for (n = 0; argv[n] != NULL; n++)
		;
	if (n < 2) {
		errno = EINVAL;
		return -1;
	}
	if ((av = calloc(n + 2, sizeof(*av))) == NULL)
		return -1;
	sbx_call_identity(argv[0], id, sizeof(id));
	flag = !refused_before(dfd, id);
	for (try = 1;; try++) {
		av[0] = argv[0];
		av[1] = argv[1];
		i = 2;
		if (flag)
			av[i++] = "--no-input";
		memcpy(av + i, argv + 2, (n - 2) * sizeof(*av));
		av[i + n - 2] = NULL;
		if (in == NULL)
			fd = -1;
		else if ((fd = input_pipe(in, len)) == -1) {
			rv = -1;
			break;
		}
		r = sbx_capture_in(res, av, envp, timeout, fd);
		if (fd != -1)
			close(fd);
		if (r == -1) {
			rv = -1;
			break;
		}
		res->tries = try;
		if (res->status == 0 || res->timedout || res->signo != 0)
			break;
		if (flag && sbx_says_unknown_flag(res->err.data,
		    "--no-input")) {
			if (dfd != -1 && id[0] != '\0')
				(void)sbx_state_write(dfd, SBX_NOINPUT_CACHE,
				    id);
			flag = 0;
		} else if (try < SBX_RACE_TRIES && sbx_says_race(res->err.data)) {
			sbx_clock_pause_ms(delay);
			delay *= 2;
		} else
			break;
		sbx_supervise_result_free(res);
	}
	free(av);
	return rv;
}
