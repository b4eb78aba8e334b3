/*
 * channels.c: the verdicts on the host channels other than the workspace,
 * from what chprobe.c's lines answered: no SSH agent reachable in the VM,
 * no MCP gateway reachable from the VM or from a container in it.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "result.h"
#include "audit.h"

#define LIST_MAX	640	/* a list in the evidence; the rest is cut */

/* What the MCP probes of one side (the VM, a container) met. */
struct side {
	int	 n, none, refused, gone;
	char	 tool[16];
	char	 list[LIST_MAX];
};

/* The next word of *s, cut at its space; *s is then NULL after the last. */
static char *
word(char **s)
{
	char *w = *s, *sp;

	if (w != NULL && (sp = strchr(w, ' ')) != NULL) {
		*sp = '\0';
		*s = sp + 1;
	} else
		*s = NULL;
	return w;
}

void
channels_ssh_agent(const struct audit *a, struct result *r)
{
	char env[512], ctl[PATH_MAX], v[PATH_MAX + 64], bad[LIST_MAX];
	char tcp[256], tool[16], n[16], *s, *type, *keys;
	const char *pos = NULL, *errstr;
	long long socks;
	int ctlok = 0;

	bad[0] = '\0';
	(void)answers_all(a, "ssh.env", env, sizeof(env));
	if (answers_get(a, "ssh.control", ctl, sizeof(ctl)) == NULL)
		ctl[0] = '\0';
	while (answers_next(a, "ssh.agent", &pos, v, sizeof(v))) {
		s = v;
		type = word(&s);
		keys = word(&s);
		if (s == NULL)
			continue;
		if (strcmp(type, "5") == 0 && strcmp(s, ctl) == 0)
			ctlok = 1;
		else if (strcmp(type, "12") == 0)
			result_append(bad, sizeof(bad), "%s answered "
			    "SSH2_AGENT_IDENTITIES_ANSWER with %s key%s", s,
			    keys, strcmp(keys, "1") == 0 ? "" : "s");
		else
			result_append(bad, sizeof(bad), "%s answered "
			    "SSH_AGENT_FAILURE", s);
	}
	if (answers_get(a, "tool", tool, sizeof(tool)) == NULL)
		tool[0] = '\0';
	if (bad[0] != '\0')
		result_say(r, FAIL, "%s%s%s", bad, env[0] != '\0' ?
		    "; set inside: " : "", env);
	else if (env[0] != '\0')
		result_say(r, FAIL, "set inside: %s (no agent answered)", env);
	else if (answers_get(a, "ssh.notool", v, sizeof(v)) != NULL)
		result_say(r, FAIL, "could not probe: neither socat nor "
		    "python3 is in the sandbox");
	else if (!ctlok)
		result_say(r, FAIL, "control failed: the agent planted at %s "
		    "did not answer%s%s, so no answer elsewhere proves nothing",
		    ctl[0] != '\0' ? ctl : "/tmp", tool[0] != '\0' ?
		    " through " : "", tool);
	else {
		if (answers_get(a, "ssh.socks", n, sizeof(n)) == NULL)
			n[0] = '\0';
		socks = sbx_strtonum(n, 1, 64, &errstr);
		(void)answers_all(a, "ssh.tcp", tcp, sizeof(tcp));
		result_say(r, PASS, "no SSH_AUTH_SOCK inside, and the ssh-agent "
		    "request for identities got no agent's answer from the "
		    "%lld other unix socket%s under /run, /var/run, /tmp, "
		    "/home, /root and HOME%s%s%s, while an agent planted at %s "
		    "answered (the control, through %s)", errstr ? 0 : socks - 1,
		    socks == 2 ? "" : "s", answers_get(a, "ssh.capped", n,
		    sizeof(n)) ? " (the first 64)" : "", tcp[0] != '\0' ?
		    ", nor " : "", tcp, ctl, tool);
	}
}

/* What an answer that shows a gateway was. */
static const char *
said(const char *class)
{
	if (strcmp(class, "mcp") == 0)
		return "answered MCP initialize";
	if (strcmp(class, "http") == 0)
		return "answered HTTP";
	if (strcmp(class, "data") == 0)
		return "answered, not in HTTP";
	if (strcmp(class, "silent") == 0)
		return "accepted a connection and answered nothing";
	return "answered";
}

/* The probes' lines, by side; the answers that show a gateway into bad. */
static void
tally(const struct audit *a, struct side *sd, char *bad, size_t size)
{
	char v[512], *s, *where, *class, *code;
	const char *pos = NULL;
	struct side *t;

	memset(sd, 0, 2 * sizeof(*sd));
	while (answers_next(a, "mcp.tool", &pos, v, sizeof(v))) {
		s = v;
		where = word(&s);
		if (s != NULL)
			snprintf(sd[strcmp(where, "vm") != 0].tool,
			    sizeof(sd->tool), "%s", s);
	}
	pos = NULL;
	while (answers_next(a, "mcp.try", &pos, v, sizeof(v))) {
		s = v;
		where = word(&s);
		class = word(&s);
		code = word(&s);
		if (s == NULL)
			continue;
		t = &sd[strcmp(where, "vm") != 0];
		t->n++;
		result_append(t->list, sizeof(t->list), "%s", s);
		if (strcmp(class, "none") == 0)
			t->none++;
		else if (strcmp(class, "refused") == 0)
			t->refused++;
		else if (strcmp(class, "gone") == 0)
			t->gone++;
		else
			result_append(bad, size, "%s from %s %s%s%s%s", s,
			    t == sd ? "the VM" : "a container", said(class),
			    strcmp(code, "-") != 0 ? " (HTTP " : "",
			    strcmp(code, "-") != 0 ? code : "",
			    strcmp(code, "-") != 0 ? ")" : "");
	}
}

/* One side's tries, for the evidence of a PASS. */
static void
told(const struct side *t, char *out, size_t size)
{
	char more[128];

	if (t->n == 0) {
		snprintf(out, size, "nothing to try, as no candidate name "
		    "resolves in the VM");
		return;
	}
	more[0] = '\0';
	if (t->none > 0)
		result_append(more, sizeof(more), "%d unreachable", t->none);
	if (t->refused > 0)
		result_append(more, sizeof(more), "%d refused by the proxy",
		    t->refused);
	if (t->gone > 0)
		result_append(more, sizeof(more), "%d with nothing behind "
		    "the proxy", t->gone);
	snprintf(out, size, "%s (%s)", t->list, more);
}

void
channels_mcp_gateway(const struct audit *a, struct result *r)
{
	struct side sd[2];
	char bad[LIST_MAX], img[256], v[512], vm[LIST_MAX + 128];
	char ctr[LIST_MAX + 128], *s, *class, *code;

	bad[0] = '\0';
	tally(a, sd, bad, sizeof(bad));
	if (answers_get(a, "mcp.ctr", img, sizeof(img)) == NULL)
		img[0] = '\0';
	if (answers_get(a, "mcp.control", v, sizeof(v)) == NULL)
		v[0] = '\0';
	s = v;
	class = word(&s);
	code = word(&s);
	if (bad[0] != '\0')
		result_say(r, FAIL, "%s", bad);
	else if (answers_has(a, "mcp.notool", "vm"))
		result_say(r, FAIL, "could not probe from the VM: neither "
		    "socat nor python3 is in the sandbox");
	else if (s == NULL || strcmp(class, "mcp") != 0)
		result_say(r, FAIL, "control failed: the MCP endpoint planted "
		    "at %s was not recognised (%s %s), so no answer elsewhere "
		    "proves nothing", s ? s : "127.0.0.1", class, code ?
		    code : "-");
	else if (!answers_has(a, "mcp.end", "vm"))
		result_say(r, FAIL, "the probes from the VM did not finish");
	else if (answers_get(a, "mcp.noctr", v, sizeof(v)) != NULL)
		result_say(r, FAIL, "could not probe from a container: %s", v);
	else if (answers_has(a, "mcp.notool", "container"))
		result_say(r, FAIL, "could not probe from a container of %s: "
		    "it has neither socat, python3, nc nor bash", img);
	else if (!answers_has(a, "mcp.end", "container"))
		result_say(r, FAIL, "the probes from a container of %s did not "
		    "finish", img);
	else {
		told(&sd[0], vm, sizeof(vm));
		told(&sd[1], ctr, sizeof(ctr));
		result_say(r, PASS, "no MCP gateway answered: from the VM %s; "
		    "from a container of %s through %s, %s; an endpoint planted "
		    "at %s answered MCP initialize (the control, through %s)",
		    vm, img, sd[1].tool, ctr, s, sd[0].tool);
	}
}
