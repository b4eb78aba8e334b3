/*
 * The arguments of the container tools, checked before they reach an
 * argv: ids, images, ports, env entries, and volumes (a workspace path
 * bound, or a named volume, and the answer says which).
 */
import { isAbsolute, join } from "node:path";
import { present, workspaceRoot } from "../hostfs.ts";
import { mapHostPath, safeArg } from "../paths.ts";

export const NAME_RE = /^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/;
const IMAGE_RE = /^[A-Za-z0-9][A-Za-z0-9._\/:@-]*$/;
const PORT_RE = /^(?:(\d{1,5}):)?(\d{1,5})(?:\/(tcp|udp))?$/;
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const MEMORY_RE = /^\d+(\.\d+)?[bkmg]?$/i;
const VOLUME_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]+$/;
const VOLUME_MODES = new Set(["ro", "rw", "z", "Z", "ro,z", "ro,Z", "rw,z", "rw,Z", "nocopy", "ro,nocopy", "rw,nocopy"]);

export function checkId(id: string): string {
	return safeArg(String(id ?? "").trim(), "container id");
}

export function checkImage(image: string, what = "image"): string {
	const v = safeArg(String(image ?? "").trim(), what);
	if (!IMAGE_RE.test(v)) throw new Error(`docker: invalid ${what} "${v}"`);
	return v;
}

export function checkPort(spec: string): string {
	const s = spec.trim();
	const m = PORT_RE.exec(s);
	const ok = (p: string | undefined) => p === undefined || (Number(p) >= 1 && Number(p) <= 65535);
	if (!m || !ok(m[1]) || !ok(m[2]))
		throw new Error(`docker run: bad port spec "${spec}" (use CONTAINER, HOST:CONTAINER, optionally /tcp or /udp)`);
	return s;
}

export function checkEnv(e: string): string {
	const s = e.trim();
	const name = s.split("=", 1)[0];
	if (!ENV_NAME_RE.test(name)) throw new Error(`docker run: bad env entry "${s.slice(0, 40)}" (use NAME=value)`);
	if (/[\0\n\r]/.test(s)) throw new Error("docker run: env values must not contain newlines or NUL");
	return s;
}

/**
 * -v SOURCE:TARGET[:MODE], and what SOURCE became: a workspace path when
 * spelled as one or when a bare name is an entry of the workspace root,
 * else a named volume.
 */
export function checkVolume(root: string, spec: string, ro: boolean): { arg: string; said: string } {
	const parts = spec.trim().split(":");
	if (parts.length < 2 || parts.length > 3 || !parts[0] || !parts[1])
		throw new Error(`docker run: bad volume spec "${spec}" (use SOURCE:/container/path[:ro])`);
	const [src, dst] = parts;
	let mode = parts[2] ?? "";
	if (!isAbsolute(dst) || /[\0\r\n,]/.test(dst)) throw new Error(`docker run: volume target must be an absolute path: "${dst}"`);
	if (mode && !VOLUME_MODES.has(mode)) throw new Error(`docker run: bad volume mode "${mode}" (ro, rw, z, Z, nocopy)`);
	if (src.startsWith("~")) throw new Error(`docker run: volume source must be in the workspace: "${src}"`);
	const spelledPath = src.startsWith("/") || src.startsWith(".") || src.includes("/");
	// a link counts as an entry, then checked as a path
	if (!spelledPath && !present(join(workspaceRoot(root), src))) {
		if (!VOLUME_NAME_RE.test(src)) throw new Error(`docker run: bad volume name "${src}"`);
		return { arg: [src, dst, mode].filter(Boolean).join(":"), said: `${src}: named volume "${src}" at ${dst} (no such path in the workspace)` };
	}
	const host = mapHostPath(root, src, "volume source");
	if (host.includes(":")) throw new Error(`docker run: volume source path holds ':': "${host}"`);
	if (ro) {
		// the project is mounted read-only in the sandbox; say so in the spec too
		const rest = mode.split(",").filter((m) => m && m !== "rw" && m !== "ro");
		mode = ["ro", ...rest].join(",");
	}
	return { arg: [host, dst, mode].filter(Boolean).join(":"), said: `${src}: workspace path ${host} bound at ${dst}${mode ? ` (${mode})` : ""}` };
}
