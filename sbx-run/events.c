/*
 * events.c: the event lines sbx-run adds to the session's record: the
 * session at provisioning, and what a docker call's own words tell of
 * images and containers (its argv, status and output's last bytes), so
 * no call is made for them.  Only names, references, ids and digests go
 * in, never a variable's value.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxjson.h"
#include "sbxrecord.h"
#include "sbxstate.h"
#include "sbx-run.h"

#define MEMBERS_MAX	(SBX_RECORD_LINE - 128)
#define VALUE_MAX	512	/* bytes of one value recorded */
#define LIST_MAX	16	/* containers of one call recorded */

struct members {
	char	 text[MEMBERS_MAX];
	size_t	 len;
};

/* ,"key":"value", escaped and whole, or nothing when it does not fit. */
static void
add_str(struct members *m, const char *key, const char *value, size_t vlen)
{
	char v[VALUE_MAX + 1];
	size_t n, start = m->len;
	int k;

	if (vlen > VALUE_MAX)
		vlen = VALUE_MAX;
	memcpy(v, value, vlen);
	v[vlen] = '\0';
	k = snprintf(m->text + m->len, sizeof(m->text) - m->len, "%s\"%s\":\"",
	    m->len > 0 ? "," : "", key);
	if (k < 0 || (size_t)k >= sizeof(m->text) - m->len)
		return;
	m->len += (size_t)k;
	if (sbx_jsonout_esc(m->text + m->len, sizeof(m->text) - m->len - 2,
	    v, &n) < vlen) {
		m->len = start;
		return;
	}
	m->len += n;
	m->text[m->len++] = '"';
	m->text[m->len] = '\0';
}

static void
add_num(struct members *m, const char *key, long long n)
{
	int k;

	k = snprintf(m->text + m->len, sizeof(m->text) - m->len,
	    "%s\"%s\":%lld", m->len > 0 ? "," : "", key, n);
	if (k >= 0 && (size_t)k < sizeof(m->text) - m->len)
		m->len += (size_t)k;
	else
		m->text[m->len] = '\0';
}

static void
emit(const char *name, const char *kind, const struct members *m)
{
	char dir[4096];
	int dfd;

	if ((dfd = sbx_xstatedir_open(dir, sizeof(dir))) == -1)
		return;
	(void)sbx_record_event(dfd, name, kind, m->text);
	close(dfd);
}

/* At provisioning: the session's workspace and how it is mounted. */
void
events_session(const char *name, const char *workspace, const char *mode)
{
	struct members m;

	m.len = 0;
	m.text[0] = '\0';
	add_str(&m, "workspace", workspace, strlen(workspace));
	add_str(&m, "mode", mode, strlen(mode));
	add_num(&m, "pid", (long long)getppid());
	emit(name, "session", &m);
}

/*
 * The word after the last needle in the output's tail (at a line's start
 * when bol), up to a space or the line's end: its length, and *at.
 */
static size_t
after(const char *t, const char *needle, int bol, const char **at)
{
	const char *p, *found = NULL;
	size_t n = strlen(needle);

	for (p = t; (p = strstr(p, needle)) != NULL; p++)
		if (!bol || p == t || p[-1] == '\n')
			found = p + n;
	if (found == NULL)
		return 0;
	*at = found;
	return strcspn(found, " \t\r\n");
}

/*
 * Is s (n bytes) an id or digest, [sha256:]HEX of 12 to 64 digits?  So
 * nothing else the output says reaches the record.
 */
static int
hexid(const char *s, size_t n)
{
	size_t h;

	if (n > 7 && strncmp(s, "sha256:", 7) == 0) {
		s += 7;
		n -= 7;
	}
	for (h = 0; h < n && strchr("0123456789abcdef", s[h]) != NULL &&
	    s[h] != '\0'; h++)
		;
	return h == n && n >= 12 && n <= 64;
}

/* The last line of the tail that is a whole container or image id. */
static const char *
hexline(const char *t)
{
	const char *p, *found = NULL;

	for (p = t; *p != '\0'; p += strcspn(p, "\n"), p += *p != '\0')
		if (strspn(p, "0123456789abcdef") == 64 &&
		    (p[64] == '\n' || p[64] == '\r' || p[64] == '\0'))
			found = p;
	return found;
}

/* The value of option -s or --l in av, or NULL. */
static const char *
option(char *const *av, char s, const char *l)
{
	size_t ll = strlen(l);
	int i;

	for (i = 0; av[i] != NULL; i++) {
		if (strcmp(av[i], "--") == 0)
			break;
		if (av[i][0] == '-' && av[i][1] == '-' &&
		    strncmp(av[i] + 2, l, ll) == 0) {
			if (av[i][2 + ll] == '=')
				return av[i] + 3 + ll;
			if (av[i][2 + ll] == '\0')
				return av[i + 1];
		}
		if (s != 0 && av[i][0] == '-' && av[i][1] == s)
			return av[i][2] != '\0' ? av[i] + 2 : av[i + 1];
	}
	return NULL;
}

/* "containers":[...], the operands of a verb with no valued option. */
static void
operands(struct members *m, char *const *av)
{
	size_t start = m->len, n;
	int i, k = 0;

	if (m->len + 20 >= sizeof(m->text))
		return;
	m->len += (size_t)snprintf(m->text + m->len, 20, ",\"containers\":[");
	for (i = 0; av[i] != NULL && k < LIST_MAX; i++) {
		if (av[i][0] == '-')
			continue;
		if (m->len + 4 >= sizeof(m->text))
			break;
		if (k++ > 0)
			m->text[m->len++] = ',';
		m->text[m->len++] = '"';
		if (sbx_jsonout_esc(m->text + m->len, sizeof(m->text) -
		    m->len - 3, av[i], &n) < strlen(av[i])) {
			m->len = start;
			m->text[m->len] = '\0';
			return;
		}
		m->len += n;
		m->text[m->len++] = '"';
	}
	m->text[m->len++] = ']';
	m->text[m->len] = '\0';
}

static void
pulled(struct members *m, char *const *av, const char *t)
{
	const char *ref = NULL, *d;
	size_t n;
	int i;

	for (i = 1; av[i] != NULL; i++)
		if (av[i][0] != '-')
			ref = av[i];
	add_str(m, "op", "pull", 4);
	if (ref != NULL)
		add_str(m, "ref", ref, strlen(ref));
	if ((n = after(t, "Digest: ", 1, &d)) > 0 && hexid(d, n))
		add_str(m, "digest", d, n);
}

/* Its id as BuildKit, the classic builder or -q says it. */
static void
built(struct members *m, char *const *av, const char *t)
{
	const char *tag, *d;
	size_t n;

	add_str(m, "op", "build", 5);
	if ((tag = option(av, 't', "tag")) != NULL)
		add_str(m, "tag", tag, strlen(tag));
	if (((n = after(t, "writing image ", 0, &d)) > 0 && hexid(d, n)) ||
	    ((n = after(t, "Successfully built ", 1, &d)) > 0 &&
	    hexid(d, n)))
		add_str(m, "id", d, n);
	else if ((n = after(t, "sha256:", 1, &d)) == 64)
		add_str(m, "id", d - 7, n + 7);
}

/* A run's container: detached, it runs on; else it ran to its end. */
static void
ran(struct members *m, char *const *av, int status, const char *t)
{
	const char *v, *id = hexline(t);
	int detached = 0, i;

	for (i = 1; av[i] != NULL && av[i][0] == '-'; i++)
		if (strcmp(av[i], "-d") == 0 || strcmp(av[i], "--detach") == 0)
			detached = 1;
	add_str(m, "op", av[0], strlen(av[0]));
	if ((v = option(av, 0, "name")) != NULL)
		add_str(m, "name", v, strlen(v));
	if ((detached || strcmp(av[0], "create") == 0) && status == 0) {
		if (id != NULL)
			add_str(m, "id", id, 64);
		v = detached ? "running" : "created";
		add_str(m, "state", v, strlen(v));
	} else if (strcmp(av[0], "run") == 0 && (status < 125 ||
	    status > 127)) {	/* 125-127: docker's own, not the container's */
		add_str(m, "state", "exited", 6);
		add_num(m, "exit", status);
	} else
		add_num(m, "status", status);
}

/*
 * After a docker call: its image and container events, if any.  av is
 * the docker argv from the subcommand on.
 */
void
events_call(const char *name, char *const *av, int status, const char *tail,
    size_t len)
{
	static const char *const lifecycle[] = { "start", "stop", "kill",
	    "restart", "rm", "wait", NULL };
	char t[SBX_TAIL_MAX + 1];
	struct members m;
	const char *kind = NULL, *errstr;
	long long code;
	size_t i;

	if (av[0] == NULL)
		return;
	/* docker image pull, container run: the object's verb */
	if ((strcmp(av[0], "image") == 0 || strcmp(av[0], "container") == 0 ||
	    strcmp(av[0], "buildx") == 0) && av[1] != NULL)
		av++;
	if (len > SBX_TAIL_MAX)
		len = SBX_TAIL_MAX;
	memcpy(t, tail, len);
	t[len] = '\0';
	m.len = 0;
	m.text[0] = '\0';
	if (strcmp(av[0], "pull") == 0 && status == 0) {
		kind = "image";
		pulled(&m, av, t);
	} else if (strcmp(av[0], "build") == 0 && status == 0) {
		kind = "image";
		built(&m, av, t);
		if (strchr(m.text, ',') == NULL)
			return;	/* neither tag nor id: nothing to tell */
	} else if (strcmp(av[0], "run") == 0 || strcmp(av[0], "create") == 0) {
		kind = "container";
		ran(&m, av, status, t);
	} else {
		for (i = 0; lifecycle[i] != NULL; i++)
			if (strcmp(av[0], lifecycle[i]) == 0)
				break;
		if (lifecycle[i] == NULL)
			return;
		kind = "container";
		add_str(&m, "op", av[0], strlen(av[0]));
		operands(&m, av + 1);
		t[strcspn(t, "\r\n")] = '\0';	/* a wait's first code */
		code = sbx_strtonum(t, 0, 255, &errstr);
		if (strcmp(av[0], "wait") == 0 && status == 0 && errstr == NULL)
			add_num(&m, "exit", code);
		else
			add_num(&m, "status", status);
	}
	emit(name, kind, &m);
}
