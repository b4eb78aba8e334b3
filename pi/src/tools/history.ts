/*
 * docker_history: the docker calls of this session, or of a past one,
 * from sbx-run -J's record; sbx-run -L -j lists the sessions kept.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
import type { Session } from "../session.ts";
import { jsonLines, result, str } from "../text.ts";
import { Int, intArg } from "./schema.ts";

const LAST_DEFAULT = 20;
const LAST_MAX = 1000;
const SHOWN_MAX = 240; // characters of one command line

export interface Journal {
	/** calls journaled for the sandbox, those trimmed away included */
	calls: number;
	/** the last records, oldest first */
	records: Record<string, unknown>[];
}

/** A sandbox name as sbx-run takes it; nothing else reaches its argv. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9.-]{0,61}[A-Za-z0-9]$/;

export function sessionArg(value: unknown): string | undefined {
	if (value === undefined) return undefined;
	if (typeof value === "string" && NAME.test(value) && value !== "default") return value;
	throw new Error(`docker_history: session must be a sandbox name (letters, digits, "." and "-", as /docker lists them), not ${JSON.stringify(value)?.slice(0, 80)}`);
}

export async function readJournal(s: Session, last: number, signal?: AbortSignal, session?: string): Promise<Journal> {
	const r = await s.program("sbx-run", ["-J", String(last), "-s", session ?? s.sandbox()], { signal, what: "reading the docker history (sbx-run -J)" });
	const [head, ...records] = jsonLines("sbx-run -J", r.stdout);
	const calls = Number(head?.calls);
	if (!Number.isInteger(calls) || calls < 0) throw new Error(`sbx-run -J: no count of calls in its output: ${r.stdout.slice(0, 200)}`);
	return { calls, records };
}

/** A session whose record the state directory keeps (sbx-run -L -j). */
export interface SessionRecord {
	name: string;
	live: boolean;
	start: string | null;
	end: string | null;
	calls: number;
	failures: number;
	workspace: string | null;
}

export async function readSessions(s: Session, signal?: AbortSignal): Promise<SessionRecord[]> {
	const r = await s.program("sbx-run", ["-L", "-j"], { signal, what: "listing the sessions' records (sbx-run -L)" });
	return jsonLines("sbx-run -L", r.stdout).map((o) => ({
		name: str(o.name),
		live: o.live === true,
		start: typeof o.start === "string" ? o.start : null,
		end: typeof o.end === "string" ? o.end : null,
		calls: Number(o.calls) || 0,
		failures: Number(o.failures) || 0,
		workspace: typeof o.workspace === "string" ? o.workspace : null,
	}));
}

function quote(w: string): string {
	return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

function size(n: number): string {
	return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function line(rec: Record<string, unknown>): string {
	const argv = Array.isArray(rec.argv) ? rec.argv.map(str) : [];
	let cmd = (rec.raw === true ? argv : ["docker", ...argv]).map(quote).join(" ");
	if (rec.truncated === true) cmd += " [arguments cut in the journal]";
	if (cmd.length > SHOWN_MAX) cmd = `${cmd.slice(0, SHOWN_MAX)}...`;
	const when = str(rec.time).replace(/\.\d+Z$/, "Z");
	return `${when}  exit ${str(rec.status)}  ${str(rec.ms)} ms  ${size(Number(rec.bytes) || 0)}  ${cmd}`;
}

export function registerHistoryTool(pi: ExtensionAPI, s: Session): void {
	pi.registerTool({
		name: "docker_history",
		label: "Docker history",
		promptSnippet: "Show the docker calls made in the session's sandbox, or in a past session's: time, command, exit status, duration, output size",
		description:
			`Show the last docker calls made in the session's sandbox (by these tools or by hand through sbx-run), oldest first: time (UTC), exit status, duration, bytes of output and the command. last: how many (default ${LAST_DEFAULT}, at most ${LAST_MAX}). session: a past session's sandbox name, as the user's /docker lists them, to read its kept record instead (default: this session).`,
		parameters: Type.Object({
			last: Type.Optional(Int(1, LAST_MAX, `how many of the latest calls to show (default ${LAST_DEFAULT})`)),
			session: Type.Optional(Type.String({ pattern: NAME.source, description: "a past session's sandbox name (default: this session)" })),
		}),
		async execute(_id, params, signal) {
			// a fraction passes the schema, and a host may skip the validation
			const last = intArg("docker_history", "last", params.last, 1, LAST_MAX, LAST_DEFAULT);
			const session = sessionArg(params.session);
			const name = session ?? s.sandbox();
			const j = await readJournal(s, last, signal, session);
			if (!j.records.length) return result(`no docker calls yet in sandbox "${name}".`, { sandbox: name, calls: j.calls, shown: 0 });
			const head =
				j.records.length < j.calls
					? `${j.calls} docker calls in sandbox "${name}"; the last ${j.records.length}:`
					: `${j.calls} docker call${j.calls === 1 ? "" : "s"} in sandbox "${name}":`;
			return result([head, ...j.records.map(line)].join("\n"), { sandbox: name, calls: j.calls, shown: j.records.length });
		},
	});
}
