/*
 * checks.c: the verdicts, in sbx-verify(1)'s order.  Each check has its
 * control: a planted value whose answer would differ were it broken.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxconf.h"
#include "sbxmarker.h"
#include "sbxports.h"
#include "sbxstate.h"
#include "result.h"
#include "audit.h"

#define ID_SHOW		12	/* daemon ID characters shown */

static int
rcout(const struct audit *a, const char *key, char *out, size_t size)
{
	char buf[512], *sp;
	const char *errstr;
	int rc;

	out[0] = '\0';
	if (answers_get(a, key, buf, sizeof(buf)) == NULL)
		return -1;
	if ((sp = strchr(buf, ' ')) != NULL) {
		*sp = '\0';
		snprintf(out, size, "%s", sp + 1);
	}
	rc = (int)sbx_strtonum(buf, 0, 255, &errstr);
	return errstr != NULL ? -1 : rc;
}

static int
isid(const char *s)
{
	return *s != '\0' && strchr(s, ' ') == NULL && strlen(s) < 128;
}

static void
transport(const struct audit *a, struct result *r)
{
	char id[256];
	int rc = rcout(a, "pin.clean", id, sizeof(id));

	if (access(a->ran, F_OK) == 0)	/* the canary docker made it */
		result_say(r, FAIL, "the canary docker first on the host PATH "
		    "ran: the probes reached a host docker binary");
	else if (rc != 0 || !isid(id))
		result_say(r, FAIL, "no answer from the sandbox daemon through "
		    "the transport (status %d: %.200s)", rc, id);
	else
		result_say(r, PASS, "probes ran through sbx-run and sbx exec "
		    "with DOCKER_HOST=%s and a canary docker first on PATH; "
		    "the sandbox daemon answered (ID %.*s...) and the canary "
		    "never ran", a->poisonhost, ID_SHOW, id);
}

static void
env_scrub(const struct audit *a, struct result *r)
{
	int d = answers_has(a, "env.seen", a->sentinel);
	int s = answers_has(a, "env.seen", a->sbxsentinel);

	if (d || s)
		result_say(r, FAIL, "present inside: %s%s%s", d ? a->sentinel :
		    "", d && s ? ", " : "", s ? a->sbxsentinel : "");
	else
		result_say(r, PASS, "%s (removed before sbx) and %s (given to "
		    "sbx itself) are both absent inside", a->sentinel,
		    a->sbxsentinel);
}

static void
env_forward(const struct audit *a, struct result *r)
{
	char v[64];
	int leak = answers_has(a, "env.seen", a->denied);
	int got = answers_get(a, "env.allowed", v, sizeof(v)) != NULL;
	int passthrough = sbx_xconf_word(SBX_CONF_PASSTHROUGH);

	if (leak)
		result_say(r, FAIL, "%s, never forwarded, is present inside",
		    a->denied);
	else if (!got)
		result_say(r, FAIL, "control failed: the allow-listed %s did "
		    "not arrive, so an absence proves nothing", a->allowed);
	else if (strcmp(v, a->value) != 0)
		result_say(r, FAIL, "control failed: the allow-listed %s "
		    "arrived with another value", a->allowed);
	else
		result_say(r, PASS, "%s (given to sbx, not forwarded) is "
		    "absent; the allow-listed %s arrived with its value%s",
		    a->denied, a->allowed, passthrough ? " (passthrough is "
		    "on: every name but docker, compose and the host set is "
		    "forwarded)" : "");
}

static void
daemon_pinning(const struct audit *a, struct result *r)
{
	char clean[256], pois[256], unp[256];
	int rc = rcout(a, "pin.clean", clean, sizeof(clean));
	int rp = rcout(a, "pin.poisoned", pois, sizeof(pois));
	int ru = rcout(a, "pin.unpinned", unp, sizeof(unp));

	if (rc != 0 || !isid(clean))
		result_say(r, FAIL, "the pinned CLI got no daemon ID even "
		    "unpoisoned (status %d: %.200s)", rc, clean);
	else if (rp != 0 || strcmp(pois, clean) != 0)
		result_say(r, FAIL, "with DOCKER_HOST and DOCKER_CONTEXT "
		    "poisoned inside, the pinned CLI answered otherwise "
		    "(status %d: %.200s)", rp, pois);
	else if (ru == 0 && strcmp(unp, clean) == 0)
		result_say(r, FAIL, "control failed: the poison did not divert "
		    "an unpinned docker either, so the check proves nothing");
	else
		result_say(r, PASS, "with DOCKER_HOST=%s and DOCKER_CONTEXT=%s "
		    "inside, docker -H %s still answered with the sandbox "
		    "daemon's ID %.*s...; unpinned, the same call failed",
		    a->poisonhost, a->poisonctx, SBX_DOCKER_HOST, ID_SHOW,
		    clean);
}

static void
mounts(const struct audit *a, struct result *r)
{
	static const char *const what[NMOUNTS] = { "the canary", "~/.docker",
	    "~/.ssh", "~/.aws", "~/.kube", "~/.config/gcloud" };
	char seen[256], n[12];
	size_t o = 0;
	int i;

	seen[0] = '\0';
	for (i = 0; i < NMOUNTS; i++) {
		snprintf(n, sizeof(n), "%d", i);
		if (answers_has(a, "mnt.seen", n))
			o += (size_t)snprintf(seen + o, sizeof(seen) - o, "%s%s",
			    o ? ", " : "", what[i]);
	}
	if (o > 0)
		result_say(r, FAIL, "visible inside: %s (canary %s)", seen,
		    a->canary);
	else if (a->home == NULL)
		result_say(r, PASS, "the canary %s is invisible inside (HOME "
		    "is not set: the home directories were not probed)",
		    a->canary);
	else
		result_say(r, PASS, "the canary %s and ~/.docker ~/.ssh ~/.aws "
		    "~/.kube ~/.config/gcloud of %s are invisible inside%s",
		    a->canary, a->home, a->project[0] == '\0' ? "" :
		    answers_get(a, "mnt.project", n, sizeof(n)) ?
		    ", while the project is seen at its host path" :
		    "; the project is not seen at its host path either");
}

static void
contexts(const struct audit *a, struct result *r)
{
	char names[256];
	int rc = rcout(a, "ctx", names, sizeof(names));

	if (rc != 0)
		result_say(r, FAIL, "docker context ls failed inside (status "
		    "%d)", rc);
	else if (strcmp(names, "default") != 0)
		result_say(r, FAIL, "contexts inside: %.200s", names);
	else
		result_say(r, PASS, "the only docker context inside is "
		    "default");
}

static void
host_socket(const struct audit *a, struct result *r)
{
	char seen[768];
	int n = answers_all(a, "sock.seen", seen, sizeof(seen));

	if (n > 0)
		result_say(r, FAIL, "daemon socket%s visible inside: %s",
		    n > 1 ? "s" : "", seen);
	else if (!answers_get(a, "sock.canonical", seen, sizeof(seen)))
		result_say(r, FAIL, "%s is not a socket inside",
		    SBX_DOCKER_HOST);
	else if (rcout(a, "pin.clean", seen, sizeof(seen)) != 0 ||
	    !isid(seen))
		result_say(r, FAIL, "%s is a socket inside but no daemon "
		    "answers there", SBX_DOCKER_HOST);
	else
		result_say(r, PASS, "no host daemon socket (Docker Desktop, "
		    "rootless, colima, OrbStack paths and /run, /tmp) is "
		    "visible inside; the canonical socket answered as the "
		    "sandbox daemon");
}

static void
port_binds(const struct audit *a, struct result *r)
{
	char list[768], url[96];
	size_t i, o = 0;
	int bad = 0;

	if (!a->portsok) {
		result_say(r, FAIL, "sbx could not list the published ports: "
		    "%s", a->portserr);
		return;
	}
	list[0] = '\0';
	for (i = 0; i < a->ports.n; i++)
		if (!sbx_portspec_ip_loopback(a->ports.v[i].ip))
			bad++;
	for (i = 0; i < a->ports.n && o + 64 < sizeof(list); i++) {
		if (bad && sbx_portspec_ip_loopback(a->ports.v[i].ip))
			continue;
		snprintf(url, sizeof(url), strchr(a->ports.v[i].ip, ':') ?
		    "[%s]:%d->%d/%s" : "%s:%d->%d/%s", a->ports.v[i].ip,
		    a->ports.v[i].host, a->ports.v[i].vm,
		    sbx_portspec_proto(&a->ports.v[i]));
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
		    o ? ", " : "", url);
	}
	if (bad)
		result_say(r, FAIL, "bound beyond loopback: %s", list);
	else if (a->ports.n == 0)
		result_say(r, PASS, "no published ports");
	else
		result_say(r, PASS, "%zu published, all on 127.0.0.1 or ::1: "
		    "%s", a->ports.n, list);
}

static void
workspace_ro(const struct audit *a, struct result *r)
{
	char b[8], created[SBX_MARKER_MAX];

	if (!a->readonly)
		result_say(r, SKIP, "read-write mode%s: the project is meant "
		    "to be writable", a->marker ? " (NAME.created says "
		    "mode=rw)" : "");
	else if (a->project[0] == '\0') {
		(void)sbx_marker_path(created, sizeof(created), a->name,
		    SBX_M_CREATED);
		result_say(r, FAIL, "read-only mode, but no %s marker names "
		    "the project, so no write could be tried", created);
	}
	else if (answers_get(a, "ro.denied", b, sizeof(b)))
		result_say(r, PASS, "a write to %s failed inside", a->project);
	else if (answers_get(a, "ro.writable", b, sizeof(b)))
		result_say(r, FAIL, "a write to %s succeeded inside",
		    a->project);
	else
		result_say(r, FAIL, "the project %s is not mounted inside",
		    a->project);
}

static void
teardown_armed(const struct audit *a, struct result *r)
{
	char file[SBX_MARKER_MAX];
	const char *mode = sbx_conf_given(SBX_CONF_TEARDOWN);
	const char *pin = sbx_conf_given(SBX_CONF_PINNED);
	pid_t pid;

	(void)sbx_marker_path(file, sizeof(file), a->name, SBX_M_LOCK);
	pid = sbx_lock_holder(a->dfd, file);
	if (pid > 0)
		result_say(r, PASS, "pid %ld holds %s/%s", (long)pid,
		    a->statedir, file);
	else if (pid == -1)
		result_say(r, FAIL, "%s/%s cannot be examined", a->statedir,
		    file);
	else if ((mode != NULL && sbx_conf_word(SBX_CONF_TEARDOWN, mode) ==
	    SBX_TEARDOWN_NONE) || (mode == NULL && pin != NULL &&
	    strcmp(pin, a->name) == 0))
		result_say(r, SKIP, "teardown is off "
		    "(DOCKER_SANDBOX_TEARDOWN=none%s) and no watcher holds %s",
		    mode == NULL ? ", the default for a pinned sandbox" : "",
		    file);
	else
		result_say(r, FAIL, "no process holds %s/%s: nothing will tear "
		    "the sandbox down when the session ends", a->statedir,
		    file);
}

static const struct check {
	const char	*name;
	void		(*judge)(const struct audit *, struct result *);
} checks[] = {
	{ "transport", transport },
	{ "env-scrub", env_scrub },
	{ "env-forward", env_forward },
	{ "daemon-pinning", daemon_pinning },
	{ "mounts", mounts },
	{ "contexts", contexts },
	{ "host-socket", host_socket },
	{ "port-binds", port_binds },
	{ "workspace-ro", workspace_ro },
	{ "teardown-armed", teardown_armed },
	{ "ssh-agent", channels_ssh_agent },
	{ "mcp-gateway", channels_mcp_gateway },
	{ "egress-rules", rules_judge },
};
/* r[] is sized by NCHECKS: the table must fill it exactly */
typedef char checks_fill_r[sizeof(checks) / sizeof(checks[0]) == NCHECKS ?
    1 : -1];

void
checks_run(const struct audit *a, struct result *r)
{
	size_t i;

	for (i = 0; i < NCHECKS; i++) {
		r[i].name = checks[i].name;
		checks[i].judge(a, &r[i]);
	}
}
