/*
 * triplist.c: the workspace paths the host runs without being asked,
 * each with who runs it and when: the one list the tripwire watches
 * (sbx-tools(7), TRIPWIRE), and DOCKER_SANDBOX_TRIPWIRE's paths added
 * to it, each checked as hostile input.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>

#include "sbx.h"
#include "sbxtrip.h"

#define EXTRA_RUNNER	"DOCKER_SANDBOX_TRIPWIRE names it"

/*
 * A directory is walked; a file is fingerprinted alone.  .git/config
 * matters for core.hooksPath, core.fsmonitor and core.sshCommand, which
 * git runs or obeys; .husky and .pre-commit-config.yaml run through the
 * git hooks they install.
 */
static const struct {
	const char	*path;
	int		 dir;
	const char	*runner;
} list[] = {
	{ ".pi/extensions", 1, "pi loads this at its next start here" },
	{ ".pi/settings.json", 0,
	    "pi installs and loads the packages it names at its next start "
	    "here" },
	{ ".git/hooks", 1, "git runs this at the git command it is named for" },
	{ ".git/config", 0, "git obeys it (core.hooksPath, core.fsmonitor, "
	    "core.sshCommand) at every git command here" },
	{ ".envrc", 0, "direnv runs this on entering the directory" },
	{ ".env", 0, "direnv's dotenv and other tools load it into the "
	    "environment here" },
	{ ".husky", 1, "git runs this through the hooks husky installed" },
	{ ".pre-commit-config.yaml", 0,
	    "pre-commit's git hook runs the commands it names" },
	{ ".vscode/tasks.json", 0,
	    "VS Code runs its folderOpen tasks when the folder opens" },
	{ ".vscode/settings.json", 0,
	    "VS Code applies it (terminal, tool paths) when the folder opens" },
	{ ".idea", 1, "JetBrains IDEs apply it when the project opens" },
	{ ".devcontainer", 1,
	    "a dev container tool builds and runs it when the folder reopens "
	    "in a container" },
	{ ".claude/settings.json", 0,
	    "Claude Code runs its hooks at its next start here" },
	{ ".claude/settings.local.json", 0,
	    "Claude Code runs its hooks at its next start here" },
	{ ".mcp.json", 0, "agents start the MCP servers it names here" },
	{ ".cursor/mcp.json", 0,
	    "Cursor starts the MCP servers it names here" },
	{ ".gemini/settings.json", 0,
	    "Gemini CLI starts the MCP servers it names here" },
	{ ".mise.toml", 0, "mise runs its hooks and env on entering the "
	    "directory" },
	{ "mise.toml", 0, "mise runs its hooks and env on entering the "
	    "directory" },
};
#define NLIST	(sizeof(list) / sizeof(list[0]))

void
sbx_triplist_builtin(struct sbx_triplist *l)
{
	size_t i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < NLIST; i++) {
		(void)snprintf(l->r[i].path, sizeof(l->r[i].path), "%s",
		    list[i].path);
		l->r[i].dir = list[i].dir;
		l->r[i].runner = (int)i;
	}
	l->n = l->builtin = NLIST;
}

const char *
sbx_triplist_runner(int i)
{
	if (i < 0)
		return "every tool run in the workspace";
	return (size_t)i < NLIST ? list[i].runner : EXTRA_RUNNER;
}

/*
 * Add one path of the setting: relative, no empty, "." or ".."
 * component, no control character, short, not there already.  0, or -1
 * with why.  A path is walked when it is a directory.
 */
int
sbx_triplist_add(struct sbx_triplist *l, const char *p, char *why,
    size_t size)
{
	const char *c;
	size_t i, len = strlen(p), n;

	if (len == 0)
		return snprintf(why, size, "an empty path"), -1;
	if (len >= SBX_TRIP_PATH)
		return snprintf(why, size, "a path past %d bytes",
		    SBX_TRIP_PATH - 1), -1;
	if (*p == '/')
		return snprintf(why, size, "an absolute path"), -1;
	for (c = p; *c != '\0'; c += n + (c[n] == '/')) {
		n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return snprintf(why, size, "an empty, . or .. "
			    "component"), -1;
	}
	for (c = p; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return snprintf(why, size, "a control character"), -1;
	for (i = 0; i < l->n; i++)
		if (strcmp(l->r[i].path, p) == 0)
			return snprintf(why, size, "a path listed already"), -1;
	if (l->n - l->builtin >= SBX_TRIP_EXTRA)
		return snprintf(why, size, "more than %d paths",
		    SBX_TRIP_EXTRA), -1;
	memcpy(l->r[l->n].path, p, len + 1);
	l->r[l->n].dir = 1;
	l->r[l->n].runner = (int)NLIST;
	l->n++;
	return 0;
}

/* DOCKER_SANDBOX_TRIPWIRE: comma-separated paths; exits 64 naming one. */
const char *
sbx_xtriplist_check(const char *var, const char *v)
{
	struct sbx_triplist l;
	char one[SBX_TRIP_PATH], why[64], shown[SBX_TRIP_PATH];
	const char *p;
	size_t len;

	sbx_triplist_builtin(&l);
	for (p = v; ; p += len + 1) {
		len = strcspn(p, ",");
		if (len >= sizeof(one))
			errx(SBX_EX_USAGE, "%s: a path past %d bytes", var,
			    SBX_TRIP_PATH - 1);
		memcpy(one, p, len);
		one[len] = '\0';
		if (sbx_triplist_add(&l, one, why, sizeof(why)) == -1)
			errx(SBX_EX_USAGE, "%s: \"%s\": %s", var,
			    sbx_shown(one, shown, 80), why);
		if (p[len] == '\0')
			break;
	}
	return v;
}
