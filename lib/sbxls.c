/*
 * sbxls.c: does the output of `sbx ls --json` list a sandbox?  The JSON
 * may follow notices (the Windows build prints daemon lines first).
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
	const char *json, *n;
	size_t off;
	int found = 0;

	if ((json = sbx_json_find(out, len, &off)) == NULL) {
		*errstr = "no JSON in the output";
		return -1;
	}
	if ((j = sbx_json_parse(json, len - off, errstr)) == NULL)
		return -1;
	if ((list = sbx_json_get(j, "sandboxes")) == NULL ||
	    list->type != SBX_JARR) {
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
