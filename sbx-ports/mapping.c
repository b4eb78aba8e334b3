/*
 * mapping.c: publish and unpublish, the mappings asked for by hand.  A
 * spec an existing mapping answers is shown, not made again; unpublish
 * takes back what the specs name, and only those of the record.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxports.h"
#include "sbx-ports.h"

/* Parse every spec before doing anything: a bad one is a usage error. */
void
mapping_specs(int argc, char **argv, struct sbx_ports *out)
{
	struct sbx_port p;
	const char *errstr;
	int i;

	if (argc == 0)
		ports_usage();
	for (i = 0; i < argc; i++) {
		if (sbx_portspec(argv[i], &p, &errstr) == -1)
			errx(SBX_EX_USAGE, "%s: %s (want [host:]sandboxport"
			    "[/proto], ports 1 to 65535)", argv[i], errstr);
		if (sbx_portspec_add(out, &p) == -1)
			err(SBX_EX_FAIL, NULL);
	}
}

/*
 * Does mapping m answer spec want: the same sandbox port and protocol,
 * and the host port and family when the spec names them?
 */
static int
answers(const struct sbx_port *m, const struct sbx_port *want)
{
	return m->vm == want->vm && m->proto == want->proto &&
	    (want->host == 0 || m->host == want->host) &&
	    (want->fam == 0 || m->fam == want->fam);
}

/* The first mapping of l that answers want, or NULL. */
static const struct sbx_port *
existing(const struct sbx_ports *l, const struct sbx_port *want)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (answers(&l->v[i], want))
			return &l->v[i];
	return NULL;
}

int
mapping_publish(struct ctx *c, int argc, char **argv)
{
	struct sbx_ports want, l, pub, none;
	struct portset *over;
	const struct sbx_port *have;
	struct sbx_port p;
	int *why, rv = SBX_EX_OK;
	size_t i;

	memset(&want, 0, sizeof(want));
	memset(&l, 0, sizeof(l));
	memset(&pub, 0, sizeof(pub));
	memset(&none, 0, sizeof(none));
	mapping_specs(argc, argv, &want);
	if ((why = calloc(want.n + 1, sizeof(*why))) == NULL ||
	    (over = calloc(1, sizeof(*over))) == NULL)
		err(SBX_EX_FAIL, NULL);
	ports_list(c, &l);
	for (i = 0; i < want.n; i++) {
		p = want.v[i];
		if (existing(&l, &p) != NULL || existing(&pub, &p) != NULL)
			continue;
		/* every listed mapping holds a host port, hand-made or not */
		if (l.n + pub.n >= (size_t)c->max) {
			dockerps_portset_add(over, p.vm, p.proto);
			continue;
		}
		/* one loopback stack, named: tcp4 unless the spec says 6 */
		if (p.fam == 0)
			p.fam = 4;
		if (p.host != 0)
			why[i] = p.host == p.vm ? WHY_SAME : WHY_GIVEN;
		else if ((why[i] = hostport_choose(&p, &pub, NULL)) == -1)
			err(SBX_EX_FAIL, "no free host port for %d/%s", p.vm,
			    sbx_portspec_proto(&p));
		snprintf(p.ip, sizeof(p.ip), p.fam == 6 ? "::1" : "127.0.0.1");
		if (sbx_portspec_add(&pub, &p) == -1)
			err(SBX_EX_FAIL, NULL);
	}
	ports_change(c, &pub, &none);
	for (i = 0; i < want.n; i++) {
		if ((have = existing(&pub, &want.v[i])) != NULL)
			ports_show(c, have, why[i]);
		else if ((have = existing(&l, &want.v[i])) != NULL)
			ports_show(c, have, -1);
	}
	if (bound_refused_say(c, over))
		rv = SBX_EX_FAIL;
	free(over);
	free(why);
	sbx_portspec_free(&want);
	sbx_portspec_free(&l);
	sbx_portspec_free(&pub);
	return rv;
}

int
mapping_unpublish(struct ctx *c, int argc, char **argv)
{
	struct sbx_ports want, l, unpub, none, rec, keep;
	int dfd = c->pc.dfd;
	size_t i, j;

	memset(&want, 0, sizeof(want));
	memset(&l, 0, sizeof(l));
	memset(&unpub, 0, sizeof(unpub));
	memset(&none, 0, sizeof(none));
	memset(&rec, 0, sizeof(rec));
	memset(&keep, 0, sizeof(keep));
	mapping_specs(argc, argv, &want);
	ports_list(c, &l);
	/* every listed mapping that a spec names; none is not an error */
	for (i = 0; i < l.n; i++)
		for (j = 0; j < want.n; j++)
			if (answers(&l.v[i], &want.v[j])) {
				if (sbx_portspec_add(&unpub, &l.v[i]) == -1)
					err(SBX_EX_FAIL, NULL);
				break;
			}
	ports_change(c, &none, &unpub);
	if (portsmarker_read(dfd, c->pc.name, &rec) == 0) {
		for (i = 0; i < rec.n; i++) {
			for (j = 0; j < unpub.n; j++)
				if (unpub.v[j].host == rec.v[i].host &&
				    unpub.v[j].proto == rec.v[i].proto)
					break;
			if (j == unpub.n && sbx_portspec_add(&keep, &rec.v[i]))
				err(SBX_EX_FAIL, NULL);
		}
		if (keep.n != rec.n &&
		    portsmarker_write(dfd, c->pc.name, &keep))
			portsmarker_warn(c->statedir, c->pc.name);
	}
	sbx_portspec_free(&want);
	sbx_portspec_free(&l);
	sbx_portspec_free(&unpub);
	sbx_portspec_free(&rec);
	sbx_portspec_free(&keep);
	return SBX_EX_OK;
}
