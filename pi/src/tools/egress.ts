/*
 * docker_egress: what the session's sandbox may reach, read-only: the
 * rules sbx holds for it and the hosts sbx blocked, from sbx-ports -j.
 * Widening is the user's alone (/docker allow), never a tool's.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
import type { Session } from "../session.ts";
import { jsonLines, result, str } from "../text.ts";

export interface Rule {
	decision: string;
	resource: string;
	active: boolean;
	session: boolean;
	held: boolean;
}

export interface Denial {
	host: string;
	reason: string;
	count: number;
	lastSeen: string | null;
}

export async function readRules(s: Session, signal?: AbortSignal): Promise<Rule[]> {
	const r = await s.ports(["rules"], { signal, what: "sbx-ports rules" });
	return jsonLines("sbx-ports -j rules", r.stdout).map((o) => ({
		decision: str(o.decision),
		resource: str(o.resource),
		active: o.active === true,
		session: o.session === true,
		held: o.held !== false,
	}));
}

export async function readBlocked(s: Session, signal?: AbortSignal): Promise<Denial[]> {
	const r = await s.ports(["blocked"], { signal, what: "sbx-ports blocked" });
	return jsonLines("sbx-ports -j blocked", r.stdout).map((o) => ({
		host: str(o.host),
		reason: str(o.reason),
		count: Number(o.count) || 0,
		lastSeen: typeof o.last_seen === "string" ? o.last_seen : null,
	}));
}

function ruleLine(r: Rule): string {
	const notes = [r.session ? "this session's" : "", !r.held ? "lost: sbx dropped it" : !r.active ? "inactive" : ""].filter(Boolean);
	return `  ${r.decision} ${r.resource}${notes.length ? ` (${notes.join(", ")})` : ""}`;
}

export function registerEgressTool(pi: ExtensionAPI, s: Session): void {
	pi.registerTool({
		name: "docker_egress",
		label: "Docker egress",
		promptSnippet: "Show what the session's sandbox may reach on the network, and the hosts sbx blocked",
		description:
			"Show the network rules sbx holds for the session's sandbox (allow and deny, per host) and the hosts sbx recently blocked for it, with sbx's reason. Read-only: no tool changes the rules. When a host you need is blocked, ask the user; they can allow it with /docker allow HOST.",
		parameters: Type.Object({}),
		async execute(_id, _params, signal) {
			const name = s.sandbox();
			const rules = await readRules(s, signal);
			const blocked = await readBlocked(s, signal);
			const lines = [`sandbox "${name}": ${rules.length ? `${rules.length} network rule${rules.length === 1 ? "" : "s"} of its own:` : "no network rules of its own (sbx's global policy decides)."}`];
			lines.push(...rules.map(ruleLine));
			if (blocked.length) {
				lines.push("hosts sbx blocked for it:");
				for (const b of blocked) lines.push(`  ${b.host}: ${b.reason} (${b.count} time${b.count === 1 ? "" : "s"}${b.lastSeen ? `, last ${b.lastSeen}` : ""})`);
				lines.push("You cannot change the rules. If one of these hosts is needed, ask the user: they can allow it with /docker allow HOST.");
			} else lines.push("no hosts blocked in sbx's log for it.");
			return result(lines.join("\n"), { sandbox: name, rules: rules.length, blocked: blocked.map((b) => b.host) });
		},
	});
}
