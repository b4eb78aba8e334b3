/*
 * imgload.c: the image cache's load, right after a create of ours
 * succeeded.  The entry of the workspace is checked on the host first
 * (img_check: an archive that names anything, or that cannot be read
 * plainly, is refused and deleted); then a detached child holds the
 * sandbox's load lock and makes one call, `sbx exec -i NAME -- sh -c
 * SCRIPT sh STORE REF...` with the archive on its stdin: the store must
 * be the one saved from, the archive loads (tag-less), each reference
 * the host recorded is pulled, which uses a loaded image only where the
 * registry names its config digest, and what no pull claimed is pruned.
 * A later call waits for the lock, within its own timeout, only when its
 * docker subcommand may need an image.  Nothing here fails the run.
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
#include "sbxstate.h"
#include "sbx-run.h"

#define LOAD_TIMEOUT	600	/* seconds for the load when no bound is set */
#define SCRIPT_STORE	3	/* SCRIPT: another store kind: drop the entry */
#define SCRIPT_LOAD	4	/* SCRIPT: docker load refused it: drop it */
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

static int needs;	/* this run's command is one of them */

/* Note whether the command (docker's argv, unless -x) may need an image. */
void
img_argv(char *const *argv, int xflag)
{
	needs = !xflag && subcommand_in(argv, needy);
}

/*
 * Wait for a load in flight into this sandbox, at most the call's own
 * timeout; past it, the call goes on (it misses the cache, no more).
 * No lock file is made when none is there.
 */
void
img_wait(const struct request *r)
{
	char statedir[PATH_MAX];
	int dfd, lfd;

	if (!needs)
		return;
	if ((dfd = sbx_xstate_open(statedir, sizeof(statedir))) == -1)
		return;
	if (sbx_lock_name_holder(dfd, SBX_IMGLOAD_LOCK, r->name) > 0 &&
	    (lfd = sbx_lock_name(dfd, SBX_IMGLOAD_LOCK, r->name,
	    r->timeout > 0 ? (long long)r->timeout * 1000 : -1)) != -1)
		close(lfd);
	close(dfd);
}

static void
drop(int root, const char *name, const char *ws, const char *why)
{
	warnx("image cache entry of %s: %s; deleted, images are pulled as "
	    "usual", ws, why);
	(void)sbx_img_drop(root, name);
}

/* The detached child's one call; its status. */
static int
load_call(const struct request *r, int afd, const struct sbx_imgmeta *m)
{
	char *argv[12 + SBX_IMG_REFS_MAX];
	struct sbx_spawn s;
	struct sbx_result c;
	size_t n = 0, i;
	int st;

	argv[n++] = (char *)r->sbx;
	argv[n++] = "exec";
	argv[n++] = "-i";
	argv[n++] = (char *)r->name;
	argv[n++] = "--";
	argv[n++] = "sh";
	argv[n++] = "-c";
	argv[n++] = (char *)load_sh;
	argv[n++] = "sh";
	argv[n++] = (char *)m->store;
	for (i = 0; i < m->nrefs; i++)
		argv[n++] = (char *)m->refs[i];
	argv[n] = NULL;
	memset(&s, 0, sizeof(s));
	s.argv = argv;
	s.envp = r->env;
	s.timeout = r->given ? r->calltimeout : LOAD_TIMEOUT;
	s.newpgrp = 1;
	s.in = afd;	/* stdout and stderr: /dev/null, as detach() left them */
	if (sbx_supervise(&s, &c) == -1)
		return -1;
	st = c.status;
	sbx_result_free(&c);
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
	sbx_stdio_null();
	sbx_close_others(keep, nkeep);
}

/*
 * Start the loader and return once it holds the lock (or has failed).
 * The child, adopted by init, updates used= after a load, and drops the
 * entry when the store differs or docker load refused the archive.
 */
static void
loader(const struct request *r, int dfd, int root, int efd, int afd,
    struct sbx_imgmeta *m, const char *name)
{
	int p[2], keep[5], lfd, cfd, st, ws;
	pid_t pid;
	char c;

	if (sbx_pipe(p) == -1)
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
		st = load_call(r, afd, m);
		/* only into the entry read: a fill may have replaced it */
		if ((cfd = sbx_img_lock(root)) != -1 &&
		    sbx_img_same(root, name, efd)) {
			if (st == 0) {
				m->used = (long long)time(NULL);
				(void)sbx_img_meta_write(efd, m);
			} else if (st == SCRIPT_STORE || st == SCRIPT_LOAD)
				(void)sbx_img_drop(root, name);
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
img_load(const struct request *r, int dfd, const char *ws)
{
	struct sbx_imgmeta *m = NULL;
	struct stat st;
	char name[SBX_IMG_NAME_MAX], path[PATH_MAX], why[256];
	long long budget;
	int root = -1, efd = -1, afd = -1;

	if ((budget = sbx_xconf_image_cache()) == 0 || stat(ws, &st) == -1)
		return;
	sbx_img_name(name, sizeof(name), &st);
	if ((root = sbx_img_open(ws, 0, path, sizeof(path))) == -1)
		return;
	if ((efd = sbx_img_entry(root, name, 0)) == -1) {
		if (errno != ENOENT)
			drop(root, name, ws, "not a directory of the user's own");
		goto out;
	}
	if ((m = malloc(sizeof(*m))) == NULL)
		goto out;
	if (sbx_img_meta_read(efd, m) == -1) {
		/* none yet: a fill in progress, or one that failed */
		if (errno != ENOENT)
			drop(root, name, ws, "its meta cannot be read");
		goto out;
	}
	if (!sbx_img_current(m, name)) {
		drop(root, name, ws, "saved for another directory");
		goto out;
	}
	if ((afd = sbx_img_file(efd, "archive", O_RDONLY)) == -1) {
		drop(root, name, ws, "its archive cannot be read");
		goto out;
	}
	if (img_check(afd, budget, why, sizeof(why)) == -1) {
		drop(root, name, ws, why);
		goto out;
	}
	if (lseek(afd, 0, SEEK_SET) == 0)
		loader(r, dfd, root, efd, afd, m, name);
out:
	free(m);
	if (afd != -1)
		close(afd);
	if (efd != -1)
		close(efd);
	close(root);
}
