/*
 * sync.c: sbx-ports sync: the VM ports running containers publish against
 * sbx's listing.  docker ps comes first, since its exec starts a stopped
 * sandbox whose listing sbx may refuse; removals and publications are two
 * calls, and no port freed by one is taken by the other.
 */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxports.h"
#include "sbx-ports.h"

#define PS_FORMAT	"{{json .}}"

extern char **environ;

/* docker ps through sbx-run, never creating: VM ports into want or over. */
static void
container_ports(struct ctx *c, struct sbx_ports *want,
    struct portset *over)
{
	char run[PATH_MAX], **env;
	char *av[] = { run, "-s", (char *)c->pc.name, "ps", "--format",
	    PS_FORMAT, NULL };
	struct sbx_result cmd;
	struct vmlocal local;
	const char *errstr;
	size_t i, n, ncont;

	if (sbx_sibling(c->argv0, environ, c->ws, "sbx-run", run,
	    sizeof(run)) == -1)
		errx(SBX_EX_NOTFOUND, "sbx-run: not found beside sbx-ports or "
		    "on PATH");
	for (n = 0; environ[n] != NULL; n++)
		;
	if ((env = calloc(n + 2, sizeof(*env))) == NULL)
		err(SBX_EX_FAIL, NULL);
	env[0] = "DOCKER_SANDBOX_AUTOCREATE=0";
	for (i = 0; i < n; i++)
		env[i + 1] = environ[i];
	/* sbx-run applies DOCKER_SANDBOX_TIMEOUT */
	if (sbx_capture(&cmd, av, env, 0) == -1)
		err(sbx_spawn_exec_status(errno), "%s", run);
	free(env);
	if (cmd.status == SBX_EX_RESTART) {
		(void)sbx_shown_write(STDERR_FILENO, cmd.err.data,
		    cmd.err.len);
		exit(SBX_EX_RESTART);
	}
	if (cmd.status != 0) {
		if (cmd.err.len > 0)
			(void)sbx_shown_write(STDERR_FILENO, cmd.err.data,
			    cmd.err.len);
		errx(cmd.status == SBX_EX_TIMEOUT ? SBX_EX_TIMEOUT : SBX_EX_FAIL,
		    "sandbox %s: docker ps failed (exit %d)", c->pc.name,
		    cmd.status);
	}
	if (dockerps_parse(cmd.out.data ? cmd.out.data : "", cmd.out.len,
	    want, over, &local, &ncont, &errstr) == -1)
		errx(SBX_EX_FAIL, "sandbox %s: docker ps: %s", c->pc.name,
		    errstr);
	dockerps_local_say(c->pc.name, &local);
	for (i = 0; i < want->n; i++)
		want->v[i].ip[0] = '\0';	/* the VM's bind, not ours */
	sbx_supervise_result_free(&cmd);
}

static int
listed(const struct sbx_ports *l, const struct sbx_port *p)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].host == p->host && l->v[i].vm == p->vm &&
		    l->v[i].proto == p->proto)
			return 1;
	return 0;
}

static void
show_for(const struct ctx *c, const struct sbx_port *have,
    const struct sbx_port *want, int why)
{
	struct sbx_port p = *have;

	memcpy(p.cid, want->cid, sizeof(p.cid));
	memcpy(p.cname, want->cname, sizeof(p.cname));
	ports_show(c, &p, why);
}

int
sync_cmd(struct ctx *c, int argc, char **argv)
{
	struct sbx_ports l, want, rec, pub, unpub, keep, none;
	struct portset *over;
	const struct sbx_port *have;
	struct sbx_port p;
	int dfd = c->pc.dfd, *why, rv = SBX_EX_OK;
	size_t i, j, held;

	(void)argc;
	(void)argv;
	memset(&l, 0, sizeof(l));
	memset(&want, 0, sizeof(want));
	memset(&rec, 0, sizeof(rec));
	memset(&pub, 0, sizeof(pub));
	memset(&unpub, 0, sizeof(unpub));
	memset(&keep, 0, sizeof(keep));
	memset(&none, 0, sizeof(none));
	if ((over = calloc(1, sizeof(*over))) == NULL)
		err(SBX_EX_FAIL, NULL);
	container_ports(c, &want, over);
	ports_list(c, &l);
	if (portsmarker_read(dfd, c->pc.name, &rec) == -1)
		portsmarker_warn(c->statedir, c->pc.name);
	if ((why = calloc(want.n + 1, sizeof(*why))) == NULL)
		err(SBX_EX_FAIL, NULL);

	/* stale: published by sync, still listed, no container wants it */
	for (i = 0; i < rec.n; i++) {
		for (j = 0; j < l.n; j++)
			if (l.v[j].host == rec.v[i].host &&
			    l.v[j].vm == rec.v[i].vm &&
			    l.v[j].proto == rec.v[i].proto)
				break;
		if (j == l.n)
			continue;	/* gone already: forget it */
		/* still wanted, or wanted past the bound: it stays */
		if (sbx_portspec_findvm(&want, rec.v[i].vm, rec.v[i].proto) ||
		    dockerps_portset_has(over, rec.v[i].vm, rec.v[i].proto)) {
			if (sbx_portspec_add(&keep, &rec.v[i]) == -1)
				err(SBX_EX_FAIL, NULL);
		} else if (sbx_portspec_add(&unpub, &l.v[j]) == -1)
			err(SBX_EX_FAIL, NULL);
	}
	/* missing: wanted, unmapped, under max host ports; the rest refused */
	held = l.n - unpub.n;
	for (i = 0; i < want.n; i++) {
		if (sbx_portspec_findvm(&l, want.v[i].vm, want.v[i].proto))
			continue;
		if (held >= (size_t)c->max) {
			dockerps_portset_add(over, want.v[i].vm,
			    want.v[i].proto);
			continue;
		}
		held++;
		p = want.v[i];
		p.host = 0;
		p.fam = 4;	/* the IPv4 loopback, named: tcp4, udp4 */
		if ((why[i] = hostport_choose(&p, &pub, &unpub)) == -1)
			err(SBX_EX_FAIL, "no free host port for %d/%s", p.vm,
			    sbx_portspec_proto(&p));
		snprintf(p.ip, sizeof(p.ip), "127.0.0.1");
		if (sbx_portspec_add(&pub, &p) == -1)
			err(SBX_EX_FAIL, NULL);
	}
	for (i = 0; i < pub.n; i++)
		if (!listed(&keep, &pub.v[i]) &&
		    sbx_portspec_add(&keep, &pub.v[i]) == -1)
			err(SBX_EX_FAIL, NULL);
	if (pub.n > 0 || unpub.n > 0) {
		/* recorded first: a half-done sync still knows its own */
		for (i = 0; i < unpub.n; i++)
			if (sbx_portspec_add(&keep, &unpub.v[i]) == -1)
				err(SBX_EX_FAIL, NULL);
		if (portsmarker_write(dfd, c->pc.name, &keep) == -1)
			portsmarker_warn(c->statedir, c->pc.name);
		keep.n -= unpub.n;
	}
	ports_change(c, &none, &unpub);
	ports_change(c, &pub, &none);
	if ((keep.n != rec.n || pub.n > 0 || unpub.n > 0) &&
	    portsmarker_write(dfd, c->pc.name, &keep) == -1)
		portsmarker_warn(c->statedir, c->pc.name);

	for (i = 0; i < want.n; i++) {
		if ((have = sbx_portspec_findvm(&pub, want.v[i].vm,
		    want.v[i].proto)) != NULL)
			show_for(c, have, &want.v[i], why[i]);
		else if ((have = sbx_portspec_findvm(&l, want.v[i].vm,
		    want.v[i].proto)) != NULL)
			show_for(c, have, &want.v[i], -1);
	}
	if (bound_refused_say(c, over))
		rv = SBX_EX_FAIL;
	free(over);
	free(why);
	sbx_portspec_free(&l);
	sbx_portspec_free(&want);
	sbx_portspec_free(&rec);
	sbx_portspec_free(&pub);
	sbx_portspec_free(&unpub);
	sbx_portspec_free(&keep);
	return rv;
}

