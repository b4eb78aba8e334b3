/*
 * imgload.c: the image cache's load (sbx-tools(7), IMAGE CACHE), right
 * after a create of ours: the entry checked on the host (imgcheck.c),
 * then a detached child holds the sandbox's load lock for one stamped
 * `sbx exec -i` of `docker load`, its stdin the archive the host writes
 * (imgwrite.c).  Past its bound it is ended inside and the entry dropped.
 * Nothing here fails the run.
 */
#include <sys/stat.h>
#include <sys/wait.h>

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
#include "sbxconf.h"
#include "sbximg.h"
#include "sbxmarker.h"
#include "sbxstate.h"
#include "sbx-run.h"

#define LOAD_TIMEOUT	600	/* seconds for the load when no call has one */
#define SCRIPT_STORE	3	/* SCRIPT: another store kind: drop the entry */
#define SCRIPT_LOAD	4	/* SCRIPT: docker load refused it: drop it */
#define SCRIPT_BOUND	(-2)	/* past the load's bound: drop it */
#define SCRIPT_CHANGED	(-3)	/* the archive could not be written whole */
#define LOAD_END_TIMEOUT 15	/* seconds for the exec that ends a load */
#define H		"docker -H " SBX_DOCKER_HOST

static const char load_sh[] =
    "s=$(" H " info --format '{{.Driver}}') || exit 5\n"
    "[ \"$s\" = \"$1\" ] || exit 3\n"
    "shift\n"
    H " load -q >/dev/null || exit 4\n"
    "for r do " H " pull -q \"$r\" >/dev/null 2>&1; done\n"
    H " image prune -f >/dev/null 2>&1\n"
    "exit 0\n";

/*
 * The docker subcommands that may need an image, and tag, which would
 * name a loaded image before the pulls decide which of them stay
 */
static const char *const needy[] = {
	"pull", "run", "create", "build", "buildx", "builder", "compose",
	"image", "container", "load", "tag", NULL
};

/* Note whether the command (docker's argv, unless -x) may need an image. */
void
imgload_argv(struct request *r, char *const *argv, int xflag)
{
	r->imgneeds = !xflag && dockerargs_subcommand_in(argv, needy);
}

/*
 * The detached loader has no stderr: the warning of an entry it dropped
 * waits in the state directory for the sandbox's next call, which says
 * it once (the one whose unlink succeeds).
 */
static void
note_say(int dfd, const char *name)
{
	char note[SBX_MARKER_MAX], text[PATH_MAX + 256];

	if (sbx_marker_path(note, sizeof(note), name, SBX_M_IMGNOTE) == 0 &&
	    sbx_state_read(dfd, note, text, sizeof(text)) > 0 &&
	    unlinkat(dfd, note, 0) == 0) {
		text[strcspn(text, "\n")] = '\0';
		warnx("%s", text);
	}
}

static void
note_leave(int dfd, const char *name, const char *ws, int st)
{
	char note[SBX_MARKER_MAX], text[PATH_MAX + 256];

	if (sbx_marker_path(note, sizeof(note), name, SBX_M_IMGNOTE) == -1)
		return;
	(void)snprintf(text, sizeof(text), "image cache entry of %s: %s; "
	    "deleted, images are pulled as usual\n", ws,
	    st == SCRIPT_STORE ? "saved on another store kind" :
	    st == SCRIPT_LOAD ? "docker load refused it" :
	    st == SCRIPT_BOUND ? "its load passed its time bound" :
	    "it changed while it was loaded");
	(void)sbx_state_write(dfd, note, text);
}

/*
 * Wait for a load in flight into this sandbox, at most the call's own
 * timeout; past it, the call goes on (it misses the cache, no more).
 * No lock file is made when none is there.  Then say what the loader
 * left to say.
 */
void
imgload_wait(const struct request *r)
{
	char statedir[PATH_MAX];
	int dfd, lfd;

	if (r->imgneeds)
		dfd = sbx_xstatedir_open(statedir, sizeof(statedir));
	else if (sbx_xstatedir_path(statedir, sizeof(statedir)) == -1)
		return;
	else	/* quietly: a call that needs no image has no more to say */
		dfd = open(statedir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd == -1)
		return;
	if (r->imgneeds &&
	    sbx_lock_name_holder(dfd, SBX_IMGLOAD_LOCK, r->name) > 0 &&
	    (lfd = sbx_lock_name(dfd, SBX_IMGLOAD_LOCK, r->name,
	    r->timeout > 0 ? (long long)r->timeout * 1000 : -1)) != -1)
		close(lfd);
	note_say(dfd, r->name);
	close(dfd);
}

static void
drop(int root, const char *name, const char *ws, const char *why)
{
	warnx("image cache entry of %s: %s; deleted, images are pulled as "
	    "usual", ws, why);
	(void)sbx_imgcache_drop(root, name);
}

/*
 * The writer: the archive docker loads, written by the host from the
 * members the check took (imgwrite), into the exec's stdin.
 */
static pid_t
load_writer(int afd, const struct img_archive *a, int *in)
{
	int p[2];
	pid_t pid;

	if (sbx_io_pipe(p) == -1)
		return -1;
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		_exit(imgwrite(afd, a, p[1]) == 0 ? SBX_EX_OK : SBX_EX_FAIL);
	}
	close(p[1]);
	*in = p[0];
	return pid;
}

/*
 * The detached child's one call, stamped as every exec is, so that a load
 * past its bound is ended inside before the lock is let go: its status,
 * SCRIPT_BOUND if it reached the bound, SCRIPT_CHANGED if the archive
 * could not be written whole.
 */
static int
load_call(const struct request *r, int afd, const struct img_archive *a,
    const struct sbx_imgmeta *m)
{
	char *argv[12 + SBX_STAMP_NWORDS + SBX_IMG_REFS_MAX];
	char stamp[SBX_STAMP_LEN + 1];
	struct sbx_spawn s;
	struct sbx_result c;
	struct sbx_ended e;
	size_t n = 0, i;
	pid_t w;
	int st, in, ws;

	if (sbx_stamp_new(stamp, sizeof(stamp)) == -1)
		return -1;
	argv[n++] = (char *)r->sbx;
	argv[n++] = "exec";
	argv[n++] = "-i";
	argv[n++] = (char *)r->name;
	argv[n++] = "--";
	sbx_stamp_words(argv + n, stamp);
	n += SBX_STAMP_NWORDS;
	argv[n++] = "sh";
	argv[n++] = "-c";
	argv[n++] = (char *)load_sh;
	argv[n++] = "sh";
	argv[n++] = (char *)m->store;
	for (i = 0; i < m->nrefs; i++)
		argv[n++] = (char *)m->refs[i];
	argv[n] = NULL;
	if ((w = load_writer(afd, a, &in)) == -1)
		return -1;
	memset(&s, 0, sizeof(s));
	s.argv = argv;
	s.envp = r->env;
	/* a bound whatever the settings: 0 (none) is not the load's */
	s.timeout = r->given && r->calltimeout > 0 ? r->calltimeout :
	    LOAD_TIMEOUT;
	s.newpgrp = 1;
	s.in = in;	/* stdout and stderr: /dev/null, as detach() left them */
	st = sbx_supervise(&s, &c);
	close(in);	/* a writer still writing ends on EPIPE */
	while (waitpid(w, &ws, 0) == -1 && errno == EINTR)
		;
	if (st == -1)
		return -1;
	st = c.status;
	if (c.timedout || c.signo != 0) {
		(void)sbx_stamp_end(r->sbx, r->env, r->name, stamp, NULL,
		    LOAD_END_TIMEOUT, &e);
		st = SCRIPT_BOUND;
	} else if (st == 0 && (!WIFEXITED(ws) ||
	    WEXITSTATUS(ws) != SBX_EX_OK))
		st = SCRIPT_CHANGED;	/* a script that failed stops reading */
	sbx_supervise_result_free(&c);
	return st;
}

/*
 * In the detached child: stdio on /dev/null, every other descriptor
 * closed but those kept, so that no caller waits on a pipe we hold.
 */
static void
detach(const int *keep, size_t nkeep)
{
	(void)setsid();
	sbx_selfpipe_child();
	sbx_detach_stdio_null();
	sbx_detach_close_others(keep, nkeep);
}

/*
 * Start the loader and return once it holds the lock (or has failed).
 * The child, adopted by init, updates used= after a load, and drops the
 * entry when the store differs, docker load refused the archive, the load
 * passed its bound or the archive changed, leaving the warning to the
 * sandbox's next call.
 */
static void
loader(const struct request *r, int dfd, int root, int efd, int afd,
    const struct img_archive *a, struct sbx_imgmeta *m, const char *name,
    const char *wsdir)
{
	int p[2], keep[5], lfd, cfd, st, ws;
	pid_t pid;
	char c;

	if (sbx_io_pipe(p) == -1)
		return;
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		if (fork() != 0)
			_exit(SBX_EX_OK);
		keep[0] = dfd, keep[1] = root, keep[2] = efd;
		keep[3] = afd, keep[4] = p[1];
		detach(keep, 5);
		if ((lfd = sbx_lock_name(dfd, SBX_IMGLOAD_LOCK, r->name,
		    0)) == -1)
			_exit(SBX_EX_FAIL);
		(void)write(p[1], "l", 1);
		close(p[1]);
		st = load_call(r, afd, a, m);
		/* only into the entry read: a fill may have replaced it */
		if ((cfd = sbx_imgcache_lock(root)) != -1 &&
		    sbx_imgcache_same(root, name, efd)) {
			if (st == 0) {
				m->used = (long long)time(NULL);
				(void)sbx_imgmeta_write(efd, m);
			} else if (st == SCRIPT_STORE || st == SCRIPT_LOAD ||
			    st == SCRIPT_BOUND || st == SCRIPT_CHANGED) {
				(void)sbx_imgcache_drop(root, name);
				note_leave(dfd, r->name, wsdir, st);
			}
		}
		if (cfd != -1)
			close(cfd);
		close(lfd);
		_exit(SBX_EX_OK);
	}
	close(p[1]);
	while (waitpid(pid, &ws, 0) == -1 && errno == EINTR)
		;
	while (read(p[0], &c, 1) == -1 && errno == EINTR)
		;
	close(p[0]);
}

/*
 * After a create of ours succeeded: the entry of workspace ws, checked,
 * then loaded in the background.  dfd is the state directory.
 */
void
imgload(const struct request *r, int dfd, const char *ws)
{
	struct sbx_imgmeta *m = NULL;
	struct img_archive a;
	struct stat st;
	char name[SBX_IMG_NAME_MAX], path[PATH_MAX], why[256];
	long long budget;
	int root = -1, efd = -1, afd = -1;

	if ((budget = sbx_xconf_image_cache()) == 0 || stat(ws, &st) == -1)
		return;
	sbx_imgcache_name(name, sizeof(name), &st);
	if ((root = sbx_imgcache_open(ws, 0, path, sizeof(path))) == -1)
		return;
	if ((efd = sbx_imgcache_entry(root, name, 0)) == -1) {
		if (errno != ENOENT)
			drop(root, name, ws, "not a directory of the user's own");
		goto out;
	}
	if ((m = malloc(sizeof(*m))) == NULL)
		goto out;
	if (sbx_imgmeta_read(efd, m) == -1) {
		/* none yet: a fill in progress, or one that failed */
		if (errno != ENOENT)
			drop(root, name, ws, "its meta cannot be read");
		goto out;
	}
	if (!sbx_imgmeta_current(m, name)) {
		drop(root, name, ws, "saved for another directory");
		goto out;
	}
	if ((afd = sbx_imgcache_file(efd, "archive", O_RDONLY)) == -1) {
		drop(root, name, ws, "its archive cannot be read");
		goto out;
	}
	if (imgcheck_scan(afd, budget, &a, why, sizeof(why)) == -1) {
		drop(root, name, ws, why);
		goto out;
	}
	loader(r, dfd, root, efd, afd, &a, m, name, ws);
	free(a.m);
out:
	free(m);
	if (afd != -1)
		close(afd);
	if (efd != -1)
		close(efd);
	close(root);
}
