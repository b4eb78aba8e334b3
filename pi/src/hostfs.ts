/*
 * The host filesystem as the tools may touch it: only inside the
 * workspace, only a workspace sbx-run says it would mount (sbx-run -C),
 * and never through a symbolic link.  Every path a tool takes and every file a tool writes
 * goes through here; the agent (or a container, through a workspace
 * bind, or a cloned repository) may have planted links anywhere in it.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { MissingProgram } from "./config.ts";
import { EX } from "./status.ts";
import { askWorkspace } from "./trust.ts";

const LINKS_MAX = 40; // as the kernel's ELOOP limit

function inside(root: string, p: string): boolean {
	const r = relative(root, p);
	return r === "" || (!r.startsWith(`..${sep}`) && r !== ".." && !isAbsolute(r));
}

function same(a: { dev: number; ino: number }, b: { dev: number; ino: number }): boolean {
	return a.dev === b.dev && a.ino === b.ino;
}

/**
 * The workspace as sbx-run would mount it, asked of sbx-run -C before
 * each action (trust.ts picks the sbx-run: one outside every workspace):
 * the real root, or an error in sbx-run's words.  The rule (/, a home or
 * above one, one that holds the state directory, by identity) is
 * sbx-run's alone.
 */
export function workspaceRoot(root: string): string {
	const v = askWorkspace(root);
	if (!v) throw new MissingProgram("sbx-run");
	if ("real" in v) return v.real;
	const words = v.refused.replace(/^sbx-run: /, "");
	throw new Error(`docker: ${words}${v.status === EX.FAIL ? "" : ` (sbx-run -C: exit ${v.status})`}`);
}

/**
 * Resolve rel (components under the real root) the way the kernel would:
 * each link as it is met, `..` from where the walk really is.  A link is
 * followed by its text, never by the system: an absolute target must
 * spell the root (as given or real) and a relative one is walked from
 * where the link is, so every step stays in the root and nothing outside
 * it is ever looked at.  A link that leaves gets one answer whatever its
 * target is (there, missing, a loop), so no answer tells of a host path.
 * A dangling link or a loop inside is refused; a missing tail (no link,
 * no `..`) is allowed and returned as spelled.
 */
function walk(realRoot: string, rel: string, what: string, input: string, spellings: string[] = [realRoot]): string {
	const parts = (text: string, link: boolean) => text.split("/").filter((c) => c !== "" && c !== ".").map((c) => ({ c, link }));
	// each component, and whether a link's text gave it
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

/**
 * Map an agent path to the host: `/workspace[/rel]` and relative paths are
 * taken from the workspace root; an absolute host path must spell the root
 * (as given, or resolved) before the rest.  Returns the real path, which is
 * also where sbx mounts it inside the sandbox.
 */
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

/**
 * Is there a plain file at p, reached by hostPath's walk?  A link that
 * leaves the workspace, dangles or loops answers as absence does, so the
 * answer says nothing of any path outside it.
 */
export function plainFile(root: string, p: string): boolean {
	try {
		return lstatSync(hostPath(root, p, "file")).isFile();
	} catch {
		return false;
	}
}

/** Is there a directory entry at p (a dangling link counts)? */
export function present(p: string): boolean {
	return lstatSync(p, { throwIfNoEntry: false }) !== undefined;
}

/**
 * Run fn with the working directory at dir, reached from the real root one
 * plain directory at a time, so that fn's relative names are looked up in
 * that directory whatever is renamed or linked along the path meanwhile:
 * the working directory is Node's only openat(2).  Each step is checked
 * after the chdir against what lstat saw before it; a link or a swap is
 * refused.  Synchronous from start to end, so no other code of the
 * process sees the borrowed working directory.
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

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW; // libuv adds O_CLOEXEC

/** Create path (which must not exist: not even as a dangling link) holding data. */
function createNew(path: string, data: string, mode: number, shown = path): void {
	const fd = openSync(path, CREATE, mode);
	try {
		const buf = Buffer.from(data);
		for (let off = 0; off < buf.length; ) off += writeSync(fd, buf, off);
		// what was opened is what is at the path: a regular file of ours
		const a = fstatSync(fd);
		const b = lstatSync(path);
		if (!a.isFile() || !same(a, b)) throw new Error(`docker: ${shown} changed while it was written`);
	} finally {
		closeSync(fd);
	}
}

export type Written = "created" | "replaced" | "kept";

/**
 * Write name in dir, a directory of the workspace (from hostPath), from
 * inside dir (inDir): created with O_CREAT|O_EXCL|O_NOFOLLOW.  An existing
 * entry is kept unless replace is set, and then only a regular file is
 * replaced, by renaming a new file over it (a rename replaces the entry;
 * it never writes through).
 */
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
				/* already gone */
			}
			throw e;
		}
		return "replaced";
	});
}

/** A private file for the tools' own use (outside the workspace): created, never opened through a link. */
export function writePrivate(path: string, data: string): void {
	createNew(path, data, 0o600);
}
