/*
 * imgevict.c: sbx-gc's share of the image cache: the entries of
 * workspaces that are gone or are another directory now, and those that
 * cannot be read, then the least recently used until the rest fit the
 * budget (DOCKER_SANDBOX_IMAGE_CACHE; 0 empties it).  No sbx call.  -n
 * prints each entry it would evict, -v each it evicted.
 */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "sbxconf.h"
#include "sbximg.h"
#include "sbx-gc.h"

static const struct gc *sweep;	/* for said(), the eviction's callback */

static void
said(const char *ws, long long bytes, const char *why)
{
	if (sweep->nflag || sweep->vflag)
		printf("%s image cache %s (%lld bytes): %s\n", sweep->nflag ?
		    "evict" : "evicted", ws, bytes, why);
}

void
gc_imgevict(const struct gc *g)
{
	char path[PATH_MAX];
	long long budget = sbx_xconf_image_cache();
	int root;

	if ((root = sbx_img_open(NULL, 0, path, sizeof(path))) == -1)
		return;
	sweep = g;
	(void)sbx_img_evict(root, budget, NULL, SBX_IMG_STALE |
	    (g->nflag ? SBX_IMG_DRY : 0), said);
	close(root);
}
