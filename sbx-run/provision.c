/*
 * provision.c: create the sandbox on first use, under its lock and only
 * once sbx's "no such sandbox" is confirmed, so a command that merely
 * printed those words never runs twice.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxcli.h"
#include "sbxconf.h"
#include "sbxmarker.h"
#include "sbxstate.h"
#include "sbxtrip.h"
#include "sbx-run.h"

#define CREATE_TIMEOUT	600

struct create {
	struct sbx_create how;	/* resources and template */
	char	 workspace[PATH_MAX];
	char	 prime[PATH_MAX + SBX_MARKER_MAX];	/* ro mode: scratch primary */
	char	 rospec[PATH_MAX + 4];	/* WORKSPACE:ro */
	int	 readonly;
};

static pid_t	watcher(const struct request *, int);
static int	session_gone(const struct request *, int, const char *);

static char **
create_argv(const struct request *r, const struct create *c, int quiet)
{
	static char *av[SBX_CREATE_ARGC];

	return sbx_create_argv(av, r->sbx, r->name, &c->how, quiet,
	    c->readonly ? c->prime : c->workspace,
	    c->readonly ? c->rospec : NULL);
}

/* A timeout, a signal or a daemon restart ends the run: 124, 128+n, 69. */
static void
cut_short(const struct request *r, int timeout, const struct sbx_result *c,
    const char *verb)
{
	if (c->timedout)
		errx(SBX_EX_TIMEOUT, "sandbox %s: sbx %s timed out after %d s",
		    r->name, verb, timeout);
	if (c->signo != 0)
		exit(SBX_SIGSTATUS(c->signo));
	if (c->status != 0 && sbx_says_restart(c->err.data))
		sbx_says_restart_exit();
}

/* One create or ls (sbxcall.c). */
static void
call(const struct request *r, char **av, int timeout, int dfd,
    struct sbx_result *c, const char *verb)
{
	if (sbx_call(c, av, r->env, timeout, dfd) == -1)
		err(sbx_spawn_exec_status(errno), "%s", r->sbx);
	cut_short(r, timeout, c, verb);
}

/* Does `sbx ls --json` list the sandbox?  1 yes, 0 no; exits on failure. */
static int
listed(const struct request *r, int dfd)
{
	char *av[] = { (char *)r->sbx, "ls", "--json", NULL };
	struct sbx_result c;
	const char *errstr;
	int found;

	call(r, av, r->calltimeout, dfd, &c, "ls");
	if (c.status != 0) {
		(void)sbx_shown_write(STDERR_FILENO, c.err.data, c.err.len);
		errx(SBX_EX_FAIL, "sbx ls --json failed (exit %d)", c.status);
	}
	found = sbx_ls_listed(c.out.data ? c.out.data : "", c.out.len, r->name,
	    &errstr);
	if (found == -1)
		errx(SBX_EX_FAIL, "sbx ls --json: %s", errstr);
	sbx_supervise_result_free(&c);
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

static void
restore(const struct request *r, int dfd, const char *prev)
{
	char file[SBX_MARKER_MAX];

	(void)sbx_marker_path(file, sizeof(file), r->name, SBX_M_CREATED);
	if (*prev != '\0')
		(void)sbx_state_write(dfd, file, prev);
	else
		(void)sbx_state_remove(dfd, file);
}

/*
 * Record the intent, then run sbx create: success proves the sandbox was
 * missing (PROV_RETRY), "already exists" means nothing was ours to do
 * (PROV_KEEP); otherwise the listing decides whether the intent stays,
 * so a half-made sandbox is still torn down.
 */
static int
create(const struct request *r, const struct create *c, int dfd,
    const char *prev)
{
	char file[SBX_MARKER_MAX], created[SBX_MARKER_MAX], why[1024];
	char said[1100];
	const char *mode = c->readonly ? "ro" : "rw";
	int timeout;
	struct sbx_result cmd;
	struct stale st;
	int made = 0, already, status, e;

	orphan_stale_read(r, dfd, &st);
	(void)sbx_marker_path(file, sizeof(file), r->name, SBX_M_PRIME);
	if (c->readonly)
		workspace_prime_dir(dfd, file, c->prime, &made);
	if (sbx_markerio_created_write(dfd, r->name, SBX_CREATING, c->workspace,
	    mode) == -1) {
		if (made)
			(void)sbx_state_rmtree(dfd, file);
		e = errno;
		(void)sbx_marker_path(created, sizeof(created), r->name,
		    SBX_M_CREATED);
		errno = e;
		err(SBX_EX_FAIL, "%s: cannot record the sandbox before "
		    "creating it", created);
	}
	timeout = r->given ? r->calltimeout : CREATE_TIMEOUT;
	if (sbx_call(&cmd, create_argv(r, c, 1), r->env, timeout, dfd) == -1)
		err(sbx_spawn_exec_status(errno), "%s", r->sbx);
	if (cmd.status != 0 && sbx_says_restart(cmd.err.data)) {
		restore(r, dfd, prev);
		if (made)
			(void)sbx_state_rmtree(dfd, file);
		sbx_says_restart_exit();
	}
	already = cmd.status != 0 && !cmd.timedout && cmd.signo == 0 &&
	    sbx_says_exists(cmd.err.data);
	/* sbx's stdout is not the command's; an unplaced failure says so */
	(void)sbx_shown_write(STDERR_FILENO, cmd.out.data, cmd.out.len);
	if (!already && cmd.status != 0 && !cmd.timedout && cmd.signo == 0 &&
	    cmd.err.len + cmd.out.len > 0 && !sbx_says_race(cmd.err.data))
		sbx_unplaced(&cmd, r->sbx, r->env, dfd, "sbx create");
	else if (!already && cmd.err.len > 0)
		(void)sbx_shown_write(STDERR_FILENO, cmd.err.data, cmd.err.len);
	cut_short(r, timeout, &cmd, "create");
	if (cmd.status == 0 && orphaned(r, dfd, &st))
		orphan_withdraw(r, dfd, timeout, ORPHAN_ENDED);
	/* not ready without the session's rules and credentials */
	if (cmd.status == 0 && outward_setup(r, dfd, why, sizeof(why)) == -1) {
		sbx_supervise_result_free(&cmd);
		snprintf(said, sizeof(said), "%s; a sandbox without the "
		    "session's rules is not ready", why);
		orphan_withdraw(r, dfd, timeout, said);
	}
	if (cmd.status == 0) {
		if (sbx_markerio_created_write(dfd, r->name, SBX_READY,
		    c->workspace, mode) == -1) {
			e = errno;
			(void)sbx_marker_path(created, sizeof(created),
			    r->name, SBX_M_CREATED);
			errno = e;
			warn("%s", created);	/* the intent stays */
		}
		events_session(r->name, c->workspace, mode);
		/* before anything of the session runs in it */
		if (sbx_tripfile_take(dfd, r->name, c->workspace) == -1)
			warn("%s.tripwire: no tripwire on the workspace this "
			    "session", r->name);
		sbx_supervise_result_free(&cmd);
		imgload(r, dfd, c->workspace);	/* the project's images */
		return PROV_RETRY;
	}
	status = cmd.status;
	sbx_supervise_result_free(&cmd);
	/* sbx's own word that the sandbox is there */
	if (already || !listed(r, dfd)) {
		restore(r, dfd, prev);
		if (made)
			(void)sbx_state_rmtree(dfd, file);
		if (already)
			return PROV_KEEP;
	}
	errx(SBX_EX_FAIL, "sandbox %s: sbx create failed (exit %d)", r->name,
	    status);
}

/*
 * sbx's exec said the sandbox does not exist: confirm it, create it if
 * allowed, and say whether to run the command again (PROV_RETRY) or keep
 * the first run's answer (PROV_KEEP); or exit 1, 124 or 128+n.  A marker
 * newer than the exec means another call made the sandbox; none means
 * create confirms it; an older one needs `sbx ls` to show it gone.
 */
int
provision(const struct request *r)
{
	struct create c;
	char statedir[PATH_MAX], now[sizeof(r->before)], why[PATH_MAX + 128];
	char state[16], prime[SBX_MARKER_MAX];
	int dfd, lfd, ret, autocreate, refused;

	memset(&c, 0, sizeof(c));
	sbx_xcreateargv_conf(&c.how);
	c.readonly = sbx_xconf_word(SBX_CONF_WORKSPACE_RO);
	autocreate = sbx_xconf_word(SBX_CONF_AUTOCREATE);
	if ((dfd = sbx_xstatedir_open(statedir, sizeof(statedir))) == -1)
		exit(SBX_EX_FAIL);
	refused = workspace_check(r, statedir, c.workspace, why, sizeof(why));
	(void)sbx_marker_path(prime, sizeof(prime), r->name, SBX_M_PRIME);
	snprintf(c.prime, sizeof(c.prime), "%s/%s", statedir, prime);
	snprintf(c.rospec, sizeof(c.rospec), "%s:ro", c.workspace);

	/* sbx-run -P: the process that started this one holds the lock */
	lfd = r->prewarm ? -1 : provision_lock(r, dfd, statedir);
	if (!r->prewarm)
		warmstart_report(r, dfd);	/* one that failed meanwhile */
	/* a link or garbage in its place is no marker: it is written over */
	if (sbx_markerio_created_text(dfd, r->name, now, sizeof(now)) == -1)
		now[0] = '\0';
	ret = PROV_RETRY;
	if (now[0] != '\0' && strcmp(now, r->before) != 0 &&
	    sbx_state_field(now, "state", state, sizeof(state)) != NULL &&
	    strcmp(state, SBX_READY) == 0)
		goto done;
	ret = PROV_KEEP;
	if ((now[0] != '\0' || !autocreate || refused) && listed(r, dfd))
		goto done;	/* it exists: the message was not sbx's */
	if (refused)
		errx(SBX_EX_FAIL, "%s", why);
	if (!autocreate) {
		warnx("sandbox %s does not exist and DOCKER_SANDBOX_AUTOCREATE "
		    "is off; create it with:", r->name);
		print_argv(create_argv(r, &c, 0));
		exit(SBX_EX_NOSANDBOX);
	}
	if (orphan_session_ended(r) || session_gone(r, dfd, now))
		errx(SBX_EX_FAIL, "sandbox %s: its session has ended; not "
		    "provisioning a sandbox no watcher would remove", r->name);
	ret = create(r, &c, dfd, now);
done:
	if (lfd != -1)
		close(lfd);
	close(dfd);
	return ret;
}

/* The pid of the watcher holding NAME.lock, or 0. */
static pid_t
watcher(const struct request *r, int dfd)
{
	char lock[SBX_MARKER_MAX];
	pid_t pid;

	(void)sbx_marker_path(lock, sizeof(lock), r->name, SBX_M_LOCK);
	return (pid = sbx_lock_holder(dfd, lock)) > 0 ? pid : 0;
}

/*
 * Has the session this call was made in ended?  Its watcher was armed
 * and is gone, or its teardown removed the sandbox meanwhile: a sandbox
 * made now would have no teardown.
 */
static int
session_gone(const struct request *r, int dfd, const char *now)
{
	if (r->watcher == 0)
		return 0;
	return (r->before[0] != '\0' && now[0] == '\0') ||
	    watcher(r, dfd) == 0;
}

/* Take the sandbox's provisioning lock, within the call's bound (124). */
int
provision_lock(const struct request *r, int dfd, const char *statedir)
{
	int lfd, wait;

	wait = r->given ? r->calltimeout : CREATE_TIMEOUT;
	if ((lfd = sbx_lock_name(dfd, SBX_PROVISION_LOCK, r->name,
	    wait == 0 ? -1 : wait * 1000LL)) == -1) {
		if (errno == ETIMEDOUT)
			errx(SBX_EX_TIMEOUT, "sandbox %s: another call is "
			    "provisioning it; still waiting after %d s", r->name,
			    wait);
		err(SBX_EX_FAIL, "%s/%s", statedir, SBX_PROVISION_LOCK);
	}
	return lfd;
}

/* NAME.created before the exec, telling a sandbox made meanwhile; "": none. */
void
provision_snapshot(struct request *r)
{
	char path[PATH_MAX];
	int dfd;

	r->before[0] = '\0';
	if (sbx_xstatedir_path(path, sizeof(path)) == -1 ||
	    (dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return;
	if (sbx_markerio_created_text(dfd, r->name, r->before,
	    sizeof(r->before)) == -1)
		r->before[0] = '\0';
	r->watcher = watcher(r, dfd);
	close(dfd);
}
