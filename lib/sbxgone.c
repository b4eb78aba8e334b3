/*
 * sbxgone.c: is a sandbox gone?  sbx's "not found" answer to a call of
 * its own (rm, stop, an ending exec) is only words, and a teardown that
 * believed a wrong one would drop the markers of a sandbox that still
 * runs, which then nothing removes.  So the words are confirmed by sbx's
 * data: the sandbox is gone only when `sbx ls --json` does not list it.
 * The listing runs only after such an answer, never in the steady state.
 */
#include <stddef.h>

#include "sbxchild.h"
#include "sbxcli.h"

/*
 * c, a failed call of sbx's own about name: 1 when its words say the
 * sandbox does not exist and a listing (sbxcall.c: dfd the state
 * directory or -1) confirms it; 0 otherwise, the listing failing too.
 */
int
sbx_gone(const struct sbx_result *c, const char *sbx, char *const *env,
    const char *name, int timeout, int dfd)
{
	char *av[] = { (char *)sbx, "ls", "--json", NULL };
	struct sbx_result ls;
	const char *errstr;
	int listed;

	if (c->status == 0 || c->timedout || c->signo != 0 ||
	    !sbx_says_notfound(c->err.data, name))
		return 0;
	if (sbx_call(&ls, av, env, timeout, dfd) == -1)
		return 0;
	listed = ls.status != 0 || ls.timedout || ls.signo != 0 ? -1 :
	    sbx_ls_listed(ls.out.data != NULL ? ls.out.data : "", ls.out.len,
	    name, &errstr);
	sbx_result_free(&ls);
	return listed == 0;
}
