/*
 * Results: cut to pi's limits (50 KB / 2000 lines) with pi's own helpers,
 * saying so when something was left out; errors carry the program's words.
 */
import type { AgentToolResult, AgentToolUpdateCallback } from "@mariozechner/pi-coding-agent";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead, truncateTail } from "@mariozechner/pi-coding-agent";
import type { RunResult } from "./proc.ts";

export interface Details {
	sandbox?: string;
	exitCode?: number;
	truncated?: boolean;
	[key: string]: unknown;
}

/** Keep the end (logs, builds, command output) or the start (tables, listings). */
export function cut(text: string, keep: "tail" | "head" = "tail"): { text: string; truncated: boolean } {
	const t = keep === "tail" ? truncateTail(text) : truncateHead(text);
	if (!t.truncated) return { text: t.content, truncated: false };
	const shown = `${t.outputLines} of ${t.totalLines} lines, ${formatSize(t.outputBytes)} of ${formatSize(t.totalBytes)}`;
	const limit = `pi's limit of ${DEFAULT_MAX_LINES} lines / ${formatSize(DEFAULT_MAX_BYTES)}`;
	const note =
		keep === "tail"
			? `[output truncated to its last ${shown} (${limit})]\n`
			: `\n[output truncated to its first ${shown} (${limit})]`;
	return { text: keep === "tail" ? note + t.content : t.content + note, truncated: true };
}

export function result(text: string, details: Details = {}, keep: "tail" | "head" = "tail"): AgentToolResult<Details> {
	const c = cut(text, keep);
	return { content: [{ type: "text", text: c.text }], details: { ...details, truncated: c.truncated } };
}

/** An onOutput callback for proc.runProgram that streams the tail through onUpdate. */
export function streamer(onUpdate: AgentToolUpdateCallback<Details> | undefined, head: string, details: Details): ((s: string) => void) | undefined {
	if (!onUpdate) return undefined;
	return (s: string) => {
		const t = truncateTail(s, { maxLines: 40, maxBytes: 8 * 1024 });
		onUpdate({ content: [{ type: "text", text: `${head}\n${t.content}` }], details: { ...details, partial: true } });
	};
}

/** The message of a failed program: its stderr (or all output), its status, bounded. */
export function failure(what: string, r: RunResult): Error {
	let why = (r.stderr.trim() || r.output.trim() || "(no output)").replace(/\n{3,}/g, "\n\n");
	why = truncateTail(why, { maxLines: 60, maxBytes: 8 * 1024 }).content;
	const status = r.code === 124 ? "timed out" : r.code === 127 ? "not found (exit 127)" : `exit ${r.code}`;
	return new Error(`${what} failed (${status}):\n${why}`);
}

/** Fixed-width columns, no trailing blanks. */
export function table(header: string[], rows: string[][]): string {
	const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
	const line = (r: string[]) =>
		r
			.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i])))
			.join("  ")
			.trimEnd();
	return [line(header), ...rows.map(line)].join("\n");
}

/** JSON lines, one object each (docker --format '{{json .}}'); anything else is an error. */
export function jsonLines(what: string, text: string): Record<string, unknown>[] {
	const out: Record<string, unknown>[] = [];
	for (const l of text.split("\n")) {
		const s = l.trim();
		if (!s) continue;
		try {
			const v = JSON.parse(s) as unknown;
			if (v && typeof v === "object" && !Array.isArray(v)) out.push(v as Record<string, unknown>);
			else if (Array.isArray(v)) for (const e of v) if (e && typeof e === "object") out.push(e as Record<string, unknown>);
		} catch {
			throw new Error(`${what}: unexpected output line: ${s.slice(0, 200)}`);
		}
	}
	return out;
}

export function str(v: unknown): string {
	if (v === undefined || v === null) return "";
	if (Array.isArray(v)) return v.map(str).join(",");
	return String(v);
}
