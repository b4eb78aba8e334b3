/*
 * sbx-gc: remove stale sandboxes of dead sessions, and the markers of
 * sandboxes that are gone.  One "sbx ls --json" per sweep.  Silent on
 * success, so cron mails nothing; -v says why each sandbox was kept or
 * removed, -n only says what it would do.
 */
#include <sys/types.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxenv.h"
#include "sbximg.h"
#include "sbxjson.h"
#include "sbxmarker.h"
#include "sbxname.h"
#include "sbxstate.h"
#include "sbxtime.h"
#include "sbx-gc.h"

#define LS_MAX		(2 * 1024 * 1024)	/* bytes of listing we parse */
#define HOURS_MAX	SBX_GC_HOURS_MAX

extern char **environ;

static struct gc gc = { .dfd = -1, .prefix = SBX_NAME_PREFIX };
static long long hours = -1;	/* -H, else DOCKER_SANDBOX_GC_HOURS */
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

/* Run sbx with one or two arguments and the name; returns its status. */
static int
sbx(struct sbx_result *c, const char *a1, const char *a2, const char *name)
{
	char *argv[5];
	int n = 0;

	argv[n++] = sbxpath;
	argv[n++] = (char *)a1;
	argv[n++] = (char *)a2;
	if (name != NULL)
		argv[n++] = (char *)name;	/* after sbx's own flags */
	argv[n] = NULL;
	if (sbx_call(c, argv, sbxenv, timeout, gc.dfd) == -1) {
		c->status = sbx_spawn_exec_status(errno);
		warn("%s", sbxpath);
	}
	/* no call works until then: the sweep stops, nothing half done */
	if (c->status != 0 && sbx_says_restart(c->err.data))
		sbx_says_restart_exit();
	return c->status;
}

/* The last sign of life: NAME.created or last_used_at, the later. */
static int
lastused(const struct box *b, long long *when)
{
	char file[SBX_MARKER_MAX], buf[80];
	long long t;
	int known = 0;

	if (sbx_markerio_created_read(gc.dfd, b->name, &t) == 0) {
		*when = t;
		known = 1;
	} else if (errno != ENOENT) {
		(void)sbx_marker_path(file, sizeof(file), b->name,
		    SBX_M_CREATED);
		warnx("sandbox %s: %s/%s: %s", b->name, gc.statedir, file,
		    errno == EINVAL ? "no valid created= time" :
		    strerror(errno));
	}
	if (b->used != NULL) {
		if (sbx_rfc3339_parse(b->used, &t) == 0) {
			if (!known || t > *when)
				*when = t;
			known = 1;
		} else if (gc.vflag)
			printf("note %s: last_used_at \"%s\" is not RFC 3339\n",
			    b->name, sbx_shown(b->used, buf, 40));
	}
	return known;
}

/*
 * Decide about one listed sandbox; returns 0, or if it was to go and did
 * not, SBX_EX_TIMEOUT when its sbx rm timed out, else SBX_EX_FAIL.
 */
static int
sweep_one(const struct box *b)
{
	char why[160], buf[40];
	struct sbx_result c;
	long long when, idle;
	int lfd, rv;

	if (!markers_namepid(&gc, b->name, NULL)) {
		snprintf(why, sizeof(why), "not a name sbx-run makes "
		    "(%s<pid>-<8 of [a-z0-9]>)", gc.prefix);
		goto keep;
	}
	if (b->status == NULL || strcmp(b->status, "stopped") != 0) {
		snprintf(why, sizeof(why), "status %s", b->status == NULL ?
		    "unknown" : sbx_shown(b->status, buf, sizeof(buf)));
		goto keep;
	}
	if (markers_excluded(&gc, b->name)) {
		snprintf(why, sizeof(why), "excluded with -x");
		goto keep;
	}
	if (markers_alive(&gc, b->name, why, sizeof(why)))
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
	if (gc.nflag) {
		markers_say("would remove", b->name, why);
		return 0;
	}
	/* a removal and a provisioning of one sandbox never interleave */
	if ((lfd = markers_provlock(&gc, b->name, "kept")) == -1)
		return 0;
	if (sbx(&c, "rm", "--force", b->name) != 0 &&
	    !sbx_gone(&c, sbxpath, sbxenv, b->name, timeout, gc.dfd)) {
		if (c.timedout)
			warnx("sandbox %s: sbx rm --force: timed out after %d s",
			    b->name, timeout);
		else {
			(void)snprintf(why, sizeof(why),
			    "sandbox %s: sbx rm --force", b->name);
			sbx_unplaced(&c, sbxpath, sbxenv, gc.dfd, why);
			warnx("sandbox %s: sbx rm --force: exit status %d",
			    b->name, c.status);
		}
		rv = c.timedout ? SBX_EX_TIMEOUT : SBX_EX_FAIL;
		sbx_supervise_result_free(&c);
		close(lfd);
		return rv;
	}
	sbx_supervise_result_free(&c);
	markers_drop(&gc, b->name, markers_rules(&gc, b->name) == -1 ?
	    SBX_MB(SBX_M_EGRESS) : 0);
	close(lfd);
	if (gc.vflag)
		markers_say("removed", b->name, why);
	return 0;
keep:
	if (gc.vflag)
		markers_say("kept", b->name, why);
	return 0;
}

/*
 * A name listed twice is one sandbox: stopped only if every entry says
 * so, and last used at the latest time any entry gives.
 */
static void
merge(struct box *into, const struct box *b)
{
	long long t1, t2;

	if (into->status != NULL && strcmp(into->status, "stopped") == 0 &&
	    (b->status == NULL || strcmp(b->status, "stopped") != 0))
		into->status = b->status != NULL ? b->status : "unknown";
	if (b->used != NULL && sbx_rfc3339_parse(b->used, &t2) == 0 &&
	    (into->used == NULL || sbx_rfc3339_parse(into->used, &t1) != 0 ||
	    t2 > t1))
		into->used = b->used;
}

/* One "sbx ls --json"; the listed sandboxes, sorted, without repeats. */
static struct box *
listing(struct sbx_json **treep, size_t *np)
{
	const struct sbx_json *arr, *e;
	struct sbx_json *tree;
	struct sbx_result c;
	struct box *v;
	const char *errstr;
	char buf[160];
	size_t n, i, o;

	if (sbx(&c, "ls", "--json", NULL) != 0 && c.timedout)
		errx(SBX_EX_TIMEOUT, "sbx ls --json: timed out after %d s",
		    timeout);
	if (c.status != 0) {
		sbx_unplaced(&c, sbxpath, sbxenv, gc.dfd, "sbx ls --json");
		errx(SBX_EX_FAIL, "sbx ls --json: exit status %d", c.status);
	}
	if (c.out.len > LS_MAX)
		errx(SBX_EX_FAIL, "sbx ls --json: more than %d bytes of output, "
		    "refusing it", LS_MAX);
	if ((tree = sbx_json_doc(c.out.data != NULL ? c.out.data : "",
	    c.out.len, &errstr)) == NULL)
		errx(SBX_EX_FAIL, "sbx ls --json: %s", errstr);
	/* null: none (a Go nil slice) */
	if ((arr = sbx_json_get(tree, "sandboxes")) == NULL ||
	    (arr->type != SBX_JARR && arr->type != SBX_JNULL))
		errx(SBX_EX_FAIL, "sbx ls --json: no \"sandboxes\" array");
	sbx_supervise_result_free(&c);
	for (n = 0, e = arr->child; e != NULL; e = e->next)
		n++;
	if ((v = calloc(n + 1, sizeof(*v))) == NULL)
		err(SBX_EX_FAIL, NULL);
	for (i = 0, e = arr->child; e != NULL; e = e->next) {
		v[i].name = sbx_json_str(e, "name");
		if (v[i].name == NULL || !sbx_name_valid(v[i].name)) {
			/* never passed to sbx: it could read as an option */
			if (gc.vflag)
				printf("skipped \"%s\": not a valid sandbox "
				    "name\n", v[i].name == NULL ? "" :
				    sbx_shown(v[i].name, buf, 80));
			continue;
		}
		v[i].status = sbx_json_str(e, "status");
		v[i].used = sbx_json_str(e, "last_used_at");
		i++;
	}
	n = i;
	if (n > 1)
		qsort(v, n, sizeof(*v), markers_boxcmp);
	for (i = o = 0; i < n; i++) {
		if (o == 0 || strcmp(v[i].name, v[o - 1].name) != 0)
			v[o++] = v[i];
		else
			merge(&v[o - 1], &v[i]);
	}
	*treep = tree;
	*np = o;
	return v;
}

/* -P: a prefix is the start of a valid name, never empty */
static void
prefix_check(void)
{
	char buf[84];
	size_t i, plen;

	plen = strlen(gc.prefix);
	for (i = 0; i < plen; i++)
		if (!((gc.prefix[i] >= 'a' && gc.prefix[i] <= 'z') ||
		    (gc.prefix[i] >= 'A' && gc.prefix[i] <= 'Z') ||
		    (gc.prefix[i] >= '0' && gc.prefix[i] <= '9') ||
		    (i > 0 && (gc.prefix[i] == '-' || gc.prefix[i] == '.'))))
			break;
	if (plen == 0 || plen >= SBX_NAME_MAX || i < plen)
		errx(SBX_EX_USAGE, "-P %s: invalid prefix",
		    sbx_shown(gc.prefix, buf, 80));
}

/* The setting turned the sweep off: -n and -v say so. */
static int
sweep_off(void)
{
	if (gc.vflag || gc.nflag)
		printf("no sweep: %s is 0 (give -H to sweep)\n",
		    sbx_conf_name(SBX_CONF_GC_HOURS));
	if (sbx_io_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return SBX_EX_OK;
}

/* The sweep, under SBX_GC_LOCK: the image cache, then each sandbox. */
static int
sweep_all(void)
{
	struct sbx_envpolicy pol;
	struct sbx_json *tree;
	struct box *boxes;
	char **ws;
	size_t nboxes, i;
	time_t since;
	int lfd, rv, failed = SBX_EX_OK;

	if ((gc.dfd = sbx_xstatedir_open(gc.statedir,
	    sizeof(gc.statedir))) == -1)
		exit(SBX_EX_FAIL);
	if ((lfd = sbx_lock(gc.dfd, SBX_GC_LOCK, 0)) == -1) {
		if (errno == EAGAIN) {
			if (gc.vflag)
				warnx("another sbx-gc is running");
			exit(SBX_EX_BUSY);
		}
		err(SBX_EX_FAIL, "%s/%s", gc.statedir, SBX_GC_LOCK);
	}
	/* the image cache: no sbx call, first */
	sbx_imgevict_sweep((gc.nflag ? SBX_IMG_DRY : 0) |
	    (gc.nflag || gc.vflag ? SBX_IMG_SAY : 0));
	ws = markers_workspaces(&gc);
	sbx_xcli_find(environ, ws, sbxpath, sizeof(sbxpath));
	for (i = 0; ws[i] != NULL; i++)
		free(ws[i]);
	free(ws);
	memset(&pol, 0, sizeof(pol));	/* strict: the host set only */
	if ((sbxenv = sbx_env_build(environ, &pol)) == NULL)
		err(SBX_EX_FAIL, "environment");
	gc.sbx = sbxpath;
	gc.env = sbxenv;
	gc.timeout = timeout;

	since = time(NULL);
	boxes = listing(&tree, &nboxes);
	now = time(NULL);
	/* each sandbox on its own; a timeout is told over a failure */
	for (i = 0; i < nboxes; i++)
		if ((rv = sweep_one(&boxes[i])) != 0 && failed != SBX_EX_TIMEOUT)
			failed = rv;
	markers_sweep_orphans(&gc, boxes, nboxes, since);
	records_trim(&gc, sbx_xconf_int(SBX_CONF_SESSIONS_KEPT));
	free(boxes);
	sbx_json_free(tree);
	free(sbxenv);
	close(lfd);
	if (sbx_io_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return failed;
}

int
main(int argc, char *argv[])
{
	const char *errstr;
	char buf[84];
	int ch;

	opterr = 0;
	while ((ch = getopt(argc, argv, "+H:P:nvx:")) != -1) {
		switch (ch) {
		case 'H':
			hours = sbx_strtonum(optarg, 0, HOURS_MAX, &errstr);
			if (errstr != NULL)
				errx(SBX_EX_USAGE, "-H: hours are %s (0 to %d)",
				    errstr, HOURS_MAX);
			break;
		case 'P':
			gc.prefix = optarg;
			break;
		case 'n':
			gc.nflag = 1;
			break;
		case 'v':
			gc.vflag = 1;
			break;
		case 'x':
			if (!sbx_name_valid(optarg))
				errx(SBX_EX_USAGE, "-x %s: invalid sandbox name",
				    sbx_shown(optarg, buf, 80));
			if (gc.nexcluded == GC_XMAX)
				errx(SBX_EX_USAGE, "-x: at most %d names",
				    GC_XMAX);
			gc.excluded[gc.nexcluded++] = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	if (argc != 0)
		usage();
	prefix_check();
	sbx_xconf_check(SBX_CONF_TIMEOUT | SBX_CONF_GC_HOURS |
	    SBX_CONF_SESSIONS_KEPT);
	timeout = sbx_xconf_timeout();
	/* the setting's 0 turns the sweep off, where -H 0 means any age */
	if (hours == -1 && (hours = sbx_xconf_int(SBX_CONF_GC_HOURS)) == 0)
		return sweep_off();
	return sweep_all();
}
