/*
 * records.c: the past sessions' records sbx-gc keeps: the newest
 * DOCKER_SANDBOX_SESSIONS_KEPT of NAME.past-END, the older removed.  A
 * file not regular or not ours is no record of ours: it is let be.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxmarker.h"
#include "sbxstate.h"
#include "sbx-gc.h"

struct past {
	char		 file[SBX_MARKER_MAX];
	long long	 end, k;
};

/* Newest first. */
static int
newest(const void *a, const void *b)
{
	const struct past *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? 1 : -1;
	if (x->k != y->k)
		return x->k < y->k ? 1 : -1;
	return strcmp(x->file, y->file);
}

void
records_trim(const struct gc *g, long long keep)
{
	struct past *v = NULL, *nv;
	struct dirent *de;
	struct stat st;
	char name[SBX_NAME_MAX + 1], why[64];
	size_t n = 0, cap = 0, i;
	long long end, k;
	DIR *d;
	int fd;

	if ((fd = dup(g->dfd)) == -1 || (d = fdopendir(fd)) == NULL) {
		warn("%s", g->statedir);
		if (fd != -1)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (sbx_marker_past_parse(de->d_name, name, sizeof(name), &end,
		    &k) == -1 || strlen(de->d_name) >= sizeof(v->file) ||
		    fstatat(g->dfd, de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (n == cap) {
			cap = cap * 2 + 64;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
				err(SBX_EX_FAIL, NULL);
			v = nv;
		}
		(void)snprintf(v[n].file, sizeof(v[n].file), "%s", de->d_name);
		v[n].end = end;
		v[n].k = k;
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(v, n, sizeof(*v), newest);
	(void)snprintf(why, sizeof(why), "past the %lld sessions kept", keep);
	for (i = (size_t)keep; i < n; i++) {
		if (g->nflag) {
			markers_say("would remove record", v[i].file, why);
			continue;
		}
		if (sbx_state_remove(g->dfd, v[i].file) == -1)
			warn("%s/%s", g->statedir, v[i].file);
		else if (g->vflag)
			markers_say("removed record", v[i].file, why);
	}
	free(v);
}
