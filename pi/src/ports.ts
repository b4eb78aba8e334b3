/* Host ports: sbx-ports does the work; this reads its -j lines (sbx-ports(1), JSON OUTPUT). */
import { Cancelled } from "./proc.ts";
import type { Session } from "./session.ts";
import { EX } from "./status.ts";

export interface Mapping {
	hostIp: string;
	hostPort: number;
	sandboxPort: number;
	proto: string;
	url: string;
	/** bound to the host's loopback, as sbx-ports says */
	loopback: boolean;
	/** sync only: the container publishing sandboxPort */
	containerId?: string;
	container?: string;
}

type Kind = "string" | "port" | "boolean";
const SCHEMA: [string, Kind, boolean][] = [
	["url", "string", true],
	["host_ip", "string", true],
	["host_port", "port", true],
	["sandbox_port", "port", true],
	["protocol", "string", true],
	["ephemeral", "boolean", false],
	["reason", "string", false],
	["loopback", "boolean", false],
	["container_id", "string", false],
	["container", "string", false],
];

function fits(v: unknown, k: Kind): boolean {
	if (k === "port") return Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65535;
	return typeof v === k;
}

function mapping(line: string): Mapping {
	const bad = (why: string) => new Error(`sbx-ports -j: ${why}: ${line.slice(0, 200)}`);
	let o: unknown;
	try {
		o = JSON.parse(line);
	} catch {
		throw bad("not JSON");
	}
	if (!o || typeof o !== "object" || Array.isArray(o)) throw bad("not an object");
	const r = o as Record<string, unknown>;
	for (const k of Object.keys(r)) if (!SCHEMA.some(([n]) => n === k)) throw bad(`unknown member "${k}"`);
	for (const [n, kind, required] of SCHEMA) {
		if (!(n in r)) {
			if (required) throw bad(`no "${n}"`);
		} else if (!fits(r[n], kind)) throw bad(`"${n}" is not a ${kind}`);
	}
	if (!/^(tcp|udp)[46]?$/.test(r.protocol as string)) throw bad('"protocol" is not tcp, tcp4, tcp6, udp, udp4 or udp6');
	const m: Mapping = {
		hostIp: r.host_ip as string,
		hostPort: r.host_port as number,
		sandboxPort: r.sandbox_port as number,
		proto: r.protocol as string,
		url: r.url as string,
		loopback: r.loopback !== false,
	};
	if ("container_id" in r) m.containerId = r.container_id as string;
	if ("container" in r) m.container = r.container as string;
	return m;
}

export function parseMappings(text: string): Mapping[] {
	return text
		.split("\n")
		.filter((l) => l.trim())
		.map(mapping);
}

/** One container's mappings; ref as docker took it (a name, ID or prefix). */
export function ofContainer(ms: Mapping[], ref: string): Mapping[] {
	const r = ref.trim().replace(/^\//, "");
	if (!r) return [];
	return ms.filter((m) => {
		const id = m.containerId ?? "";
		if (id && (id.startsWith(r) || (r.length >= id.length && r.startsWith(id)))) return true;
		return (m.container ?? "").split(",").includes(r);
	});
}

/** One line per host port, IPv4 and IPv6 bindings folded. */
export function describe(ms: Mapping[]): string[] {
	const seen = new Map<string, Mapping[]>();
	for (const m of ms) {
		const k = `${m.hostPort}/${m.proto.slice(0, 3)}`;
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

export async function sync(s: Session, signal: AbortSignal | undefined): Promise<{ mappings: Mapping[]; note?: string }> {
	let r;
	try {
		r = await s.ports(["sync"], { signal, what: "sbx-ports sync", allowFail: true });
	} catch (e) {
		// say why the host side is not done (a missing sbx-ports, say)
		if (e instanceof Cancelled) throw e;
		return { mappings: [], note: `host ports not synced: ${(e as Error).message}` };
	}
	let mappings: Mapping[];
	try {
		mappings = parseMappings(r.stdout);
	} catch (e) {
		return { mappings: [], note: `host ports not read: ${(e as Error).message}` };
	}
	if (r.code !== EX.OK) return { mappings, note: `host ports not fully synced (sbx-ports exit ${r.code}): ${r.stderr.trim().slice(0, 600)}` };
	return { mappings };
}

export async function list(s: Session, signal: AbortSignal | undefined): Promise<Mapping[]> {
	const r = await s.ports(["ls"], { signal, what: "sbx-ports ls" });
	return parseMappings(r.stdout);
}
