/*
 * ending.c: after a timeout or a signal, end inside the sandbox what the
 * exec started (killing the local exec ends only its local end).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxstamp.h"
#include "sbx-run.h"

#define END_TIMEOUT	15	/* seconds for the ending exec */

/* The words running a command in an inner exec's container as root, or NULL. */
char **
ending_inner_words(char *const *av, int *target)
{
	const char *index;
	char **w;
	int top, sub, i, n;

	if ((*target = dockerargs_inner_exec(av, &top, &sub, &index)) == -1)
		return NULL;
	if ((w = calloc((size_t)(sub - top) + 12, sizeof(*w))) == NULL)
		err(SBX_EX_CANTRUN, NULL);
	n = 0;
	w[n++] = "docker";
	w[n++] = "-H";
	w[n++] = SBX_DOCKER_HOST;
	for (i = top; i <= sub; i++)
		w[n++] = av[i];
	if (sub != top)
		w[n++] = "-T";
	w[n++] = "-u";
	w[n++] = "0";
	if (index != NULL) {
		w[n++] = "--index";
		w[n++] = (char *)index;
	}
	w[n++] = av[*target];
	w[n] = NULL;
	return w;
}

void
ending_inside(const struct request *r, const char *what)
{
	struct sbx_ended e;
	char said[768];

	if (sbx_stamp_end(r->sbx, r->env, r->name, r->stamp, r->inner,
	    END_TIMEOUT, &e) == -1) {
		warn("sandbox %s: %s; what it started inside may still run",
		    r->name, what);
		return;
	}
	sbx_stamp_said(&e, r->container, said, sizeof(said));
	warnx("sandbox %s: %s; %s", r->name, what, said);
}
