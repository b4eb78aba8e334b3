/*
 * marker.c: the per-sandbox markers that sbx-watch writes and sbx-gc
 * reads.  NAME.owner holds the session process as "pid=", its start time
 * as "start=" (0 when the platform cannot tell) and the watcher as
 * "watcher="; NAME.created holds "created=" in Unix seconds.  Anything
 * else in them is ignored; a missing or malformed field is EINVAL.
 * sbx-run writes NAME.created twice: with state=creating before `sbx
 * create` runs (the intent, so an interrupted create is still torn down
 * and swept), then with state=ready once it succeeded.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"

static int
markerpath(char *buf, size_t size, const char *name, const char *suffix)
{
	int n;

	if (!sbx_name_valid(name))
		return errno = EINVAL, -1;
	n = snprintf(buf, size, "%s.%s", name, suffix);
	if (n < 0 || (size_t)n >= size)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

static int
field(const char *content, const char *key, long long min, long long max,
    long long *v)
{
	char buf[32];
	const char *errstr;

	if (sbx_state_field(content, key, buf, sizeof(buf)) == NULL)
		return errno = EINVAL, -1;
	*v = sbx_strtonum(buf, min, max, &errstr);
	if (errstr != NULL)
		return errno = EINVAL, -1;
	return 0;
}

int
sbx_owner_write(int dfd, const char *name, pid_t pid,
    unsigned long long start, pid_t watcher)
{
	char file[SBX_NAME_MAX + 16], text[128];

	if (markerpath(file, sizeof(file), name, "owner") == -1)
		return -1;
	snprintf(text, sizeof(text), "pid=%ld\nstart=%llu\nwatcher=%ld\n",
	    (long)pid, start, (long)watcher);
	return sbx_state_write(dfd, file, text);
}

/* Read NAME.SUFFIX into text; a marker too large to be ours is EINVAL. */
static int
readmarker(int dfd, const char *name, const char *suffix, char *text,
    size_t size)
{
	char file[SBX_NAME_MAX + 16];

	if (markerpath(file, sizeof(file), name, suffix) == -1)
		return -1;
	if (sbx_state_read(dfd, file, text, size) == -1) {
		if (errno == EFBIG)
			errno = EINVAL;
		return -1;
	}
	return 0;
}

/*
 * Read NAME.owner.  Returns 0, or -1 with errno ENOENT when there is
 * none and EINVAL when it is not a marker we wrote.
 */
int
sbx_owner_read(int dfd, const char *name, pid_t *pid,
    unsigned long long *start)
{
	char text[512];
	long long p, s;

	if (readmarker(dfd, name, "owner", text, sizeof(text)) == -1 ||
	    field(text, "pid", 1, INT_MAX, &p) == -1 ||
	    field(text, "start", 0, LLONG_MAX, &s) == -1)
		return -1;
	*pid = (pid_t)p;
	*start = (unsigned long long)s;
	return 0;
}

/* The created= time of NAME.created; -1 with ENOENT or EINVAL as above. */
int
sbx_created_read(int dfd, const char *name, long long *when)
{
	char text[4096];

	if (readmarker(dfd, name, "created", text, sizeof(text)) == -1)
		return -1;
	return field(text, "created", 0, LLONG_MAX, when);
}

/*
 * Write NAME.created in state (SBX_CREATING or SBX_READY) for the
 * workspace mounted in mode ("rw" or "ro").  by= names the writer, so two
 * provisionings in the same second still differ.
 */
int
sbx_created_write(int dfd, const char *name, const char *state,
    const char *workspace, const char *mode)
{
	char file[SBX_NAME_MAX + 16], text[PATH_MAX + 192];

	if (markerpath(file, sizeof(file), name, "created") == -1)
		return -1;
	snprintf(text, sizeof(text), "created=%lld\nstate=%s\nby=%ld\n"
	    "workspace=%s\nmode=%s\n", (long long)time(NULL), state,
	    (long)getpid(), workspace, mode);
	return sbx_state_write(dfd, file, text);
}

/* The whole text of NAME.created; -1 with ENOENT or EINVAL as above. */
int
sbx_created_text(int dfd, const char *name, char *text, size_t size)
{
	return readmarker(dfd, name, "created", text, size);
}
