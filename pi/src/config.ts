/*
 * The host settings, as the programs read them: the extension parses
 * none and asks `sbx-env -c` at each use.
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

/** Every setting as `sbx-env -cj` prints it, or its refusal (exit 64) thrown as it is. */
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

/** DOCKER_SANDBOX alone, as the programs read it: the name, their refusal, or undefined. */
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

export function setting(name: string): string {
	const v = settings()[name];
	if (v === undefined) throw new Error(`docker sandbox: sbx-env -c does not know ${name}`);
	return v;
}

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

/** Why no program may run, or "": the package or DOCKER_SANDBOX_BIN is in a workspace (pi runs its code too). */
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

/** A program's real path: bin/, DOCKER_SANDBOX_BIN, PATH; never in a workspace. */
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

// no bin/ beside the C tree: npm skipped the install script
const unbuilt = (): boolean => existsSync(join(PACKAGE, "c", "Makefile")) && !existsSync(PACKAGE_BIN);
let buildTried = false;
let buildFailure = "";

/** Build the programs once, at first need, with the install script. */
function buildOnce(): void {
	if (buildTried || !unbuilt()) return;
	buildTried = true;
	const r = spawnSync("/bin/sh", ["scripts/install.sh"], { cwd: PACKAGE, encoding: "utf8", env: programEnv(), timeout: 300000 });
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

export function installHint(): string {
	return refusal() || unbuiltHint() + INSTALL_TEXT;
}

export class MissingProgram extends Error {
	constructor(prog: Program) {
		super(refusal() || `docker sandbox: the program ${prog} was not found in ${PACKAGE_BIN}, DOCKER_SANDBOX_BIN or on PATH (outside the workspace). ${installHint()}`);
		this.name = "MissingProgram";
	}
}

export function requireProgram(prog: Program): string {
	const p = findProgram(prog);
	if (!p) throw new MissingProgram(prog);
	return p;
}

/** The sbx to name in a hint; which sbx runs is the programs' to find. */
export function sbxCli(): string {
	let v: string | undefined;
	try {
		v = settings().DOCKER_SANDBOX_SBX;
	} catch {
	}
	if (v && v !== "none") return v;
	return process.env.DOCKER_SANDBOX_SBX || "sbx";
}
