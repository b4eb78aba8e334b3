/*
 * What the sandbox can write is never run on the host: no program comes
 * from a workspace, by identity, so a link or bind mount into one counts.
 * Which directory is mounted is sbx-run -C's to say, asked of an sbx-run
 * outside every workspace.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EX } from "./status.ts";

/** This package; its install builds the programs in bin/. */
export const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..");
export const PACKAGE_BIN = join(PACKAGE, "bin");

const roots = new Set<string>();

export function guardWorkspace(root: string): void {
	if (root) roots.add(root);
}

interface Dir {
	root: string;
	dev: number;
	ino: number;
}

export function executable(path: string): boolean {
	try {
		if (!statSync(path).isFile()) return false;
		accessSync(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/** Which of dirs holds path, by its deepest existing ancestor; unresolvable counts as inside. */
function holder(path: string, dirs: Dir[]): string | undefined {
	if (!dirs.length) return undefined;
	let real: string | undefined;
	for (let p = path; real === undefined; ) {
		try {
			real = realpathSync(p);
		} catch {
			const up = dirname(p);
			if (up === p) return dirs[0].root;
			p = up;
		}
	}
	for (let p = real; ; p = dirname(p)) {
		let st;
		try {
			st = statSync(p);
		} catch {
			return dirs[0].root;
		}
		const hit = dirs.find((w) => w.dev === st.dev && w.ino === st.ino);
		if (hit) return hit.root;
		if (dirname(p) === p) return undefined;
	}
}

/** Every workspace named, except the host's root: were that writable, no check here could tell. */
function named(): Dir[] {
	const out: Dir[] = [];
	const top = statSync("/");
	for (const r of roots) {
		try {
			const st = statSync(r);
			if (st.dev !== top.dev || st.ino !== top.ino) out.push({ root: r, dev: st.dev, ino: st.ino });
		} catch {
		}
	}
	return out;
}

/** The sbx-run to ask -C: the first outside every workspace named. */
export function checker(): string | undefined {
	const dirs = [PACKAGE_BIN];
	const bin = process.env.DOCKER_SANDBOX_BIN?.trim();
	if (bin && isAbsolute(bin)) dirs.push(bin);
	dirs.push(...(process.env.PATH ?? "").split(delimiter).filter((d) => d && isAbsolute(d)));
	const all = named();
	for (const d of dirs) {
		const p = join(d, "sbx-run");
		if (!executable(p)) continue;
		try {
			const real = realpathSync(p);
			if (holder(real, all) === undefined) return real;
		} catch {
		}
	}
	return undefined;
}

export type Verdict = { real: string } | { refused: string; status: number };

/** sbx-run -C's verdict for root, undefined with none to ask. */
export function askWorkspace(root: string): Verdict | undefined {
	const run = checker();
	if (!run) return undefined;
	const env = { ...process.env };
	delete env.PATH;
	const r = spawnSync(run, ["-C", "-w", root], { encoding: "utf8", env, timeout: 10000 });
	const real = r.stdout?.endsWith("\n") ? r.stdout.slice(0, -1) : "";
	if (r.status === EX.OK && isAbsolute(real) && !real.includes("\n")) return { real };
	const words = (r.stderr || r.error?.message || "").trim() || `sbx-run -C printed ${JSON.stringify((r.stdout ?? "").slice(0, 200))}`;
	return { refused: words, status: r.status ?? EX.CANTRUN };
}

const answers = new Map<string, { key: string; dev: number; ino: number; v: Verdict | undefined }>();

function remembered(root: string): Verdict | undefined {
	let st;
	try {
		st = statSync(root);
	} catch {
		return { refused: `workspace ${root}: no such directory`, status: EX.FAIL };
	}
	const env = { ...process.env };
	delete env.PATH;
	const key = `${checker() ?? ""}\0${JSON.stringify(env)}`;
	const a = answers.get(root);
	if (a && a.key === key && a.dev === st.dev && a.ino === st.ino) return a.v;
	const v = askWorkspace(root);
	answers.set(root, { key, dev: st.dev, ino: st.ino, v });
	return v;
}

/** Workspaces the sandbox may write: all but those sbx-run -C refuses by its rule. */
function mounted(): Dir[] {
	const out: Dir[] = [];
	for (const d of named()) {
		const v = remembered(d.root);
		if (v && "refused" in v && v.status === EX.FAIL) continue;
		if (v && "real" in v) {
			try {
				const st = statSync(v.real);
				out.push({ root: v.real, dev: st.dev, ino: st.ino });
				continue;
			} catch {
			}
		}
		out.push(d);
	}
	return out;
}

export function workspaceOf(path: string): string | undefined {
	return holder(path, mounted());
}

export function safePathDirs(path = process.env.PATH ?? ""): string[] {
	return path.split(delimiter).filter((d) => d && isAbsolute(d) && workspaceOf(d) === undefined);
}

/** The environment for a program: PATH without relative or workspace entries. */
export function programEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
	if (env.PATH === undefined) return env;
	return { ...env, PATH: safePathDirs(env.PATH).join(delimiter) };
}
