/*
 * markerio.c: what the markers hold, one writer each, and their readers.
 * Every marker is lines of "key=value"; anything else is ignored, and a
 * missing or malformed field is EINVAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxmarker.h"
#include "sbxstate.h"

/*
 * NAME.owner (sbx-watch): "pid=", its start time "start=" (0 when the
 * platform cannot tell), "watcher=".  NAME.created (sbx-run): "created="
 * in Unix seconds, with state=creating before `sbx create` (the intent,
 * so an interrupted create is still torn down), then state=ready.
 * NAME.failed (sbx-watch): why a teardown gave up.  NAME.prewarm (sbx-run
 * -P): "time=", "status=" and after a failure a "said=" line for each
 * line said.  NAME.ports is sbx-ports' own (sbx-ports/portsmarker.c).
 */

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
sbx_markerio_owner_write(int dfd, const char *name, pid_t pid,
    unsigned long long start, pid_t watcher)
{
	char file[SBX_MARKER_MAX], text[128];

	if (sbx_marker_path(file, sizeof(file), name, SBX_M_OWNER) == -1)
		return -1;
	snprintf(text, sizeof(text), "pid=%ld\nstart=%llu\nwatcher=%ld\n",
	    (long)pid, start, (long)watcher);
	return sbx_state_write(dfd, file, text);
}

/* Read marker m of name into text; a marker too large to be ours is EINVAL. */
static int
readmarker(int dfd, const char *name, enum sbx_marker m, char *text,
    size_t size)
{
	char file[SBX_MARKER_MAX];

	if (sbx_marker_path(file, sizeof(file), name, m) == -1)
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
sbx_markerio_owner_read(int dfd, const char *name, pid_t *pid,
    unsigned long long *start)
{
	char text[512];
	long long p, s;

	if (readmarker(dfd, name, SBX_M_OWNER, text, sizeof(text)) == -1 ||
	    field(text, "pid", 1, INT_MAX, &p) == -1 ||
	    field(text, "start", 0, LLONG_MAX, &s) == -1)
		return -1;
	*pid = (pid_t)p;
	*start = (unsigned long long)s;
	return 0;
}

/* The created= time of NAME.created; -1 with ENOENT or EINVAL as above. */
int
sbx_markerio_created_read(int dfd, const char *name, long long *when)
{
	char text[4096];

	if (readmarker(dfd, name, SBX_M_CREATED, text, sizeof(text)) == -1)
		return -1;
	return field(text, "created", 0, LLONG_MAX, when);
}

/*
 * Write NAME.created in state (SBX_CREATING or SBX_READY) for the
 * workspace mounted in mode ("rw" or "ro").  by= names the writer, so two
 * provisionings in the same second still differ.
 */
int
sbx_markerio_created_write(int dfd, const char *name, const char *state,
    const char *workspace, const char *mode)
{
	char file[SBX_MARKER_MAX], text[PATH_MAX + 192];

	if (sbx_marker_path(file, sizeof(file), name, SBX_M_CREATED) == -1)
		return -1;
	snprintf(text, sizeof(text), "created=%lld\nstate=%s\nby=%ld\n"
	    "workspace=%s\nmode=%s\n", (long long)time(NULL), state,
	    (long)getpid(), workspace, mode);
	return sbx_state_write(dfd, file, text);
}

/* The whole text of NAME.created; -1 with ENOENT or EINVAL as above. */
int
sbx_markerio_created_text(int dfd, const char *name, char *text, size_t size)
{
	return readmarker(dfd, name, SBX_M_CREATED, text, size);
}

/* The workspace= of NAME.created; -1 with ENOENT or EINVAL as above. */
int
sbx_markerio_created_workspace(int dfd, const char *name, char *buf,
    size_t size)
{
	char text[PATH_MAX + 192];

	if (readmarker(dfd, name, SBX_M_CREATED, text, sizeof(text)) == -1)
		return -1;
	if (sbx_state_field(text, "workspace", buf, size) == NULL ||
	    *buf != '/')
		return errno = EINVAL, -1;
	return 0;
}

/*
 * The session workspaces a program that knows only the sandbox's name
 * knows: the one NAME.created of the state directory records, if any,
 * into buf.  Returns list, filled and NULL-terminated (list[0] NULL when
 * there is none), for sbx_xcli_find and sbx_sibling.  A relative
 * SBX_STATE_DIR exits 64, as everywhere.
 */
char **
sbx_xmarkerio_session_ws(const char *name, char *buf, size_t size,
    char *list[2])
{
	char dir[PATH_MAX];
	int dfd;

	list[0] = list[1] = NULL;
	if (sbx_xstatedir_path(dir, sizeof(dir)) == -1 ||
	    (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return list;
	if (sbx_markerio_created_workspace(dfd, name, buf, size) == 0)
		list[0] = buf;
	close(dfd);
	return list;
}

/*
 * Write NAME.failed: the teardown action that gave up after tries, its
 * last status and the first line sbx said (already fit to show).
 */
int
sbx_markerio_failed_write(int dfd, const char *name, const char *action,
    int tries, int status, const char *error)
{
	char file[SBX_MARKER_MAX], text[512];

	if (sbx_marker_path(file, sizeof(file), name, SBX_M_FAILED) == -1)
		return -1;
	snprintf(text, sizeof(text), "time=%lld\naction=%s\ntries=%d\n"
	    "status=%d\nerror=%s\n", (long long)time(NULL), action, tries,
	    status, error);
	return sbx_state_write(dfd, file, text);
}

/*
 * Write NAME.prewarm: the status a provisioning ahead of the first call
 * ended with and, when it failed, what it said (len bytes of said, the
 * end of it when there is more than a marker may hold).
 */
int
sbx_markerio_prewarm_write(int dfd, const char *name, int status,
    const char *said, size_t len)
{
	char file[SBX_MARKER_MAX], text[4096], *t;	/* a marker's most */
	size_t i, n, max = SBX_PREWARM_SAID;

	if (sbx_marker_path(file, sizeof(file), name, SBX_M_PREWARM) == -1)
		return -1;
	n = (size_t)snprintf(text, sizeof(text), "time=%lld\nstatus=%d\n",
	    (long long)time(NULL), status);
	if (status == 0)
		len = 0;
	if (len > max) {
		/* the end: sbx-run's own summary comes last */
		said += len - max;
		len = max;
		while (len > 0 && *said != '\n')
			said++, len--;
	}
	t = text + n;
	/* room for "said=", a byte and the newline at the end of each */
	for (i = 0; i < len && t + 8 < text + sizeof(text); i++) {
		if (t == text + n || t[-1] == '\n') {
			if (said[i] == '\n')
				continue;	/* no empty said= lines */
			memcpy(t, "said=", 5);
			t += 5;
		}
		/* NUL would end the text; the rest is sbx's, as it was */
		*t = said[i];
		if (*t++ == '\0')
			t[-1] = '?';
	}
	if (t > text + n && t[-1] != '\n')
		*t++ = '\n';
	*t = '\0';
	return sbx_state_write(dfd, file, text);
}

/*
 * Read NAME.prewarm: its time and status and, into said, its said=
 * lines (without the key) as they were.  -1 with ENOENT or EINVAL.
 */
int
sbx_markerio_prewarm_read(int dfd, const char *name, long long *when,
    int *status, char *said, size_t size)
{
	char text[4096 + 1], *line, *next;
	long long s;
	size_t n = 0, l;

	if (readmarker(dfd, name, SBX_M_PREWARM, text, sizeof(text)) == -1 ||
	    field(text, "time", 0, LLONG_MAX, when) == -1 ||
	    field(text, "status", 0, 255, &s) == -1)
		return -1;
	*status = (int)s;
	if (size > 0)
		said[0] = '\0';
	for (line = text; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (strncmp(line, "said=", 5) != 0)
			continue;
		l = strlen(line + 5);
		if (n + l + 2 > size)
			break;
		memcpy(said + n, line + 5, l);
		n += l;
		said[n++] = '\n';
		said[n] = '\0';
	}
	return 0;
}
