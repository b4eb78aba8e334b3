/*
 * What the sandbox can write is never run on the host.  The session's
 * workspace is bound into the sandbox, where any container may bind it
 * again and replace what it holds, so no program, script or extension
 * code the tools run may come from it or from anything under it.  By
 * identity (device and inode of each real ancestor), so a link or a bind
 * mount that leads into the workspace counts as the workspace.
 */
import { realpathSync, statSync } from "node:fs";
import { delimiter, dirname, isAbsolute } from "node:path";
import { workspaceRoot } from "./hostfs.ts";

/** Every workspace a session of this process named, as given. */
const roots = new Set<string>();

/** A session's workspace: from now on nothing under it is run. */
export function guardWorkspace(root: string): void {
	if (root) roots.add(root);
}

/**
 * The workspaces as sbx-run would mount them, by identity.  A directory
 * its rule refuses (/, a home or above one) is never mounted, so the
 * sandbox cannot write it; the tools refuse it on their own.
 */
function mounted(): { root: string; dev: number; ino: number }[] {
	const out: { root: string; dev: number; ino: number }[] = [];
	for (const r of roots) {
		try {
			const real = workspaceRoot(r);
			const st = statSync(real);
			out.push({ root: real, dev: st.dev, ino: st.ino });
		} catch {
			/* not a workspace sbx-run would mount */
		}
	}
	return out;
}

/**
 * The workspace that holds path, if any.  The path need not exist: its
 * deepest existing ancestor is resolved, since a container may make the
 * rest later.  A path that cannot be resolved at all counts as inside.
 */
export function workspaceOf(path: string): string | undefined {
	const ws = mounted();
	if (!ws.length) return undefined;
	let real: string | undefined;
	for (let p = path; real === undefined; ) {
		try {
			real = realpathSync(p);
		} catch {
			const up = dirname(p);
			if (up === p) return ws[0].root;
			p = up;
		}
	}
	for (let p = real; ; p = dirname(p)) {
		let st;
		try {
			st = statSync(p);
		} catch {
			return ws[0].root;
		}
		const hit = ws.find((w) => w.dev === st.dev && w.ino === st.ino);
		if (hit) return hit.root;
		if (dirname(p) === p) return undefined;
	}
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
