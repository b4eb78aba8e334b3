/*
 * result.c: what both the audit and the self-check do with a verdict:
 * its evidence as one line, and the lines of text, JSON (-j) or TAP (-t)
 * that report every check.
 */
#include <stdarg.h>
#include <stdio.h>

#include "sbxjson.h"
#include "result.h"

void
result_vsay(struct result *r, enum verdict v, const char *fmt, va_list ap)
{
	char *p;

	r->verdict = v;
	vsnprintf(r->evidence, sizeof(r->evidence), fmt, ap);
	/* one line, whatever the probes or sbx printed */
	for (p = r->evidence; *p != '\0'; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = ' ';
}

void
result_say(struct result *r, enum verdict v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	result_vsay(r, v, fmt, ap);
	va_end(ap);
}

/* The n results as lines of text, of JSON (-j) or of TAP (-t). */
void
result_report(const struct result *r, int n, int jflag, int tflag)
{
	static const char *const word[] = { "PASS", "FAIL", "SKIP" };
	static const char *const json[] = { "pass", "fail", "skip" };
	int i;

	if (tflag)
		printf("1..%d\n", n);
	for (i = 0; i < n; i++) {
		if (jflag) {
			printf("{\"check\":\"%s\",\"result\":\"%s\","
			    "\"evidence\":", r[i].name, json[r[i].verdict]);
			sbx_json_puts(stdout, r[i].evidence);
			printf("}\n");
		} else if (tflag) {
			if (r[i].verdict == SKIP)
				printf("ok %d - %s # SKIP %s\n", i + 1,
				    r[i].name, r[i].evidence);
			else
				printf("%s %d - %s: %s\n", r[i].verdict == PASS ?
				    "ok" : "not ok", i + 1, r[i].name,
				    r[i].evidence);
		} else
			printf("%s %s: %s\n", word[r[i].verdict], r[i].name,
			    r[i].evidence);
	}
}
