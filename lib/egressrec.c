/*
 * egressrec.c: NAME.egress, what this session asked of sbx's policy and
 * secrets: lines "allow RES", "deny RES" and "registry HOST", so that a
 * rule sbx dropped can be put back and nothing of the session's outlives
 * it.  Written whole under the sandbox's provisioning lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxmarker.h"
#include "sbxpolicy.h"
#include "sbxstate.h"

#define RECORD_MAX	(64 * 1024)	/* 144 entries of a 253-byte host fit */

static const char *const kinds[] = { "", "allow", "deny", "registry" };

/* One line's rule into l, once. */
static int
record_add(struct sbx_rules *l, int kind, const char *res, size_t len)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].decision == kind && strlen(l->v[i].res) == len &&
		    memcmp(l->v[i].res, res, len) == 0)
			return 0;
	return sbx_policyls_add(l, kind, 1, res, len);
}

static int
record_parse(struct sbx_rules *l, const char *b, size_t n)
{
	const char *nl, *sp;
	size_t k, kl;

	for (; n > 0; n -= (size_t)(nl - b) + 1, b = nl + 1) {
		if ((nl = memchr(b, '\n', n)) == NULL)
			break;	/* a torn last line is not a rule */
		if ((sp = memchr(b, ' ', (size_t)(nl - b))) == NULL)
			continue;
		kl = (size_t)(sp - b);
		for (k = 1; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (strlen(kinds[k]) == kl &&
			    memcmp(b, kinds[k], kl) == 0)
				break;
		if (k < sizeof(kinds) / sizeof(kinds[0]) &&
		    record_add(l, (int)k, sp + 1, (size_t)(nl - sp - 1)) == -1)
			return -1;
	}
	return 0;
}

/* NAME.egress into l (empty when there is none); -1 (errno). */
int
sbx_egressrec_read(int dfd, const char *name, struct sbx_rules *l)
{
	char file[SBX_MARKER_MAX], *b;
	int n, e;

	memset(l, 0, sizeof(*l));
	if (sbx_marker_path(file, sizeof(file), name, SBX_M_EGRESS) == -1 ||
	    (b = malloc(RECORD_MAX + 1)) == NULL)
		return -1;
	if ((n = sbx_state_readmax(dfd, file, b, RECORD_MAX + 1)) == -1) {
		e = errno;
		free(b);
		return e == ENOENT ? 0 : (errno = e, -1);
	}
	if (record_parse(l, b, (size_t)n) == -1) {
		e = errno;
		free(b);
		sbx_policyls_free(l);
		errno = e;
		return -1;
	}
	free(b);
	return 0;
}

/* kind's items added to NAME.egress (those not in it yet); -1 (errno). */
int
sbx_egressrec_add(int dfd, const char *name, int kind,
    const char *const *items, size_t n)
{
	char file[SBX_MARKER_MAX], *text, *t;
	struct sbx_rules l;
	size_t i, len = 0;
	int r, e;

	if (kind < SBX_RULE_ALLOW || kind > SBX_RULE_REGISTRY ||
	    sbx_marker_path(file, sizeof(file), name, SBX_M_EGRESS) == -1 ||
	    sbx_egressrec_read(dfd, name, &l) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (strchr(items[i], '\n') != NULL ||
		    record_add(&l, kind, items[i], strlen(items[i])) == -1) {
			sbx_policyls_free(&l);
			return errno = EINVAL, -1;
		}
	for (i = 0; i < l.n; i++)
		len += strlen(kinds[l.v[i].decision]) + strlen(l.v[i].res) + 2;
	if (len > RECORD_MAX || (text = malloc(len + 1)) == NULL) {
		sbx_policyls_free(&l);
		return errno = len > RECORD_MAX ? EFBIG : ENOMEM, -1;
	}
	for (t = text, i = 0; i < l.n; i++) {
		len = strlen(kinds[l.v[i].decision]);
		memcpy(t, kinds[l.v[i].decision], len);
		t += len;
		*t++ = ' ';
		len = strlen(l.v[i].res);
		memcpy(t, l.v[i].res, len);
		t += len;
		*t++ = '\n';
	}
	*t = '\0';
	r = sbx_state_write(dfd, file, text);
	e = errno;
	free(text);
	sbx_policyls_free(&l);
	errno = e;
	return r;
}
