/*
 * sbxgone.c: is a sandbox gone?  A wrong "not found" would drop the
 * markers of a live sandbox, so sbx's words are confirmed by its listing.
 */
#include <stddef.h>

#include "sbxchild.h"
#include "sbxcli.h"

/* 1 when c says name does not exist and `sbx ls` agrees; else 0. */
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
	sbx_supervise_result_free(&ls);
	return listed == 0;
}
