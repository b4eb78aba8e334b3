/*
 * policyls.c: the rules `sbx policy ls NAME --json` lists for a sandbox,
 * read by meaning: the list under "rules" or bare, a rule's resources an
 * array or one comma-separated string, its sandbox under applies_to,
 * sandbox or sandbox_name, inactive when its status says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sbxjson.h"
#include "sbxpolicy.h"

static const char *
field(const struct sbx_json *o, const char *const *keys)
{
	const char *v;

	for (; *keys != NULL; keys++)
		if ((v = sbx_json_str(o, *keys)) != NULL)
			return v;
	return NULL;
}

/* Does the rule apply to name (a string, or a list holding it)? */
static int
applies(const struct sbx_json *o, const char *name)
{
	static const char *const keys[] = { "applies_to", "sandbox",
	    "sandbox_name", "vm_name", NULL };
	const struct sbx_json *v, *e;
	const char *const *k;

	for (k = keys; *k != NULL; k++) {
		if ((v = sbx_json_get(o, *k)) == NULL)
			continue;
		if (v->type == SBX_JSTR)
			return strcmp(v->str, name) == 0;
		if (v->type == SBX_JARR) {
			for (e = v->child; e != NULL; e = e->next)
				if (e->type == SBX_JSTR &&
				    strcmp(e->str, name) == 0)
					return 1;
			return 0;
		}
	}
	return 0;
}

/* One rule into l, its blanks trimmed; 0 (an empty or long one left out), -1. */
int
sbx_policyls_add(struct sbx_rules *l, int decision, int active,
    const char *res, size_t len)
{
	struct sbx_rule *r;

	while (len > 0 && (*res == ' ' || *res == '\t')) {
		res++;
		len--;
	}
	while (len > 0 && (res[len - 1] == ' ' || res[len - 1] == '\t'))
		len--;
	if (len == 0 || len >= sizeof(r->res))
		return 0;	/* nothing of ours is that long */
	if (l->n == SBX_RULES_MAX)
		return 0;
	if (l->n == l->cap) {
		/* at most SBX_RULES_MAX: no overflow */
		if ((r = realloc(l->v, (l->cap ? l->cap * 2 : 16) *
		    sizeof(*r))) == NULL)
			return -1;
		l->v = r;
		l->cap = l->cap ? l->cap * 2 : 16;
	}
	r = &l->v[l->n++];
	r->decision = decision;
	r->active = active;
	memcpy(r->res, res, len);
	r->res[len] = '\0';
	return 0;
}

static int
resources(struct sbx_rules *l, const struct sbx_json *o, int d, int active)
{
	static const char *const keys[] = { "resources", "resource", NULL };
	const struct sbx_json *v = NULL, *e;
	const char *const *k, *s, *c;

	for (k = keys; *k != NULL && v == NULL; k++)
		v = sbx_json_get(o, *k);
	if (v == NULL)
		return 0;
	if (v->type == SBX_JARR) {
		for (e = v->child; e != NULL; e = e->next)
			if (e->type == SBX_JSTR &&
			    sbx_policyls_add(l, d, active, e->str, e->len) ==
			    -1)
				return -1;
		return 0;
	}
	if (v->type != SBX_JSTR)
		return 0;
	for (s = v->str; ; s = c + 1) {
		c = strchr(s, ',');
		if (sbx_policyls_add(l, d, active, s, c != NULL ?
		    (size_t)(c - s) : strlen(s)) == -1)
			return -1;
		if (c == NULL)
			return 0;
	}
}

/*
 * The rules of name in out into l.  0, or -1 with *why (a listing no
 * reader places, or ENOMEM).
 */
int
sbx_policyls_parse(const char *out, size_t len, const char *name,
    struct sbx_rules *l, const char **why)
{
	static const char *const dkeys[] = { "decision", "action", "type",
	    NULL };
	static const char *const skeys[] = { "status", "state", NULL };
	const struct sbx_json *list, *o;
	struct sbx_json *j;
	const char *d, *st;
	int decision;

	memset(l, 0, sizeof(*l));
	if ((j = sbx_json_doc(out, len, why)) == NULL)
		return -1;
	list = j->type == SBX_JARR ? j : sbx_json_get(j, "rules");
	if (list == NULL || (list->type != SBX_JARR &&
	    list->type != SBX_JNULL)) {
		sbx_json_free(j);
		*why = "no list of rules";
		return -1;
	}
	for (o = list->child; o != NULL; o = o->next) {
		if (o->type != SBX_JOBJ || !applies(o, name) ||
		    (d = field(o, dkeys)) == NULL)
			continue;
		if (strcasecmp(d, "allow") == 0 || strcasecmp(d, "allowed") == 0)
			decision = SBX_RULE_ALLOW;
		else if (strcasecmp(d, "deny") == 0 ||
		    strcasecmp(d, "denied") == 0 || strcasecmp(d, "block") == 0)
			decision = SBX_RULE_DENY;
		else
			continue;
		st = field(o, skeys);
		if (resources(l, o, decision, st == NULL ||
		    strcasecmp(st, "active") == 0 ||
		    strcasecmp(st, "enabled") == 0) == -1) {
			sbx_json_free(j);
			sbx_policyls_free(l);
			*why = strerror(ENOMEM);
			return -1;
		}
	}
	sbx_json_free(j);
	*why = NULL;
	return 0;
}

/* 1: l holds res with that decision and active; 0: not at all; -1: inactive. */
int
sbx_policyls_has(const struct sbx_rules *l, int decision, const char *res)
{
	size_t i;
	int seen = 0;

	for (i = 0; i < l->n; i++)
		if (l->v[i].decision == decision &&
		    strcasecmp(l->v[i].res, res) == 0) {
			if (l->v[i].active)
				return 1;
			seen = -1;
		}
	return seen;
}

void
sbx_policyls_free(struct sbx_rules *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
