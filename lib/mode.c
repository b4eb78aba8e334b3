/*
 * mode.c: which mode a call's flags choose, and do the flags and operands
 * fit it?  The rows are the programs' own data; this is the one reading.
 */
#include "sbx.h"

/* 1 if the flags given (SBX_OPT bits) and argc operands fit m, else 0. */
static int
fits(const struct sbx_mode *m, unsigned long long given, int argc)
{
	unsigned long long ok;
	const char *s;
	int n = 0;

	ok = m->flag != 0 ? SBX_OPT(m->flag) : 0;
	for (s = m->also; *s != '\0'; s++)
		ok |= SBX_OPT(*s);
	for (s = m->oneof; *s != '\0'; s++)
		if (given & SBX_OPT(*s))
			n++;
	return (given & ~ok) == 0 && n <= 1 && argc >= m->min &&
	    (m->max == -1 || argc <= m->max);
}

/*
 * The index of the first row whose flag is given, else of the default
 * (flag 0, the last row); -1 if the call does not fit it.  Each row of
 * size bytes begins with its struct sbx_mode, as bsearch(3) takes rows.
 */
int
sbx_mode_pick(const void *rows, size_t size, unsigned long long given,
    int argc)
{
	const struct sbx_mode *m;
	int i;

	for (i = 0;; i++) {
		m = (const struct sbx_mode *)((const char *)rows + i * size);
		if (m->flag == 0 || (given & SBX_OPT(m->flag)))
			return fits(m, given, argc) ? i : -1;
	}
}
