/*
 * sbx-gc: remove stale sandboxes of dead sessions, and the markers of
 * sandboxes that are gone.  One "sbx ls --json" per sweep.  Silent on
 * success, so cron mails nothing; -v says why each sandbox was kept or
 * removed, -n only says what it would do.
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

#ifndef PATH_MAX
#define PATH_MAX	4096
#endif

#define GC_EX_BUSY	75		/* another sbx-gc holds the lock */
#define GC_LOCK		".gc.lock"	/* no sandbox name starts with '.' */
#define PROVISION_LOCK	"provision.lock"	/* held by sbx-run */
#define LS_MAX		(4 * 1024 * 1024)	/* bytes of listing we read */
#define HOURS_MAX	1000000
#define XMAX		64

extern char **environ;

struct box {
	const char	*name;
	const char	*status;
	const char	*used;	/* last_used_at, or NULL */
};

static const char *const suffixes[] = {
	"created", "owner", "failed", "prime", "lock"
};
#define NSUFFIX	(sizeof(suffixes) / sizeof(suffixes[0]))

static int	 nflag, vflag;
static long long hours = 24;
static const char *prefix = "pi-sbx-";
static const char *excluded[XMAX];
static size_t	 nexcluded;
static int	 dfd = -1;
static char	 statedir[PATH_MAX];
static char	 sbxpath[PATH_MAX];
static char	**sbxenv;
static int	 timeout;
static time_t	 now;

static void SBX_DEAD
usage(void)
{
	fprintf(stderr, "usage: sbx-gc [-nv] [-H hours] [-P prefix] "
	    "[-x name]\n");
	exit(SBX_EX_USAGE);
}

/* Text from outside fit for a message: printable ASCII, bounded. */
static const char *
shown(const char *s, char *buf, size_t size)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i < size - 1; i++)
		buf[i] = s[i] >= ' ' && s[i] <= '~' ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* The first line of what a command said on stderr, shown. */
static const char *
firstline(const struct sbx_buf *b, char *buf, size_t size)
{
	size_t n;

	if (b->data == NULL)
		return "";
	n = strcspn(b->data, "\n");
	if (n >= size)
		n = size - 1;
	memcpy(buf, b->data, n);
	buf[n] = '\0';
	return shown(buf, buf, size);
}

static int
isexcluded(const char *name)
{
	size_t i;

	for (i = 0; i < nexcluded; i++)
		if (strcmp(excluded[i], name) == 0)
			return 1;
	return 0;
}

static int
bycmp(const void *a, const void *b)
{
	return strcmp(((const struct box *)a)->name,
	    ((const struct box *)b)->name);
}

static int
strpcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
say(const char *what, const char *name, const char *why)
{
	printf("%s %s: %s\n", what, name, why);
}

/* Run sbx with one or two arguments and the name; returns its status. */
static int
sbx(struct sbx_cmd *c, const char *a1, const char *a2, const char *name)
{
	char *argv[5];
	int n = 0;

	argv[n++] = sbxpath;
	argv[n++] = (char *)a1;
	argv[n++] = (char *)a2;
	if (name != NULL)
		argv[n++] = (char *)name;	/* after sbx's own flags */
	argv[n] = NULL;
	memset(c, 0, sizeof(*c));
	c->argv = argv;
	c->envp = sbxenv;
	c->timeout = timeout;
	c->newpgrp = 1;
	c->in = -1;
	c->capture_out = 1;
	c->capture_err = 1;
	if (sbx_cmd_run(c) == -1) {
		c->status = sbx_exec_status(errno);
		warn("%s", sbxpath);
	}
	return c->status;
}

static void
marker(char *buf, size_t size, const char *name, const char *suffix)
{
	snprintf(buf, size, "%s.%s", name, suffix);
}

/* Remove every marker of name; a lock file only if nobody holds it. */
static void
dropmarkers(const char *name)
{
	char file[SBX_NAME_MAX + 16];
	size_t i;
	int fd;

	for (i = 0; i < NSUFFIX; i++) {
		marker(file, sizeof(file), name, suffixes[i]);
		if (strcmp(suffixes[i], "prime") == 0) {
			if (sbx_state_rmtree(dfd, file) == -1)
				warn("%s/%s", statedir, file);
		} else if (strcmp(suffixes[i], "lock") == 0) {
			if ((fd = sbx_lock(dfd, file, 0)) != -1) {
				(void)sbx_state_remove(dfd, file);
				close(fd);
			}
		} else if (sbx_state_remove(dfd, file) == -1)
			warn("%s/%s", statedir, file);
	}
}

/*
 * Is the session of name still alive?  1 with a reason if so, or if we
 * cannot tell (a marker we did not write keeps the sandbox, loudly).
 */
static int
alive(const char *name, char *why, size_t size)
{
	char file[SBX_NAME_MAX + 16];
	unsigned long long start;
	pid_t pid;

	marker(file, sizeof(file), name, "lock");
	if ((pid = sbx_lock_holder(dfd, file)) > 0) {
		snprintf(why, size, "watched by pid %ld", (long)pid);
		return 1;
	}
	if (pid == -1) {
		warnx("sandbox %s: %s/%s: %s, keeping it", name, statedir,
		    file, errno == EINVAL ? "not a lock file of ours" :
		    strerror(errno));
		snprintf(why, size, "unreadable lock file");
		return 1;
	}
	if (sbx_owner_read(dfd, name, &pid, &start) == 0) {
		if (sbx_proc_alive(pid, start)) {
			snprintf(why, size, "owner pid %ld alive", (long)pid);
			return 1;
		}
		return 0;
	}
	if (errno == ENOENT)
		return 0;
	marker(file, sizeof(file), name, "owner");
	warnx("sandbox %s: %s/%s: %s, keeping it", name, statedir, file,
	    errno == EINVAL ? "not an owner marker" : strerror(errno));
	snprintf(why, size, "unreadable owner marker");
	return 1;
}

/* The last sign of life: NAME.created or last_used_at, the later. */
static int
lastused(const struct box *b, long long *when)
{
	char file[SBX_NAME_MAX + 16], buf[80];
	long long t;
	int known = 0;

	if (sbx_created_read(dfd, b->name, &t) == 0) {
		*when = t;
		known = 1;
	} else if (errno != ENOENT) {
		marker(file, sizeof(file), b->name, "created");
		warnx("sandbox %s: %s/%s: %s", b->name, statedir, file,
		    errno == EINVAL ? "no valid created= time" :
		    strerror(errno));
	}
	if (b->used != NULL) {
		if (sbx_rfc3339(b->used, &t) == 0) {
			if (!known || t > *when)
				*when = t;
			known = 1;
		} else if (vflag)
			printf("note %s: last_used_at \"%s\" is not RFC 3339\n",
			    b->name, shown(b->used, buf, 40));
	}
	return known;
}

/* Decide about one listed sandbox; returns 1 if it was to go and failed. */
static int
sweep_one(const struct box *b)
{
	char why[160], buf[40];
	struct sbx_cmd c;
	long long when, idle;

	if (strncmp(b->name, prefix, strlen(prefix)) != 0) {
		snprintf(why, sizeof(why), "name without prefix %s", prefix);
		goto keep;
	}
	if (b->status == NULL || strcmp(b->status, "stopped") != 0) {
		snprintf(why, sizeof(why), "status %s", b->status == NULL ?
		    "unknown" : shown(b->status, buf, sizeof(buf)));
		goto keep;
	}
	if (isexcluded(b->name)) {
		snprintf(why, sizeof(why), "excluded with -x");
		goto keep;
	}
	if (alive(b->name, why, sizeof(why)))
		goto keep;
	if (hours > 0) {
		if (!lastused(b, &when)) {
			snprintf(why, sizeof(why), "age unknown");
			goto keep;
		}
		idle = (long long)now - when;
		if (idle < hours * 3600) {
			snprintf(why, sizeof(why), "idle %lldh%02lldm, under "
			    "%lldh", idle < 0 ? 0 : idle / 3600,
			    idle < 0 ? 0 : idle % 3600 / 60, hours);
			goto keep;
		}
		snprintf(why, sizeof(why), "stopped, no live owner, idle "
		    "%lldh%02lldm", idle / 3600, idle % 3600 / 60);
	} else
		snprintf(why, sizeof(why), "stopped, no live owner, any age");
	if (nflag) {
		say("would remove", b->name, why);
		return 0;
	}
	if (sbx(&c, "rm", "--force", b->name) != 0 && (c.err.data == NULL ||
	    (strstr(c.err.data, "not found") == NULL &&
	    strstr(c.err.data, "no sandbox named") == NULL))) {
		warnx("sandbox %s: sbx rm --force: exit status %d%s%s",
		    b->name, c.status, c.err.len ? ": " : "",
		    c.err.len ? firstline(&c.err, why, 120) : "");
		sbx_cmd_free(&c);
		return 1;
	}
	sbx_cmd_free(&c);
	dropmarkers(b->name);
	if (vflag)
		say("removed", b->name, why);
	return 0;
keep:
	if (vflag)
		say("kept", b->name, why);
	return 0;
}

/* The names in the state directory that carry any marker, sorted. */
static char **
markednames(size_t *np)
{
	struct dirent *de;
	char **v = NULL, **nv, *dot;
	size_t n = 0, cap = 0, i;
	DIR *d;
	int fd;

	*np = 0;
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (d = fdopendir(fd)) == NULL) {
		warn("%s", statedir);
		if (fd != -1)
			close(fd);
		return NULL;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    (dot = strrchr(de->d_name, '.')) == NULL)
			continue;
		for (i = 0; i < NSUFFIX; i++)
			if (strcmp(dot + 1, suffixes[i]) == 0)
				break;
		if (i == NSUFFIX || (size_t)(dot - de->d_name) > SBX_NAME_MAX)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
				err(SBX_EX_FAIL, NULL);
			v = nv;
		}
		if ((v[n] = strndup(de->d_name, (size_t)(dot - de->d_name))) ==
		    NULL)
			err(SBX_EX_FAIL, NULL);
		if (!sbx_name_valid(v[n])) {
			free(v[n]);
			continue;
		}
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), strpcmp);
	*np = n;
	return v;
}

/* Was any marker of name written since the listing began, or exists? */
static int
markerstat(const char *name, time_t since, int *fresh)
{
	char file[SBX_NAME_MAX + 16];
	struct stat st;
	size_t i;
	int any = 0;

	*fresh = 0;
	for (i = 0; i < NSUFFIX; i++) {
		marker(file, sizeof(file), name, suffixes[i]);
		if (fstatat(dfd, file, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (st.st_mtime >= since)
			*fresh = 1;
		/* a lock file or scratch dir alone is no sandbox's marker */
		if (i < 3)
			any = 1;
	}
	return any;
}

/* Markers and scratch dirs of sandboxes that no longer exist. */
static void
sweep_orphans(const struct box *boxes, size_t nboxes, time_t since)
{
	char why[160], **names;
	struct box key;
	size_t n, i;
	int fresh;

	if (sbx_lock_holder(dfd, PROVISION_LOCK) > 0) {
		if (vflag)
			printf("note: a sandbox is being provisioned; markers "
			    "are left for the next sweep\n");
		return;
	}
	if ((names = markednames(&n)) == NULL)
		return;
	for (i = 0; i < n; i++) {
		if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
			continue;
		key.name = names[i];
		if (nboxes > 0 && bsearch(&key, boxes, nboxes, sizeof(*boxes),
		    bycmp) != NULL)
			continue;
		if (!markerstat(names[i], since, &fresh) || fresh ||
		    isexcluded(names[i]))
			continue;
		if (alive(names[i], why, sizeof(why))) {
			if (vflag)
				say("kept markers of", names[i], why);
			continue;
		}
		if (nflag) {
			say("would remove markers of", names[i],
			    "no such sandbox");
			continue;
		}
		dropmarkers(names[i]);
		if (vflag)
			say("removed markers of", names[i], "no such sandbox");
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* One "sbx ls --json"; the listed sandboxes, sorted, without repeats. */
static struct box *
listing(struct sbx_json **treep, size_t *np)
{
	const struct sbx_json *arr, *e;
	struct sbx_json *tree;
	struct sbx_cmd c;
	struct box *v;
	const char *json, *errstr;
	char buf[160];
	size_t off, n, i, o;

	if (sbx(&c, "ls", "--json", NULL) != 0)
		errx(SBX_EX_FAIL, "sbx ls --json: exit status %d%s%s", c.status,
		    c.err.len ? ": " : "",
		    c.err.len ? firstline(&c.err, buf, 120) : "");
	if (c.out.len > LS_MAX)
		errx(SBX_EX_FAIL, "sbx ls --json: more than %d bytes of output, "
		    "refusing it", LS_MAX);
	if (c.out.data == NULL ||
	    (json = sbx_json_find(c.out.data, c.out.len, &off)) == NULL)
		errx(SBX_EX_FAIL, "sbx ls --json: no JSON in its output");
	if ((tree = sbx_json_parse(json, c.out.len - off, &errstr)) == NULL)
		errx(SBX_EX_FAIL, "sbx ls --json: bad JSON: %s", errstr);
	if ((arr = sbx_json_get(tree, "sandboxes")) == NULL ||
	    arr->type != SBX_JARR)
		errx(SBX_EX_FAIL, "sbx ls --json: no \"sandboxes\" array");
	sbx_cmd_free(&c);
	for (n = 0, e = arr->child; e != NULL; e = e->next)
		n++;
	if ((v = calloc(n + 1, sizeof(*v))) == NULL)
		err(SBX_EX_FAIL, NULL);
	for (i = 0, e = arr->child; e != NULL; e = e->next) {
		v[i].name = sbx_json_str(e, "name");
		if (v[i].name == NULL || !sbx_name_valid(v[i].name)) {
			/* never passed to sbx: it could read as an option */
			if (vflag)
				printf("skipped \"%s\": not a valid sandbox "
				    "name\n", v[i].name == NULL ? "" :
				    shown(v[i].name, buf, 80));
			continue;
		}
		v[i].status = sbx_json_str(e, "status");
		v[i].used = sbx_json_str(e, "last_used_at");
		i++;
	}
	n = i;
	if (n > 1)
		qsort(v, n, sizeof(*v), bycmp);
	for (i = o = 0; i < n; i++)
		if (o == 0 || strcmp(v[i].name, v[o - 1].name) != 0)
			v[o++] = v[i];
	*treep = tree;
	*np = o;
	return v;
}

int
main(int argc, char *argv[])
{
	struct sbx_envpolicy pol;
	struct sbx_json *tree;
	struct box *boxes;
	const char *errstr;
	char buf[84];
	size_t nboxes, i, plen;
	time_t since;
	int ch, lfd, failed = 0;

	opterr = 0;
	while ((ch = getopt(argc, argv, "+H:P:nvx:")) != -1) {
		switch (ch) {
		case 'H':
			hours = sbx_strtonum(optarg, 0, HOURS_MAX, &errstr);
			if (errstr != NULL)
				usage();
			break;
		case 'P':
			prefix = optarg;
			break;
		case 'n':
			nflag = 1;
			break;
		case 'v':
			vflag = 1;
			break;
		case 'x':
			if (!sbx_name_valid(optarg))
				errx(SBX_EX_USAGE, "-x %s: invalid sandbox name",
				    shown(optarg, buf, 80));
			if (nexcluded == XMAX)
				errx(SBX_EX_USAGE, "-x: at most %d names", XMAX);
			excluded[nexcluded++] = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	if (argc != 0)
		usage();
	/* a prefix is the start of a valid name: never empty */
	plen = strlen(prefix);
	for (i = 0; i < plen; i++)
		if (!((prefix[i] >= 'a' && prefix[i] <= 'z') ||
		    (prefix[i] >= 'A' && prefix[i] <= 'Z') ||
		    (prefix[i] >= '0' && prefix[i] <= '9') ||
		    (i > 0 && (prefix[i] == '-' || prefix[i] == '.'))))
			break;
	if (plen == 0 || plen >= SBX_NAME_MAX || i < plen)
		errx(SBX_EX_USAGE, "-P %s: invalid prefix",
		    shown(prefix, buf, 80));
	timeout = (int)sbx_conf_num("DOCKER_SANDBOX_TIMEOUT", 120, 1, 86400);

	if ((dfd = sbx_state_open(statedir, sizeof(statedir))) == -1)
		exit(SBX_EX_FAIL);
	if ((lfd = sbx_lock(dfd, GC_LOCK, 0)) == -1) {
		if (errno == EAGAIN) {
			if (vflag)
				warnx("another sbx-gc is running");
			exit(GC_EX_BUSY);
		}
		err(SBX_EX_FAIL, "%s/%s", statedir, GC_LOCK);
	}
	if (sbx_cli_find(environ, sbxpath, sizeof(sbxpath)) == -1)
		errx(SBX_EX_FAIL, "sbx: not found (set DOCKER_SANDBOX_SBX)");
	memset(&pol, 0, sizeof(pol));	/* strict: the host set only */
	if ((sbxenv = sbx_env_build(environ, &pol)) == NULL)
		err(SBX_EX_FAIL, "environment");

	since = time(NULL);
	boxes = listing(&tree, &nboxes);
	now = time(NULL);
	for (i = 0; i < nboxes; i++)
		failed |= sweep_one(&boxes[i]);
	sweep_orphans(boxes, nboxes, since);
	free(boxes);
	sbx_json_free(tree);
	free(sbxenv);
	close(lfd);
	if (sbx_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return failed ? SBX_EX_FAIL : SBX_EX_OK;
}
