/*
 * shown.c: text from outside (names, sbx's stderr, listings), fit for a
 * one-line message: printable ASCII, the rest (a newline too) as '?',
 * cut to fit.  Nothing a program prints can steer a terminal.
 */
#include "sbx.h"

const char *
sbx_shown(const char *s, char *buf, size_t size)
{
	size_t i;

	if (size == 0)
		return "";
	for (i = 0; i < size - 1 && s[i] != '\0'; i++)
		buf[i] = (char)(s[i] >= ' ' && s[i] <= '~' ? s[i] : '?');
	buf[i] = '\0';
	return buf;
}
