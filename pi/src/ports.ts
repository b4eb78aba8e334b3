/*
 * Host ports: sbx-ports does the work (`sync` after every run, rm, stop,
 * start and compose); this reads what it prints with -j, one object a line.
 */
import { Cancelled } from "./proc.ts";
import type { Session } from "./session.ts";
import { jsonLines, str } from "./text.ts";

export interface Mapping {
	hostIp: string;
	hostPort: number;
	sandboxPort: number;
	proto: string;
	url: string;
}

function num(v: unknown): number {
	const n = typeof v === "number" ? v : Number(str(v));
	return Number.isFinite(n) ? n : 0;
}

function pick(o: Record<string, unknown>, ...keys: string[]): unknown {
	for (const k of keys) if (o[k] !== undefined && o[k] !== null) return o[k];
	return undefined;
}

/** sbx-ports -j lines as mappings; lines that are not mappings (warnings, errors) are skipped. */
export function parseMappings(text: string): Mapping[] {
	const out: Mapping[] = [];
	let rows: Record<string, unknown>[];
	try {
		rows = jsonLines("sbx-ports", text);
	} catch {
		rows = [];
	}
	for (const o of rows) {
		const hostPort = num(pick(o, "host_port", "hostPort", "HostPort", "host"));
		const sandboxPort = num(pick(o, "sandbox_port", "sandboxPort", "SandboxPort", "sandbox", "vm_port"));
		if (!hostPort || !sandboxPort) continue;
		const proto = str(pick(o, "protocol", "proto", "Protocol") ?? "tcp").toLowerCase() || "tcp";
		const hostIp = str(pick(o, "host_ip", "hostIp", "HostIp", "ip") ?? "127.0.0.1") || "127.0.0.1";
		const host = hostIp.includes(":") ? `[${hostIp}]` : hostIp;
		const url = str(pick(o, "url", "URL")) || (proto === "tcp" ? `http://${host}:${hostPort}/` : `${proto}://${host}:${hostPort}`);
		out.push({ hostIp, hostPort, sandboxPort, proto, url });
	}
	return out;
}

/** One line per host port, IPv4 and IPv6 bindings of the same port folded together. */
export function describe(ms: Mapping[]): string[] {
	const seen = new Map<string, Mapping[]>();
	for (const m of ms) {
		const k = `${m.hostPort}/${m.proto}`;
		seen.set(k, [...(seen.get(k) ?? []), m]);
	}
	const lines: string[] = [];
	for (const group of seen.values()) {
		const v4 = group.find((m) => !m.hostIp.includes(":")) ?? group[0];
		const also = group.filter((m) => m !== v4).map((m) => m.hostIp);
		lines.push(`${v4.url} -> sandbox port ${v4.sandboxPort}/${v4.proto}${also.length ? ` (also on ${also.join(", ")})` : ""}`);
	}
	return lines;
}

/** Bring the host ports in line with the running containers; returns the mappings now published. */
export async function sync(s: Session, signal: AbortSignal | undefined): Promise<{ mappings: Mapping[]; note?: string }> {
	let r;
	try {
		r = await s.ports(["sync"], { signal, what: "sbx-ports sync", allowFail: true });
	} catch (e) {
		// the docker side is done; say why the host side is not (a missing sbx-ports, say)
		if (e instanceof Cancelled) throw e;
		return { mappings: [], note: `host ports not synced: ${(e as Error).message}` };
	}
	const mappings = parseMappings(r.stdout);
	if (r.code !== 0) return { mappings, note: `host ports not fully synced (sbx-ports exit ${r.code}): ${r.stderr.trim().slice(0, 600)}` };
	return { mappings };
}

/** The published host ports, without changing anything. */
export async function list(s: Session, signal: AbortSignal | undefined): Promise<Mapping[]> {
	const r = await s.ports(["ls"], { signal, what: "sbx-ports ls" });
	return parseMappings(r.stdout);
}

/** `docker port` lines ("8000/tcp -> 0.0.0.0:8080") as the sandbox-side ports "8080/tcp". */
export function vmPorts(text: string): Set<string> {
	const out = new Set<string>();
	for (const l of text.split("\n")) {
		const m = /^(\d+)\/(tcp|udp|sctp)\s*->\s*(?:\[[^\]]*\]|[^:\s]*):(\d+)\s*$/.exec(l.trim());
		if (m) out.add(`${m[3]}/${m[2]}`);
	}
	return out;
}
