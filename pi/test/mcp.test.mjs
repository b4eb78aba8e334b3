// sbx-tools-mcp driven by the MCP SDK's own client over its stdio
// transport, against the sbx simulator: the tools pi gets, a session
// that is the process (its sandbox goes with a kill -9), progress while a
// call runs and a cancellation that ends the command inside.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { loadExtension, need, piMissing, processesWith, programsMissing, simMissing, simSandboxes, teardownStart, until, world } from "../testlib/harness.mjs";
import { buildServer, connect, mcpMissing } from "../testlib/mcp.mjs";

const missing = [...mcpMissing(), ...piMissing(), ...simMissing(), ...programsMissing()];
let w;
let server;
let c;
let name;

before(async () => {
	if (missing.length) return;
	w = world();
	server = buildServer();
	c = await connect(server, { cwd: w.ws });
});

after(async () => {
	await c?.close();
	if (name) await until(() => !(name in simSandboxes()), 20000, `sandbox ${name} to go`).catch(() => {});
	w?.cleanup();
});

const ready = (t) => need(t, missing, "the MCP SDK, esbuild and the sbx simulator") && c;

test("tools/list: the 21 tools pi is given, in pi's order, with pi's names, descriptions and schemas", async (t) => {
	if (!ready(t)) return;
	const { tools } = await c.client.listTools();
	const pi = await loadExtension(w.ws);
	try {
		const json = (v) => JSON.parse(JSON.stringify(v));
		assert.equal(tools.length, 21);
		assert.deepEqual(tools.map((x) => x.name), pi.tools.map((d) => d.name));
		for (const d of pi.tools) {
			const m = tools.find((x) => x.name === d.name);
			assert.deepEqual(m.inputSchema, json(d.parameters), `${d.name}: schema`);
			assert.equal(m.description, d.description, `${d.name}: description`);
			assert.equal(m.title, d.label, `${d.name}: title`);
		}
		assert.equal(c.client.getInstructions(), pi.tools.flatMap((d) => d.promptGuidelines ?? []).join("\n"));
		assert.match(c.client.getInstructions(), /^Use the docker_\* tools /m);
	} finally {
		pi.cleanupAgentDir();
	}
});

test("the session starts with the process: its status as a log message, the watcher armed on it, the workspace its directory", async (t) => {
	if (!ready(t)) return;
	name = await c.sandbox();
	assert.match(name, new RegExp(`^pi-sbx-${c.pid}-[a-z0-9]{8}$`), "named for the server's pid");
	const status = c.logs.find((l) => /^docker sandbox: /.test(l.data));
	assert.equal(status.level, "info");
	assert.match(status.data, new RegExp(`^workspace: ${w.ws} `, "m"));
	assert.match(status.data, /^teardown watcher: armed$/m);
	assert.equal(processesWith(`sbx-watch -f 3 ${name}`).length, 1, "one watcher");
});

test("docker_ps, docker_run with a port, docker_curl: pi's answers", async (t) => {
	if (!ready(t)) return;
	const ps = await c.call("docker_ps");
	assert.deepEqual([ps.isError, ps.text], [false, "(no running containers; all=true lists stopped ones)"]);
	const r = await c.call("docker_run", {
		image: "busybox:local",
		name: "web",
		ports: ["8080:8000"],
		command: ["sh", "-c", "trap 'exit 0' TERM; mkdir -p /w && echo served-over-mcp >/w/index.html && httpd -f -p 8000 -h /w & wait"],
	});
	assert.equal(r.isError, false, r.text);
	assert.match(r.text, /^started busybox:local as [0-9a-f]{12} \(web\) in sandbox "pi-sbx-/);
	const url = /^ {2}(http:\/\/127\.0\.0\.1:\d+\/) -> sandbox port 8080\/tcp/m.exec(r.text)?.[1];
	assert.ok(url, r.text);
	let curl;
	await until(async () => !(curl = await c.call("docker_curl", { url })).isError, 20000, "the server to answer");
	assert.match(curl.text, /^HTTP 200/);
	assert.match(curl.text, /served-over-mcp/);
	const ps2 = await c.call("docker_ps");
	assert.match(ps2.text, /busybox:local\s+Up .*\sweb\nhost side: http:\/\/127\.0\.0\.1:\d+\//, ps2.text);
	// a tool's refusal is its answer, in pi's words
	const bad = await c.call("docker_curl", { url: "http://127.0.0.1:1/" });
	assert.equal(bad.isError, true);
	assert.match(bad.text, /port 1 is not published/);
});

test("progress notifications carry the streamed output; cancelling ends the call and the command inside the container", async (t) => {
	if (!ready(t)) return;
	const ac = new AbortController();
	const progress = [];
	const p = c.client.callTool({ name: "docker_exec", arguments: { id: "web", command: "echo mcp-long-call-began; exec sleep 347" } }, undefined, {
		signal: ac.signal,
		onprogress: (n) => progress.push(n),
	});
	const settled = p.then(
		() => "resolved",
		(e) => e,
	);
	await until(() => progress.some((n) => /mcp-long-call-began/.test(n.message)), 60000, "the command's output as progress");
	assert.ok(progress.every((n, i) => n.progress === i + 1), JSON.stringify(progress));
	const inside = async () => (await c.call("docker_exec", { id: "web", command: "ps -o args" })).text;
	assert.match(await inside(), /sleep 347/);
	ac.abort();
	const e = await settled;
	assert.ok(e instanceof Error, String(e));
	const ms = await until(async () => !/sleep 347/.test(await inside()), 30000, "the command to end inside the container");
	t.diagnostic(`the command was gone ${ms} ms after the cancellation`);
	await until(() => processesWith("sleep 347").length === 0, 30000, "no process of the call on the host");
	// nothing published: no keepalive exec for the teardown to end first (sbx-watch gives it 2 s)
	assert.equal((await c.call("docker_rm", { id: "web" })).isError, false);
	await until(() => processesWith(`exec ${name} -- sleep`).length === 0, 20000, "the watcher to let the VM go");
});

test("kill -9 of the server: its sandbox's teardown begins within 1 s", async (t) => {
	if (!ready(t)) return;
	assert.ok(name in simSandboxes());
	const t0 = Date.now();
	process.kill(c.pid, "SIGKILL");
	const ms = await until(() => !(name in simSandboxes()), 20000, `sandbox ${name} to go`);
	const { first, ms: started } = teardownStart(w.simRoot, t0, name);
	t.diagnostic(`the teardown's first sbx call (${first}) began ${started} ms and the sandbox was gone ${ms} ms after SIGKILL`);
	assert.ok(started < 1000, `teardown began after ${started} ms`);
	c = undefined;
});

test("the workspace: the client's first file root, else --workspace, else the working directory; a prewarm as pi's; closing the input ends the session", async (t) => {
	if (!need(t, missing, "the MCP SDK, esbuild and the sbx simulator")) return;
	const dirs = ["root-ws", "flag-ws", "other"].map((d) => join(w.base, d));
	for (const d of dirs) mkdirSync(d);
	// a project that shows it will use docker: the session provisions ahead, as pi's does
	writeFileSync(join(dirs[0], "Dockerfile"), "FROM busybox:local\n");
	const cases = [
		[{ cwd: dirs[2], roots: [pathToFileURL(dirs[0]).href, pathToFileURL(dirs[2]).href], args: ["--workspace", dirs[1]] }, dirs[0]],
		[{ cwd: dirs[2], args: ["--workspace", dirs[1]] }, dirs[1]],
		[{ cwd: dirs[2] }, dirs[2]],
	];
	for (const [o, want] of cases) {
		const s = await connect(server, o);
		let sb;
		try {
			sb = await s.sandbox();
			assert.match(s.logs.find((l) => /^docker sandbox: /.test(l.data)).data, new RegExp(`^workspace: ${want} `, "m"), JSON.stringify(o));
			if (want === dirs[0]) await until(() => simSandboxes()[sb] === "running", 60000, "the prewarm to provision");
		} finally {
			await s.close();
		}
		// the client closed the server's input: the session's end
		await until(() => !(sb in simSandboxes()), 20000, `sandbox ${sb} to go`);
	}
});
