// Stand-ins for the programs, for tests about what a tool refuses or
// sends before any sandbox would be involved: DOCKER_SANDBOX_BIN names a
// directory of small scripts that log their argv (one call a line, the
// words NUL-free and tab-separated) and print canned output.  The
// extension is still loaded and called through pi (harness.mjs).
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after } from "node:test";
import { fileURLToPath } from "node:url";
import { loadExtension, piMissing, world } from "./harness.mjs";

const NAMES = ["sbx-run", "sbx-env", "sbx-watch", "sbx-gc", "sbx-ports", "sbx-verify"];
const TOP = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
// the settings are the real parser's answer (`sbx-env -c`), and the
// workspace the real rule's (`sbx-run -C`), never a stub's
const REAL_ENV = join(TOP, "sbx-env", "sbx-env");
const REAL_RUN = join(TOP, "sbx-run", "sbx-run");

/**
 * Make the stubs under dir and point the extension at them.  sbx-ports
 * prints the file `ports` (sbx-ports -j lines) for ls and sync; sbx-run
 * prints `run.out` when it exists.  Returns the helpers.
 */
export function stubPrograms(dir) {
	mkdirSync(dir, { recursive: true });
	const log = join(dir, "calls.log");
	const checks = join(dir, "checks.log");
	const script = (name) => `#!/bin/sh
# stub ${name}: log the call, answer from files; sbx-run -C, which acts
# on nothing, goes to the real one and is logged apart
if [ '${name}' = sbx-run ] && [ "$1" = -C ]; then
	{ printf '%s' '${name}'; for a in "$@"; do printf '\\t%s' "$a"; done; printf '\\n'; } >>'${checks}'
	exec '${REAL_RUN}' "$@"
fi
{ printf '%s' '${name}'; for a in "$@"; do printf '\\t%s' "$a"; done; printf '\\n'; } >>'${log}'
case '${name}' in
sbx-env) case \$1 in -c*) exec '${REAL_ENV}' "$@" ;; esac ;;
sbx-ports) cat '${join(dir, "ports")}' 2>/dev/null ;;
sbx-run) [ -f '${join(dir, "run.out")}' ] && cat '${join(dir, "run.out")}'; [ -f '${join(dir, "run.rc")}' ] && exit "$(cat '${join(dir, "run.rc")}')" ;;
esac
exit 0
`;
	for (const n of NAMES) {
		writeFileSync(join(dir, n), script(n));
		chmodSync(join(dir, n), 0o755);
	}
	process.env.DOCKER_SANDBOX_BIN = dir;
	// a pinned name: no sbx-run -n at load, and no teardown to arm
	process.env.DOCKER_SANDBOX = "pi-sbx-stub-abcdefgh";
	return {
		dir,
		/** the calls so far, as [program, ...args] */
		calls: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).map((l) => l.split("\t")) : []),
		reset: () => (writeFileSync(log, ""), writeFileSync(checks, "")),
		/** the sbx-run -C calls so far, as [program, ...args] */
		checks: () => (existsSync(checks) ? readFileSync(checks, "utf8").split("\n").filter(Boolean).map((l) => l.split("\t")) : []),
		/** the listing sbx-ports prints: [{ ip, port, sandbox, proto, loopback }] */
		setPorts: (ms) =>
			writeFileSync(
				join(dir, "ports"),
				ms
					.map(({ ip, port, sandbox = 8080, proto = "tcp", loopback = true }) => {
						const host = ip.includes(":") ? `[${ip}]` : ip;
						// sbx-ports flags a mapping bound beyond loopback, and only such a one
						const flag = loopback ? {} : { loopback: false };
						return `${JSON.stringify({ url: `http://${host}:${port}/`, host_ip: ip, host_port: port, sandbox_port: sandbox, protocol: proto, ...flag })}\n`;
					})
					.join(""),
			),
		setRunOutput: (text) => writeFileSync(join(dir, "run.out"), text),
		/** sbx-run's exit status from now on (undefined: 0) */
		setRunStatus: (rc) => (rc === undefined ? rmSync(join(dir, "run.rc"), { force: true }) : writeFileSync(join(dir, "run.rc"), `${rc}\n`)),
	};
}

/**
 * A world (harness.mjs) with the stubs, and the extension loaded in it
 * when pi is installed.  cleanup() undoes both.
 */
export async function stubbedPi() {
	const w = world();
	const stubs = stubPrograms(join(w.base, "stub"));
	const pi = piMissing().length ? undefined : await loadExtension(w.ws);
	return { w, stubs, pi, cleanup: () => (pi?.cleanupAgentDir(), w.cleanup()) };
}

/**
 * stubbedPi for a whole test file, awaited at its top level (`const { w,
 * pi, stubs } = await stubbedFile();`): made before the file's tests, and
 * cleaned up after the last of them.
 */
export async function stubbedFile() {
	const s = await stubbedPi();
	after(s.cleanup);
	return s;
}
