/*
 * The host filesystem as the tools may touch it: only inside a workspace
 * sbx-run would mount, never through a link, since the agent may plant
 * links anywhere in it.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { MissingProgram } from "./config.ts";
import { EX } from "./status.ts";
import { askWorkspace } from "./trust.ts";

const LINKS_MAX = 40;

function inside(root: string, p: string): boolean {
	const r = relative(root, p);
	return r === "" || (!r.startsWith(`..${sep}`) && r !== ".." && !isAbsolute(r));
}

function same(a: { dev: number; ino: number }, b: { dev: number; ino: number }): boolean {
	return a.dev === b.dev && a.ino === b.ino;
}

/** The workspace as sbx-run -C says it would mount it; its rule is sbx-run's alone. */
export function workspaceRoot(root: string): string {
	const v = askWorkspace(root);
	if (!v) throw new MissingProgram("sbx-run");
	if ("real" in v) return v.real;
	const words = v.refused.replace(/^sbx-run: /, "");
	throw new Error(`docker: ${words}${v.status === EX.FAIL ? "" : ` (sbx-run -C: exit ${v.status})`}`);
}

/**
 * Resolve rel under the real root as the kernel would, following each
 * link by its text so nothing outside the root is looked at.  A link
 * that leaves gets one answer whatever its target, so none tells of a
 * host path; a missing tail is returned as spelled.
 */
function walk(realRoot: string, rel: string, what: string, input: string, spellings: string[] = [realRoot]): string {
	const parts = (text: string, link: boolean) => text.split("/").filter((c) => c !== "" && c !== ".").map((c) => ({ c, link }));
	const queue = parts(rel, false);
	let cur = realRoot;
	let links = 0;
	const esc = (why: string) => new Error(`docker: ${what} escapes the workspace (${why}): ${input}`);
	while (queue.length) {
		const { c, link } = queue.shift() as { c: string; link: boolean };
		if (c === "..") {
			if (cur === realRoot) throw esc(link ? "symlink" : "..");
			cur = dirname(cur);
			continue;
		}
		const next = join(cur, c);
		let st;
		try {
			st = lstatSync(next);
		} catch (e) {
			const code = (e as NodeJS.ErrnoException).code;
			if (code === "ENOENT") {
				if (link) throw new Error(`docker: ${what} cannot be resolved (a dangling symbolic link in the workspace): ${input}`);
				if (queue.some((q) => q.c === "..")) throw new Error(`docker: ${what} cannot be resolved (".." after a missing component): ${input}`);
				return join(next, ...queue.map((q) => q.c));
			}
			throw new Error(`docker: ${what} cannot be resolved (${code ?? (e as Error).message}): ${input}`);
		}
		if (st.isSymbolicLink()) {
			if (++links > LINKS_MAX) throw new Error(`docker: ${what} cannot be resolved (a symbolic link loop: more than ${LINKS_MAX} links): ${input}`);
			const target = readlinkSync(next);
			if (isAbsolute(target)) {
				const r = spellings.find((p) => target === p || target.startsWith(`${p}/`));
				if (r === undefined) throw esc("symlink");
				queue.unshift(...parts(target.slice(r.length), true));
				cur = realRoot;
			} else queue.unshift(...parts(target, true));
			continue;
		}
		if (queue.length && !st.isDirectory()) throw new Error(`docker: ${what} cannot be resolved (${c} is not a directory): ${input}`);
		cur = next;
	}
	return cur;
}

/** An agent path on the host: /workspace and relative paths from the root; the real path. */
export function hostPath(root: string, input: string, what = "path"): string {
	const s = input.trim();
	if (s === "") throw new Error(`docker: empty ${what}`);
	if (/[\0\r\n]/.test(s)) throw new Error(`docker: invalid ${what} (must not contain newlines or NUL)`);
	const realRoot = workspaceRoot(root);
	let rel: string | undefined;
	if (s === "/workspace" || s.startsWith("/workspace/")) rel = s.slice("/workspace".length);
	else if (!isAbsolute(s)) rel = s;
	else
		for (const r of new Set([root.replace(/\/+$/, ""), realRoot]))
			if (s === r || s.startsWith(`${r}/`)) {
				rel = s.slice(r.length);
				break;
			}
	if (rel === undefined) throw new Error(`docker: ${what} escapes the workspace: ${input}`);
	return walk(realRoot, rel, what, input, [...new Set([realRoot, root.replace(/\/+$/, "")])].filter(Boolean));
}

/** A plain file at p?  A link that leaves answers as absence, telling nothing of outside. */
export function plainFile(root: string, p: string): boolean {
	try {
		return lstatSync(hostPath(root, p, "file")).isFile();
	} catch {
		return false;
	}
}

export function present(p: string): boolean {
	return lstatSync(p, { throwIfNoEntry: false }) !== undefined;
}

/**
 * Run fn with the working directory at dir, reached one checked plain
 * directory at a time: Node's only openat(2).  Synchronous, so no other
 * code sees the borrowed directory.
 */
function inDir<T>(realRoot: string, dir: string, fn: () => T): T {
	if (!inside(realRoot, dir)) throw new Error(`docker: ${dir} is not in the workspace`);
	const back = process.cwd();
	const step = (from: string, shown: string) => {
		const st = lstatSync(from, { throwIfNoEntry: false });
		if (!st) throw new Error(`docker: ${shown}: no such directory (renamed or removed meanwhile?)`);
		if (st.isSymbolicLink() || !st.isDirectory()) throw new Error(`docker: ${shown} is not a plain directory (a symbolic link?); not writing under it`);
		process.chdir(from);
		if (!same(statSync("."), st)) throw new Error(`docker: ${shown} changed while it was entered; not writing under it`);
	};
	try {
		let shown = realRoot;
		step(realRoot, shown);
		for (const c of relative(realRoot, dir).split(sep).filter(Boolean)) {
			shown = join(shown, c);
			step(c, shown);
		}
		return fn();
	} finally {
		process.chdir(back);
	}
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

function createNew(path: string, data: string, mode: number, shown = path): void {
	const fd = openSync(path, CREATE, mode);
	try {
		const buf = Buffer.from(data);
		for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off);
		const a = fstatSync(fd);
		const b = lstatSync(path);
		if (!a.isFile() || !same(a, b)) throw new Error(`docker: ${shown} changed while it was written`);
	} finally {
		closeSync(fd);
	}
}

export type Written = "created" | "replaced" | "kept";

/** Write name in dir from inside it, O_EXCL|O_NOFOLLOW; replace renames a new file over a regular one. */
export function writeInWorkspace(root: string, dir: string, name: string, data: string, replace = false): Written {
	if (name === "" || name === "." || name === ".." || name.includes("/")) throw new Error(`docker: bad file name "${name}"`);
	const realRoot = workspaceRoot(root);
	const path = join(dir, name);
	return inDir(realRoot, dir, () => {
		const st = lstatSync(name, { throwIfNoEntry: false });
		if (!st) {
			createNew(name, data, 0o644, path);
			return "created";
		}
		if (st.isSymbolicLink()) throw new Error(`docker: ${path} is a symbolic link; not writing through it (remove it first)`);
		if (!st.isFile()) throw new Error(`docker: ${path} is not a regular file; not replacing it`);
		if (!replace) return "kept";
		const tmp = `.${name}.${process.pid}.${Math.random().toString(36).slice(2, 10)}`;
		createNew(tmp, data, st.mode & 0o777, join(dir, tmp));
		try {
			const again = lstatSync(name, { throwIfNoEntry: false });
			if (again && !again.isFile()) throw new Error(`docker: ${path} is no longer a regular file; not replacing it`);
			renameSync(tmp, name);
		} catch (e) {
			try {
				unlinkSync(tmp);
			} catch {
			}
			throw e;
		}
		return "replaced";
	});
}

/** A private file for the tools' own use, never opened through a link. */
export function writePrivate(path: string, data: string): void {
	createNew(path, data, 0o600);
}
