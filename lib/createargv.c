/* createargv.c: the one `sbx create`: sbx-run and sbx-verify -S ask alike. */
#include <stdio.h>
#include <string.h>

#include "sbxcli.h"
#include "sbxconf.h"
#include "sbx-internal.h"

void
sbx_xcreateargv_conf(struct sbx_create *how)
{
	memset(how, 0, sizeof(*how));
	snprintf(how->cpus, sizeof(how->cpus), "%lld",
	    sbx_xconf_int(SBX_CONF_CPUS));
	sbx_xconf_memory(how->memory, sizeof(how->memory));
	how->template = sbx_xconf_str(SBX_CONF_TEMPLATE);
}

/* The argv into av[SBX_CREATE_ARGC]; ws2 may be NULL. */
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
