/*
 * markers.c: sbx-gc's view of the state directory: whether a session is
 * alive, removing a sandbox's markers, and the sweep of markers whose
 * sandbox no longer exists; below them, what both sweeps share (the -x
 * test, the listing's order, the lines of -v and -n).  Everything comes
 * in as the sweep's struct gc: nothing here reaches up into sbx-gc.c.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxmarker.h"
#include "sbxname.h"
#include "sbxpolicy.h"
#include "sbxrecord.h"
#include "sbxstate.h"
#include "sbxtrip.h"
#include "sbx-gc.h"

/* Named with -x? */
int
markers_excluded(const struct gc *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->nexcluded; i++)
		if (strcmp(g->excluded[i], name) == 0)
			return 1;
	return 0;
}

/* qsort(3) and bsearch(3) order of the listing: by name. */
int
markers_boxcmp(const void *a, const void *b)
{
	return strcmp(((const struct box *)a)->name,
	    ((const struct box *)b)->name);
}

/* One line of -v or -n output. */
void
markers_say(const char *what, const char *name, const char *why)
{
	printf("%s %s: %s\n", what, name, why);
}

/*
 * Remove every marker of name but keep; a lock only if nobody holds it.
 * The session's record stays, closed, as a past session's.
 */
void
markers_drop(const struct gc *g, const char *name, unsigned keep)
{
	char file[SBX_MARKER_MAX];
	unsigned failed;
	int m, e;

	/* what the session left for the host to run, told before the end */
	if (sbx_marker_present(g->dfd, name, SBX_M_TRIPWIRE))
		(void)sbx_tripseen_check(g->dfd, name, SBX_TRIP_FULL |
		    SBX_TRIP_QUIET);
	(void)sbx_record_keep(g->dfd, name, "\"by\":\"sbx-gc\"");
	if ((failed = sbx_marker_drop(g->dfd, name, SBX_MB_ALL & ~keep,
	    0)) == 0)
		return;
	e = errno;
	for (m = 0; m < SBX_M_COUNT; m++)
		if (failed & SBX_MB(m)) {
			(void)sbx_marker_path(file, sizeof(file), name, m);
			errno = e;
			warn("%s/%s", g->statedir, file);
		}
}

/*
 * The rules and credentials NAME.egress records for an ended session,
 * removed from sbx: 0, or -1 (said; the record stays for the next sweep).
 * Only what the record names: never a rule the user made.
 */
int
markers_rules(const struct gc *g, const char *name)
{
	struct sbx_policycli pc;
	char why[512];

	if (!sbx_marker_present(g->dfd, name, SBX_M_EGRESS))
		return 0;
	if (g->nflag) {
		markers_say("would remove the network rules of", name,
		    "its session ended");
		return 0;
	}
	memset(&pc, 0, sizeof(pc));
	pc.sbx = g->sbx;
	pc.env = g->env;
	pc.name = name;
	pc.timeout = g->timeout;
	pc.dfd = g->dfd;
	if (sbx_egressapply_remove(&pc, g->dfd, why, sizeof(why)) == -1) {
		warnx("sandbox %s: its network rules: %s", name, why);
		return -1;
	}
	if (g->vflag)
		markers_say("removed the network rules of", name,
		    "its session ended");
	return 0;
}

/* Is name of the generated shape for our prefix?  Its pid to *pid. */
int
markers_namepid(const struct gc *g, const char *name, pid_t *pid)
{
	return sbx_name_pid(name, g->prefix, pid);
}

/*
 * Is the session of name still alive?  1 with a reason if so, or if we
 * cannot tell (a marker we did not write keeps the sandbox, loudly).
 * With no owner marker here (the session may keep its markers in another
 * state directory, or run sbx-run with no watcher), the pid in the name
 * is the session: while it lives, the sandbox is its.
 */
int
markers_alive(const struct gc *g, const char *name, char *why, size_t size)
{
	char file[SBX_MARKER_MAX];
	unsigned long long start;
	pid_t pid;

	(void)sbx_marker_path(file, sizeof(file), name, SBX_M_LOCK);
	if ((pid = sbx_lock_holder(g->dfd, file)) > 0) {
		snprintf(why, size, "watched by pid %ld", (long)pid);
		return 1;
	}
	if (pid == -1) {
		warnx("sandbox %s: %s/%s: %s, keeping it", name, g->statedir,
		    file, errno == EINVAL ? "not a lock file of ours" :
		    strerror(errno));
		snprintf(why, size, "unreadable lock file");
		return 1;
	}
	if (sbx_markerio_owner_read(g->dfd, name, &pid, &start) == 0) {
		if (sbx_proc_alive(pid, start)) {
			snprintf(why, size, "owner pid %ld alive", (long)pid);
			return 1;
		}
		return 0;
	}
	if (errno == ENOENT) {
		if (!markers_namepid(g, name, &pid) ||
		    (sbx_proc_start(pid, &start) == -1 && errno == ESRCH))
			return 0;
		snprintf(why, size, "no owner marker, and pid %ld of its "
		    "name is alive", (long)pid);
		return 1;
	}
	(void)sbx_marker_path(file, sizeof(file), name, SBX_M_OWNER);
	warnx("sandbox %s: %s/%s: %s, keeping it", name, g->statedir, file,
	    errno == EINVAL ? "not an owner marker" : strerror(errno));
	snprintf(why, size, "unreadable owner marker");
	return 1;
}

static int
strpcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in the state directory that carry any marker, sorted. */
static char **
markernames(const struct gc *g, size_t *np)
{
	struct dirent *de;
	char **v = NULL, **nv, name[SBX_NAME_MAX + 1];
	size_t n = 0, cap = 0;
	DIR *d;
	int fd;

	*np = 0;
	fd = openat(g->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		warn("%s", g->statedir);
		if (fd != -1)
			close(fd);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		if (sbx_marker_parse(de->d_name, name, sizeof(name)) == -1)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
				err(SBX_EX_FAIL, NULL);
			v = nv;
		}
		if ((v[n++] = strdup(name)) == NULL)
			err(SBX_EX_FAIL, NULL);
	}
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), strpcmp);
	*np = n;
	return v;
}

/*
 * The workspaces of every NAME.created here, NULL-terminated: no sbx is
 * run from inside one of them, since a sandbox can write its own.
 */
char **
markers_workspaces(const struct gc *g)
{
	char **names, **ws, buf[PATH_MAX];
	size_t n, i, k = 0;

	if ((names = markernames(g, &n)) == NULL)
		n = 0;
	if ((ws = calloc(n + 1, sizeof(*ws))) == NULL)
		err(SBX_EX_FAIL, NULL);
	for (i = 0; i < n; i++) {
		if (sbx_markerio_created_workspace(g->dfd, names[i], buf,
		    sizeof(buf)) == 0 && (ws[k] = strdup(buf)) != NULL)
			k++;
		free(names[i]);
	}
	free(names);
	return ws;
}

/* Was any marker of name written since the listing began, or exists? */
static int
markerstat(const struct gc *g, const char *name, time_t since,
    int *fresh)
{
	char file[SBX_MARKER_MAX];
	struct stat st;
	int m, any = 0;

	*fresh = 0;
	for (m = 0; m < SBX_M_COUNT; m++) {
		if ((sbx_marker_flags(m) & SBX_MF_NONCE) ||
		    sbx_marker_path(file, sizeof(file), name, m) == -1 ||
		    fstatat(g->dfd, file, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (st.st_mtime >= since)
			*fresh = 1;
		/* a lock file or scratch dir alone is no sandbox's marker;
		   the rules a record names are ours to remove, its sandbox
		   gone */
		if (sbx_marker_flags(m) & (SBX_MF_OURS | SBX_MF_RECORD))
			any = 1;
	}
	return any;
}

/*
 * Take name's provisioning lock without waiting: its descriptor, or -1
 * while sbx-run provisions it (-v says so: "what name: being ...").
 */
int
markers_provlock(const struct gc *g, const char *name, const char *what)
{
	int fd;

	if ((fd = sbx_lock_name(g->dfd, SBX_PROVISION_LOCK, name, 0)) != -1)
		return fd;
	if (errno != EAGAIN)
		warn("%s/%s", g->statedir, SBX_PROVISION_LOCK);
	else if (g->vflag)
		markers_say(what, name, "being provisioned");
	return -1;
}

/* The markers of a sandbox sbx does not list, unless its session lives. */
static void
orphan(const struct gc *g, const char *name)
{
	char why[160];

	if (markers_alive(g, name, why, sizeof(why))) {
		if (g->vflag)
			markers_say("kept markers of", name, why);
		return;
	}
	if (g->nflag) {
		markers_say("would remove markers of", name, "no such sandbox");
		return;
	}
	markers_drop(g, name, markers_rules(g, name) == -1 ?
	    SBX_MB(SBX_M_EGRESS) : 0);
	if (g->vflag)
		markers_say("removed markers of", name, "no such sandbox");
}

/* Markers and scratch dirs of sandboxes that no longer exist. */
void
markers_sweep_orphans(const struct gc *g, const struct box *boxes,
    size_t nboxes, time_t since)
{
	char **names;
	struct box key;
	size_t n, i;
	int fresh, lfd;

	if ((names = markernames(g, &n)) == NULL)
		return;
	for (i = 0; i < n; i++) {
		if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
			continue;
		key.name = names[i];
		if (nboxes > 0 && bsearch(&key, boxes, nboxes, sizeof(*boxes),
		    markers_boxcmp) != NULL)
			continue;
		if (markers_excluded(g, names[i]))
			continue;
		/* a provisioning writes them: never swept under its feet */
		if ((lfd = markers_provlock(g, names[i],
		    "kept markers of")) == -1)
			continue;
		if (markerstat(g, names[i], since, &fresh) && !fresh)
			orphan(g, names[i]);
		close(lfd);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
