/*
 * The programs' exit statuses, by the names lib/sbx.h gives them
 * (SBX_EX_*, documented in sbx-tools(7) and each program's EXIT STATUS).
 * The extension branches on a status only through this table, never on
 * a bare number, so a status it reads means what the programs say it
 * means; pi/test/status.test.mjs holds the table to the header.
 */
export const EX = {
	OK: 0,
	FAIL: 1,
	NOAUDIT: 2, // sbx-verify: the audit could not run
	USAGE: 64,
	NOSANDBOX: 68, // the sandbox does not exist
	RESTART: 69, // sbx's daemon restart awaits a terminal
	BUSY: 75, // a lock is held: sbx-gc's sweep, sbx-watch -n
	NOTOURS: 77, // sbx-watch -n: it exists, the tools did not make it
	TIMEOUT: 124,
	CANTRUN: 125,
	NOEXEC: 126,
	NOTFOUND: 127,
} as const;
