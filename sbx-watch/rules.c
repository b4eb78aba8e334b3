/*
 * rules.c: the session's network rules as the watcher keeps them.  sbx
 * drops a sandbox's rules when it stops; a lost allow fails closed and
 * sbx-run puts it back at the denial, but a lost deny would fail open,
 * so while the session has one the VM is held up and, after any stop,
 * the rules sbx lost are put back.  At teardown they go, with the
 * session's registry credentials.
 */
#include <limits.h>
#include <string.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxpolicy.h"
#include "sbx-watch.h"

/* pc for the sandbox, its sbx in path; -1 when there is no sbx to run. */
static int
rules_cli(const struct watch *w, char *path, size_t size,
    struct sbx_policycli *pc)
{
	struct sbx_result c;
	int r;

	memset(&c, 0, sizeof(c));
	r = teardown_sbxpath(w, path, size, &c);
	sbx_supervise_result_free(&c);
	if (r == -1)
		return -1;
	memset(pc, 0, sizeof(*pc));
	pc->sbx = path;
	pc->env = w->envp;
	pc->name = w->name;
	pc->timeout = w->timeout;
	pc->dfd = w->dfd;
	return 0;
}

/* Does the session have a deny rule? */
int
rules_deny_held(const struct watch *w)
{
	struct sbx_rules rec;
	size_t i;
	int deny = 0;

	if (sbx_egressrec_read(w->dfd, w->name, &rec) == -1)
		return 1;	/* unreadable: hold, the safe side */
	for (i = 0; i < rec.n && !deny; i++)
		deny = rec.v[i].decision == SBX_RULE_DENY;
	sbx_policyls_free(&rec);
	return deny;
}

/* The rules sbx lost put back: 0, or -1 (said nowhere: we are detached). */
int
rules_reapply(const struct watch *w)
{
	struct sbx_policycli pc;
	char path[PATH_MAX], why[512];

	if (rules_cli(w, path, sizeof(path), &pc) == -1)
		return -1;
	return sbx_egressapply_record(&pc, w->dfd, SBX_APPLY_MISSING, why,
	    sizeof(why));
}

/* The session's rules and credentials removed from sbx; 0, or -1. */
int
rules_remove(const struct watch *w)
{
	struct sbx_policycli pc;
	char path[PATH_MAX], why[512];

	if (rules_cli(w, path, sizeof(path), &pc) == -1)
		return -1;
	return sbx_egressapply_remove(&pc, w->dfd, why, sizeof(why));
}
