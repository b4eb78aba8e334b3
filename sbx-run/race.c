/*
 * race.c: the first exec of a run, made again when it lost the race of
 * two first calls to start sbx's daemon.  An exec's stderr may be its
 * command's own, and a command can print sbx's race answer and exit 1,
 * so the words alone never make it run again: one short second exec asks
 * the exec's stamp (lib/stamp.c), and only a command that never began is
 * run again, under a fresh stamp, a bounded few times.  Nothing extra is
 * run in the steady state.
 */
#include <unistd.h>

#include "sbx.h"
#include "sbxcli.h"
#include "sbxstamp.h"
#include "sbxtime.h"
#include "sbx-run.h"

#define ASK_TIMEOUT	15	/* seconds for the asking exec */

/*
 * As exec_once with held: *absent says whether sbx said there is no such
 * sandbox, its words kept in held.  A lost race whose command began, or
 * the last try's, goes back as the command's own words and status.
 */
int
exec_first(struct request *r, char **av, int in, int *absent,
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
		sbx_buf_free(held);
		sbx_pause_ms(delay);
		delay *= 2;
	}
	(void)sbx_writeall(STDERR_FILENO, held->data, held->len);
	sbx_buf_free(held);
	return status;
}
