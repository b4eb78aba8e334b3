/*
 * What the sandbox can write is never run on the host.  The session's
 * workspace is bound into the sandbox, where any container may bind it
 * again and replace what it holds, so no program, script or extension
 * code the tools run may come from it or from anything under it.  By
 * identity (device and inode of each real ancestor), so a link or a bind
 * mount that leads into the workspace counts as the workspace.
 *
 * Which directory sbx-run would mount is sbx-run's to say (`sbx-run -C`,
 * its check mode); the extension keeps no copy of that rule.  The one it
 * asks lies outside every workspace this process named, so that no
 * answer comes from a program the sandbox could have written.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { EX } from "./status.ts";

/** This package, and bin/ of it: its npm install builds the programs there (scripts/install.sh). */
export const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..");
export const PACKAGE_BIN = join(PACKAGE, "bin");

/** Every workspace a session of this process named, as given. */
const roots = new Set<string>();

/** A session's workspace: from now on nothing under it is run. */
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

/**
 * Which of dirs holds path, if any.  The path need not exist: its
 * deepest existing ancestor is resolved, since a container may make the
 * rest later.  A path that cannot be resolved at all counts as inside.
 */
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

/**
 * Every workspace named, mountable or not: the view of one who cannot
 * ask.  But never the host's root (by identity): every program, node and
 * this code lie under it, so were it the sandbox's to write, nothing run
 * here could tell; the premise of every check here is that it is not.
 */
function named(): Dir[] {
	const out: Dir[] = [];
	const top = statSync("/");
	for (const r of roots) {
		try {
			const st = statSync(r);
			if (st.dev !== top.dev || st.ino !== top.ino) out.push({ root: r, dev: st.dev, ino: st.ino });
		} catch {
			/* gone: nothing is under it */
		}
	}
	return out;
}

/**
 * The sbx-run to ask -C: the first of the package's, DOCKER_SANDBOX_BIN's
 * and PATH's whose real path lies outside every workspace named, mounted
 * or not.  None when each lies in one (or there is none at all).
 */
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
			/* gone meanwhile */
		}
	}
	return undefined;
}

/** sbx-run -C's answer: the real workspace, or its refusal (words and status). */
export type Verdict = { real: string } | { refused: string; status: number };

/**
 * Ask sbx-run -C which directory it would mount for root; undefined
 * when there is no sbx-run to ask (checker).  It runs no sbx, so it gets
 * no PATH.
 */
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

/** The last answer per root, kept while the environment and the root's identity stay. */
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

/**
 * The workspaces the sandbox may write, by identity: those sbx-run -C
 * accepts.  One it refuses by its rule (exit 1) is never mounted, so the
 * sandbox cannot write it; one that cannot be asked, or whose answer is
 * no answer (a bad setting, a crash), counts as mounted.
 */
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
				/* renamed meanwhile: as the name says */
			}
		}
		out.push(d);
	}
	return out;
}

/** The workspace that holds path, if any (holder: a path that cannot be resolved counts as inside). */
export function workspaceOf(path: string): string | undefined {
	return holder(path, mounted());
}

/** The PATH entries a program may be taken from: absolute, and in no workspace. */
export function safePathDirs(path = process.env.PATH ?? ""): string[] {
	return path.split(delimiter).filter((d) => d && isAbsolute(d) && workspaceOf(d) === undefined);
}

/**
 * The environment for a program the tools start: PATH without its
 * relative or workspace entries, so that neither the programs nor what
 * they run look up a command in a directory the sandbox can write.
 */
export function programEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
	if (env.PATH === undefined) return env;
	return { ...env, PATH: safePathDirs(env.PATH).join(delimiter) };
}
