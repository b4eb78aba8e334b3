/* docker_history: the session's docker calls, from sbx-run -J's journal. */
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

export async function readJournal(s: Session, last: number, signal?: AbortSignal): Promise<Journal> {
	const r = await s.program("sbx-run", ["-J", String(last), "-s", s.sandbox()], { signal, what: "reading the docker history (sbx-run -J)" });
	const [head, ...records] = jsonLines("sbx-run -J", r.stdout);
	const calls = Number(head?.calls);
	if (!Number.isInteger(calls) || calls < 0) throw new Error(`sbx-run -J: no count of calls in its output: ${r.stdout.slice(0, 200)}`);
	return { calls, records };
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
		promptSnippet: "Show the docker calls made in the session's sandbox: time, command, exit status, duration, output size",
		description:
			`Show the last docker calls made in the session's sandbox (by these tools or by hand through sbx-run), oldest first: time (UTC), exit status, duration, bytes of output and the command. last: how many (default ${LAST_DEFAULT}, at most ${LAST_MAX}).`,
		parameters: Type.Object({
			last: Type.Optional(Int(1, LAST_MAX, `how many of the latest calls to show (default ${LAST_DEFAULT})`)),
		}),
		async execute(_id, params, signal) {
			// a fraction passes the schema, and a host may skip the validation
			const last = intArg("docker_history", "last", params.last, 1, LAST_MAX, LAST_DEFAULT);
			const name = s.sandbox();
			const j = await readJournal(s, last, signal);
			if (!j.records.length) return result(`no docker calls yet in sandbox "${name}".`, { sandbox: name, calls: j.calls, shown: 0 });
			const head =
				j.records.length < j.calls
					? `${j.calls} docker calls in sandbox "${name}"; the last ${j.records.length}:`
					: `${j.calls} docker call${j.calls === 1 ? "" : "s"} in sandbox "${name}":`;
			return result([head, ...j.records.map(line)].join("\n"), { sandbox: name, calls: j.calls, shown: j.records.length });
		},
	});
}
