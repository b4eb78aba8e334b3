/*
 * jsonout.c: a C string as a JSON string on a stdio stream, for the -j
 * output of sbx-ports and sbx-verify.
 */
#include <stdio.h>

#include "sbx.h"

void
sbx_json_puts(FILE *fp, const char *s)
{
	putc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(fp, "\\%c", *s);
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fprintf(fp, "\\u%04x", (unsigned char)*s);
		else
			putc(*s, fp);
	}
	putc('"', fp);
}
