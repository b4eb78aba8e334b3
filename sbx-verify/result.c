/* result.c: a verdict's evidence in one line; the report as text, JSON, TAP. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxjson.h"
#include "result.h"

void
result_vsay(struct result *r, enum verdict v, const char *fmt, va_list ap)
{
	r->verdict = v;
	vsnprintf(r->evidence, sizeof(r->evidence), fmt, ap);
}

void
result_say(struct result *r, enum verdict v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	result_vsay(r, v, fmt, ap);
	va_end(ap);
}

/* Append to the list in buf, after ", " when it is not empty. */
void
result_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t o = strlen(buf);
	va_list ap;

	if (o > 0 && o + 3 < size) {
		memcpy(buf + o, ", ", 3);
		o += 2;
	}
	if (o + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + o, size - o, fmt, ap);
	va_end(ap);
}

/* The n results as text, JSON (-j) or TAP (-t), evidence escaped in each. */
void
result_report(const struct result *r, int n, int jflag, int tflag)
{
	static const char *const word[] = { "PASS", "FAIL", "SKIP" };
	static const char *const json[] = { "pass", "fail", "skip" };
	char ev[sizeof(r->evidence) * 4];
	int i;

	if (tflag)
		printf("1..%d\n", n);
	for (i = 0; i < n; i++) {
		if (jflag) {
			printf("{\"check\":\"%s\",\"result\":\"%s\","
			    "\"evidence\":", r[i].name, json[r[i].verdict]);
			sbx_jsonout_puts(stdout, r[i].evidence);
			printf("}\n");
			continue;
		}
		sbx_shown(r[i].evidence, ev, sizeof(ev));
		if (tflag && r[i].verdict == SKIP)
			printf("ok %d - %s # SKIP %s\n", i + 1, r[i].name, ev);
		else if (tflag)
			printf("%s %d - %s: %s\n", r[i].verdict == PASS ?
			    "ok" : "not ok", i + 1, r[i].name, ev);
		else
			printf("%s %s: %s\n", word[r[i].verdict], r[i].name,
			    ev);
	}
}
