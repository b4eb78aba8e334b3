/*
 * Fuzz target (libFuzzer) for sbx_ls_listed, which reads `sbx ls --json`
 * (with any notices around it; a null list is an empty one).  The input is NAME, a NUL, then the output; with
 * no NUL the name is a fixed session name.  Any input, no crash; the
 * answer is -1 with a reason or 0/1 without one, and 1 only when some
 * "sandboxes" element's "name" decodes to exactly NAME.  Built by
 * "make fuzz".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbxcli.h"
#include "sbxjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/*
 * The document as sbx_json_doc is to find it, found the slow way: of the
 * first 16 lines starting with '{' or '[', the first from which the text
 * up to the end of some line parses whole.
 */
static struct sbx_json *
doc(const char *out, size_t len)
{
	struct sbx_json *j;
	size_t c, e;
	int tries = 0;

	for (c = 0; c < len && tries < 16; c++) {
		if ((c > 0 && out[c - 1] != '\n') ||
		    (out[c] != '{' && out[c] != '['))
			continue;
		tries++;
		for (e = c; e <= len; e++)
			if ((e == len || out[e] == '\n') &&
			    (j = sbx_json_parse(out + c, e - c, NULL)) != NULL)
				return j;
	}
	return NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sbx_json *s, *list;
	struct sbx_json *j;
	const char *errstr, *out, *n;
	char *name;
	size_t len, nlen;
	int r, want = -1;

	if ((out = memchr(data, '\0', size)) != NULL) {
		nlen = (size_t)(out - (const char *)data);
		out++;
		len = size - nlen - 1;
	} else {
		nlen = 0;
		out = (const char *)data;
		len = size;
	}
	if ((name = malloc(nlen + 24)) == NULL)
		return 0;
	if (nlen > 0)
		memcpy(name, data, nlen);
	else
		strcpy(name, "pi-sbx-42-abcd1234");
	if (nlen > 0)
		name[nlen] = '\0';

	r = sbx_ls_listed(out, len, name, &errstr);
	if (r < -1 || r > 1 || (r == -1) != (errstr != NULL))
		abort();

	/* the same question, asked of the tree directly */
	if ((j = doc(out, len)) != NULL) {
		if ((list = sbx_json_get(j, "sandboxes")) != NULL &&
		    list->type == SBX_JNULL)
			want = 0;
		if (list != NULL && list->type == SBX_JARR) {
			want = 0;
			for (s = list->child; s != NULL; s = s->next)
				if ((n = sbx_json_str(s, "name")) != NULL &&
				    strcmp(n, name) == 0)
					want = 1;
		}
		sbx_json_free(j);
	}
	if (r != want)
		abort();
	free(name);
	return 0;
}
