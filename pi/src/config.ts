/*
 * The host settings the extension itself reads.  Every DOCKER_SANDBOX*
 * variable keeps the meaning it has for the programs (DESIGN section 3);
 * most are read by the programs alone, and only the few that shape what
 * the extension spawns are read here.  They are read live, at each use.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

export const PROGRAMS = [
	"sbx-run",
	"sbx-env",
	"sbx-watch",
	"sbx-gc",
	"sbx-ports",
	"sbx-verify",
] as const;
export type Program = (typeof PROGRAMS)[number];

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

/** A boolean the way the programs read it; anything else is an error naming the variable. */
export function envBool(name: string, dflt: boolean): boolean {
	const v = process.env[name];
	if (v === undefined || v.trim() === "") return dflt;
	const s = v.trim().toLowerCase();
	if (TRUE.has(s)) return true;
	if (FALSE.has(s)) return false;
	throw new Error(`${name}: expected 1/true/yes/on or 0/false/no/off, not "${v}"`);
}

/** A non-negative number, or the default when unset. */
export function envNumber(name: string, dflt: number): number {
	const v = process.env[name];
	if (v === undefined || v.trim() === "") return dflt;
	const n = Number(v.trim());
	if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: expected a number of 0 or more, not "${v}"`);
	return n;
}

/** The pinned sandbox name, if any. */
export function pinnedName(): string | undefined {
	const v = process.env.DOCKER_SANDBOX?.trim();
	return v ? v : undefined;
}

export const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9.-]{1,62}$/;

export function validName(name: string): boolean {
	return NAME_RE.test(name) && name !== "default";
}

export type Teardown = "remove" | "stop" | "none";

/** DOCKER_SANDBOX_TEARDOWN, defaulting to remove (none when the name is pinned). */
export function teardownMode(): Teardown {
	const v = process.env.DOCKER_SANDBOX_TEARDOWN?.trim().toLowerCase();
	if (v === undefined || v === "") return pinnedName() ? "none" : "remove";
	if (v === "remove" || v === "stop" || v === "none") return v;
	throw new Error(`DOCKER_SANDBOX_TEARDOWN: expected remove, stop or none, not "${v}"`);
}

/** One line per mode, for /docker and docker_status. */
export function modeLines(): string[] {
	const out: string[] = [];
	const safe = (f: () => string): string => {
		try {
			return f();
		} catch (e) {
			return `invalid (${(e as Error).message})`;
		}
	};
	out.push(`workspace mount: ${safe(() => (envBool("DOCKER_SANDBOX_WORKSPACE_RO", false) ? "read-only (scratch primary)" : "read-write"))}`);
	out.push(`teardown at session end: ${safe(teardownMode)}`);
	out.push(`autocreate: ${safe(() => (envBool("DOCKER_SANDBOX_AUTOCREATE", true) ? "on" : "off"))}`);
	out.push(`keepalive: ${safe(() => (envBool("DOCKER_SANDBOX_KEEPALIVE", false) ? "on" : "off"))}`);
	out.push(`env forwarded into the sandbox: ${safe(envMode)}`);
	out.push(`automatic GC: ${safe(() => {
		const h = envNumber("DOCKER_SANDBOX_GC_HOURS", 24);
		return h > 0 ? `stopped pi-sbx-* sandboxes older than ${h} h with no live owner` : "off";
	})}`);
	return out;
}

function envMode(): string {
	if (envBool("DOCKER_SANDBOX_ENV_PASSTHROUGH", false)) return "passthrough (all but DOCKER_*/COMPOSE_*)";
	const list = (process.env.DOCKER_SANDBOX_ENV_ALLOWLIST ?? "")
		.split(",")
		.map((s) => s.trim())
		.filter(Boolean);
	return list.length ? `allow-list: ${list.join(", ")}` : "none (strict default)";
}

function executable(path: string): boolean {
	try {
		if (!statSync(path).isFile()) return false;
		accessSync(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/** bin/ of this package: its npm install builds the programs there (scripts/install.sh). */
const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..");
export const PACKAGE_BIN = join(PACKAGE, "bin");

/** The absolute path of a program: this package's bin/ first, then DOCKER_SANDBOX_BIN, then PATH. */
export function findProgram(prog: Program): string | undefined {
	const dirs = [PACKAGE_BIN];
	const bin = process.env.DOCKER_SANDBOX_BIN?.trim();
	if (bin) dirs.push(bin);
	for (const d of (process.env.PATH ?? "").split(delimiter)) if (d && isAbsolute(d)) dirs.push(d);
	for (const d of dirs) {
		const p = join(d, prog);
		if (executable(p)) return p;
	}
	return undefined;
}

// A package that carries the C tree but has no bin/ was installed by an
// npm that skipped its install script (npm 12 runs only allowed ones).
const UNBUILT = existsSync(join(PACKAGE, "c", "Makefile")) && !existsSync(PACKAGE_BIN)
	? `This package's programs were not built (npm skipped its install script): run \`sh scripts/install.sh\` in ${PACKAGE}. `
	: "";

export const INSTALL_HINT =
	UNBUILT +
	"Install the sbx-tools programs: `pi install npm:sbx-tools-pi` builds them into the package (it needs cc and make: " +
	"`xcode-select --install` on macOS, `apt install gcc make` on Debian/Ubuntu); " +
	"or in a checkout of sbx-tools run `make && make install` " +
	"(PREFIX=/usr/local by default; `make PREFIX=$HOME/.local install` for a user install); " +
	"or set DOCKER_SANDBOX_BIN to the directory that holds them.";

export class MissingProgram extends Error {
	constructor(prog: Program) {
		super(`docker sandbox: the program ${prog} was not found in ${PACKAGE_BIN}, DOCKER_SANDBOX_BIN or on PATH. ${INSTALL_HINT}`);
		this.name = "MissingProgram";
	}
}

/** Like findProgram, but throws the install hint. */
export function requireProgram(prog: Program): string {
	const p = findProgram(prog);
	if (!p) throw new MissingProgram(prog);
	return p;
}

/** The sbx CLI the way the programs find it, for docker_sandbox_rm. */
export function sbxCli(): string {
	const v = process.env.DOCKER_SANDBOX_SBX?.trim();
	if (v) return v;
	for (const d of (process.env.PATH ?? "").split(delimiter)) {
		if (d && isAbsolute(d) && executable(join(d, "sbx"))) return join(d, "sbx");
	}
	for (const p of ["/opt/homebrew/bin/sbx", "/usr/local/bin/sbx"]) if (executable(p)) return p;
	return "sbx";
}
