/*
 * sbx-tools-mcp: the extension's tools over MCP on stdio.  This process
 * is the session: its sandbox's watcher holds a pipe it keeps, so its
 * end, however it comes (stdin closed, a signal, kill -9), is the
 * sandbox's.  Arguments are checked by pi's own validator before a tool
 * runs; a tool's failure is its answer (isError), as pi shows it.
 */
import { validateToolArguments } from "@mariozechner/pi-ai";
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { fileURLToPath } from "node:url";
import { hostExtension, type Notify, type ToolDef } from "./host.ts";

/** Calls running at once; past it a call is refused, not queued. */
export const MAX_CALLS = 8;
/** How long the client may take to list its roots. */
const ROOTS_MS = 10000;
/** How long the session's end waits for its calls to answer (sbx-run ends what it started: 15 s, killed at 20 s). */
const DRAIN_MS = 25000;
/** JSON-RPC's range for a server's own errors: too many calls. */
const BUSY = -32000;

/** A tool as tools/list gives it: the schema pi is given, as JSON. */
export function listed(def: ToolDef): { name: string; title: string; description: string; inputSchema: { type: "object"; [k: string]: unknown } } {
	return { name: def.name, title: def.label, description: def.description, inputSchema: JSON.parse(JSON.stringify(def.parameters)) };
}

export interface Options {
	/** --workspace, else the working directory: used when the client offers no root */
	workspace: string;
	version: string;
}

export async function serve(o: Options): Promise<void> {
	const ext = hostExtension();
	const byName = new Map(ext.tools.map((d) => [d.name, d]));
	// what pi adds to the system prompt for these tools, as the server's instructions
	const instructions = ext.tools.flatMap((d) => d.promptGuidelines ?? []).join("\n") || undefined;
	const server = new Server({ name: "sbx-tools-mcp", version: o.version }, { capabilities: { tools: {}, logging: {} }, instructions });
	const transport = new StdioServerTransport();
	let ended = false;
	let running = 0;
	let drained: (() => void) | undefined;
	let ctx: ExtensionContext | undefined;
	let ready!: (c: ExtensionContext) => void;
	const started = new Promise<ExtensionContext>((r) => {
		ready = r;
	});

	const notify: Notify = (text, level) => {
		process.stderr.write(`sbx-tools-mcp: ${text}\n`);
		server.sendLoggingMessage({ level, logger: "sbx-tools", data: text }).catch(() => {});
	};

	/** The client's first file root when it offers roots, else the fallback; what pi would do with it is the session's. */
	async function workspace(): Promise<string> {
		if (!server.getClientCapabilities()?.roots) return o.workspace;
		try {
			const { roots } = await server.listRoots(undefined, { timeout: ROOTS_MS });
			const root = roots.find((r) => r.uri.startsWith("file:"));
			if (root) return fileURLToPath(root.uri);
			notify(`the client lists no file root; the workspace is ${o.workspace}`, "warning");
		} catch (e) {
			notify(`the client's roots could not be read (${(e as Error).message}); the workspace is ${o.workspace}`, "warning");
		}
		return o.workspace;
	}

	// nothing runs before the workspace is known: the session starts here
	server.oninitialized = () => {
		void (async () => {
			const c = ext.context(await workspace(), notify);
			if (ended) return;
			ctx = c;
			await ext.emit("session_start", { reason: "startup" }, c).catch((e: Error) => notify(e.message, "error"));
			ready(c);
			await ext.command("docker", "", c).catch((e: Error) => notify(e.message, "error"));
		})();
	};

	server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: ext.tools.map(listed) }));

	server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
		const name = req.params.name;
		const def = byName.get(name);
		if (!def) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
		if (!server.getClientCapabilities()) throw new McpError(ErrorCode.InvalidRequest, "sbx-tools-mcp: not initialized: no call runs before initialize");
		if (running >= MAX_CALLS) throw new McpError(BUSY, `sbx-tools-mcp: ${running} calls are running, at most ${MAX_CALLS} at once: call ${name} again when one has answered`);
		let params: unknown;
		try {
			const args = req.params.arguments ?? {};
			params = validateToolArguments(def as never, { type: "toolCall", id: String(extra.requestId), name, arguments: def.prepareArguments ? def.prepareArguments(args) : args } as never);
		} catch (e) {
			throw new McpError(ErrorCode.InvalidParams, (e as Error).message);
		}
		running++;
		try {
			// the end of input read with this line is seen first
			await new Promise((r) => setImmediate(r));
			if (ended) throw new McpError(ErrorCode.InvalidRequest, "sbx-tools-mcp: the session has ended; its sandbox is being removed, and no call runs");
			const c = ctx ?? (await Promise.race([started, aborted(extra.signal)]));
			const token = req.params._meta?.progressToken;
			let n = 0;
			const onUpdate =
				token === undefined
					? undefined
					: (u: { content: { type: string; text?: string }[] }) => {
							const message = u.content.map((x) => x.text ?? "").join("\n");
							extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: ++n, message } }).catch(() => {});
						};
			try {
				const r = await def.execute(String(extra.requestId), params as never, extra.signal, onUpdate as never, c);
				return { content: r.content, isError: false };
			} catch (e) {
				return { content: [{ type: "text" as const, text: (e as Error).message }], isError: true };
			}
		} finally {
			running--;
			if (!running) drained?.();
		}
	});

	// a line that is not JSON, or not JSON-RPC, has no id to answer: null, as JSON-RPC says
	server.onerror = (e: Error) => {
		const code = e instanceof SyntaxError ? ErrorCode.ParseError : e.name === "ZodError" || "issues" in e ? ErrorCode.InvalidRequest : undefined;
		if (code === undefined) return void process.stderr.write(`sbx-tools-mcp: ${e.message}\n`);
		const message = code === ErrorCode.ParseError ? "Parse error" : "Invalid Request";
		transport.send({ jsonrpc: "2.0", id: null, error: { code, message } } as unknown as JSONRPCMessage).catch(() => {});
	};

	const end = async (): Promise<void> => {
		if (ended) return;
		ended = true;
		process.stderr.write("sbx-tools-mcp: the session ends; its sandbox is being removed\n");
		// the session's calls are ended as pi's end ends them, then answered
		if (ctx) await ext.emit("session_shutdown", { reason: "quit" }, ctx).catch(() => {});
		if (running)
			await new Promise<void>((r) => {
				drained = r;
				setTimeout(r, DRAIN_MS).unref();
			});
		// their answers go out before the transport closes (closing drops what is pending)
		await new Promise((r) => setTimeout(r, 100));
		await server.close().catch(() => {});
		process.exit(0);
	};
	process.stdin.on("end", () => void end());
	for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => void end());
	process.stdout.on("error", () => void end());

	server.onclose = () => void end();
	await server.connect(transport);
}

function aborted(signal: AbortSignal): Promise<never> {
	return new Promise((_, reject) => {
		const no = (): void => reject(new McpError(ErrorCode.RequestTimeout, "cancelled before the session started"));
		if (signal.aborted) no();
		else signal.addEventListener("abort", no, { once: true });
	});
}
