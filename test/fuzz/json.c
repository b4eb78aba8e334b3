/*
 * Fuzz target (libFuzzer) for the JSON reader.  Any input, no crash; an
 * accepted document is a well-formed tree (members have names, elements
 * do not, strings hold no NUL, depth within the bound), and printed back
 * as JSON it parses again to the same tree.  A whole document that
 * starts with '{' or '[' is what sbx_json_doc finds in it too, and a tree
 * sbx_json_doc finds is well formed.  Built by "make fuzz".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check(const struct sbx_json *j, int iselem, int depth)
{
	for (; j != NULL; j = j->next) {
		if (depth > 64 || (iselem ? j->key != NULL : j->key == NULL))
			abort();
		if (j->key != NULL && memchr(j->key, '\0', strlen(j->key) + 1) !=
		    j->key + strlen(j->key))
			abort();
		switch (j->type) {
		case SBX_JSTR:
		case SBX_JNUM:
			if (j->str == NULL || strlen(j->str) != j->len ||
			    j->child != NULL)
				abort();
			if (j->type == SBX_JNUM && (j->len == 0 ||
			    strspn(j->str, "-0123456789.eE+") != j->len))
				abort();
			break;
		case SBX_JNULL:
		case SBX_JBOOL:
			if (j->str != NULL || j->child != NULL)
				abort();
			break;
		case SBX_JARR:
			check(j->child, 1, depth + 1);
			break;
		case SBX_JOBJ:
			check(j->child, 0, depth + 1);
			break;
		default:
			abort();
		}
	}
}

static void
putstr(struct sbx_buf *b, const char *s)
{
	char esc[8];

	if (sbx_io_buf_add(b, "\"", 1) == -1)
		abort();
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\') {
			esc[0] = '\\';
			esc[1] = *s;
			if (sbx_io_buf_add(b, esc, 2) == -1)
				abort();
		} else if ((unsigned char)*s < 0x20) {
			esc[0] = '\\';
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = "0123456789abcdef"[(unsigned char)*s >> 4];
			esc[5] = "0123456789abcdef"[*s & 0xf];
			if (sbx_io_buf_add(b, esc, 6) == -1)
				abort();
		} else if (sbx_io_buf_add(b, s, 1) == -1)
			abort();
	}
	if (sbx_io_buf_add(b, "\"", 1) == -1)
		abort();
}

/* Print a list of siblings (or one value when one is set). */
static void
print(struct sbx_buf *b, const struct sbx_json *j, int one)
{
	for (; j != NULL; j = one ? NULL : j->next) {
		if (j->key != NULL) {
			putstr(b, j->key);
			sbx_io_buf_add(b, ":", 1);
		}
		switch (j->type) {
		case SBX_JNULL:
			sbx_io_buf_add(b, "null", 4);
			break;
		case SBX_JBOOL:
			sbx_io_buf_add(b, j->boolean ? "true" : "false",
			    j->boolean ? 4 : 5);
			break;
		case SBX_JNUM:
			sbx_io_buf_add(b, j->str, j->len);
			break;
		case SBX_JSTR:
			putstr(b, j->str);
			break;
		case SBX_JARR:
		case SBX_JOBJ:
			sbx_io_buf_add(b, j->type == SBX_JARR ? "[" : "{", 1);
			print(b, j->child, 0);
			sbx_io_buf_add(b, j->type == SBX_JARR ? "]" : "}", 1);
			break;
		}
		if (!one && j->next != NULL)
			sbx_io_buf_add(b, ",", 1);
	}
}

static int
same(const struct sbx_json *a, const struct sbx_json *b)
{
	for (; a != NULL && b != NULL; a = a->next, b = b->next) {
		if (a->type != b->type || (a->key == NULL) != (b->key == NULL) ||
		    (a->key != NULL && strcmp(a->key, b->key) != 0) ||
		    (a->type == SBX_JBOOL && a->boolean != b->boolean) ||
		    ((a->type == SBX_JSTR || a->type == SBX_JNUM) &&
		    (a->len != b->len || memcmp(a->str, b->str, a->len) != 0)) ||
		    !same(a->child, b->child))
			return 0;
	}
	return a == NULL && b == NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_json *j, *k;
	struct sbx_buf b = { NULL, 0, 0 };
	const char *s = (const char *)data, *errstr;

	j = sbx_json_parse(s, size, &errstr);
	if ((j == NULL) != (errstr != NULL))
		abort();
	if (j != NULL) {
		if (j->key != NULL || j->next != NULL)
			abort();
		check(j, 1, 0);
		if (sbx_io_buf_add(&b, "", 0) == -1)
			abort();
		print(&b, j, 1);
		if ((k = sbx_json_parse(b.data, b.len, &errstr)) == NULL ||
		    !same(j, k))
			abort();
		sbx_json_free(k);
		sbx_io_buf_free(&b);
		/* lookups on whatever came back */
		if (j->type == SBX_JOBJ && j->child != NULL &&
		    sbx_json_get(j, j->child->key) != j->child)
			abort();
		(void)sbx_json_str(j, "name");
		sbx_json_free(j);
	}

	j = sbx_json_parse(s, size, NULL);
	k = sbx_json_doc(s, size, &errstr);
	if ((k == NULL) != (errstr != NULL))
		abort();
	if (k != NULL)
		check(k, 1, 0);
	if (j != NULL && size > 0 && (s[0] == '{' || s[0] == '[') &&
	    (k == NULL || !same(j, k)))
		abort();
	sbx_json_free(j);
	sbx_json_free(k);
	return 0;
}
