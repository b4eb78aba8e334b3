/*
 * createargv.c: the one `sbx create` of provisioning, read from the
 * settings and worded here, so that sbx-run and sbx-verify -S ask sbx in
 * the same words:
 *
 *	sbx create [--quiet] --name N --cpus C --memory M [--template T]
 *	    shell WORKSPACE [WORKSPACE:ro]
 */
#include <stdio.h>
#include <string.h>

#include "sbxcli.h"
#include "sbxconf.h"
#include "sbx-internal.h"

/* The resources and template of DOCKER_SANDBOX_*; a bad one exits 64. */
void
sbx_xcreate_conf(struct sbx_create *how)
{
	memset(how, 0, sizeof(*how));
	snprintf(how->cpus, sizeof(how->cpus), "%lld",
	    sbx_xconf_int(SBX_CONF_CPUS));
	sbx_xconf_memory(how->memory, sizeof(how->memory));
	how->template = sbx_xconf_str(SBX_CONF_TEMPLATE);
}

/*
 * The argv into av[SBX_CREATE_ARGC]; ws2 (the read-only project beside
 * a scratch primary) may be NULL.  Returns av.
 */
char **
sbx_create_argv(char **av, const char *sbx, const char *name,
    const struct sbx_create *how, int quiet, const char *ws, const char *ws2)
{
	int n = 0;

	av[n++] = (char *)sbx;
	av[n++] = "create";
	if (quiet)
		av[n++] = "--quiet";
	av[n++] = "--name";
	av[n++] = (char *)name;
	av[n++] = "--cpus";
	av[n++] = (char *)how->cpus;
	av[n++] = "--memory";
	av[n++] = (char *)how->memory;
	if (how->template != NULL) {
		av[n++] = "--template";
		av[n++] = (char *)how->template;
	}
	av[n++] = "shell";
	av[n++] = (char *)ws;
	if (ws2 != NULL)
		av[n++] = (char *)ws2;
	av[n] = NULL;
	return av;
}
