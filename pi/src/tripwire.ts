/*
 * The tripwire's findings, for the user: files of the workspace that the
 * host runs on its own (pi's extensions, git hooks, .envrc, ...) made or
 * changed during a session.  sbx-run -F lists those not seen yet; they
 * are shown at the session's end and again at the next start here, and
 * marked seen (sbx-run -F ID...) only once a start has shown them.
 */
import { findProgram } from "./config.ts";
import { EX } from "./status.ts";
import type { Session } from "./session.ts";
import { jsonLines, str } from "./text.ts";

/** findings shown in one message; the rest wait for the next start */
export const SHOWN_MAX = 20;

export interface Finding {
	id: string;
	sandbox: string;
	time: string;
	path: string;
	change: string;
	runner: string;
	type: string;
	target?: string;
	why?: string;
}

/** A workspace's name as text fit for a terminal: controls and direction marks escaped. */
export function shown(s: string): string {
	return s.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The findings of the session's workspace not seen yet; name: compare that sandbox's first. */
export async function unseen(s: Session, name?: string): Promise<Finding[]> {
	if (!findProgram("sbx-run")) return [];
	const args = ["-F", "-w", s.root, ...(name ? ["-s", name] : [])];
	const r = await s.program("sbx-run", args, { what: "reading the tripwire's findings (sbx-run -F)", allowFail: true });
	if (r.code !== EX.OK) return [];
	return jsonLines("sbx-run -F", r.stdout)
		.map((o) => ({
			id: str(o.id),
			sandbox: str(o.sandbox),
			time: str(o.time),
			path: str(o.path),
			change: str(o.change),
			runner: str(o.runner),
			type: str(o.type),
			target: o.target === undefined ? undefined : str(o.target),
			why: o.why === undefined ? undefined : str(o.why),
		}))
		.filter((f) => f.id && f.path);
}

export async function markSeen(s: Session, ids: string[]): Promise<void> {
	if (!ids.length) return;
	await s.program("sbx-run", ["-F", "-w", s.root, "--", ...ids], { what: "marking the tripwire's findings seen (sbx-run -F)", allowFail: true });
}

/** What the user is told: each file, its change and who runs it. */
export function findingsText(found: Finding[], when: "end" | "start"): string {
	const head =
		when === "end"
			? "docker sandbox: this session made or changed files in the workspace that the host runs on its own; nothing was undone, look at each before it runs:"
			: "docker sandbox: an earlier session made or changed files in this workspace that the host runs on its own; nothing was undone, look at each before it runs:";
	const lines = found.slice(0, SHOWN_MAX).map((f) => {
		const what = [f.type + (f.target !== undefined ? ` to ${shown(f.target)}` : ""), ...(f.why ? [shown(f.why)] : [])].join(", ");
		return `  ${shown(f.path)}: ${shown(f.change)} (${what}): ${shown(f.runner)} [${shown(f.sandbox)}, ${shown(f.time)}]`;
	});
	if (found.length > SHOWN_MAX) lines.push(`  and ${found.length - SHOWN_MAX} more, shown at the next start (sbx-run -F lists them)`);
	return [head, ...lines].join("\n");
}
