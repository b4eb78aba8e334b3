/* sbxls.c: does `sbx ls --json` list a sandbox?  An empty list may be null. */
#include <stdio.h>
#include <string.h>

#include "sbxcli.h"
#include "sbxjson.h"

/* name's entry: 1 listed (its "status" in st), 0 not, -1 no listing. */
int
sbx_ls_status(const char *out, size_t len, const char *name, char *st,
    size_t size, const char **errstr)
{
	const struct sbx_json *s, *list;
	struct sbx_json *j;
	const char *n, *v;
	int found = 0;

	if ((j = sbx_json_doc(out, len, errstr)) == NULL)
		return -1;
	if ((list = sbx_json_get(j, "sandboxes")) == NULL ||
	    (list->type != SBX_JARR && list->type != SBX_JNULL)) {
		sbx_json_free(j);
		*errstr = "no sandboxes array";
		return -1;
	}
	for (s = list->child; s != NULL && !found; s = s->next)
		if ((n = sbx_json_str(s, "name")) != NULL &&
		    strcmp(n, name) == 0) {
			found = 1;
			if (st != NULL && size > 0)
				snprintf(st, size, "%s",
				    (v = sbx_json_str(s, "status")) != NULL ?
				    v : "");
		}
	sbx_json_free(j);
	*errstr = NULL;
	return found;
}

int
sbx_ls_listed(const char *out, size_t len, const char *name,
    const char **errstr)
{
	return sbx_ls_status(out, len, name, NULL, 0, errstr);
}
