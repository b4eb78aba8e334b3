/*
 * race.c: the first exec, made again if it lost sbx's daemon start race.
 * A command can print those words too, so the exec's stamp is asked and
 * only a command that never began runs again.
 */
#include <unistd.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbxstamp.h"
#include "sbxtime.h"
#include "sbx-run.h"

#define ASK_TIMEOUT	15	/* seconds for the asking exec */

/* As exec_once; a lost race whose command began goes back as the command's. */
int
race_exec_first(struct request *r, char **av, int in, int *absent,
    struct sbx_buf *held)
{
	long delay = SBX_RACE_MS;
	int status, said, try;

	for (try = 1;; try++) {
		status = exec_once(r, av, in, &said, held);
		*absent = said == SAID_ABSENT;
		if (said != SAID_RACE)
			return status;
		if (try == SBX_RACE_TRIES || sbx_stamp_began(r->sbx, r->env,
		    r->name, r->stamp, ASK_TIMEOUT))
			break;
		/* av holds r->stamp: each try is told apart from the last */
		if (sbx_stamp_new(r->stamp, sizeof(r->stamp)) == -1)
			break;
		sbx_io_buf_free(held);
		sbx_clock_pause_ms(delay);
		delay *= 2;
	}
	(void)sbx_io_writeall(STDERR_FILENO, held->data, held->len);
	sbx_io_buf_free(held);
	return status;
}
