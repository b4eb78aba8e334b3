/*
 * provision.c: create the sandbox on first use.  Under a lock in the state
 * directory, so two calls that both find it missing create it once; the
 * listing is read again under the lock for the same reason.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "sbx-run.h"

#define CREATE_TIMEOUT	600

struct create {
	char	 cpus[24];
	char	 memory[32];
	const char *template;
	char	 workspace[PATH_MAX];
	char	 prime[PATH_MAX + 96];	/* read-only mode: scratch primary */
	char	 rospec[PATH_MAX + 4];	/* WORKSPACE:ro */
	int	 readonly;
};

/* path is home or one of its parents: mounting it would expose ~/.ssh. */
static int
covers_home(const char *path)
{
	char home[PATH_MAX];
	const char *h = getenv("HOME");
	size_t len = strlen(path);

	if (strcmp(path, "/") == 0)
		return 1;
	if (h == NULL || *h != '/' || realpath(h, home) == NULL)
		return 0;
	return strncmp(home, path, len) == 0 &&
	    (home[len] == '\0' || home[len] == '/');
}

static void
workspace(const struct run *r, char *buf)
{
	const char *w = r->workspace ? r->workspace : ".", *p;
	struct stat st;

	if (realpath(w, buf) == NULL)
		err(SBX_EX_FAIL, "workspace %s", w);
	/* sbx reads "PATH:ro"; a ':' or a control byte would be misread */
	for (p = buf; *p != '\0'; p++)
		if (*p == ':' || (unsigned char)*p < ' ' || *p == 0x7f)
			errx(SBX_EX_FAIL, "workspace path holds ':' or a "
			    "control character; refusing it");
	if (stat(buf, &st) == -1 || !S_ISDIR(st.st_mode))
		errx(SBX_EX_FAIL, "workspace %s: not a directory", buf);
	if (covers_home(buf))
		errx(SBX_EX_FAIL, "workspace %s is / or your home directory or "
		    "above it; refusing to mount it (use -w)", buf);
}

static char **
create_argv(const struct run *r, const struct create *c, int quiet)
{
	static char *av[20];
	int n = 0;

	av[n++] = (char *)r->sbx;
	av[n++] = "create";
	if (quiet)
		av[n++] = "--quiet";
	av[n++] = "--name";
	av[n++] = (char *)r->name;
	av[n++] = "--cpus";
	av[n++] = (char *)c->cpus;
	av[n++] = "--memory";
	av[n++] = (char *)c->memory;
	if (c->template != NULL) {
		av[n++] = "--template";
		av[n++] = (char *)c->template;
	}
	av[n++] = "shell";
	if (c->readonly) {
		av[n++] = (char *)c->prime;
		av[n++] = (char *)c->rospec;
	} else
		av[n++] = (char *)c->workspace;
	av[n] = NULL;
	return av;
}

/* Does `sbx ls --json` list the sandbox?  1 yes, 0 no; exits on failure. */
static int
listed(const struct run *r)
{
	char *av[] = { (char *)r->sbx, "ls", "--json", NULL };
	struct sbx_cmd c;
	const char *errstr;
	int found;

	memset(&c, 0, sizeof(c));
	c.argv = av;
	c.envp = r->env;
	c.timeout = sbx_conf_timeout();
	c.newpgrp = 1;
	c.in = -1;
	c.capture_out = 1;
	if (sbx_cmd_run(&c) == -1)
		err(sbx_exec_status(errno), "%s", r->sbx);
	if (c.status != 0)
		errx(SBX_EX_FAIL, "sbx ls --json failed (exit %d)", c.status);
	found = sbx_ls_listed(c.out.data ? c.out.data : "", c.out.len, r->name,
	    &errstr);
	if (found == -1)
		errx(SBX_EX_FAIL, "sbx ls --json: %s", errstr);
	sbx_cmd_free(&c);
	return found;
}

static void
print_argv(char **av)
{
	fprintf(stderr, "  sbx");
	for (av++; *av != NULL; av++)
		fprintf(stderr, " %s", *av);
	fprintf(stderr, "\n");
}

/*
 * Make sure the sandbox exists, creating it if allowed.  Returns 0, or
 * exits: 1 when it cannot or may not be created.
 */
int
provision(const struct run *r)
{
	struct create c;
	struct sbx_cmd cmd;
	char statedir[PATH_MAX], file[SBX_NAME_MAX + 16], marker[PATH_MAX + 96];
	int dfd, lfd;

	memset(&c, 0, sizeof(c));
	snprintf(c.cpus, sizeof(c.cpus), "%d", sbx_conf_cpus());
	sbx_conf_memory(c.memory, sizeof(c.memory));
	c.template = sbx_conf_template();
	c.readonly = sbx_conf_workspace_ro();
	workspace(r, c.workspace);
	if ((dfd = sbx_state_open(statedir, sizeof(statedir))) == -1)
		exit(SBX_EX_FAIL);
	snprintf(file, sizeof(file), "%s.prime", r->name);
	snprintf(c.prime, sizeof(c.prime), "%s/%s", statedir, file);
	snprintf(c.rospec, sizeof(c.rospec), "%s:ro", c.workspace);

	if (!sbx_conf_autocreate()) {
		warnx("sandbox %s does not exist and DOCKER_SANDBOX_AUTOCREATE "
		    "is off; create it with:", r->name);
		print_argv(create_argv(r, &c, 0));
		exit(SBX_EX_FAIL);
	}
	if ((lfd = sbx_lock(dfd, SBX_PROVISION_LOCK, 1)) == -1)
		err(SBX_EX_FAIL, "%s/%s", statedir, SBX_PROVISION_LOCK);
	if (listed(r))
		goto done;	/* someone else made it meanwhile */
	if (c.readonly && mkdirat(dfd, file, 0700) == -1 && errno != EEXIST)
		err(SBX_EX_FAIL, "%s", c.prime);

	memset(&cmd, 0, sizeof(cmd));
	cmd.argv = create_argv(r, &c, 1);
	cmd.envp = r->env;
	cmd.timeout = CREATE_TIMEOUT;
	cmd.newpgrp = 1;
	cmd.in = -1;
	if (sbx_cmd_run(&cmd) == -1)
		err(sbx_exec_status(errno), "%s", r->sbx);
	if (cmd.status != 0) {
		if (c.readonly)
			(void)sbx_state_rmtree(dfd, file);
		errx(SBX_EX_FAIL, "sandbox %s: sbx create failed (%s %d)",
		    r->name, cmd.timedout ? "timed out, status" : "exit",
		    cmd.status);
	}
	snprintf(file, sizeof(file), "%s.created", r->name);
	snprintf(marker, sizeof(marker), "created=%lld\nworkspace=%s\n"
	    "mode=%s\n", (long long)time(NULL), c.workspace,
	    c.readonly ? "ro" : "rw");
	if (sbx_state_write(dfd, file, marker) == -1)
		warn("%s/%s", statedir, file);
done:
	close(lfd);
	close(dfd);
	return 0;
}
