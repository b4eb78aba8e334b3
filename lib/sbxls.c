/*
 * sbxls.c: does the output of `sbx ls --json` list a sandbox?  The JSON
 * may have sbx's notices around it (sbx_json_doc), and an empty list may
 * be null (a Go nil slice) as well as [].
 */
#include <string.h>

#include "sbx.h"

/* 1 listed, 0 not listed, -1 not a listing (*errstr says why). */
int
sbx_ls_listed(const char *out, size_t len, const char *name,
    const char **errstr)
{
	const struct sbx_json *s, *list;
	struct sbx_json *j;
	const char *n;
	int found = 0;

	if ((j = sbx_json_doc(out, len, errstr)) == NULL)
		return -1;
	if ((list = sbx_json_get(j, "sandboxes")) == NULL ||
	    (list->type != SBX_JARR && list->type != SBX_JNULL)) {
		sbx_json_free(j);
		*errstr = "no sandboxes array";
		return -1;
	}
	for (s = list->child; s != NULL; s = s->next)
		if ((n = sbx_json_str(s, "name")) != NULL &&
		    strcmp(n, name) == 0)
			found = 1;
	sbx_json_free(j);
	*errstr = NULL;
	return found;
}
