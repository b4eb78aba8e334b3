/*
 * policylog: how policylog.c reads what sbx printed (all of standard
 * input, NULs included).  "policylog SANDBOX SINCE" reads a policy log
 * (SANDBOX "-": any sandbox; SINCE Unix seconds) and prints "shape WORD",
 * then one line per denial, HOST TAB COUNT TAB LAST_SEEN TAB REASON, then
 * "more N" when some were left out, or "why WHY" and exits 1.
 * "policylog -p SANDBOX SINCE" parses each prefix of the input instead,
 * the empty one first, and prints one line for each: its return value
 * and the denials' number.
 * "policylog -r" prints the reason in plain words for the raw one on
 * stdin; "policylog -c" prints "yes" or "no": the certificate hint;
 * "policylog -a" prints the advice.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "sbxpolicy.h"

int
main(int argc, char *argv[])
{
	struct sbx_denials d;
	struct sbx_buf b;
	const char *why, *sandbox;
	char reason[SBX_POLICYLOG_REASON];
	size_t i;
	int rc = 0, v;

	if (argc == 2 && strcmp(argv[1], "-a") == 0) {
		printf("%s\n", sbx_policylog_certadvice());
		return sbx_io_fshut() == 0 ? 0 : 1;
	}
	if (argc < 2 || argc > 4)
		return 2;
	memset(&b, 0, sizeof(b));
	if (sbx_io_buf_readfd(&b, STDIN_FILENO, SIZE_MAX - 1) == -1 ||
	    sbx_io_buf_add(&b, "", 1) == -1)	/* a NUL after it */
		return 2;
	b.len--;
	if (strcmp(argv[1], "-r") == 0)
		printf("%s\n", sbx_policylog_reason(b.data, reason,
		    sizeof(reason)));
	else if (strcmp(argv[1], "-c") == 0)
		printf("%s\n", sbx_policylog_certhint(b.data, b.len) ? "yes" :
		    "no");
	else if (argc == 4 && strcmp(argv[1], "-p") == 0) {
		sandbox = strcmp(argv[2], "-") == 0 ? NULL : argv[2];
		for (i = 0; i <= b.len; i++) {
			v = sbx_policylog_parse(b.data, i, sandbox,
			    strtoll(argv[3], NULL, 10), &d, &why);
			printf("%d %zu\n", v, d.n);
			sbx_policylog_free(&d);
		}
	} else if (argc == 3) {
		sandbox = strcmp(argv[1], "-") == 0 ? NULL : argv[1];
		rc = sbx_policylog_parse(b.data, b.len, sandbox,
		    strtoll(argv[2], NULL, 10), &d, &why) == 0 ? 0 : 1;
		printf("shape %s\n", sbx_policylog_shape(d.shape));
		for (i = 0; i < d.n; i++)
			printf("%s\t%ld\t%lld\t%s\n", d.v[i].host,
			    d.v[i].count, d.v[i].last_seen, d.v[i].reason);
		if (d.more > 0)
			printf("more %zu\n", d.more);
		if (rc != 0)
			printf("why %s\n", why);
		sbx_policylog_free(&d);
	} else
		rc = 2;
	sbx_io_buf_free(&b);	/* a leak would be a sanitizer's report */
	if (sbx_io_fshut() != 0)
		return 1;
	return rc;
}
