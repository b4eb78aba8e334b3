/*
 * tripcmp.c: what changed between two scans of the tripwire, a finding
 * per path: created, changed, made executable, turned into a link,
 * removed, or unchecked (and why), with who runs it; and the words the
 * findings are told in.
 */
#include <stdio.h>
#include <string.h>

#include "sbxtrip.h"

const char *
sbx_tripcmp_what(char type)
{
	switch (type) {
	case 'f':	return "a file";
	case 'd':	return "a directory";
	case 'l':	return "a link";
	case 'p':	return "a fifo, not read";
	case 'c':	return "a character device, not read";
	case 'b':	return "a block device, not read";
	case 's':	return "a socket, not read";
	default:	return "not known";
	}
}

const char *
sbx_tripcmp_why(int why)
{
	switch (why) {
	case SBX_TRIP_UNREADABLE:	return "unreadable";
	case SBX_TRIP_RACED:	return "replaced or written while hashed";
	case SBX_TRIP_TOOMANY:	return "too many entries to check";
	case SBX_TRIP_TOODEEP:	return "too deep to check";
	case SBX_TRIP_LONG:	return "a name too long to check";
	case SBX_TRIP_STAT:	return "could not be looked at";
	default:	return "";
	}
}

static int
changed(const struct sbx_tripent *a, const struct sbx_tripent *b)
{
	if (a->type != b->type || a->ino != b->ino || a->dev != b->dev ||
	    (a->mode & ~0111u) != (b->mode & ~0111u) ||
	    strcmp(a->target, b->target) != 0)
		return 1;
	if (a->type == 'd')
		return 0;	/* what it holds is compared on its own */
	if (a->size != b->size)
		return 1;
	if (a->hashed && b->hashed)
		return a->hash != b->hash;
	return a->mtime != b->mtime || a->mtimens != b->mtimens ||
	    a->ctime != b->ctime || a->ctimens != b->ctimens;
}

static int
tell(int (*cb)(void *, const struct sbx_tripfind *), void *arg,
    const struct sbx_tripent *e, const char *change)
{
	struct sbx_tripfind f;

	f.path = e->path;
	f.change = change;
	f.runner = sbx_triplist_runner(e->runner);
	f.type = e->type;
	f.target = e->type == 'l' ? e->target : NULL;
	f.why = strcmp(change, "unchecked") == 0 ? e->why : SBX_TRIP_OK;
	return cb(arg, &f);
}

/* A path in both scans. */
static int
compare1(const struct sbx_tripent *a, const struct sbx_tripent *b,
    int (*cb)(void *, const struct sbx_tripfind *), void *arg)
{
	int r = 0;

	if (b->why != SBX_TRIP_OK)
		return tell(cb, arg, b, "unchecked");
	if (a->type != 'l' && b->type == 'l')
		return tell(cb, arg, b, "link");
	if (b->type == 'f' && !(a->type == 'f' && (a->mode & 0111)) &&
	    (b->mode & 0111))
		r = tell(cb, arg, b, "executable");
	if (r == 0 && changed(a, b))
		r = tell(cb, arg, b, "changed");
	return r;
}

/* A path in the later scan alone. */
static int
created(const struct sbx_tripent *b,
    int (*cb)(void *, const struct sbx_tripfind *), void *arg)
{
	return tell(cb, arg, b, b->why != SBX_TRIP_OK ? "unchecked" :
	    b->type == 'l' ? "link" : "created");
}

/* Is a directory above path unchecked now?  Its finding covers path. */
static int
covered(const struct sbx_trip *now, const char *path)
{
	const struct sbx_tripent *e;
	char up[SBX_TRIP_PATH], *slash;

	(void)snprintf(up, sizeof(up), "%s", path);
	while ((slash = strrchr(up, '/')) != NULL) {
		*slash = '\0';
		if ((e = sbx_tripscan_find(now, up)) != NULL &&
		    e->why != SBX_TRIP_OK)
			return 1;
	}
	return 0;
}

/*
 * What changed from base to now, each path's finding through cb (which
 * stops it by returning -1); a workspace replaced is a finding on ".".
 */
int
sbx_tripcmp_compare(const struct sbx_trip *base, const struct sbx_trip *now,
    int (*cb)(void *, const struct sbx_tripfind *), void *arg)
{
	struct sbx_tripent ws;
	size_t i = 0, j = 0;
	int c, r = 0;

	if (base->wsdev != now->wsdev || base->wsino != now->wsino) {
		memset(&ws, 0, sizeof(ws));
		ws.path[0] = '.';
		ws.type = 'd';
		ws.why = SBX_TRIP_RACED;
		ws.runner = -1;
		if (tell(cb, arg, &ws, "unchecked") == -1)
			return -1;
	}
	while (r == 0 && (i < base->n || j < now->n)) {
		c = i == base->n ? 1 : j == now->n ? -1 :
		    strcmp(base->e[i].path, now->e[j].path);
		if (c < 0 && covered(now, base->e[i].path))
			i++;
		else if (c < 0)
			r = tell(cb, arg, &base->e[i++], "removed");
		else if (c > 0)
			r = created(&now->e[j++], cb, arg);
		else
			r = compare1(&base->e[i++], &now->e[j++], cb, arg);
	}
	return r;
}
