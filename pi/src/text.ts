/*
 * Results: cut to pi's limits (50 KB / 2000 lines) with pi's own helpers,
 * saying so when something was left out; errors carry the program's words.
 */
import type { AgentToolResult, AgentToolUpdateCallback } from "@mariozechner/pi-coding-agent";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead, truncateTail } from "@mariozechner/pi-coding-agent";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePrivate } from "./hostfs.ts";
import { KEEP_BYTES, type RunResult } from "./proc.ts";
import { EX } from "./status.ts";

export interface Details {
	sandbox?: string;
	exitCode?: number;
	truncated?: boolean;
	[key: string]: unknown;
}

/** The most of one line an answer keeps, by bytes. */
export const LINE_MAX = 4096;

function utf8Prefix(text: string, max: number): string {
	const b = Buffer.from(text);
	if (b.length <= max) return text;
	let n = max;
	while (n > 0 && (b[n] & 0xc0) === 0x80) n--;
	return b.subarray(0, n).toString("utf8");
}

/** Every line longer than max bytes cut there, so one long line is shown in part rather than dropped. */
export function cutLines(text: string, max = LINE_MAX): { text: string; lines: number; bytes: number } {
	let lines = 0;
	let bytes = 0;
	const out = text.split("\n").map((l) => {
		const n = Buffer.byteLength(l);
		if (n <= max) return l;
		const keep = utf8Prefix(l, max);
		const gone = n - Buffer.byteLength(keep);
		lines++;
		bytes += gone;
		return `${keep} [... ${gone} more bytes of this line]`;
	});
	return { text: out.join("\n"), lines, bytes };
}

/** Keep the end (logs, builds) or the start (tables); dropped counts bytes lost before text. */
export function cut(text: string, keep: "tail" | "head" = "tail", dropped = 0): { text: string; truncated: boolean } {
	const long = cutLines(text);
	const t = keep === "tail" ? truncateTail(long.text) : truncateHead(long.text);
	if (!t.truncated && !long.lines && !dropped) return { text: t.content, truncated: false };
	const notes: string[] = [];
	if (t.truncated || dropped) {
		const total = Buffer.byteLength(text) + dropped;
		const lines = dropped ? `more than ${t.totalLines}` : `${t.totalLines}`;
		const shown = `${t.outputLines} of ${lines} lines, ${formatSize(t.outputBytes)} of ${formatSize(total)}`;
		const limit = `pi's limit of ${DEFAULT_MAX_LINES} lines / ${formatSize(DEFAULT_MAX_BYTES)}`;
		const gone = dropped ? `; the first ${formatSize(dropped)} were not kept` : "";
		notes.push(`[output truncated to its ${keep === "tail" ? "last" : "first"} ${shown} (${limit})${gone}]`);
	}
	if (long.lines) notes.push(`[${long.lines} line${long.lines > 1 ? "s" : ""} longer than ${formatSize(LINE_MAX)} cut there: ${long.bytes} bytes left out]`);
	const note = notes.join("\n");
	return { text: keep === "tail" ? `${note}\n${t.content}` : `${t.content}\n${note}`, truncated: true };
}

export function result(text: string, details: Details = {}, keep: "tail" | "head" = "tail", dropped = 0): AgentToolResult<Details> {
	const c = cut(text, keep, dropped);
	return { content: [{ type: "text", text: c.text }], details: { ...details, truncated: c.truncated } };
}

export function streamer(onUpdate: AgentToolUpdateCallback<Details> | undefined, head: string, details: Details): ((s: string) => void) | undefined {
	if (!onUpdate) return undefined;
	return (s: string) => {
		const t = truncateTail(s, { maxLines: 40, maxBytes: 8 * 1024 });
		onUpdate({ content: [{ type: "text", text: `${head}\n${t.content}` }], details: { ...details, partial: true } });
	};
}

export function plain(text: string): string {
	return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r+\n/g, "\n").replace(/\r/g, "\n");
}

export function shellLine(argv: string[]): string {
	return argv.map((w) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`)).join(" ");
}

/** A failed program's message: command, status and the tail of its output (stdout too: test reports). */
export function failure(what: string, r: RunResult, command?: string[]): Error {
	const all = plain(r.output).replace(/\n{3,}/g, "\n\n").trim();
	const t = truncateTail(all || "(no output)", { maxLines: 60, maxBytes: 8 * 1024 });
	// a command's 124 or 127 is the command's
	const status = r.own !== true ? `exit ${r.code}` : r.code === EX.TIMEOUT ? "timed out (exit 124)" : r.code === EX.NOTFOUND ? "not found (exit 127)" : `exit ${r.code}`;
	const lines = [`${what} failed (${status}):`];
	if (command?.length) lines.push(`command: ${shellLine(command)}`);
	const kept = t.truncated || r.dropped ? `last ${t.outputLines} of ${t.totalLines} lines` : "all of it";
	const log = t.truncated || r.dropped ? logOf(r) : undefined;
	lines.push(...outwardLines(r));
	lines.push(`output (stdout and stderr as they came, ${kept}${log ? `; ${logSays(r, log)}` : ""}):`, t.content);
	return new Error(lines.join("\n"));
}

/**
 * What sbx-run found outward after a failed call, from its -O lines (the
 * sandbox cannot write them).  The agent may not widen the rules: it asks.
 */
export function outwardLines(r: RunResult): string[] {
	const o = r.outward;
	if (!o) return [];
	const lines: string[] = [];
	if (o.blocked.length) {
		lines.push("sbx blocked, for this sandbox, during the call:");
		for (const b of o.blocked) lines.push(`  ${b.host}: ${b.reason}`);
		if (o.reapplied) lines.push("The session's own network rules had been lost when the sandbox stopped; they are back now: run the call again.");
		else lines.push("The sandbox's network rules do not let it reach these hosts. You cannot change them: if one is needed, ask the user, who can allow it with /docker allow HOST.");
	}
	if (o.certificate) lines.push("A container refused the sandbox proxy's TLS certificate (the sandbox intercepts TLS with its own CA); sbx-run's advice is at the end of the output.");
	return lines;
}

/**
 * The program's own last line when the status is its own, else "".  The
 * command's output is never read for advice: the sandbox writes it.
 */
export function ownWords(r: RunResult, prog = "sbx-run"): string {
	if (r.own !== true) return "";
	const lines = r.stderr.trimEnd().split("\n");
	const last = lines[lines.length - 1] ?? "";
	return last.startsWith(`${prog}: `) ? last : "";
}

export const BRIEF_MAX = 2048;
const BRIEF_LINES = 15;

export function logPath(what: string): string {
	return join(tmpdir(), `pi-docker-${what}-${randomBytes(8).toString("hex")}.log`);
}

/** The log of a cut answer, written once when asked for, listed in the session's logs; none if unwritable. */
export function logOf(r: RunResult, path?: string): string | undefined {
	const sink = r.log;
	if (!sink || sink.closed?.()) return undefined;
	if (sink.path) return sink.path;
	let out = Buffer.from(r.output);
	let dropped = r.dropped;
	if (out.length > KEEP_BYTES) {
		dropped += out.length - KEEP_BYTES;
		out = out.subarray(out.length - KEEP_BYTES);
	}
	const nl = dropped ? out.subarray(0, 64 * 1024).indexOf(10) : -1;
	if (nl !== -1) {
		dropped += nl + 1;
		out = out.subarray(nl + 1);
	}
	const head = dropped ? `[pi-docker: the first ${formatSize(dropped)} of the output were dropped; this file keeps the last ${formatSize(out.length)}]\n` : "";
	const p = path ?? logPath(sink.what);
	try {
		writePrivate(p, head + out.toString("utf8"));
	} catch {
		return undefined;
	}
	sink.path = p;
	sink.made.add(p);
	return p;
}

function logSays(r: RunResult, log: string): string {
	return r.dropped ? `its last ${formatSize(Buffer.byteLength(r.output))} in ${log} (the ${formatSize(r.dropped)} before were dropped)` : `the whole of it in ${log}`;
}

export function removeLogs(made: Set<string>): void {
	for (const p of made) rmSync(p, { force: true });
	made.clear();
}

/** A success answer of at most BRIEF_MAX bytes: outcome lines, the output's tail and the log. */
export function brief(head: string[], r: RunResult, details: Details = {}): AgentToolResult<Details> {
	const all = plain(r.output).replace(/\n{3,}/g, "\n\n").trim();
	const total = all ? all.split("\n").length : 0;
	const path = r.log ? logPath(r.log.what) : "";
	const say = r.dropped
		? `last ${formatSize(Buffer.byteLength(r.output))} of the output (the ${formatSize(r.dropped)} before were dropped): ${path}`
		: `whole output (${total} lines, ${formatSize(Buffer.byteLength(r.output))}): ${path}`;
	// each outcome line cut by bytes, so the lines after it stay
	const heads = cutLines(head.join("\n"), BRIEF_MAX / 4);
	let top = heads.text;
	let cutTop = heads.lines > 0;
	if (Buffer.byteLength(top) > BRIEF_MAX / 2) {
		top = truncateHead(top, { maxBytes: BRIEF_MAX / 2, maxLines: 40 }).content + "\n[...]";
		cutTop = true;
	}
	const room = BRIEF_MAX - Buffer.byteLength(top) - (path ? Buffer.byteLength(say) : 0) - 64;
	const t = truncateTail(all, { maxLines: BRIEF_LINES, maxBytes: Math.max(0, room) });
	const log = t.truncated || cutTop || r.dropped ? logOf(r, path) : undefined;
	const parts = [top];
	if (all && t.content) parts.push(t.truncated ? `last ${t.outputLines} of ${total} lines:` : "output:", t.content);
	if (log) parts.push(say);
	let text = parts.join("\n");
	// a multi-byte cut can never push past the bound
	while (Buffer.byteLength(text) > BRIEF_MAX) text = text.slice(0, text.length - 16);
	return { content: [{ type: "text", text }], details: { ...details, truncated: t.truncated || cutTop || r.dropped > 0, fullOutputPath: log, outputLines: total } };
}

export function table(header: string[], rows: string[][]): string {
	const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
	const line = (r: string[]) =>
		r
			.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i])))
			.join("  ")
			.trimEnd();
	return [line(header), ...rows.map(line)].join("\n");
}

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
