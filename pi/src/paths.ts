/*
 * What comes from the agent: /workspace paths stay in the host workspace;
 * words for a command line may not parse as options.
 */
import { hostPath } from "./hostfs.ts";

/** An agent path on the host, links walked as hostfs.ts does; the real path. */
export function mapHostPath(root: string, input: string, what = "path"): string {
	return hostPath(root, input, what);
}

/** A word for a command line: not empty, not an option, no control characters. */
export function safeArg(value: string, what: string): string {
	if (typeof value !== "string" || value === "" || value.startsWith("-"))
		throw new Error(`docker: invalid ${what} "${value}" (must not be empty or start with "-")`);
	// eslint-disable-next-line no-control-regex
	if (/[\x00-\x1f\x7f]/.test(value)) throw new Error(`docker: invalid ${what} (must not contain control characters)`);
	return value;
}

/** Split a command string on blanks, honouring quotes and backslashes. */
export function splitCommand(str: string): string[] {
	const out: string[] = [];
	let cur = "";
	let have = false;
	let q: "'" | '"' | null = null;
	for (let i = 0; i < str.length; i++) {
		const c = str[i];
		if (q === "'") {
			if (c === "'") q = null;
			else cur += c;
		} else if (q === '"') {
			if (c === '"') q = null;
			else if (c === "\\" && i + 1 < str.length && '"\\$`'.includes(str[i + 1])) cur += str[++i];
			else cur += c;
		} else if (c === "'" || c === '"') {
			q = c;
			have = true;
		} else if (c === "\\" && i + 1 < str.length) {
			cur += str[++i];
			have = true;
		} else if (/\s/.test(c)) {
			if (have || cur) out.push(cur);
			cur = "";
			have = false;
		} else {
			cur += c;
			have = true;
		}
	}
	if (q) throw new Error(`docker: unterminated ${q} quote in command`);
	if (have || cur) out.push(cur);
	return out;
}

export function commandWords(cmd: string | string[] | undefined): string[] {
	if (cmd === undefined) return [];
	const words = Array.isArray(cmd) ? cmd.map(String) : splitCommand(cmd);
	for (const w of words)
		if (w.includes("\0")) throw new Error("docker: invalid command (must not contain NUL)");
	return words;
}
