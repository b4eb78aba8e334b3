/*
 * unplaced.c: an answer of sbx's the programs cannot place, never guessed
 * at: its first lines shown, and once per sbx binary its version and
 * sbx-verify -S.
 */
#include <sys/stat.h>

#include <err.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxstate.h"

#define SHOWN_LINES	5	/* of sbx's answer */
#define SHOWN_BYTES	200	/* of each line */
#define VERSION_TIMEOUT	10	/* seconds for `sbx version` */

static const char *
escaped(const char *s, size_t n, char *buf, size_t size)
{
	char raw[SHOWN_BYTES + 1];

	if (n > SHOWN_BYTES)
		n = SHOWN_BYTES;
	memcpy(raw, s, n);
	raw[n] = '\0';
	return sbx_shown(raw, buf, size);
}

static void
identity(const char *sbx, char *buf, size_t size)
{
	struct stat st;

	buf[0] = '\0';
	if (stat(sbx, &st) == 0)
		(void)snprintf(buf, size, "%llu %llu %lld %lld\n",
		    (unsigned long long)st.st_dev,
		    (unsigned long long)st.st_ino, (long long)st.st_size,
		    (long long)st.st_mtime);
}

/* The first line of `sbx version` that names a version, escaped. */
static void
version(const char *sbx, char *const *env, char *buf, size_t size)
{
	char *av[] = { (char *)sbx, "version", NULL };
	struct sbx_result v;
	const char *l, *nl, *text;
	size_t n;

	(void)snprintf(buf, size, "(its version could not be read)");
	if (sbx_capture(&v, av, env, VERSION_TIMEOUT) == -1)
		return;
	text = v.out.data != NULL ? v.out.data : "";
	for (l = text; *l != '\0'; l = nl + 1) {
		nl = strchr(l, '\n');
		n = nl != NULL ? (size_t)(nl - l) : strlen(l);
		if (n > 0 && strstr(l, "ersion") != NULL &&
		    (size_t)(strstr(l, "ersion") - l) < n) {
			(void)escaped(l, n < 100 ? n : 100, buf, size);
			break;
		}
		if (nl == NULL)
			break;
	}
	sbx_supervise_result_free(&v);
}

/* Show c as an answer to what that cannot be placed; dfd or -1. */
void
sbx_unplaced(const struct sbx_result *c, const char *sbx, char *const *env,
    int dfd, const char *what)
{
	char line[4 * SHOWN_BYTES + 8], id[128], was[128], ver[512];
	const struct sbx_buf *b = c->err.len > 0 ? &c->err : &c->out;
	const char *p = b->data, *end = b->data + b->len, *nl;
	size_t n;
	int k;

	warnx("%s: sbx answered (exit %d) in words sbx-tools cannot place:",
	    what, c->status);
	for (k = 0; p != NULL && p < end && k < SHOWN_LINES; k++, p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		n = (size_t)(nl - p);
		(void)fprintf(stderr, "  %s%s\n", escaped(p,
		    n < SHOWN_BYTES ? n : SHOWN_BYTES, line, sizeof(line)),
		    n > SHOWN_BYTES ? " ..." : "");
	}
	if (p != NULL && p < end)
		(void)fprintf(stderr, "  ...\n");
	identity(sbx, id, sizeof(id));
	if (dfd != -1 && id[0] != '\0' &&
	    sbx_state_read(dfd, SBX_UNPLACED_CACHE, was, sizeof(was)) != -1 &&
	    strcmp(was, id) == 0)
		return;
	version(sbx, env, ver, sizeof(ver));
	warnx("sbx %s: run 'sbx-verify -S', which checks what this sbx says, "
	    "and report its output with the lines above", ver);
	if (dfd != -1 && id[0] != '\0')
		(void)sbx_state_write(dfd, SBX_UNPLACED_CACHE, id);
}
