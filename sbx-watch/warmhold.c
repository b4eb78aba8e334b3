/*
 * warmhold.c: the hold after a prewarm.  sbx stops a VM 30 s after its
 * last exec, a bare create included, so for w->prewarmhold seconds after
 * a prewarm that succeeded the keepalive holds the VM up, as for
 * published ports; DOCKER_SANDBOX_KEEPALIVE=0 holds nothing.
 */
#include <time.h>

#include "sbxmarker.h"
#include "sbx-watch.h"

/* Is the sandbox within the hold of a prewarm that succeeded? */
int
warmhold(const struct watch *w)
{
	char said[1];
	long long when;
	int status;

	if (w->prewarmhold <= 0 || sbx_markerio_prewarm_read(w->dfd, w->name,
	    &when, &status, said, sizeof(said)) == -1 || status != 0)
		return 0;
	return (long long)time(NULL) < when + w->prewarmhold;
}
