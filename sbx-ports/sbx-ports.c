/*
 * sbx-ports: list, publish and unpublish the host ports of the session's
 * sandbox, and sync them with what its containers publish on VM ports:
 * one `docker ps` through sbx-run, sbx's listing, one publish of what is
 * missing and removal of what it published for containers now gone.  At
 * most four sbx calls whatever the containers; a second sync changes nothing.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxegress.h"
#include "sbxenv.h"
#include "sbxjson.h"
#include "sbxmarker.h"
#include "sbxports.h"
#include "sbxrecord.h"
#include "sbxstate.h"
#include "sbx-ports.h"

extern char **environ;

void
ports_usage(void)
{
	fprintf(stderr, "usage: sbx-ports [-j] [-s name] ls | publish spec ... "
	    "| unpublish spec ... | sync | allow host ... | deny host ... "
	    "| rules | blocked\n");
	exit(SBX_EX_USAGE);
}

/* sbx's stderr, then a message naming the sandbox; exits 1 (68: none). */
static void SBX_DEAD
ports_failed(const struct ctx *c, const char *what, const char *why)
{
	const struct sbx_portcli *pc = &c->pc;
	struct sbx_result r;

	if (pc->status == -1) {
		errno = pc->error;
		err(sbx_spawn_exec_status(errno), "%s", pc->sbx);
	}
	if (pc->timedout)
		errx(SBX_EX_TIMEOUT, "sandbox %s: %s: timed out after %d s",
		    pc->name, what, pc->timeout);
	if (pc->status != 0 && sbx_says_restart(pc->err.data))
		/* one line, in place of sbx's */
		sbx_says_restart_exit();
	if (sbx_portcli_missing(pc))
		errx(SBX_EX_NOSANDBOX, "sandbox %s does not exist", pc->name);
	if (pc->status != 0) {
		memset(&r, 0, sizeof(r));
		r.out = pc->out;
		r.err = pc->err;
		r.status = pc->status;
		sbx_unplaced(&r, pc->sbx, pc->env, pc->dfd, what);
		errx(SBX_EX_FAIL, "sandbox %s: %s failed (exit %d)", pc->name,
		    what, pc->status);
	}
	if (pc->err.len > 0)
		(void)sbx_shown_write(STDERR_FILENO, pc->err.data, pc->err.len);
	errx(SBX_EX_FAIL, "sandbox %s: %s: %s", pc->name, what, why);
}

/*
 * sbx's listing into l.  An sbx that refuses to list a stopped sandbox
 * (0.42.1: 409) gets it started by one exec and is asked again: with the
 * idle stop, stopped is the usual state, and its mappings survive.
 */
void
ports_list(struct ctx *c, struct sbx_ports *l)
{
	const char *errstr;

	if (sbx_portcli_list(&c->pc, l, &errstr) == 0)
		return;
	if (c->pc.status > 0 && sbx_says_stopped(c->pc.err.data)) {
		if (sbx_portcli_wake(&c->pc) == -1 || c->pc.status != 0)
			ports_failed(c, "sbx exec (to start it)", "sbx failed");
		if (sbx_portcli_list(&c->pc, l, &errstr) == 0)
			return;
	}
	ports_failed(c, "listing its ports", errstr);
}

/* One mapping: a URL line, or a JSON object with -j. */
void
ports_show(const struct ctx *c, const struct sbx_port *p, int why)
{
	static const char *const reason[] = {
		NULL, NULL, "sandbox port below 1024", "host port taken",
		"sandbox port in the host's ephemeral range"
	};
	char url[128], shown[sizeof(url) * 4];
	const char *ip = p->ip[0] ? p->ip : "127.0.0.1";

	if (sbx_portspec_url(p, url, sizeof(url)) == -1)
		snprintf(url, sizeof(url), "?");
	if (c->jflag) {
		printf("{\"url\":");
		sbx_jsonout_puts(stdout, url);
		printf(",\"host_ip\":");
		sbx_jsonout_puts(stdout, ip);
		printf(",\"host_port\":%d,\"sandbox_port\":%d,\"protocol\":\"%s\"",
		    p->host, p->vm, sbx_portspec_proto(p));
		if (why >= 0)
			printf(",\"ephemeral\":%s", why >= WHY_LOW ? "true" :
			    "false");
		if (why >= WHY_LOW && why <= WHY_RANGE) {
			printf(",\"reason\":");
			sbx_jsonout_puts(stdout, reason[why]);
		}
		if (!sbx_portspec_ip_loopback(ip))
			printf(",\"loopback\":false");
		if (p->cid[0] != '\0' || p->cname[0] != '\0') {
			/* sync: the container whose port this is */
			printf(",\"container_id\":");
			sbx_jsonout_puts(stdout, p->cid);
			printf(",\"container\":");
			sbx_jsonout_puts(stdout, p->cname);
		}
		printf("}\n");
		return;
	}
	/* the address is sbx's listing's, whatever it holds */
	printf("%s -> %d/%s", sbx_shown(url, shown, sizeof(shown)), p->vm,
	    sbx_portspec_proto(p));
	if (why == WHY_LOW)
		printf(" (ephemeral: sandbox port %d is below 1024)", p->vm);
	else if (why == WHY_TAKEN)
		printf(" (ephemeral: host port %d is taken)", p->vm);
	else if (why == WHY_RANGE)
		printf(" (ephemeral: sandbox port %d is in the host's "
		    "ephemeral range)", p->vm);
	if (!sbx_portspec_ip_loopback(ip))
		printf(" (bound to %s, not loopback)", sbx_shown(ip, shown,
		    sizeof(shown)));
	putchar('\n');
}

/* Each port changed, an event of the session's record. */
static void
ports_record(const struct ctx *c, const struct sbx_ports *l, const char *op)
{
	char m[128];
	size_t i;

	for (i = 0; c->pc.dfd != -1 && i < l->n; i++) {
		(void)snprintf(m, sizeof(m), "\"op\":\"%s\",\"proto\":\"%s\","
		    "\"host\":%d,\"vm\":%d", op,
		    sbx_portspec_proto_name(l->v[i].proto), l->v[i].host,
		    l->v[i].vm);
		(void)sbx_record_event(c->pc.dfd, c->pc.name, "port", m);
	}
}

void
ports_change(struct ctx *c, const struct sbx_ports *pub,
    const struct sbx_ports *unpub)
{
	const char *errstr;

	if (sbx_portcli_change(&c->pc, pub, unpub, &errstr) == -1)
		ports_failed(c, pub->n ? "publish" : "unpublish", errstr);
	ports_record(c, pub, "publish");
	ports_record(c, unpub, "unpublish");
}

static int
cmd_ls(struct ctx *c, int argc, char **argv)
{
	struct sbx_ports l;
	size_t i;

	(void)argc;	/* none: the verb table says so */
	(void)argv;
	memset(&l, 0, sizeof(l));
	ports_list(c, &l);
	for (i = 0; i < l.n; i++)
		ports_show(c, &l.v[i], -1);
	sbx_portspec_free(&l);
	return SBX_EX_OK;
}

/*
 * The verbs, what their operands are (none, port specs or hosts), and
 * whether they change the ports (and so hold the sandbox's ports lock).
 */
#define OPS_NONE	0
#define OPS_SPECS	1
#define OPS_HOSTS	2
static const struct verb {
	const char	*name;
	int		 ops;
	int		 changes;
	int		(*run)(struct ctx *, int, char **);
} verbs[] = {
	{ "ls", OPS_NONE, 0, cmd_ls },
	{ "publish", OPS_SPECS, 1, mapping_publish },
	{ "unpublish", OPS_SPECS, 1, mapping_unpublish },
	{ "sync", OPS_NONE, 1, sync_cmd },
	{ "allow", OPS_HOSTS, 0, outbound_allow },
	{ "deny", OPS_HOSTS, 0, outbound_deny },
	{ "rules", OPS_NONE, 0, outbound_rules },
	{ "blocked", OPS_NONE, 0, outbound_blocked },
	{ NULL, 0, 0, NULL }
};

/* The verb argv[0] names; its operands are checked before anything runs. */
static const struct verb *
verb_find(int argc, char **argv)
{
	static struct sbx_egress hosts;
	const struct verb *v;
	struct sbx_ports check;

	if (argc == 0)
		ports_usage();
	for (v = verbs; v->name != NULL && strcmp(argv[0], v->name) != 0; v++)
		;
	if (v->name == NULL || (v->ops == OPS_NONE && argc > 1) ||
	    (v->ops == OPS_HOSTS && argc == 1))
		ports_usage();
	/* usage errors first, before any sbx call */
	if (v->ops == OPS_SPECS) {
		memset(&check, 0, sizeof(check));
		mapping_specs(argc - 1, argv + 1, &check);
		sbx_portspec_free(&check);
	} else if (v->ops == OPS_HOSTS)
		outbound_hosts(v->name, argc - 1, argv + 1, &hosts);
	return v;
}

/* The settings, sbx and the state directory, then the verb. */
static int
verb_run(struct ctx *c, const struct verb *v, int argc, char **argv)
{
	struct sbx_envpolicy pol;
	int dfd, lfd = -1, rv;

	c->pc.name = sbx_xconf_name_pick(c->pc.name);
	sbx_xconf_check(SBX_CONF_RUN);	/* sync runs sbx-run */
	c->max = (int)sbx_xconf_int(SBX_CONF_PORTS_MAX);

	c->pc.timeout = sbx_xconf_timeout();
	if (sbx_xconf_env_policy(&pol, NULL, 0) == -1 ||
	    (c->pc.env = sbx_env_build(environ, &pol)) == NULL)
		err(SBX_EX_FAIL, NULL);
	sbx_xcli_find(environ, sbx_xmarkerio_session_ws(c->pc.name, c->wsbuf,
	    sizeof(c->wsbuf), c->ws), c->sbx, sizeof(c->sbx));
	c->pc.sbx = c->sbx;
	if ((dfd = sbx_xstatedir_open(c->statedir, sizeof(c->statedir))) == -1)
		exit(SBX_EX_FAIL);
	c->pc.dfd = dfd;

	if (v->changes)
		lfd = portsmarker_lock(c);
	rv = v->run(c, argc, argv);
	if (lfd != -1)
		close(lfd);
	sbx_portcli_free(&c->pc);
	free(c->pc.env);
	sbx_env_policy_free(&pol);
	close(dfd);
	if (sbx_io_fshut() == -1)
		err(SBX_EX_FAIL, "stdout");
	return rv;
}

int
main(int argc, char *argv[])
{
	struct ctx c;
	const struct verb *v;
	int ch;

	memset(&c, 0, sizeof(c));
	c.argv0 = argv[0];
	opterr = 0;
	while ((ch = getopt(argc, argv, "+js:")) != -1) {
		switch (ch) {
		case 'j':
			c.jflag = 1;
			break;
		case 's':
			c.pc.name = optarg;
			break;
		default:
			ports_usage();
		}
	}
	argc -= optind;
	argv += optind;
	v = verb_find(argc, argv);
	return verb_run(&c, v, argc - 1, argv + 1);
}
