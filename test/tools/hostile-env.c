/*
 * hostile-env: run a command with an environment no shell would build.
 * Each argument before "--" is one raw environment entry, kept exactly
 * (duplicates, entries without '=', odd bytes); "-n COUNT" adds COUNT
 * entries V0=x .. V(COUNT-1)=x; "-b NAME SIZE" adds NAME with a value of
 * SIZE bytes.
 *
 *	hostile-env [entry | -n count | -b name size] ... -- command [arg ...]
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	char **env, *e;
	long n, i, size;
	int a, k = 0, cap = argc;

	for (a = 1; a < argc && strcmp(argv[a], "--") != 0; a++)
		if (strcmp(argv[a], "-n") == 0 && a + 1 < argc)
			cap += atoi(argv[a + 1]);
	if ((env = calloc((size_t)cap + 1, sizeof(*env))) == NULL)
		err(1, NULL);
	for (a = 1; a < argc && strcmp(argv[a], "--") != 0; a++) {
		if (strcmp(argv[a], "-n") == 0 && a + 1 < argc) {
			n = atol(argv[++a]);
			for (i = 0; i < n; i++) {
				if ((e = malloc(32)) == NULL)
					err(1, NULL);
				snprintf(e, 32, "V%ld=x", i);
				env[k++] = e;
			}
		} else if (strcmp(argv[a], "-b") == 0 && a + 2 < argc) {
			size = atol(argv[a + 2]);
			if ((e = malloc(strlen(argv[a + 1]) + (size_t)size + 2))
			    == NULL)
				err(1, NULL);
			sprintf(e, "%s=", argv[a + 1]);
			memset(e + strlen(e), 'v', (size_t)size);
			e[strlen(argv[a + 1]) + 1 + (size_t)size] = '\0';
			env[k++] = e;
			a += 2;
		} else
			env[k++] = argv[a];
	}
	env[k] = NULL;
	if (a + 1 >= argc)
		errx(64, "usage: hostile-env [entry | -n count | -b name size] "
		    "... -- command [arg ...]");
	execve(argv[a + 1], argv + a + 1, env);
	err(127, "%s", argv[a + 1]);
}
