/*
 * imgsave.c: the image cache's save (sbx-tools(7), IMAGE CACHE), while
 * the VM of a sandbox we created is surely up: sbx's listing, then one
 * exec for the daemon's store and pulled images, one for `docker save
 * ID...` into a new entry made aside.  The daemon's words are the
 * agent's, a hint only; the save has a fixed bound no setting moves.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbximg.h"
#include "sbxmarker.h"
#include "sbxstate.h"
#include "sbxtime.h"
#include "sbx-watch.h"

extern char **environ;

#define LIST_MAX	(256 * 1024)	/* bytes of image listing read */
#define LS_BOUND	10	/* seconds: sbx's listing */
#define D		"docker -H " SBX_DOCKER_HOST

static const char list_sh[] =
    D " info --format '{{.Driver}}' && " D " image ls --digests "
    "--no-trunc --format '{{.Repository}}:{{.Tag}} {{.Digest}} {{.ID}}'";

struct images {
	struct sbx_imgmeta m;
	char	 ids[SBX_IMG_REFS_MAX][72];
	size_t	 nids;
	long long deadline;	/* ms: the fill's end, whatever happens */
};

/* Seconds left of the fill's bound, at least 1; 0 when it is over. */
static int
left(const struct images *im)
{
	long long ms = im->deadline - sbx_clock_now_ms();

	return ms <= 0 ? 0 : (int)((ms + 999) / 1000);
}

/*
 * Is the VM up, by sbx's listing (an exec would start a stopped one)?
 */
static int
running(const struct watch *w, const char *sbx)
{
	char *av[] = { (char *)sbx, "ls", "--json", NULL };
	struct sbx_result c;
	const char *errstr;
	char st[32];
	int up = 0;

	if (sbx_capture(&c, av, w->envp, LS_BOUND) == -1)
		return 0;
	if (c.status == 0 && sbx_ls_status(c.out.data != NULL ? c.out.data :
	    "", c.out.len, w->name, st, sizeof(st), &errstr) == 1)
		up = strcmp(st, "running") == 0;
	sbx_supervise_result_free(&c);
	return up;
}

/* The set of image IDs, whatever their order: for "nothing new". */
static unsigned long long
idset(const struct images *im)
{
	unsigned long long all = 0, h;
	const char *p;
	size_t i;

	for (i = 0; i < im->nids; i++) {
		h = 14695981039346656037ULL;
		for (p = im->ids[i]; *p != '\0'; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		all ^= h;
	}
	return all == 0 ? 1 : all;
}

/* One line of the listing: a pulled image's reference, digest and ID. */
static void
take(struct images *im, char *line)
{
	char *ref, *dig, *id, *sp;
	size_t i;

	ref = line;
	if ((sp = strchr(ref, ' ')) == NULL)
		return;
	*sp = '\0';
	dig = sp + 1;
	if ((sp = strchr(dig, ' ')) == NULL)
		return;
	*sp = '\0';
	id = sp + 1;
	if (strstr(ref, "<none>") != NULL || strncmp(dig, "sha256:", 7) != 0 ||
	    strlen(dig) != 71 || strspn(dig + 7, "0123456789abcdef") != 64 ||
	    !sbx_imgmeta_idvalid(id, strlen(id)) ||
	    !sbx_imgmeta_refvalid(ref, strlen(ref)))
		return;
	for (i = 0; i < im->m.nrefs; i++)
		if (strcmp(im->m.refs[i], ref) == 0)
			break;
	if (i == im->m.nrefs && im->m.nrefs < SBX_IMG_REFS_MAX)
		memcpy(im->m.refs[im->m.nrefs++], ref, strlen(ref) + 1);
	for (i = 0; i < im->nids; i++)
		if (strcmp(im->ids[i], id) == 0)
			return;
	if (im->nids < SBX_IMG_REFS_MAX)
		memcpy(im->ids[im->nids++], id, strlen(id) + 1);
}

/*
 * Run argv with stdout into fd, stopped past max bytes, stderr dropped
 * (the daemon's words are the agent's: never on our stderr, never
 * unbounded in memory); 0 when it exited 0 within both bounds.
 */
static int
tofile(const struct watch *w, const struct images *im, char **argv, int fd,
    long long max)
{
	struct sbx_spawn s;
	struct sbx_result c;
	int nul, ok;

	if ((nul = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1)
		return -1;
	if (left(im) == 0) {
		close(nul);
		return -1;
	}
	memset(&s, 0, sizeof(s));
	s.argv = argv;
	s.envp = w->envp;
	s.timeout = left(im);
	s.newpgrp = 1;
	s.in = nul;
	s.out = fd;
	s.outmax = max;
	s.err = nul;
	ok = sbx_supervise(&s, &c) == 0 && c.status == 0 && !c.toolarge;
	sbx_supervise_result_free(&c);
	close(nul);
	return ok ? 0 : -1;
}

/*
 * Call 1: the store and the pulled images, through a temporary file in
 * the cache root; 0, or -1.
 */
static int
listing(const struct watch *w, const char *sbx, int root, struct images *im)
{
	char *argv[] = { (char *)sbx, "exec", (char *)w->name, "--", "sh",
	    "-c", (char *)list_sh, NULL };
	static const char *const stores[] = { "overlay2", "overlay",
	    "fuse-overlayfs", "btrfs", "zfs", "vfs", "devicemapper", "aufs",
	    "windowsfilter", "overlayfs", "native", "stargz", "devmapper",
	    "blockfile", "erofs", "nydus", "soci", NULL };
	struct sbx_buf b;
	char tmp[32], *line, *next;
	size_t i;
	int fd, rv;

	memset(&b, 0, sizeof(b));
	snprintf(tmp, sizeof(tmp), ".list.%ld", (long)getpid());
	(void)unlinkat(root, tmp, 0);
	if ((fd = sbx_imgcache_file(root, tmp, O_RDWR | O_CREAT | O_EXCL)) == -1)
		return -1;
	(void)unlinkat(root, tmp, 0);	/* the descriptor is enough */
	rv = tofile(w, im, argv, fd, LIST_MAX);
	if (rv == 0 && (lseek(fd, 0, SEEK_SET) == -1 ||
	    sbx_io_buf_readfd(&b, fd, LIST_MAX + 1) == -1 || b.data == NULL))
		rv = -1;
	close(fd);
	/*
	 * sbx may write its own lines first (a daemon's start, a sandbox's):
	 * the store is the first line that names one of docker's (graph
	 * drivers, then containerd's snapshotters), the images follow it
	 */
	for (line = b.data; rv == 0 && line != NULL && *line != '\0';
	    line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (im->m.store[0] != '\0') {
			take(im, line);
			continue;
		}
		for (i = 0; stores[i] != NULL; i++)
			if (strcmp(line, stores[i]) == 0)
				memcpy(im->m.store, line, strlen(line) + 1);
	}
	sbx_io_buf_free(&b);
	return rv == 0 && im->m.store[0] != '\0' && im->nids > 0 ? 0 : -1;
}

/* Call 2: docker save ID... into fd, at most budget bytes; 0, or -1. */
static int
save(const struct watch *w, const char *sbx, const struct images *im,
    int fd, long long budget)
{
	char *argv[8 + SBX_IMG_REFS_MAX + 1];
	size_t n = 0, i;

	argv[n++] = (char *)sbx;
	argv[n++] = "exec";
	argv[n++] = (char *)w->name;
	argv[n++] = "--";
	argv[n++] = "docker";
	argv[n++] = "-H";
	argv[n++] = SBX_DOCKER_HOST;
	argv[n++] = "save";
	for (i = 0; i < im->nids; i++)
		argv[n++] = (char *)im->ids[i];
	argv[n] = NULL;
	return tofile(w, im, argv, fd, budget);
}

/*
 * The fill, when the cache is on and the sandbox is one we created and
 * will remove, its VM is up, and its images are not those of *ids (the
 * set last saved, 0: none), which a fill that lands sets.  At most bound
 * seconds from now.  1 when it landed, else 0.
 */
int
imgsave(const struct watch *w, int bound, unsigned long long *ids)
{
	struct images *im;
	struct stat st;
	char text[PATH_MAX + 192], state[16], sbx[PATH_MAX], path[PATH_MAX];
	char name[SBX_IMG_NAME_MAX], tmp[SBX_IMG_NAME_MAX + 32] = "";
	char *wsl[2] = { NULL, NULL };
	long long budget;
	int root = -1, efd = -1, fd = -1, landed = 0;

	if (w->mode != MODE_REMOVE || (budget = sbx_xconf_image_cache()) == 0)
		return 0;
	if ((im = calloc(1, sizeof(*im))) == NULL)
		return 0;
	im->deadline = sbx_clock_now_ms() + (long long)bound * 1000;
	if (sbx_markerio_created_text(w->dfd, w->name, text,
	    sizeof(text)) == -1 ||
	    sbx_state_field(text, "state", state, sizeof(state)) == NULL ||
	    strcmp(state, SBX_READY) != 0 ||
	    sbx_markerio_created_workspace(w->dfd, w->name, im->m.workspace,
	    sizeof(im->m.workspace)) == -1 ||
	    stat(im->m.workspace, &st) == -1 || !S_ISDIR(st.st_mode))
		goto out;
	wsl[0] = im->m.workspace;
	sbx_imgcache_name(name, sizeof(name), &st);
	/* a cache that cannot be had costs no call */
	if ((root = sbx_imgcache_open(im->m.workspace, 1, path, sizeof(path))) ==
	    -1 || sbx_cli_find(environ, wsl, sbx, sizeof(sbx)) == -1 ||
	    !running(w, sbx) || listing(w, sbx, root, im) == -1)
		goto out;
	if (ids != NULL && *ids == idset(im))
		goto out;	/* saved already */
	/* the new entry is made aside: the old one stays until it is whole */
	if ((efd = sbx_imgcache_fresh(root, name, tmp, sizeof(tmp))) == -1 ||
	    (fd = sbx_imgcache_file(efd, "archive", O_WRONLY | O_CREAT |
	    O_EXCL)) == -1)
		goto out;
	if (save(w, sbx, im, fd, budget) == -1 || fstat(fd, &st) == -1 ||
	    fsync(fd) == -1)
		goto out;
	im->m.size = (long long)st.st_size;
	im->m.saved = im->m.used = (long long)time(NULL);
	if (sbx_imgmeta_write(efd, &im->m) == -1)
		goto out;
	close(efd);
	efd = -1;
	if (sbx_imgcache_commit(root, tmp, name) == -1) {
		tmp[0] = '\0';		/* gone with the failure */
		goto out;
	}
	tmp[0] = '\0';
	landed = 1;
	if (ids != NULL)
		*ids = idset(im);
	(void)sbx_imgevict(root, budget, name, 0);
out:
	if (fd != -1)
		close(fd);
	if (efd != -1)
		close(efd);
	if (root != -1 && tmp[0] != '\0')
		sbx_imgcache_abandon(root, tmp);
	if (root != -1)
		close(root);
	free(im);
	return landed;
}

/* A fill by process pid, ended before it landed: its new entry goes. */
void
imgsave_abandon(const struct watch *w, long pid)
{
	struct stat st;
	char ws[PATH_MAX], path[PATH_MAX], name[SBX_IMG_NAME_MAX];
	char tmp[SBX_IMG_NAME_MAX + 32];
	int root;

	if (sbx_markerio_created_workspace(w->dfd, w->name, ws,
	    sizeof(ws)) == -1 ||
	    stat(ws, &st) == -1 ||
	    (root = sbx_imgcache_open(ws, 0, path, sizeof(path))) == -1)
		return;
	sbx_imgcache_name(name, sizeof(name), &st);
	sbx_imgcache_fillname(tmp, sizeof(tmp), name, pid);
	sbx_imgcache_abandon(root, tmp);
	close(root);
}
