/*
 * policylog.c: the denials in what `sbx policy log [SANDBOX] --json`
 * printed, read by meaning, as sbx's envelope moved between versions.
 * The first of duplicate members counts, as everywhere in the reader;
 * a host in any case is one host, shown as its latest entry spells it.
 * An entry naming no sandbox is the one asked for; one whose time cannot
 * be read counts, since missing a denial costs more than an old one.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbxjson.h"
#include "sbxpolicy.h"
#include "sbxtime.h"

/* a time this large is in milliseconds */
#define MS_FROM	1000000000000LL

/* One denial as read, pointing into the tree, before the merge. */
struct seen {
	const char	*host;
	const char	*why;		/* sbx's raw reason, or NULL */
	long long	 t;		/* -1 unknown */
	long		 count;
};

struct seenlist {
	struct seen	*v;
	size_t		 n, cap;
};

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* ASCII without case: host names, and sbx's decision words */
static int
nocase(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	for (; *x != '\0' && lower(*x) == lower(*y); x++, y++)
		;
	return lower(*x) - lower(*y);
}

/* s as a whole number, clamped, a fraction dropped with frac; or -1 */
static long long
whole(const char *s, int frac)
{
	long long v = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v > (LLONG_MAX - 9) / 10 ? LLONG_MAX : v * 10 + (*s - '0');
	if (frac && *s == '.' && s[1] >= '0' && s[1] <= '9')
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	return *s == '\0' ? v : -1;
}

/* The entry's time: the first of its time members that reads, or -1. */
static long long
when(const struct sbx_json *e)
{
	static const char *const keys[] = {
		"last_seen", "timestamp", "time", "since"
	};
	const struct sbx_json *m;
	long long t;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if ((m = sbx_json_get(e, keys[i])) == NULL)
			continue;
		if (m->type == SBX_JSTR && sbx_rfc3339_parse(m->str, &t) == 0 &&
		    t >= 0)
			return t;
		if (m->type == SBX_JNUM && (t = whole(m->str, 1)) >= 0)
			return t >= MS_FROM ? t / 1000 : t;
	}
	return -1;
}

static long
count(const struct sbx_json *e)
{
	static const char *const keys[] = { "count_since", "count" };
	const struct sbx_json *m;
	long long c;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if ((m = sbx_json_get(e, keys[i])) == NULL ||
		    (m->type != SBX_JNUM && m->type != SBX_JSTR))
			continue;
		if ((c = whole(m->str, m->type == SBX_JNUM)) >= 1)
			return c > LONG_MAX ? LONG_MAX : (long)c;
	}
	return 1;
}

/* Whether the entry is the sandbox's: it names it, or names none. */
static int
ours(const struct sbx_json *e, const char *sandbox)
{
	static const char *const keys[] = {
		"vm_name", "sandbox", "sandbox_name"
	};
	const struct sbx_json *m;
	size_t i;
	int named = 0;

	if (sandbox == NULL)
		return 1;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		m = sbx_json_get(e, keys[i]);
		if (m == NULL || m->type == SBX_JNULL)
			continue;
		named = 1;
		if (m->type == SBX_JSTR && strcmp(m->str, sandbox) == 0)
			return 1;
	}
	return !named;
}

static int
denied(const struct sbx_json *e)
{
	static const char *const words[] = {
		"deny", "denied", "block", "blocked"
	};
	const char *d;
	size_t i;

	if ((d = sbx_json_str(e, "decision")) == NULL)
		return 0;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (nocase(d, words[i]) == 0)
			return 1;
	return 0;
}

static int
push(struct seenlist *l, const struct seen *s)
{
	struct seen *v;
	size_t cap;

	if (l->n == l->cap) {
		cap = l->cap != 0 ? l->cap * 2 : 64;
		if (cap > SIZE_MAX / sizeof(*v) ||
		    (v = realloc(l->v, cap * sizeof(*v))) == NULL)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *s;
	return 0;
}

/* The list's denials of the sandbox since then; -1 out of memory. */
static int
collect(const struct sbx_json *list, int needdecision, const char *sandbox,
    long long since, struct seenlist *l)
{
	const struct sbx_json *e;
	struct seen s;

	if (list == NULL || list->type != SBX_JARR)
		return 0;
	for (e = list->child; e != NULL; e = e->next) {
		if (e->type != SBX_JOBJ ||
		    (s.host = sbx_json_str(e, "host")) == NULL ||
		    *s.host == '\0' || (needdecision && !denied(e)) ||
		    !ours(e, sandbox))
			continue;
		if ((s.t = when(e)) != -1 && s.t < since)
			continue;
		/* a rule's id says more than words; a verdict reads as both */
		if ((s.why = sbx_json_str(e, "rule")) == NULL || *s.why == '\0')
			s.why = sbx_json_str(e, "reason");
		s.count = count(e);
		if (push(l, &s) == -1)
			return -1;
	}
	return 0;
}

/* by host, the latest first: the head of each host's run is its latest */
static int
byhost(const void *va, const void *vb)
{
	const struct seen *a = va, *b = vb;
	int c;

	if ((c = nocase(a->host, b->host)) != 0)
		return c;
	return (a->t < b->t) - (a->t > b->t);
}

/* the latest first, an unknown time last, then by host */
static int
bytime(const void *va, const void *vb)
{
	const struct seen *a = va, *b = vb;
	int c;

	if (a->t != b->t)
		return (a->t < b->t) - (a->t > b->t);
	if ((c = nocase(a->host, b->host)) != 0)
		return c;
	return strcmp(a->host, b->host);
}

/* Each host once: counts added, the latest time and reason kept. */
static size_t
merge(struct seen *v, size_t n)
{
	size_t i, k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), byhost);
	for (i = 1; i < n; i++) {
		if (nocase(v[i].host, v[k].host) != 0) {
			v[++k] = v[i];
			continue;
		}
		v[k].count = v[k].count > LONG_MAX - v[i].count ? LONG_MAX :
		    v[k].count + v[i].count;
	}
	return k + 1;
}

/* The envelope: its list, and whether its entries say their decision. */
static int
envelope(const struct sbx_json *doc, const struct sbx_json **list,
    int *needdecision, const char **why)
{
	static const char *const keys[] = { "entries", "log", "events" };
	const struct sbx_json *m;
	size_t i;

	*list = NULL;
	*needdecision = 1;
	if (doc->type == SBX_JARR) {
		*list = doc;
		return SBX_POLICYLOG_ARRAY;
	}
	if ((m = sbx_json_get(doc, "blocked_hosts")) != NULL ||
	    sbx_json_get(doc, "allowed_hosts") != NULL) {
		if (m != NULL && m->type != SBX_JARR && m->type != SBX_JNULL) {
			*why = "blocked_hosts is not a list";
			return SBX_POLICYLOG_UNKNOWN;
		}
		*list = m;
		*needdecision = 0;	/* being there says it */
		return SBX_POLICYLOG_HOSTS;
	}
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if ((m = sbx_json_get(doc, keys[i])) == NULL)
			continue;
		if (m->type != SBX_JARR && m->type != SBX_JNULL) {
			*why = "the log's entries are not a list";
			return SBX_POLICYLOG_UNKNOWN;
		}
		*list = m;
		return SBX_POLICYLOG_LIST;
	}
	if (doc->child == NULL)
		return SBX_POLICYLOG_EMPTY;
	*why = "an envelope of unknown shape (no blocked_hosts, entries, "
	    "log or events list)";
	return SBX_POLICYLOG_UNKNOWN;
}

/* Whether out holds only blanks, or the one word null. */
static int
nothing(const char *out, size_t len)
{
	size_t i = 0, j = len;

	while (i < j && (out[i] == ' ' || out[i] == '\t' || out[i] == '\r' ||
	    out[i] == '\n'))
		i++;
	while (j > i && (out[j - 1] == ' ' || out[j - 1] == '\t' ||
	    out[j - 1] == '\r' || out[j - 1] == '\n'))
		j--;
	return i == j || (j - i == 4 && memcmp(out + i, "null", 4) == 0);
}

/*
 * The denials of sandbox (NULL: of any) seen at or after since (Unix
 * seconds) in out: 0, or -1 with *why when the envelope is unknown, the
 * JSON cannot be read or memory ran out.  Free *d with
 * sbx_policylog_free either way.
 */
int
sbx_policylog_parse(const char *out, size_t len, const char *sandbox,
    long long since, struct sbx_denials *d, const char **why)
{
	struct seenlist l = { NULL, 0, 0 };
	struct sbx_json *doc;
	const struct sbx_json *list;
	const char *err = NULL;
	size_t i, k;
	int need;

	memset(d, 0, sizeof(*d));
	if (out == NULL || nothing(out, len)) {
		d->shape = SBX_POLICYLOG_EMPTY;
		goto done;
	}
	if ((doc = sbx_json_doc(out, len, &err)) == NULL)
		goto done;
	d->shape = envelope(doc, &list, &need, &err);
	if (d->shape != SBX_POLICYLOG_UNKNOWN &&
	    collect(list, need, sandbox, since, &l) == -1)
		err = "out of memory";
	k = err == NULL ? merge(l.v, l.n) : 0;
	if (k > 0 && l.v != NULL)
		qsort(l.v, k, sizeof(*l.v), bytime);
	d->n = k < SBX_POLICYLOG_MAX ? k : SBX_POLICYLOG_MAX;
	d->more = k - d->n;
	if (d->n > 0 && (d->v = calloc(d->n, sizeof(*d->v))) == NULL) {
		err = "out of memory";
		d->n = d->more = 0;
	}
	for (i = 0; l.v != NULL && i < d->n; i++) {
		sbx_policylog_host(l.v[i].host, d->v[i].host,
		    sizeof(d->v[i].host));
		sbx_policylog_reason(l.v[i].why, d->v[i].reason,
		    sizeof(d->v[i].reason));
		d->v[i].last_seen = l.v[i].t;
		d->v[i].count = l.v[i].count;
	}
	free(l.v);
	sbx_json_free(doc);
done:
	if (err != NULL)
		d->shape = SBX_POLICYLOG_UNKNOWN;
	if (why != NULL)
		*why = err;
	return err != NULL ? -1 : 0;
}

void
sbx_policylog_free(struct sbx_denials *d)
{
	free(d->v);
	d->v = NULL;
	d->n = d->more = 0;
}

const char *
sbx_policylog_shape(int shape)
{
	switch (shape) {
	case SBX_POLICYLOG_EMPTY:
		return "empty";
	case SBX_POLICYLOG_HOSTS:
		return "hosts";
	case SBX_POLICYLOG_ARRAY:
		return "array";
	case SBX_POLICYLOG_LIST:
		return "list";
	default:
		return "unknown";
	}
}
