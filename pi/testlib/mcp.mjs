// The MCP server as a client meets it: bundled as the package ships it
// (scripts/build-mcp.mjs, into the test's own directory), started by the
// SDK's own Client over its stdio transport, or fed raw lines.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { PI_DIR, until } from "./harness.mjs";

/** [] when the bundler is installed, else what to run. */
export function mcpMissing() {
	return existsSync(join(PI_DIR, "node_modules", "esbuild", "package.json")) && existsSync(join(PI_DIR, "node_modules", "@modelcontextprotocol", "sdk", "package.json")) ? [] : [`esbuild and @modelcontextprotocol/sdk (npm ci in ${PI_DIR})`];
}

/** The server bundled into a directory of its own (outside every workspace); its path. */
export function buildServer() {
	const out = join(mkdtempSync(join(tmpdir(), "pmcp-")), "dist", "sbx-tools-mcp.mjs");
	const r = spawnSync(process.execPath, [join(PI_DIR, "scripts", "build-mcp.mjs"), out], { encoding: "utf8" });
	if (r.status !== 0) throw new Error(`build-mcp: ${r.stderr}`);
	return out;
}

/**
 * A client connected to a server started in cwd.  roots: the client
 * offers them (file URLs).  Returns the client, the server's pid and
 * the log messages it sent.
 */
export async function connect(server, { cwd = process.cwd(), args = [], roots, env = process.env } = {}) {
	const transport = new StdioClientTransport({ command: process.execPath, args: [server, ...args], cwd, env: { ...env }, stderr: "pipe" });
	let stderr = "";
	transport.stderr?.on("data", (b) => (stderr += b));
	const client = new Client({ name: "sbx-tools-test", version: "1" }, { capabilities: roots ? { roots: {} } : {} });
	if (roots) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((uri) => ({ uri })) }));
	const logs = [];
	client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
	await client.connect(transport);
	return {
		client,
		transport,
		logs,
		pid: transport.pid,
		stderr: () => stderr,
		/** the text of a tool's answer, and whether it is an error */
		async call(name, args = {}, opts = {}) {
			const r = await client.callTool({ name, arguments: args }, undefined, opts);
			return { text: r.content.map((c) => c.text ?? "").join("\n"), isError: r.isError === true, result: r };
		},
		/** the sandbox's name, from the status pi's /docker shows, sent as a log message */
		async sandbox() {
			await until(() => logs.some((l) => /^docker sandbox: /.test(l.data)), 30000, "the /docker status log message");
			return /^docker sandbox: (\S+)/.exec(logs.find((l) => /^docker sandbox: /.test(l.data)).data)[1];
		},
		close: () => client.close(),
	};
}

/** The server fed raw lines: write(text) and the parsed lines it answered. */
export function raw(server, { cwd = process.cwd(), env = process.env } = {}) {
	const child = spawn(process.execPath, [server], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
	let out = "";
	let err = "";
	child.stdout.on("data", (b) => (out += b));
	child.stderr.on("data", (b) => (err += b));
	// a server that has exited closed its end
	child.stdin.on("error", () => {});
	const lines = () =>
		out
			.split("\n")
			.filter(Boolean)
			.map((l) => JSON.parse(l));
	return {
		child,
		write: (text) => child.stdin.write(text),
		lines,
		stderr: () => err,
		/** the answer to request id, once it comes */
		answer: async (id, ms = 30000) => {
			await until(() => lines().some((m) => m.id === id && ("result" in m || "error" in m)), ms, `the answer to ${JSON.stringify(id)}`);
			return lines().find((m) => m.id === id && ("result" in m || "error" in m));
		},
	};
}

export const INIT = `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } })}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`;

export function request(id, method, params) {
	return `${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })}\n`;
}
