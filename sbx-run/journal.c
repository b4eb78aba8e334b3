/*
 * journal.c: the call lines of NAME.journal, the session's record (one
 * JSON line per call of sbx-run, never a forwarded variable's value,
 * written by record.c), and -J.  A journal that cannot be written costs
 * one warning.
 */
#include <sys/stat.h>

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
#include "sbxjson.h"
#include "sbxmarker.h"
#include "sbxrecord.h"
#include "sbxstate.h"
#include "sbx-run.h"

#define RECORD_MAX	SBX_RECORD_LINE
#define TAIL		"],\"truncated\":true}\n"

void
journal_begin(struct jcall *j)
{
	memset(j, 0, sizeof(*j));
	clock_gettime(CLOCK_REALTIME, &j->began);
	clock_gettime(CLOCK_MONOTONIC, &j->mbegan);
}

/*
 * "blocked":[...], from "a,b": the hosts sbx blocked during the call,
 * within JOURNAL_BLOCKED_MAX bytes of the record.
 */
static size_t
blocked(char *rec, size_t len, const char *list)
{
	const char *c;
	size_t n, host, end = len + JOURNAL_BLOCKED_MAX;
	char one[JOURNAL_BLOCKED_MAX];

	if (list == NULL || *list == '\0')
		return len;
	len += (size_t)snprintf(rec + len, 16, "\"blocked\":[");
	for (; ; list = c + 1) {
		c = strchr(list, ',');
		host = c != NULL ? (size_t)(c - list) : strlen(list);
		if (host >= sizeof(one) || len + host + 8 > end)
			break;
		memcpy(one, list, host);
		one[host] = '\0';
		rec[len++] = '"';
		if (sbx_jsonout_esc(rec + len, end - len - 4, one, &n) < host) {
			len--;	/* no room for it whole: left out */
			break;
		}
		len += n;
		rec[len++] = '"';
		if (c == NULL)
			break;
		rec[len++] = ',';
	}
	if (rec[len - 1] == ',')
		len--;
	return len + (size_t)snprintf(rec + len, 4, "],");
}

static size_t
record(char *rec, const struct jcall *j, char *const *argv, int raw,
    int status)
{
	struct timespec now;
	char when[SBX_RECORD_TIME];
	size_t len, room = RECORD_MAX - sizeof(TAIL), used, n, i;
	long long ms;
	int cut = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(now.tv_sec - j->mbegan.tv_sec) * 1000 +
	    (now.tv_nsec - j->mbegan.tv_nsec) / 1000000;
	sbx_record_time(when, &j->began);
	len = (size_t)snprintf(rec, RECORD_MAX, "{\"time\":\"%s\","
	    "\"status\":%d,\"ms\":%lld,\"bytes\":%llu,\"timeout\":%d,"
	    "\"raw\":%s,",
	    when, status, ms, j->bytes, j->timeout, raw ? "true" : "false");
	len = blocked(rec, len, j->blocked);
	len += (size_t)snprintf(rec + len, 16, "\"argv\":[");
	for (i = 0; argv[i] != NULL && !cut; i++) {
		if (len + 3 > room) {
			cut = 1;
			break;
		}
		if (i > 0)
			rec[len++] = ',';
		rec[len++] = '"';
		used = sbx_jsonout_esc(rec + len, room - len - 1, argv[i], &n);
		len += n;
		rec[len++] = '"';
		cut = argv[i][used] != '\0';
	}
	memcpy(rec + len, cut ? TAIL : "]}\n", cut ? sizeof(TAIL) : 4);
	return len + (cut ? sizeof(TAIL) : 4) - 1;
}

void
journal_add(const struct jcall *j, const char *name, char *const *argv,
    int raw, int status)
{
	char rec[RECORD_MAX], dir[4096], file[SBX_MARKER_MAX];
	size_t len = record(rec, j, argv, raw, status);
	int dfd;

	if (sbx_marker_path(file, sizeof(file), name, SBX_M_JOURNAL) == -1 ||
	    (dfd = sbx_xstatedir_open(dir, sizeof(dir))) == -1)
		return;
	if (sbx_record_append(dfd, name, rec, len, j->timeout) == -1)
		warn("journal %s/%s", dir, file);
	close(dfd);
}

/* One line -J selected: as it is in the file, or for people. */
static void
show(const struct sbx_json *j, const char *line, size_t len, int text)
{
	if (text)
		readable_line(j);
	else {
		sbx_jsonout_putline(stdout, line, len);
		putchar('\n');
	}
}

/*
 * -J: {"calls":N}, N ever journaled, then the last count call lines in
 * order; with events, the last count lines of either kind.  The record
 * is the live one, else the latest past one of name.  With text, the
 * same for people (readable.c).
 */
int
journal_print(const char *name, long long count, int timeout, int events,
    int text)
{
	struct sbx_buf b = { NULL, 0, 0 };
	struct sbx_json *j;
	char dir[4096], live[SBX_MARKER_MAX], file[SBX_MARKER_MAX], *p, *nl;
	char end[SBX_RECORD_TIME] = "";
	const char *ev, *t;
	long long calls = 0, ncalls = 0, valid = 0, seen = 0, first;
	int dfd, fd, pass, call;

	if (sbx_marker_path(live, sizeof(live), name, SBX_M_JOURNAL) == -1 ||
	    (dfd = sbx_xstatedir_open(dir, sizeof(dir))) == -1)
		return SBX_EX_FAIL;
	fd = sessions_open(dfd, name, file, sizeof(file));
	if (fd == -1 && errno != ENOENT)
		err(SBX_EX_FAIL, "%s/%s", dir, file);
	if (fd != -1 && (sbx_record_lock(fd, F_RDLCK, timeout) == -1 ||
	    sbx_io_buf_readfd(&b, fd, SESSIONS_READ_MAX) == -1))
		err(SBX_EX_FAIL, "%s/%s", dir, file);
	if (b.len > 0 && (calls = sbx_record_trimmed(b.data, b.len)) < 0)
		calls = 0;
	/* twice: count the whole records, then print the last of them */
	for (pass = 0; pass < 2 && b.len > 0; pass++) {
		first = valid > count ? valid - count : 0;
		for (p = b.data; (nl = memchr(p, '\n', b.len -
		    (size_t)(p - b.data))) != NULL; p = nl + 1) {
			if ((j = sbx_json_parse(p, (size_t)(nl - p), NULL)) ==
			    NULL)
				continue;
			ev = sbx_json_str(j, "event");
			call = sbx_json_get(j, "argv") != NULL &&
			    sbx_json_get(j, "event") == NULL;
			if (pass == 0 && ev != NULL && strcmp(ev, "end") == 0 &&
			    (t = sbx_json_str(j, "time")) != NULL)
				(void)snprintf(end, sizeof(end), "%s", t);
			if (call || (events && ev != NULL)) {
				if (pass == 0) {
					valid++;
					ncalls += call;
				} else if (seen++ >= first)
					show(j, p, (size_t)(nl - p), text);
			}
			sbx_json_free(j);
		}
		if (pass == 0 && text)
			readable_heading(name, file, strcmp(file, live) == 0,
			    end, calls + ncalls);
		else if (pass == 0)
			printf("{\"calls\":%lld}\n", calls + ncalls);
	}
	if (b.len == 0 && text)
		readable_heading(name, fd != -1 ? file : NULL,
		    strcmp(file, live) == 0, "", 0);
	else if (b.len == 0)
		printf("{\"calls\":0}\n");
	sbx_io_buf_free(&b);
	if (fd != -1)
		close(fd);
	close(dfd);
	if (sbx_io_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return SBX_EX_OK;
}
