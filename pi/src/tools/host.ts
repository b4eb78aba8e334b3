/*
 * Status and host side: docker_status, docker_verify, docker_resources,
 * docker_curl, docker_sandbox_rm, docker_gc.
 */
import { isIP } from "node:net";
import { type ExtensionAPI, formatSize } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
import { findProgram, installHint, modeLines, PROGRAMS, sbxCli, setting } from "../config.ts";
import { describe, list, type Mapping, parseMappings } from "../ports.ts";
import type { Session } from "../session.ts";
import { EX } from "../status.ts";
import { KEEP_BYTES, type RunResult } from "../proc.ts";
import { cut, failure, logOf, ownWords, removeLogs, result, str } from "../text.ts";
import { BODY_CAP, request, timedOut } from "./curl.ts";
import { Int, intArg } from "./schema.ts";

const METHODS = ["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS"];
const BODY_MAX = 1024 * 1024;
const TIMEOUT_MAX = 600;
const HOURS_MAX = 1000000; // sbx-gc -H takes no more

function gib(bytes: unknown): string {
	const n = Number(bytes);
	return Number.isFinite(n) && n > 0 ? `${(n / 1024 ** 3).toFixed(1)} GiB` : "?";
}

function watcherLine(s: Session): string {
	if (s.lifeline && !s.lifeline.destroyed) return "teardown watcher: armed (sbx-watch, lifeline held by this pi)";
	return `teardown watcher: not armed${s.watchError ? ` (${s.watchError})` : ""}`;
}

function canonIp(ip: string): string {
	if (isIP(ip) !== 6) return ip;
	try {
		return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
	} catch {
		return ip;
	}
}

/** The URL's host, if it can name a published pair: localhost or an address literal. */
function urlHost(u: URL): string {
	if (u.username || u.password) throw new Error("docker_curl: a URL with user information (user:password@) is refused; give the host and port alone");
	const h = u.hostname.replace(/^\[(.*)\]$/, "$1");
	if (h === "localhost" || isIP(h)) return h;
	throw new Error("docker_curl: only 127.0.0.1, localhost or [::1] (the sandbox's published ports); to reach a container from inside, use docker_exec");
}

/**
 * The one pair a docker_curl URL may reach: a TCP loopback pair of this
 * sandbox's listing.  The request goes to the pair found here, never to
 * a name resolved later.
 */
export function pickPair(u: URL, listing: Mapping[]): { ip: string; port: number; note: string } {
	const h = urlHost(u);
	const pairs = listing.filter((m) => m.proto.startsWith("tcp") && m.loopback);
	const cands =
		h === "localhost"
			? [...pairs].sort((a, b) => Number(a.hostIp.includes(":")) - Number(b.hostIp.includes(":")))
			: pairs.filter((m) => canonIp(m.hostIp) === canonIp(h));
	const known = pairs.length ? describe(pairs).join("; ") : "none";
	const where = h === "localhost" ? "localhost" : u.host.replace(/:\d*$/, "");
	if (u.port) {
		const port = Number(u.port);
		const m = cands.find((c) => c.hostPort === port);
		if (!m) throw new Error(`docker_curl: port ${port} is not published by this sandbox at ${where}. Published: ${known}. Start a container with docker_run(ports=[...]).`);
		return { ip: canonIp(m.hostIp), port, note: "" };
	}
	const dflt = u.protocol === "https:" ? 443 : 80;
	const m = cands.find((c) => c.hostPort === dflt);
	if (m) return { ip: canonIp(m.hostIp), port: dflt, note: "" };
	const ports = [...new Set(cands.map((c) => c.hostPort))];
	if (ports.length === 1) {
		const only = cands[0];
		return { ip: canonIp(only.hostIp), port: only.hostPort, note: `(no port in the URL: used the sandbox's only published port, ${only.hostPort})\n` };
	}
	throw new Error(
		`docker_curl: port ${dflt} (the ${u.protocol.slice(0, -1)} default; the URL gives none) is not published by this sandbox at ${where}. Published: ${known}. Start a container with docker_run(ports=[...]).`,
	);
}

/** What to do about a failure, from the extension's or a program's own words, never a command's. */
function diagnose(text: string): string {
	if (/MissingProgram|was not found in DOCKER_SANDBOX_BIN/.test(text)) return `fix: ${installHint()}`;
	if (/not authenticated|not signed in|not logged in|login required/i.test(text)) return `fix: sign in to Docker with \`${sbxCli()} login\`, then call docker_status again.`;
	if (/No such file or directory|not found \(exit 127\)|command not found/i.test(text))
		return `fix: the sbx CLI (Docker Sandboxes) was not found at ${sbxCli()}: install it, or set DOCKER_SANDBOX_SBX to its path.`;
	if (/DOCKER_SANDBOX: /.test(text)) return "fix: unset DOCKER_SANDBOX, or set it to a name the programs take (the line above says what they want).";
	if (/timed out/.test(text)) return `fix: sbx did not answer in time; \`${sbxCli()} ls\` shows whether its daemon runs.`;
	return `fix: run \`${sbxCli()} ls\` in a terminal to see what sbx says; docker_verify audits the sandbox once it runs.`;
}

/** Advice for a failed sbx-run call: from its words only when the status is its own, else from sbxSaid. */
function advise(r: RunResult, sbxSaid: string): string {
	if (r.own === false) {
		if (sbxSaid) return diagnose(sbxSaid);
		return "fix: docker inside the sandbox failed, or sbx could not run it (the lines above say which; they may be the sandbox's own); docker_verify audits the sandbox, docker_sandbox_rm makes a fresh one.";
	}
	const words = ownWords(r);
	if (!words) return `fix: sbx-run ended with exit ${r.code} and said nothing of its own; run \`${sbxCli()} ls\` in a terminal to see what sbx says.`;
	return diagnose(r.code === EX.NOTFOUND ? `${words} (exit 127)` : words);
}

async function status(s: Session, signal: AbortSignal | undefined) {
	const missing = PROGRAMS.filter((p) => !findProgram(p));
	if (missing.includes("sbx-run")) {
		const text = [`sandbox: none (the sbx-tools programs are missing: ${missing.join(", ")})`, `workspace: ${s.root}`, installHint(), ...modeLines()].join("\n");
		return result(text, { provisioned: false, missing });
	}
	const name = s.sandbox();
	const head = [`sandbox: ${name}`, `workspace: ${s.root}`];
	if (missing.length) head.push(`missing programs: ${missing.join(", ")}. ${installHint()}`);
	const notYet = () =>
		result([...head, "state: not provisioned yet (the first docker_* call creates it)", ...modeLines(), watcherLine(s)].join("\n"), {
			sandbox: name,
			provisioned: false,
		});
	// 69: sbx awaits its daemon restart (lib/sbxcli.h: SBX_RESTART_FIX), which nothing here runs
	const restart = () =>
		result(
			[
				...head,
				"state: unknown: sbx was upgraded and waits for its daemon to restart; no docker_* call can run until then",
				`fix: ask the user to run \`${sbxCli()} daemon restart\` (or \`${sbxCli()} ls\` in a terminal, and confirm): it stops every sandbox, this one and those of other sessions too, so nothing here runs it for them; then call docker_status again.`,
				...modeLines(),
				watcherLine(s),
			].join("\n"),
			{ sandbox: name, provisioned: false, restart: true },
		);
	// sbx-ports first: its 68 means no sandbox, and it never creates one
	let ports = "";
	let sbxSaid = "";
	if (findProgram("sbx-ports")) {
		const p = await s.ports(["ls"], { signal, what: "sbx-ports ls", allowFail: true });
		if (p.code === EX.NOSANDBOX && p.own) return notYet();
		if (p.code === EX.RESTART && p.own) return restart();
		try {
			if (p.code !== EX.OK) {
				sbxSaid = p.stderr.trim();
				throw new Error(`sbx-ports exit ${p.code}: ${sbxSaid}`);
			}
			const ms = parseMappings(p.stdout);
			ports = ms.length ? `host ports: ${describe(ms).join("; ")}` : "host ports: none";
		} catch (e) {
			ports = `host ports: unknown (${(e as Error).message.split("\n")[0]})`;
		}
	}
	const r = await s.docker(["info", "--format", "{{json .}}"], {
		signal,
		what: "docker info",
		env: { ...process.env, DOCKER_SANDBOX_AUTOCREATE: "0" },
		allowFail: true,
	});
	// docker info's own status may be any number
	if (r.code === EX.NOSANDBOX && r.own) return notYet();
	if (r.code === EX.RESTART && r.own) return restart();
	if (r.code !== EX.OK) {
		const why = failure("docker info", r).message;
		return result([...head, `state: unknown: ${why}`, advise(r, sbxSaid), ...modeLines(), watcherLine(s)].join("\n"), {
			sandbox: name,
			provisioned: false,
			problem: why.split("\n")[0],
		});
	}
	let info: Record<string, unknown> = {};
	try {
		info = JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as Record<string, unknown>;
	} catch {
	}
	const lines = [
		...head,
		"state: running",
		`daemon: docker ${str(info.ServerVersion) || "?"} (${str(info.OSType) || "?"}-${str(info.Architecture) || "?"}), pinned to unix:///var/run/docker.sock in the sandbox`,
		`resources: ${str(info.NCPU) || "?"} CPUs, ${gib(info.MemTotal)} memory`,
		`containers: ${str(info.Containers) || "0"} (${str(info.ContainersRunning) || "0"} running), images: ${str(info.Images) || "0"}`,
	];
	if (ports) lines.push(ports);
	lines.push(...modeLines(), watcherLine(s), "containers made by docker_run and docker_compose carry the label com.pi.sandbox=true");
	return result(lines.join("\n"), { sandbox: name, provisioned: true });
}

export function registerHostTools(pi: ExtensionAPI, s: Session): void {
	pi.registerTool({
		name: "docker_status",
		label: "Docker sandbox status",
		promptSnippet: "Show the session's private docker sandbox: state, daemon, host ports, modes",
		description: "Show the session's sandbox: name, whether it exists yet, its docker daemon, counts, host ports and the modes in force. Does not create the sandbox.",
		parameters: Type.Object({}),
		async execute(_id, _params, signal) {
			try {
				return await status(s, signal);
			} catch (e) {
				const why = (e as Error).message;
				return result([`sandbox: unknown (${why.split("\n")[0]})`, `workspace: ${s.root}`, ...why.split("\n").slice(1), diagnose(why), ...modeLines()].join("\n"), {
					sandbox: s.name,
					provisioned: false,
					problem: why.split("\n")[0],
				});
			}
		},
	});

	pi.registerTool({
		name: "docker_verify",
		label: "Docker sandbox audit",
		promptSnippet: "Audit the docker sandbox's isolation (PASS/FAIL per check)",
		description:
			"Audit the sandbox's isolation live (sbx-verify): transport, environment scrubbing and forwarding, daemon pinning, mounts, contexts, host sockets, port bindings, read-only workspace, teardown, the host's SSH agent, sbx's MCP gateway, and whether sbx still holds each of the session's network rules. One PASS/FAIL line per check.",
		parameters: Type.Object({}),
		async execute(_id, _params, signal) {
			const name = s.sandbox();
			await s.docker(["version", "--format", "{{.Server.Version}}"], { signal, what: "docker version" });
			const r = await s.program("sbx-verify", ["-s", name], { signal, what: "sbx-verify", allowFail: true });
			if (r.code !== EX.OK && r.code !== EX.FAIL) throw failure("sbx-verify", r);
			const out = r.stdout.trim();
			const count = (w: string) => out.split("\n").filter((l) => l.startsWith(`${w} `)).length;
			const [passed, fails, skipped] = [count("PASS"), count("FAIL"), count("SKIP")];
			const tally = `${passed} passed, ${fails} failed${skipped ? `, ${skipped} skipped (not applicable in this mode)` : ""}`;
			const footer = r.code === EX.OK ? `All isolation checks passed (${tally}).` : `${tally}: do not rely on this sandbox until the failures are resolved.`;
			const warn = r.stderr.trim() ? `\n${r.stderr.trim()}` : "";
			return result(`Isolation audit for sandbox "${name}"\n${out}${warn}\n${footer}`, { sandbox: name, ok: r.code === EX.OK, passed, failed: fails, skipped });
		},
	});

	pi.registerTool({
		name: "docker_resources",
		label: "Docker sandbox resources",
		promptSnippet: "Show the docker sandbox VM's memory, CPU and disk use",
		description: "Show the sandbox VM's memory, CPUs and disk, docker's disk use and each running container's CPU and memory, with warnings when something runs low.",
		parameters: Type.Object({}),
		async execute(_id, _params, signal) {
			const vm = await s.exec(["sh", "-c", "free -m; echo @@; nproc; echo @@; df -h /"], { signal, what: "sandbox resources" });
			const [free = "", cpus = "", df = ""] = vm.stdout.split("@@\n");
			const lines: string[] = [];
			const warnings: string[] = [];
			const mem = free.split("\n").find((l) => /^Mem:/.test(l))?.trim().split(/\s+/);
			if (mem && mem.length >= 4) {
				const total = Number(mem[1]);
				const used = Number(mem[2]);
				const avail = Number(mem[6] ?? mem[3]);
				const pct = total > 0 ? Math.round(((total - avail) / total) * 100) : 0;
				lines.push(`VM memory: ${used} MiB used / ${total} MiB (${pct}%, ${avail} MiB available)`);
				if (pct > 85) warnings.push(`memory ${pct}% used: stop or remove containers (docker_stop / docker_rm), or cap them with docker_run(memory=...)`);
			}
			if (cpus.trim()) lines.push(`VM CPUs: ${cpus.trim()}`);
			const disk = df.trim().split("\n")[1]?.trim().split(/\s+/);
			if (disk && disk.length >= 5) {
				lines.push(`VM disk: ${disk[2]} used / ${disk[1]} (${disk[4]})`);
				if (Number.parseInt(disk[4], 10) > 85) warnings.push(`disk ${disk[4]} used: docker_prune reclaims images and build cache`);
			}
			const sdf = await s.docker(["system", "df"], { signal, what: "docker system df", allowFail: true });
			lines.push("", "docker disk:", sdf.code === EX.OK ? sdf.stdout.trimEnd() : `  unavailable: ${sdf.stderr.trim().split("\n")[0]}`);
			const st = await s.docker(["stats", "--no-stream", "--format", "{{.Name}}\t{{.CPUPerc}}\t{{.MemUsage}}\t{{.MemPerc}}"], {
				signal,
				what: "docker stats",
				allowFail: true,
			});
			const rows = st.code === EX.OK ? st.stdout.trim() : `unavailable: ${st.stderr.trim().split("\n")[0]}`;
			lines.push("", "running containers (name, cpu, mem, mem%):", rows || "  (none)");
			lines.push(
				"",
				warnings.length
					? `WARNINGS:\n${warnings.map((w) => `  - ${w}`).join("\n")}\n  (or raise DOCKER_SANDBOX_CPUS / DOCKER_SANDBOX_MEMORY and recreate with docker_sandbox_rm)`
					: "No resource warnings. docker_prune reclaims space.",
			);
			return result(lines.join("\n"), { sandbox: s.name, warnings });
		},
	});

	pi.registerTool({
		name: "docker_curl",
		label: "Docker curl",
		promptSnippet: "HTTP(S) request to a port the docker sandbox publishes on the host",
		promptGuidelines: ["To reach a service a container publishes, use the URL that docker_run or docker_compose returned with docker_curl; containers are not on localhost otherwise."],
		description:
			"HTTP(S) request from the host to a port the sandbox publishes (http://127.0.0.1:PORT/..., as docker_run and docker_compose report). " +
			"The address and port must be a pair the sandbox publishes (localhost: the published pair with that port). " +
			"Without a port: the scheme's port if published, else the only published port. Redirects are not followed. HTTPS certificates are not verified (local services). " +
			"A body the answer cuts is in the file the answer names (read it with the read tool when you need more).",
		parameters: Type.Object({
			url: Type.String({ description: "e.g. http://127.0.0.1:8080/health" }),
			timeoutSec: Type.Optional(Int(1, TIMEOUT_MAX, "seconds (default 10)")),
			method: Type.Optional(Type.String({ description: "GET (default), POST, PUT, DELETE, HEAD, PATCH or OPTIONS" })),
			body: Type.Optional(Type.String({ description: "request body (JSON is sent as application/json)" })),
		}),
		async execute(_id, params, signal) {
			let u: URL;
			try {
				u = new URL(params.url.trim());
			} catch {
				throw new Error(`docker_curl: invalid URL "${params.url}" (use e.g. http://127.0.0.1:8080/health)`);
			}
			if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`docker_curl: only http and https URLs, not ${u.protocol}`);
			urlHost(u);
			const method = (params.method ?? "GET").trim().toUpperCase();
			if (!METHODS.includes(method)) throw new Error(`docker_curl: unsupported method "${params.method}" (${METHODS.join(", ")})`);
			const body = params.body;
			if (body !== undefined && Buffer.byteLength(body) > BODY_MAX) throw new Error(`docker_curl: body exceeds ${BODY_MAX} bytes`);

			const seconds = intArg("docker_curl", "timeoutSec", params.timeoutSec, 1, TIMEOUT_MAX, 10);
			const deadline = Date.now() + seconds * 1000;
			// the listing is part of the call, and of its deadline
			const bounded = AbortSignal.any([AbortSignal.timeout(seconds * 1000), ...(signal ? [signal] : [])]);
			const published = await list(s, bounded).catch((e: Error) => {
				if (signal?.aborted || !bounded.aborted) throw e;
				throw new Error(`docker_curl: listing the sandbox's ports ${timedOut(seconds)}`);
			});
			const { ip: host, port, note } = pickPair(u, published);
			const headers: Record<string, string> = { accept: "*/*", "user-agent": "sbx-tools-pi/1" };
			if (body !== undefined) {
				let json = false;
				try {
					JSON.parse(body);
					json = true;
				} catch {
				}
				headers["content-type"] = json ? "application/json" : "text/plain; charset=utf-8";
				headers["content-length"] = String(Buffer.byteLength(body));
			}
			const res = await request({ url: u, ip: host, port, method, headers, body, signal, deadline, seconds });
			const moved = res.location ? `\nlocation: ${res.location} (not followed: docker_curl makes one request)` : "";
			const head = `${note}HTTP ${res.status} ${res.statusText}${res.ct ? `\ncontent-type: ${res.ct}` : ""}${moved}`;
			const capped = res.cut ? `\n[body cut at ${BODY_CAP / 1024 / 1024} MiB: docker_curl reads no more of it]` : "";
			const shown = res.text || "(empty response body)";
			// a body the answer cuts goes whole to a log the head names
			const log = cut(`${head}${capped}\n\n${shown}`, "head").truncated ? logOf({ code: 0, stdout: shown, stderr: "", output: shown, dropped: 0, log: s.logSink("curl") }) : undefined;
			const size = Buffer.byteLength(shown);
			const kept = size > KEEP_BYTES ? `its last ${formatSize(KEEP_BYTES)}` : "the body as read";
			const says = log ? `\n[${kept} (${formatSize(size)}) is in ${log}: read it with the read tool]` : "";
			return result(`${head}${capped}${says}\n\n${shown}`, { sandbox: s.name, status: res.status, cut: res.cut, fullOutputPath: log }, "head");
		},
	});

	pi.registerTool({
		name: "docker_sandbox_rm",
		label: "Docker sandbox rm",
		promptSnippet: "Delete the session's docker sandbox and everything in it",
		description:
			"Delete the session's sandbox microVM and everything in it (containers, images, volumes). The next docker_* call creates a fresh one under the same name.",
		parameters: Type.Object({}),
		async execute(_id, _params, signal) {
			const name = s.sandbox();
			const r = await s.program("sbx-watch", ["-n", "-m", "remove", name], { signal, what: `removing sandbox "${name}"`, allowFail: true });
			if (r.code === EX.NOSANDBOX) return result(`sandbox "${name}" does not exist: nothing to remove.`, { sandbox: name });
			if (r.code === EX.NOTOURS)
				return result(
					`sandbox "${name}" was not made by these tools (made by hand, or pinned with DOCKER_SANDBOX), so it was not removed; ` +
						`it and everything in it are as they were. To delete it, run \`${sbxCli()} rm ${name}\` yourself.`,
					{ sandbox: name, removed: false, ours: false },
				);
			if (r.code !== EX.OK) throw failure(`removing sandbox "${name}"`, r);
			removeLogs(s.logs);
			return result(`sandbox "${name}" removed (microVM and everything inside it deleted).`, { sandbox: name });
		},
	});

	pi.registerTool({
		name: "docker_gc",
		label: "Docker sandbox GC",
		promptSnippet: "Remove stale docker sandboxes of dead sessions",
		description:
			"Remove stale sandboxes of dead sessions (sbx-gc): stopped pi-sbx-* sandboxes whose owner is gone and that were idle for at least `hours` (0: any age). Never this session's, a running one or one whose owner lives.",
		parameters: Type.Object({ hours: Type.Optional(Int(0, HOURS_MAX, "minimum idle age in hours (default 24; 0 = any age)")) }),
		async execute(_id, params, signal) {
			const name = s.sandbox();
			// whole hours, rounded up, so a fraction never means "any age"
			const given = params.hours === undefined ? undefined : intArg("docker_gc", "hours", params.hours, 0, HOURS_MAX, 0);
			const hours = given ?? Math.min(HOURS_MAX, Math.ceil(Number(setting("DOCKER_SANDBOX_GC_HOURS"))));
			const r = await s.program("sbx-gc", ["-v", "-H", String(hours), "-x", name], { signal, what: "sbx-gc", allowFail: true });
			if (r.code === EX.BUSY) return result("gc: another sbx-gc is running; try again later.", { sandbox: name });
			if (r.code !== EX.OK) throw failure("sbx-gc", r);
			return result(`gc sweep (idle >= ${hours} h, pi-sbx-* only, stopped and ownerless only):\n${r.stdout.trim() || "nothing to do"}`, { sandbox: name });
		},
	});
}
