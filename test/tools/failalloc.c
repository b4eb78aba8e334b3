/*
 * failalloc.so: an LD_PRELOAD shim whose calloc(3) always fails with
 * ENOMEM, so tests can reach the "failed before exec" paths (exit 125)
 * that only an allocation failure leads to.
 */
#include <errno.h>
#include <stddef.h>

void	*calloc(size_t, size_t);

void *
calloc(size_t n, size_t size)
{
	(void)n;
	(void)size;
	errno = ENOMEM;
	return NULL;
}
