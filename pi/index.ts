/*
 * sbx-tools for pi: the agent's docker_* tools, each a thin wrapper that
 * spawns one of the sbx-tools programs (sbx-run, sbx-ports, sbx-verify,
 * sbx-gc, sbx-env) with an argument vector.  The agent gets a private
 * docker daemon in its session's Docker Sandboxes microVM; the host's
 * daemon is never touched.  Teardown is sbx-watch's: it holds the other
 * end of a pipe this process keeps open for the session.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { findProgram, installHint, modeLines, PROGRAMS, refusal } from "./src/config.ts";
import { Session } from "./src/session.ts";
import { EX } from "./src/status.ts";
import { registerContainerTools } from "./src/tools/containers.ts";
import { registerEgressTool } from "./src/tools/egress.ts";
import { readJournal, readSessions, registerHistoryTool, type SessionRecord } from "./src/tools/history.ts";
import { registerHostTools } from "./src/tools/host.ts";
import { registerProjectTools } from "./src/tools/project.ts";
import { findingsText, markSeen, SHOWN_MAX, unseen } from "./src/tripwire.ts";

export const TOOLS = [
	"docker_status",
	"docker_verify",
	"docker_resources",
	"docker_prune",
	"docker_ps",
	"docker_images",
	"docker_pull",
	"docker_run",
	"docker_logs",
	"docker_exec",
	"docker_build",
	"docker_stop",
	"docker_start",
	"docker_rm",
	"docker_init",
	"docker_compose",
	"docker_curl",
	"docker_sandbox_rm",
	"docker_gc",
	"docker_history",
	"docker_egress",
] as const;

function missingPrograms(): string[] {
	return PROGRAMS.filter((p) => !findProgram(p));
}

type ToolDef = Parameters<ExtensionAPI["registerTool"]>[0];

/**
 * pi as the tools see it: each tool refuses before it does anything
 * while refusal() holds (this package or DOCKER_SANDBOX_BIN lies where
 * the sandbox can write), docker_init included, though it runs nothing:
 * the code that would write the files is the workspace's.  A host that
 * fired no session_start names the session's directory in the tool's
 * context; the guards use it, never pi's own working directory.
 */
function guarded(pi: ExtensionAPI, s: Session): ExtensionAPI {
	const api = Object.create(pi) as ExtensionAPI;
	api.registerTool = ((def: ToolDef) =>
		pi.registerTool({
			...def,
			async execute(...a: Parameters<ToolDef["execute"]>) {
				s.begin(a[4]?.cwd);
				if (!s.started) throw new Error("docker sandbox: the session has not started: its directory is not known yet");
				const why = refusal();
				if (why) throw new Error(why);
				return def.execute(...a);
			},
		})) as ExtensionAPI["registerTool"];
	return api;
}

/**
 * /docker allow|deny HOST...: the user's own rules for the session's
 * sandbox, through sbx-ports; a command, so never the agent's.
 */
async function ruleCommand(s: Session, words: string[], ctx: ExtensionContext): Promise<void> {
	const [verb, ...hosts] = words;
	if ((verb !== "allow" && verb !== "deny") || !hosts.length) {
		ctx.ui.notify("usage: /docker [allow HOST... | deny HOST...]", "warning");
		return;
	}
	try {
		const r = await s.ports([verb, ...hosts], { what: `sbx-ports ${verb}`, allowFail: true });
		const said = r.stderr.trim();
		if (r.code === EX.OK) ctx.ui.notify(`docker sandbox: ${verb === "allow" ? "allowed" : "denied"} ${hosts.join(", ")} for sandbox ${s.sandbox()}${said ? `\n${said}` : ""}`, "info");
		else ctx.ui.notify(`docker sandbox: sbx-ports ${verb} failed (exit ${r.code}): ${said || "no message"}`, "error");
	} catch (e) {
		ctx.ui.notify(`docker sandbox: ${(e as Error).message}`, "error");
	}
}

const SESSIONS_SHOWN = 5;

/** The project's last sessions, from their kept records: one line each. */
async function lastSessions(s: Session): Promise<string[]> {
	let all: SessionRecord[];
	try {
		all = await readSessions(s);
	} catch (e) {
		return [`last sessions here: unknown (${(e as Error).message.split("\n")[0]})`];
	}
	const here = all.filter((r) => r.workspace === s.root).slice(-SESSIONS_SHOWN);
	if (!here.length) return ["last sessions here: none recorded"];
	const t = (v: string | null) => (v ? v.replace(/\.\d+Z$/, "Z") : "?");
	return [
		`last sessions here (docker_history with session NAME reads one):`,
		...here.map((r) => `  ${r.name}  ${t(r.start)} to ${r.live && !r.end ? "now" : t(r.end)}  ${r.calls} call${r.calls === 1 ? "" : "s"}, ${r.failures} failed`),
	];
}

export default function sbxTools(pi: ExtensionAPI): void {
	const s = new Session();
	const tools = guarded(pi, s);

	registerHostTools(tools, s);
	registerContainerTools(tools, s);
	registerProjectTools(tools, s);
	registerHistoryTool(tools, s);
	registerEgressTool(tools, s);

	pi.registerCommand("docker", {
		description: "Show the docker sandbox of this session: name, docker calls made, workspace, modes, tools and the project's last sessions; /docker allow HOST... or /docker deny HOST... changes what it may reach",
		handler: async (args: string, ctx: ExtensionContext) => {
			s.begin(ctx.cwd);
			const words = args.trim().split(/\s+/).filter(Boolean);
			if (words.length) {
				await ruleCommand(s, words, ctx);
				return;
			}
			const missing = missingPrograms();
			let name: string;
			try {
				name = s.sandbox();
			} catch (e) {
				name = `none (${(e as Error).message})`;
			}
			let calls = "none";
			if (s.name) {
				try {
					const n = (await readJournal(s, 0)).calls;
					calls = `${n} made through sbx-run${n ? " (docker_history shows them)" : ""}`;
				} catch (e) {
					calls = `unknown (${(e as Error).message.split("\n")[0]})`;
				}
			}
			const lines = [
				`docker sandbox: ${name}`,
				`docker calls: ${calls}`,
				`workspace: ${s.root} (seen as /workspace by the tools)`,
				...modeLines(),
				s.lifeline && !s.lifeline.destroyed ? "teardown watcher: armed" : `teardown watcher: not armed${s.watchError ? ` (${s.watchError})` : ""}`,
				`programs: ${missing.length ? `missing ${missing.join(", ")}. ${installHint()}` : `all found (${PROGRAMS.join(", ")})`}`,
				`tools (${TOOLS.length}): ${TOOLS.join(", ")}`,
				...(missing.includes("sbx-run") ? [] : await lastSessions(s)),
			];
			ctx.ui.notify(lines.join("\n"), missing.length ? "warning" : "info");
		},
	});

	pi.on("session_start", async (_event, ctx) => {
		// the first program runs here, once the session's directory is known
		s.begin(ctx.cwd);
		const missing = missingPrograms();
		if (missing.length) {
			if (ctx.hasUI) ctx.ui.notify(`docker sandbox: missing ${missing.join(", ")}. ${installHint()}`, "warning");
		}
		// what an earlier session left here for the host to run: seen once shown
		if (ctx.hasUI && !refusal()) {
			try {
				const found = await unseen(s);
				if (found.length) {
					ctx.ui.notify(findingsText(found, "start"), "warning");
					await markSeen(s, found.slice(0, SHOWN_MAX).map((f) => f.id));
				}
			} catch (e) {
				ctx.ui.notify(`docker sandbox: the tripwire's findings could not be read: ${(e as Error).message}`, "warning");
			}
		}
		if (missing.includes("sbx-watch")) return;
		try {
			await s.arm();
		} catch (e) {
			if (ctx.hasUI) ctx.ui.notify(`docker sandbox: ${(e as Error).message}`, "error");
			return;
		}
		try {
			s.startPrewarm();
		} catch (e) {
			if (ctx.hasUI) ctx.ui.notify(`docker sandbox: not provisioned ahead: ${(e as Error).message}`, "warning");
		}
		try {
			s.startGc();
		} catch (e) {
			if (ctx.hasUI) ctx.ui.notify(`docker sandbox: gc not started: ${(e as Error).message}`, "warning");
		}
	});

	pi.on("session_shutdown", async (event, ctx) => {
		// /reload keeps the session, so it keeps the sandbox; anything else ends it
		if (event.reason === "reload") return s.handOver();
		// the session's findings, before its end: the next start shows them again
		if (ctx.hasUI && s.name && !s.ended && !refusal()) {
			try {
				const found = (await unseen(s, s.name)).filter((f) => f.sandbox === s.name);
				if (found.length) ctx.ui.notify(findingsText(found, "end"), "warning");
			} catch {
				// the next start says it
			}
		}
		s.release();
	});
}
