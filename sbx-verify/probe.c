/*
 * probe.c: the audit's one `sbx exec`: a sh script through sbx-run -x
 * with a poisoned host environment, answering "sbxv KEY [VALUE]" lines
 * between a begin and an end line that carry the run's nonce.
 */
#include <sys/stat.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxchild.h"
#include "sbxconf.h"
#include "sbxmarker.h"
#include "sbxstate.h"
#include "result.h"
#include "audit.h"

extern char **environ;

static void
randhex(char *buf, size_t nbytes)
{
	unsigned char r[16];
	size_t i;
	int fd;

	if (nbytes > sizeof(r))
		nbytes = sizeof(r);
	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) == -1 ||
	    read(fd, r, nbytes) != (ssize_t)nbytes)
		err(SBX_EX_NOAUDIT, "/dev/urandom");
	close(fd);
	for (i = 0; i < nbytes; i++)
		snprintf(buf + 2 * i, 3, "%02x", r[i]);
}

static char *vfmt(const char *, va_list) PRINTFLIKE(1, 0);
static void add(struct sbx_buf *, const char *, ...) PRINTFLIKE(2, 3);
static int asprintf_like(char **, const char *, ...) PRINTFLIKE(2, 3);

static char *
vfmt(const char *fmt, va_list ap)
{
	va_list cp;
	char *s;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || (s = malloc((size_t)n + 1)) == NULL)
		return NULL;
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	return s;
}

static void
add(struct sbx_buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	if (s == NULL || sbx_io_buf_add(b, s, strlen(s)) == -1)
		err(SBX_EX_NOAUDIT, NULL);
	free(s);
}

static void
addq(struct sbx_buf *b, const char *s)
{
	add(b, "'");
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			add(b, "'\\''");
		else if (sbx_io_buf_add(b, s, 1) == -1)
			err(SBX_EX_NOAUDIT, NULL);
	}
	add(b, "'");
}

static void
mode(struct audit *a)
{
	char buf[PATH_MAX + 256], v[16];

	if (sbx_markerio_created_text(a->dfd, a->name, buf, sizeof(buf)) == 0) {
		a->marker = 1;
		if (sbx_state_field(buf, "workspace", a->project,
		    sizeof(a->project)) == NULL)
			a->project[0] = '\0';
		if (sbx_state_field(buf, "mode", v, sizeof(v)) != NULL)
			a->readonly = strcmp(v, "ro") == 0;
		return;
	}
	a->readonly = sbx_xconf_word(SBX_CONF_WORKSPACE_RO);
}

void
probe_prepare(struct audit *a)
{
	const char *tmp = sbx_conf_str("TMPDIR");
	struct sbx_buf b;
	char path[PATH_MAX + 16];
	int fd;

	randhex(a->nonce, 8);
	randhex(a->value, 8);
	snprintf(a->sentinel, sizeof(a->sentinel), "DOCKER_VERIFY_SENTINEL_%s",
	    a->nonce);
	snprintf(a->sbxsentinel, sizeof(a->sbxsentinel),
	    "DOCKER_SANDBOXES_VERIFY_SENTINEL_%s", a->nonce);
	snprintf(a->denied, sizeof(a->denied), "SBX_VERIFY_PROBE_%s",
	    a->nonce);
	snprintf(a->allowed, sizeof(a->allowed), "VERIFY_PROBE_%s", a->nonce);
	snprintf(a->poisonhost, sizeof(a->poisonhost),
	    "unix:///nonexistent/sbx-verify-%s.sock", a->nonce);
	snprintf(a->poisonctx, sizeof(a->poisonctx), "sbx-verify-%s", a->nonce);
	if ((a->home = sbx_conf_str("HOME")) != NULL && *a->home != '/')
		a->home = NULL;
	mode(a);

	if (sbx_marker_canary(a->canaryfile, sizeof(a->canaryfile), a->name,
	    a->nonce) == -1)
		err(SBX_EX_NOAUDIT, "%s", a->name);
	snprintf(a->canary, sizeof(a->canary), "%s/%s", a->statedir,
	    a->canaryfile);
	if (sbx_state_write(a->dfd, a->canaryfile, "sbx-verify mounts "
	    "canary: if a sandbox can read this, the host's home is "
	    "mounted\n") == -1)
		err(SBX_EX_NOAUDIT, "%s", a->canary);

	snprintf(a->tmpdir, sizeof(a->tmpdir), "%s/sbx-verify.XXXXXX",
	    tmp != NULL && *tmp == '/' ? tmp : "/tmp");
	if (mkdtemp(a->tmpdir) == NULL)
		err(SBX_EX_NOAUDIT, "mkdtemp %s", a->tmpdir);
	snprintf(a->ran, sizeof(a->ran), "%s/ran", a->tmpdir);
	memset(&b, 0, sizeof(b));
	add(&b, "#!/bin/sh\n# sbx-verify canary: no sbx-tools program may run "
	    "a host docker\n: >");
	addq(&b, a->ran);
	add(&b, "\necho 'sbx-verify: canary docker ran on the host' >&2\n"
	    "exit 99\n");
	snprintf(path, sizeof(path), "%s/docker", a->tmpdir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0700)) == -1 ||
	    sbx_io_writeall(fd, b.data, b.len) == -1 || close(fd) == -1)
		err(SBX_EX_NOAUDIT, "%s", path);
	sbx_io_buf_free(&b);
}

void
probe_cleanup(struct audit *a)
{
	char path[PATH_MAX + 16];

	if (a->canaryfile[0] != '\0')
		(void)sbx_state_remove(a->dfd, a->canaryfile);
	if (a->tmpdir[0] != '\0') {
		snprintf(path, sizeof(path), "%s/docker", a->tmpdir);
		(void)unlink(path);
		(void)unlink(a->ran);
		(void)rmdir(a->tmpdir);
	}
}

static const char *const homedirs[NMOUNTS - 1] = {
	".docker", ".ssh", ".aws", ".kube", ".config/gcloud"
};

static void
script(const struct audit *a, struct sbx_buf *b)
{
	char p[PATH_MAX + 64];
	const char *xdg = sbx_conf_str("XDG_RUNTIME_DIR");
	int i;

	add(b, "set -f\nP=%s\necho 'sbxv begin %s'\n", SBX_DOCKER_HOST,
	    a->nonce);
	/* env-scrub and env-forward */
	add(b, "[ -n \"${%s+x}\" ] && echo 'sbxv env.seen %s'\n", a->sentinel,
	    a->sentinel);
	add(b, "[ -n \"${%s+x}\" ] && echo 'sbxv env.seen %s'\n",
	    a->sbxsentinel, a->sbxsentinel);
	add(b, "[ -n \"${%s+x}\" ] && echo 'sbxv env.seen %s'\n", a->denied,
	    a->denied);
	add(b, "if [ -n \"${%s+x}\" ]; then echo \"sbxv env.allowed $%s\"; "
	    "else echo 'sbxv env.allowed-unset'; fi\n", a->allowed, a->allowed);
	/* daemon-pinning: clean, poisoned and pinned, poisoned unpinned */
	add(b, "o=$(unset DOCKER_HOST DOCKER_CONTEXT; docker -H \"$P\" info "
	    "--format '{{.ID}}' 2>&1); echo \"sbxv pin.clean $? \"$o\n");
	add(b, "o=$(DOCKER_HOST='%s' DOCKER_CONTEXT='%s'; export DOCKER_HOST "
	    "DOCKER_CONTEXT; docker -H \"$P\" info --format '{{.ID}}' 2>&1); "
	    "echo \"sbxv pin.poisoned $? \"$o\n", a->poisonhost, a->poisonctx);
	add(b, "o=$(DOCKER_HOST='%s' DOCKER_CONTEXT='%s'; export DOCKER_HOST "
	    "DOCKER_CONTEXT; docker info --format '{{.ID}}' 2>&1); "
	    "echo \"sbxv pin.unpinned $? \"$o\n", a->poisonhost, a->poisonctx);
	/* mounts: the canary, the home directories, the project (control) */
	add(b, "{ [ -e ");
	addq(b, a->canary);
	add(b, " ] || [ -L ");
	addq(b, a->canary);
	add(b, " ]; } && echo 'sbxv mnt.seen 0'\n");
	for (i = 0; a->home != NULL && i < NMOUNTS - 1; i++) {
		snprintf(p, sizeof(p), "%s%s%s", a->home,
		    a->home[strlen(a->home) - 1] == '/' ? "" : "/", homedirs[i]);
		add(b, "{ [ -e ");
		addq(b, p);
		add(b, " ] || [ -L ");
		addq(b, p);
		add(b, " ]; } && echo 'sbxv mnt.seen %d'\n", i + 1);
	}
	if (a->project[0] != '\0') {
		add(b, "[ -d ");
		addq(b, a->project);
		add(b, " ] && echo 'sbxv mnt.project'\n");
	}
	/* contexts */
	add(b, "o=$(unset DOCKER_HOST DOCKER_CONTEXT; docker -H \"$P\" context "
	    "ls --format '{{.Name}}' 2>/dev/null); echo \"sbxv ctx $? \"$o\n");
	/* host-socket: not /run/docker/, where dockerd keeps its own sockets */
	add(b, "set +f\nfor s in /run/*docker*.sock* /var/run/*docker*.sock* "
	    "/run/user/*/docker.sock "
	    "/var/run/user/*/docker.sock /run/host-services/*.sock "
	    "/tmp/*docker*.sock /var/run/docker.sock.raw");
	if (a->home != NULL) {
		static const char *const hs[] = { ".docker/run/docker.sock",
		    ".docker/desktop/docker.sock", ".docker/docker.sock",
		    "Library/Containers/com.docker.docker/Data/docker.raw.sock",
		    "Library/Containers/com.docker.docker/Data/docker.sock",
		    ".colima/default/docker.sock", ".rd/docker.sock",
		    ".orbstack/run/docker.sock" };
		for (i = 0; i < (int)(sizeof(hs) / sizeof(hs[0])); i++) {
			snprintf(p, sizeof(p), "%s/%s", a->home, hs[i]);
			add(b, " ");
			addq(b, p);
		}
	}
	if (xdg != NULL && *xdg == '/') {
		snprintf(p, sizeof(p), "%s/docker.sock", xdg);
		add(b, " ");
		addq(b, p);
	}
	add(b, "; do\n\tcase $s in /run/docker.sock|/var/run/docker.sock) "
	    "continue ;; esac\n\t[ -S \"$s\" ] && echo \"sbxv sock.seen $s\"\n"
	    "done\nset -f\n[ -S /var/run/docker.sock ] && "
	    "echo 'sbxv sock.canonical'\n");
	/* workspace-ro */
	if (a->readonly && a->project[0] != '\0') {
		snprintf(p, sizeof(p), "%s/.sbx-verify-%s", a->project,
		    a->nonce);
		add(b, "f=");
		addq(b, p);
		add(b, "\nif [ ! -d ");
		addq(b, a->project);
		add(b, " ]; then echo 'sbxv ro.absent'; elif (: >\"$f\") "
		    "2>/dev/null; then rm -f \"$f\"; echo 'sbxv ro.writable'; "
		    "else echo 'sbxv ro.denied'; fi\n");
	}
	chprobe_script(a, b);
	add(b, "echo 'sbxv end %s'\n", a->nonce);
}

static int
asprintf_like(char **out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*out = vfmt(fmt, ap);
	va_end(ap);
	return *out == NULL ? -1 : 0;
}

/* The transport's environment: the caller's, poisoned, first value wins. */
static char **
poisoned(const struct audit *a, char **hold)
{
	const char *path = sbx_conf_str("PATH"), *list;
	char **env;
	size_t n, i, k = 0;

	for (n = 0; environ[n] != NULL; n++)
		;
	if ((env = calloc(n + 16, sizeof(*env))) == NULL)
		err(SBX_EX_NOAUDIT, NULL);
	list = sbx_xconf_str(SBX_CONF_ALLOWLIST);
	if (asprintf_like(&hold[0], "DOCKER_SANDBOX_ENV_ALLOWLIST=%s%s%s",
	    list ? list : "", list ? "," : "", a->allowed) == -1 ||
	    asprintf_like(&hold[1], "PATH=%s%s%s", a->tmpdir, path ? ":" : "",
	    path ? path : "") == -1 ||
	    asprintf_like(&hold[2], "DOCKER_HOST=%s", a->poisonhost) == -1 ||
	    asprintf_like(&hold[3], "DOCKER_CONTEXT=%s", a->poisonctx) == -1 ||
	    asprintf_like(&hold[4], "%s=1", a->sentinel) == -1 ||
	    asprintf_like(&hold[5], "%s=1", a->sbxsentinel) == -1 ||
	    asprintf_like(&hold[6], "%s=1", a->denied) == -1 ||
	    asprintf_like(&hold[7], "%s=%s", a->allowed, a->value) == -1)
		err(SBX_EX_NOAUDIT, NULL);
	env[k++] = "DOCKER_SANDBOX_AUTOCREATE=0";	/* never create */
	for (i = 0; i < 8; i++)
		env[k++] = hold[i];
	for (i = 0; i < n; i++)
		env[k++] = environ[i];
	env[k] = NULL;
	return env;
}

/* Run the script: 0 when it reached its end line, else -1 (see a->status). */
int
probe_run(struct audit *a)
{
	struct sbx_buf text;
	struct sbx_result c;
	char *hold[8], **env;
	char *av[] = { a->sbxrun, "-s", (char *)a->name, "-x", "sh", "-c", NULL,
	    NULL };
	int i;

	memset(&text, 0, sizeof(text));
	script(a, &text);
	av[6] = text.data;
	env = poisoned(a, hold);
	if (sbx_capture(&c, av, env, 0) == -1)
		err(SBX_EX_NOAUDIT, "%s", a->sbxrun);
	a->calls++;
	/* sbx-run's one line says what to run; no audit until then */
	if (c.status == SBX_EX_RESTART) {
		(void)sbx_shown_write(STDERR_FILENO, c.err.data, c.err.len);
		exit(SBX_EX_RESTART);
	}
	a->status = c.status;
	a->out = c.out;
	a->err = c.err;
	for (i = 0; i < 8; i++)
		free(hold[i]);
	free(env);
	sbx_io_buf_free(&text);
	return answers_has(a, "end", a->nonce) ? 0 : -1;
}
