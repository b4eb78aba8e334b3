/*
 * policyloghost.c: a host of sbx's policy log (or a rule's resource) fit
 * to print on a terminal, whatever bytes the log held.
 */
#include <string.h>

#include "sbxpolicy.h"

/* A byte of a host:port ([v6]:port) or a rule's resource (*.x, a/8) */
static int
hostbyte(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr(".-_:[]*/", c) != NULL);
}

/*
 * A host (or a rule's name) fit to print, into buf: any other byte as
 * \ooo, and "..." where it was cut to fit.
 */
const char *
sbx_policylog_host(const char *s, char *buf, size_t size)
{
	static const char oct[] = "01234567";
	const unsigned char *p;
	size_t need = 0, room, w = 0;
	int i;

	if (size == 0)
		return "";
	if (s == NULL)
		s = "";
	for (p = (const unsigned char *)s; *p != '\0' && need < size; p++)
		need += hostbyte(*p) ? 1 : 4;
	if (*p == '\0' && need < size)
		room = size - 1;
	else
		room = size > 4 ? size - 4 : 0;
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (w + (hostbyte(*p) ? 1 : 4) > room)
			break;
		if (hostbyte(*p))
			buf[w++] = (char)*p;
		else {
			buf[w++] = '\\';
			buf[w++] = oct[*p >> 6];
			buf[w++] = oct[(*p >> 3) & 7];
			buf[w++] = oct[*p & 7];
		}
	}
	for (i = 0; *p != '\0' && i < 3 && w < size - 1; i++)
		buf[w++] = '.';
	buf[w] = '\0';
	return buf;
}
