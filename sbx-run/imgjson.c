/*
 * imgjson.c: does a manifest.json or index.json of an image archive name
 * an image?  `docker load` tags what RepoTags lists (classic store) and
 * what the name annotations say (containerd store), so either refuses
 * the archive.  Keys are matched as Go's encoding/json matches a field
 * name, and everywhere in the tree, so that no spelling, duplicate or
 * nesting slips past; strings and keys are compared after unescaping.
 */
#include <string.h>

#include "sbxjson.h"
#include "sbx-run.h"

/*
 * Is k "RepoTags" as Go's encoding/json matches a field name: by simple
 * case folding, where U+017F (long s) is an s and U+212A (Kelvin) a k?
 */
static int
is_repotags(const char *k)
{
	const unsigned char *t = (const unsigned char *)"repotags";
	const unsigned char *u = (const unsigned char *)k;

	for (; *t != '\0'; t++) {
		if (*u == *t || *u == *t - 'a' + 'A')
			u++;
		else if (*t == 's' && u[0] == 0xc5 && u[1] == 0xbf)
			u += 2;
		else if (*t == 'k' && u[0] == 0xe2 && u[1] == 0x84 &&
		    u[2] == 0xaa)
			u += 3;
		else
			return 0;
	}
	return *u == '\0';
}

static int
is_refname(const char *s)
{
	return strcmp(s, "io.containerd.image.name") == 0 ||
	    strcmp(s, "org.opencontainers.image.ref.name") == 0;
}

/* The first thing in the tree that names an image, or NULL. */
static const char *
naming(const struct sbx_json *j)
{
	const char *why;

	for (; j != NULL; j = j->next) {
		if (j->key != NULL && is_repotags(j->key) &&
		    j->type != SBX_JNULL &&
		    (j->type != SBX_JARR || j->child != NULL))
			return "it names an image (RepoTags)";
		if ((j->key != NULL && is_refname(j->key)) ||
		    (j->type == SBX_JSTR && is_refname(j->str)))
			return "it names an image (a name annotation)";
		if ((why = naming(j->child)) != NULL)
			return why;
	}
	return NULL;
}

/* Is name a member whose JSON docker reads for names (checked alone)? */
int
imgjson_member(const char *name)
{
	return strcmp(name, "manifest.json") == 0 ||
	    strcmp(name, "index.json") == 0;
}

/* Why the JSON text buf names an image (or is no JSON), or NULL. */
const char *
imgjson_names(const char *buf, size_t len)
{
	struct sbx_json *j;
	const char *why;

	if ((j = sbx_json_parse(buf, len, NULL)) == NULL)
		return "not JSON";
	why = naming(j);
	sbx_json_free(j);
	return why;
}
