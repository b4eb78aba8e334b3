/*
 * readable.c: -J -h, a record shown for people: a heading, then a line
 * per call and per event.  Every text of the record goes through
 * sbx_shown, so no byte of it, however the file was written, reaches
 * the terminal raw.  Words are quoted so that a shell reads them back.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sbx.h"
#include "sbxjson.h"
#include "sbxmarker.h"
#include "sbxname.h"
#include "sbx-run.h"

#define PIECE	512	/* bytes shown at once: at most 4 each when shown */
#define BARE	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
		"0123456789@%+=:,./_-"

/*
 * s shown, piece by piece, each piece cut before a character's first
 * byte so that none is split; printed when quote is 1 ('...') or 2
 * ($'...'), its quotes escaped for them.  Whether showing changed it.
 */
static int
shown(const char *s, int quote)
{
	char piece[PIECE + 1], out[4 * PIECE + 1], *p;
	size_t len = strlen(s), n;
	int changed = 0;

	while (len > 0) {
		n = len > PIECE ? PIECE : len;
		/* a character's later bytes are 10xxxxxx, 3 at most */
		while (n < len && n > PIECE - 3 &&
		    ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		memcpy(piece, s, n);
		piece[n] = '\0';
		(void)sbx_shown(piece, out, sizeof(out));
		changed |= strcmp(out, piece) != 0;
		for (p = out; quote != 0 && *p != '\0'; p++)
			if (*p == '\'')
				fputs(quote == 1 ? "'\\''" : "\\'", stdout);
			else
				putchar(*p);
		s += n;
		len -= n;
	}
	return changed;
}

/*
 * A word as sh(1) reads it back: bare, in '...', or in $'...' when it
 * holds what sbx_shown escapes (its \n, \t, \r, \ooo and \\ are $'s).
 */
static void
word(const char *s)
{
	int dollar;

	if (*s != '\0' && s[strspn(s, BARE)] == '\0') {
		fputs(s, stdout);
		return;
	}
	dollar = shown(s, 0);
	fputs(dollar ? "$'" : "'", stdout);
	(void)shown(s, dollar ? 2 : 1);
	putchar('\'');
}

/* A value of the record: strings as words, arrays a,b, objects {k=v}. */
static void
value(const struct sbx_json *v)
{
	const struct sbx_json *e;

	switch (v->type) {
	case SBX_JSTR:
		word(v->str);
		break;
	case SBX_JNUM:	/* the reader took only a number's characters */
		fputs(v->str, stdout);
		break;
	case SBX_JBOOL:
		fputs(v->boolean ? "true" : "false", stdout);
		break;
	case SBX_JNULL:
		fputs("null", stdout);
		break;
	case SBX_JARR:
		for (e = v->child; e != NULL; e = e->next) {
			value(e);
			if (e->next != NULL)
				putchar(',');
		}
		break;
	case SBX_JOBJ:
		putchar('{');
		for (e = v->child; e != NULL; e = e->next) {
			word(e->key);
			putchar('=');
			value(e);
			if (e->next != NULL)
				putchar(' ');
		}
		putchar('}');
		break;
	}
}

/* A member that is a whole number of at least 0, else -1. */
static long long
count(const struct sbx_json *j, const char *key)
{
	const struct sbx_json *v = sbx_json_get(j, key);
	const char *errstr;
	long long n;

	if (v == NULL || v->type != SBX_JNUM)
		return -1;
	n = sbx_strtonum(v->str, 0, LLONG_MAX, &errstr);
	return errstr != NULL ? -1 : n;
}

static void
call(const struct sbx_json *j)
{
	const struct sbx_json *v, *a;
	long long st = count(j, "status"), ms = count(j, "ms");
	long long bytes = count(j, "bytes");
	char d[32], b[32];
	int sep;

	(void)snprintf(d, sizeof(d), ms < 0 ? "?" : "%lld.%03llds", ms / 1000,
	    ms % 1000);
	(void)snprintf(b, sizeof(b), bytes < 0 ? "?" : "%lld", bytes);
	if (st < 0)
		printf("exit ?   ");
	else
		printf("exit %-3lld ", st);
	printf("%8s %8s bytes  ", d, b);
	/* -x's are the command itself */
	v = sbx_json_get(j, "raw");
	if ((sep = v == NULL || v->type != SBX_JBOOL || !v->boolean))
		fputs("docker", stdout);
	a = sbx_json_get(j, "argv");
	for (v = a != NULL && a->type == SBX_JARR ? a->child : NULL; v != NULL;
	    v = v->next, sep = 1) {
		if (sep)
			putchar(' ');
		value(v);
	}
	if ((v = sbx_json_get(j, "truncated")) != NULL &&
	    v->type == SBX_JBOOL && v->boolean)
		fputs(" [arguments cut]", stdout);
	if ((v = sbx_json_get(j, "blocked")) != NULL) {
		fputs(" [blocked ", stdout);
		value(v);
		putchar(']');
	}
}

static void
event(const struct sbx_json *j)
{
	const struct sbx_json *m;

	word(sbx_json_str(j, "event"));
	putchar(':');
	for (m = j->child; m != NULL; m = m->next) {
		if (strcmp(m->key, "time") == 0 || strcmp(m->key, "event") == 0)
			continue;
		putchar(' ');
		word(m->key);
		putchar('=');
		value(m);
	}
}

/* One line of the record -J selected: a call, or an event. */
void
readable_line(const struct sbx_json *j)
{
	const char *t = sbx_json_str(j, "time");
	char when[SESSIONS_TIME];

	printf("%s  ", sessions_time(t != NULL ? t : "", when));
	if (sbx_json_str(j, "event") != NULL)
		event(j);
	else
		call(j);
	putchar('\n');
}

/*
 * The heading: the sandbox, and the record file read (NULL: none), live
 * or ended when (its end event's time, else the one its name holds), and
 * the calls it counts.
 */
void
readable_heading(const char *name, const char *file, int live,
    const char *end, long long calls)
{
	char n[SBX_NAME_MAX + 1], when[SESSIONS_TIME];
	long long sec, k;
	struct tm tm;
	time_t t;

	printf("%s: ", name);
	if (file == NULL)
		fputs("no record", stdout);
	else if (live)
		fputs("live", stdout);
	else if (*end != '\0')
		printf("ended %s", sessions_time(end, when));
	else if (sbx_marker_past_parse(file, n, sizeof(n), &sec, &k) == 0 &&
	    (t = (time_t)sec, gmtime_r(&t, &tm) != NULL) &&
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) != 0)
		printf("ended %s", when);
	else
		fputs("ended", stdout);
	printf(", %lld call%s\n", calls, calls == 1 ? "" : "s");
}
