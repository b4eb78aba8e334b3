/*
 * warmhold.c: the hold after a prewarm.  Real sbx stops a VM 30 s after
 * its last exec ends, and a bare create counts as one, so a sandbox that
 * sbx-run -P made at session start would be stopped again by the time
 * the agent's first call comes, which would then wait seconds for it to
 * start.  For w->prewarmhold seconds after a prewarm that succeeded
 * (NAME.prewarm, status 0), the keepalive holds the VM up as it does for
 * published ports; DOCKER_SANDBOX_KEEPALIVE=0 holds nothing, this included.
 */
#include <time.h>

#include "sbxstate.h"
#include "sbx-watch.h"

/* Is the sandbox within the hold of a prewarm that succeeded? */
int
warmhold(const struct watch *w)
{
	char said[1];
	long long when;
	int status;

	if (w->prewarmhold <= 0 || sbx_prewarm_read(w->dfd, w->name, &when,
	    &status, said, sizeof(said)) == -1 || status != 0)
		return 0;
	return (long long)time(NULL) < when + w->prewarmhold;
}
