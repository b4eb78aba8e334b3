/*
 * The host settings.  Every DOCKER_SANDBOX* variable means what it means
 * to the programs (DESIGN section 3), because only they parse it: what
 * the extension needs to know it asks `sbx-env -c`, live, at each use.
 */
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { EX } from "./status.ts";
import { checker, executable, PACKAGE, PACKAGE_BIN, programEnv, safePathDirs, workspaceOf } from "./trust.ts";

export { PACKAGE_BIN };

export const PROGRAMS = [
	"sbx-run",
	"sbx-env",
	"sbx-watch",
	"sbx-gc",
	"sbx-ports",
	"sbx-verify",
] as const;
export type Program = (typeof PROGRAMS)[number];

/**
 * Every DOCKER_SANDBOX* setting as the programs read it.  The extension
 * parses none of them: `sbx-env -cj` checks them all with the programs'
 * own parsers and prints the effective values ({"name","value"} per
 * line), or exits 64 with a message that names the bad variable and what
 * it accepts, which is thrown here as it is.
 */
export function settings(): Record<string, string> {
	const r = spawnSync(requireProgram("sbx-env"), ["-cj"], { encoding: "utf8", env: programEnv(), timeout: 10000 });
	if (r.status !== EX.OK) throw new Error(`docker sandbox: ${(r.stderr || r.error?.message || `sbx-env -c: exit ${r.status}`).trim()}`);
	const out: Record<string, string> = {};
	for (const line of r.stdout.split("\n")) {
		if (!line) continue;
		const o = JSON.parse(line) as { name: string; value: string };
		out[o.name] = o.value;
	}
	return out;
}

/**
 * DOCKER_SANDBOX as the programs read it: sbx-env -c is given that one
 * variable and nothing else, so that what it says is about the name
 * alone.  The name, their refusal of it (words and status), or
 * undefined when it names none (unset, or empty as they read it).
 */
export function pinnedName(): { name: string } | { refused: string; status: number | null } | undefined {
	const v = process.env.DOCKER_SANDBOX;
	if (v === undefined) return undefined;
	const r = spawnSync(requireProgram("sbx-env"), ["-cj"], { encoding: "utf8", env: { DOCKER_SANDBOX: v }, timeout: 10000 });
	if (r.status !== EX.OK) return { refused: (r.stderr || r.error?.message || `sbx-env -c: exit ${r.status}`).trim(), status: r.status };
	for (const line of r.stdout.split("\n")) {
		if (!line) continue;
		const o = JSON.parse(line) as { name: string; value: string };
		if (o.name === "DOCKER_SANDBOX") return o.value ? { name: o.value } : undefined;
	}
	return { refused: "sbx-env -c printed no DOCKER_SANDBOX", status: r.status };
}

/** One setting, by its variable's name. */
export function setting(name: string): string {
	const v = settings()[name];
	if (v === undefined) throw new Error(`docker sandbox: sbx-env -c does not know ${name}`);
	return v;
}

/** One line per mode, for /docker and docker_status, as the programs see them. */
export function modeLines(): string[] {
	let c: Record<string, string>;
	try {
		c = settings();
	} catch (e) {
		return [`settings: invalid (${(e as Error).message})`];
	}
	const on = (n: string): boolean => c[`DOCKER_SANDBOX_${n}`] === "1";
	const hours = Number(c.DOCKER_SANDBOX_GC_HOURS);
	const allow = c.DOCKER_SANDBOX_ENV_ALLOWLIST.split(",").filter(Boolean);
	return [
		`workspace mount: ${on("WORKSPACE_RO") ? "read-only (scratch primary)" : "read-write"}`,
		`teardown at session end: ${c.DOCKER_SANDBOX_TEARDOWN}`,
		`autocreate: ${on("AUTOCREATE") ? "on" : "off"}`,
		`keepalive: ${c.DOCKER_SANDBOX_KEEPALIVE === "ports" ? "while ports are published" : on("KEEPALIVE") ? "always" : "off"}`,
		`env forwarded into the sandbox: ${on("ENV_PASSTHROUGH") ? "passthrough (all but DOCKER_*/COMPOSE_*)" : allow.length ? `allow-list: ${allow.join(", ")}` : "none (strict default)"}`,
		`automatic GC: ${hours > 0 ? `stopped pi-sbx-* sandboxes older than ${hours} h with no live owner` : "off"}`,
	];
}

/**
 * Why no program may be run at all, or "": this package, or the
 * DOCKER_SANDBOX_BIN given, is where the sandbox can write (trust.ts).
 * A package in the workspace is refused whole, since pi runs its code
 * too, not only its programs.
 */
export function refusal(): string {
	const ws = workspaceOf(PACKAGE);
	if (ws && !checker())
		return (
			`docker sandbox: this extension was loaded from ${PACKAGE}, in ${ws}, the directory this session works in, and no sbx-run outside that directory was found ` +
			"to say whether sbx-run would mount it (`sbx-run -C`): were it mounted, any container that binds /workspace could replace the extension's code and its programs, which run on the host, so its tools refuse to run. " +
			`Install it globally, outside every project: \`pi install npm:sbx-tools-pi\` (without -l); or, if ${ws} is no project (a home directory, say), start pi in one.`
		);
	if (ws)
		return (
			`docker sandbox: this extension was loaded from ${PACKAGE}, which lies in the workspace ${ws}: ` +
			"any container that binds /workspace could replace its code and its programs, which run on the host, so its tools refuse to run. " +
			"Install it globally, outside every project: `pi install npm:sbx-tools-pi` (without -l), or `pi install /path/to/sbx-tools/pi` from a checkout outside this project."
		);
	const bin = process.env.DOCKER_SANDBOX_BIN?.trim();
	if (!bin) return "";
	if (!isAbsolute(bin))
		return `docker sandbox: DOCKER_SANDBOX_BIN "${bin}" is not an absolute path: it would be looked up in the workspace, which the sandbox can write; give the absolute path of the directory that holds the programs.`;
	const in_ = workspaceOf(bin);
	if (in_) return `docker sandbox: DOCKER_SANDBOX_BIN ${bin} lies in the workspace ${in_}, which the sandbox can write; install the programs outside it (\`make install\` in a checkout) and point DOCKER_SANDBOX_BIN there.`;
	return "";
}

/**
 * The real path of a program: this package's bin/ first, then
 * DOCKER_SANDBOX_BIN, then PATH; never one in the workspace (trust.ts),
 * and never through a link that leads there.  The path returned is the
 * one checked, links resolved, so it is what runs.
 */
export function findProgram(prog: Program): string | undefined {
	if (refusal()) return undefined;
	buildOnce();
	const dirs = [PACKAGE_BIN];
	const bin = process.env.DOCKER_SANDBOX_BIN?.trim();
	if (bin) dirs.push(bin);
	dirs.push(...safePathDirs());
	for (const d of dirs) {
		const p = join(d, prog);
		if (!executable(p)) continue;
		let real: string;
		try {
			real = realpathSync(p);
		} catch {
			continue;
		}
		if (workspaceOf(real) === undefined) return real;
	}
	return undefined;
}

// A package that carries the C tree but has no bin/ was installed by an
// npm that skipped its install script (npm 12 runs only allowed ones).
const unbuilt = (): boolean => existsSync(join(PACKAGE, "c", "Makefile")) && !existsSync(PACKAGE_BIN);
let buildTried = false;
let buildFailure = "";

/**
 * Such a package builds its programs at the first need, once per process,
 * with the same script npm would have run (cc and make, a minute at most),
 * so `pi install` stays the one command; a failure is said in the hint.
 */
function buildOnce(): void {
	if (buildTried || !unbuilt()) return;
	buildTried = true;
	const r = spawnSync("/bin/sh", ["scripts/install.sh"], { cwd: PACKAGE, encoding: "utf8", env: programEnv(), timeout: 300000 });
	// the script's first line says what is missing; the rest is how to get it
	if (r.status !== EX.OK) buildFailure = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split("\n")[0].trim();
}

function unbuiltHint(): string {
	if (!unbuilt()) return "";
	const why = buildFailure ? ` (building them at first use failed: ${buildFailure})` : "";
	return `This package's programs were not built (npm skipped its install script)${why}: run \`sh scripts/install.sh\` in ${PACKAGE}. `;
}

const INSTALL_TEXT =
	"Install the sbx-tools programs: `pi install npm:sbx-tools-pi` builds them into the package (it needs cc and make: " +
	"`xcode-select --install` on macOS, `apt install gcc make` on Debian/Ubuntu); " +
	"or in a checkout of sbx-tools run `make && make install` " +
	"(PREFIX=/usr/local by default; `make PREFIX=$HOME/.local install` for a user install); " +
	"or set DOCKER_SANDBOX_BIN to the directory that holds them.";

/** What to do when a program is missing, as it stands now. */
export function installHint(): string {
	return refusal() || unbuiltHint() + INSTALL_TEXT;
}

export class MissingProgram extends Error {
	constructor(prog: Program) {
		super(refusal() || `docker sandbox: the program ${prog} was not found in ${PACKAGE_BIN}, DOCKER_SANDBOX_BIN or on PATH (outside the workspace). ${installHint()}`);
		this.name = "MissingProgram";
	}
}

/** Like findProgram, but throws the install hint. */
export function requireProgram(prog: Program): string {
	const p = findProgram(prog);
	if (!p) throw new MissingProgram(prog);
	return p;
}

/**
 * The sbx CLI to name in a hint: the one the programs would run, as
 * sbx-env -c resolves it (DOCKER_SANDBOX_SBX, shown resolved); when they
 * would run none, what DOCKER_SANDBOX_SBX gives, else plain "sbx".
 * Only ever shown: which sbx runs is the programs' to find.
 */
export function sbxCli(): string {
	let v: string | undefined;
	try {
		v = settings().DOCKER_SANDBOX_SBX;
	} catch {
		/* the settings' own refusal is said where it matters */
	}
	if (v && v !== "none") return v;
	return process.env.DOCKER_SANDBOX_SBX || "sbx";
}
