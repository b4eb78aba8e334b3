// sbx-tools-mcp's bad inputs, fed as raw lines: each gets the protocol's
// error, nothing crashes and nothing runs; and two servers in one project
// are two sessions with two sandboxes.  sbx-run is seen through a wrapper
// that logs its arguments (and, given a file, holds the history's reads).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { TOP, need, piMissing, programsMissing, simMissing, simSandboxes, until, world } from "../testlib/harness.mjs";
import { buildServer, connect, INIT, mcpMissing, raw, request } from "../testlib/mcp.mjs";

const missing = [...mcpMissing(), ...piMissing(), ...simMissing(), ...programsMissing()];
let w;
let server;
let env;
let log;
let slow;

before(() => {
	if (missing.length) return;
	w = world();
	server = buildServer();
	const bin = join(w.base, "wrap");
	mkdirSync(bin);
	log = join(w.base, "sbx-run.log");
	slow = join(w.base, "slow");
	// a held read ignores TERM: a call in flight that outlives its cancellation by 3 s
	writeFileSync(join(bin, "sbx-run"), `#!/bin/sh\nprintf '%s\\n' "$*" >>'${log}'\ncase "$*" in -J*) [ -f '${slow}' ] && trap '' TERM && sleep 3;; esac\nexec '${join(TOP, "sbx-run", "sbx-run")}' "$@"\n`);
	chmodSync(join(bin, "sbx-run"), 0o755);
	env = { ...process.env, DOCKER_SANDBOX_BIN: bin };
});

after(() => w?.cleanup());

const ready = (t) => need(t, missing, "the MCP SDK, esbuild and the sbx simulator") && w;
/** sbx-run's calls that a tool made since the log had `since` bytes: a docker call (-O 3) or the history (-J; /docker's count is -J 0) */
const logged = () => (existsSync(log) ? readFileSync(log, "utf8") : "");
const toolRuns = (since) => logged().slice(since).split("\n").filter((l) => /^-O 3 |^-J [1-9]/.test(l));

/** A raw server, initialized, its session started; ended (stdin closed, exit awaited) by the caller. */
async function started() {
	const s = raw(server, { cwd: w.ws, env });
	s.write(INIT);
	await s.answer(0);
	await until(() => s.lines().some((m) => m.method === "notifications/message" && /^docker sandbox: /.test(m.params.data)), 30000, "the session to start");
	return s;
}

async function ended(s) {
	s.child.stdin.end();
	await until(() => s.child.exitCode !== null, 40000, "the server to exit");
	assert.equal(s.child.exitCode, 0, s.stderr());
}

test("malformed JSON, a line that is not JSON-RPC, an unknown method: the protocol's errors, and the server goes on", async (t) => {
	if (!ready(t)) return;
	const mark = logged().length;
	const s = await started();
	try {
		s.write("{not json\n");
		await until(() => s.lines().some((m) => m.id === null && m.error?.code === -32700), 10000, "a parse error");
		s.write(`${JSON.stringify({ jsonrpc: "2.0", result: 1, error: 2 })}\n["a", 1]\n`);
		await until(() => s.lines().filter((m) => m.id === null && m.error?.code === -32600).length === 2, 10000, "two invalid requests");
		s.write(request(2, "no/such/method", {}));
		assert.equal((await s.answer(2)).error.code, -32601);
		s.write(request(3, "ping"));
		assert.deepEqual((await s.answer(3)).result, {});
		assert.deepEqual(toolRuns(mark), []);
	} finally {
		await ended(s);
	}
});

test("an unknown tool and arguments outside the schema: invalid params with pi's words, and nothing runs", async (t) => {
	if (!ready(t)) return;
	const mark = logged().length;
	const s = await started();
	try {
		const calls = [
			["docker_nosuch", {}, /Unknown tool: docker_nosuch/],
			["docker_ps", { all: "maybe" }, /Validation failed for tool "docker_ps":\n {2}- all: /],
			["docker_pull", {}, /Validation failed for tool "docker_pull":\n {2}- image: /],
			["docker_history", { last: 5000 }, /- last: must be <= 1000/],
			["docker_run", { image: "busybox:local", privileged: true }, /Validation failed for tool "docker_run"/],
			["docker_exec", { id: "x", command: { sh: 1 } }, /Validation failed for tool "docker_exec"/],
		];
		calls.forEach(([name, args], i) => s.write(request(10 + i, "tools/call", { name, arguments: args })));
		for (const [i, [name, , says]] of calls.entries()) {
			const a = await s.answer(10 + i);
			assert.equal(a.error?.code, -32602, `${name}: ${JSON.stringify(a)}`);
			assert.match(a.error.message, says);
		}
		assert.deepEqual(toolRuns(mark), [], "no tool ran");
	} finally {
		await ended(s);
	}
});

test("a call before initialize is refused; a call while the session ends (TERM, its calls draining) is refused; neither runs", async (t) => {
	if (!ready(t)) return;
	const mark = logged().length;
	const early = raw(server, { cwd: w.ws, env });
	early.write(request(1, "tools/call", { name: "docker_ps", arguments: {} }));
	const a = await early.answer(1);
	assert.equal(a.error?.code, -32600, JSON.stringify(a));
	assert.match(a.error.message, /not initialized/);
	await ended(early);
	const s = await started();
	writeFileSync(slow, "");
	try {
		s.write(request(5, "tools/call", { name: "docker_history", arguments: {} }));
		await until(() => toolRuns(mark).length === 1, 20000, "the history's read to start");
		s.child.kill("SIGTERM");
		await until(() => /the session ends/.test(s.stderr()), 10000, "the session to end");
		s.write(request(6, "tools/call", { name: "docker_ps", arguments: {} }));
		const b = await s.answer(6);
		assert.equal(b.error?.code, -32600, JSON.stringify(b));
		assert.match(b.error.message, /the session has ended/);
		const held = await s.answer(5);
		assert.equal(held.result?.isError, true, JSON.stringify(held));
		assert.match(held.result.content[0].text, /cancelled/);
	} finally {
		rmSync(slow, { force: true });
		await ended(s);
	}
	assert.deepEqual(toolRuns(mark).map((l) => l.split(" ")[0]), ["-J"], "only the held read ran");
});

test("a flood of calls: at most 8 run at once, the rest get the protocol's error at once; a flood of lines is answered line by line", async (t) => {
	if (!ready(t)) return;
	const mark = logged().length;
	const s = await started();
	writeFileSync(slow, "");
	try {
		const ids = Array.from({ length: 30 }, (_, i) => 100 + i);
		s.write(ids.map((id) => request(id, "tools/call", { name: "docker_history", arguments: {} })).join(""));
		const answers = [];
		for (const id of ids) answers.push(await s.answer(id));
		const busy = answers.filter((m) => m.error?.code === -32000);
		const ran = answers.filter((m) => m.result);
		assert.equal(ran.length, 8, JSON.stringify(answers.filter((m) => !m.result && m.error?.code !== -32000)));
		assert.equal(busy.length, 22);
		assert.match(busy[0].error.message, /at most 8 at once/);
		assert.equal(toolRuns(mark).length, 8, "the refused ran nothing");
		rmSync(slow);
		// lines by the thousand, good and bad: each answered
		const lines = [];
		for (let i = 0; i < 1500; i++) lines.push(i % 3 === 0 ? "}{\n" : request(1000 + i, i % 3 === 1 ? "ping" : "nope"));
		s.write(lines.join(""));
		await until(() => s.lines().filter((m) => m.id >= 1000).length === 1000, 60000, "1000 answers");
		assert.equal(s.lines().filter((m) => m.id >= 1000 && m.result).length, 500);
		assert.equal(s.lines().filter((m) => m.id >= 1000 && m.error?.code === -32601).length, 500);
		assert.ok(s.lines().filter((m) => m.id === null && m.error?.code === -32700).length >= 500);
		assert.equal(s.child.exitCode, null, "still running");
	} finally {
		rmSync(slow, { force: true });
		await ended(s);
	}
});

test("bad options: the usage and 64, before anything runs; --help: the usage and 0", (t) => {
	if (!ready(t)) return;
	const mark = logged().length;
	for (const [args, says] of [
		[["--workspace", join(w.base, "nonexistent")], /nonexistent: no such directory/],
		[["--workspace"], /--workspace needs a directory/],
		[["--bogus"], /unknown argument: --bogus/],
	]) {
		const r = spawnSync(process.execPath, [server, ...args], { cwd: w.ws, env, encoding: "utf8", input: INIT, timeout: 20000 });
		assert.equal(r.status, 64, `${args}: ${r.stderr}`);
		assert.match(r.stderr, says);
		assert.match(r.stderr, /^usage: sbx-tools-mcp \[--workspace DIR\]$/m);
		assert.equal(r.stdout, "", "no answer");
	}
	const h = spawnSync(process.execPath, [server, "--help"], { encoding: "utf8", timeout: 20000 });
	assert.equal(h.status, 0, h.stderr);
	assert.match(h.stdout, /^usage: sbx-tools-mcp \[--workspace DIR\]\n/);
	assert.equal(logged().length, mark, "no sbx-run ran");
});

test("two servers started in one project: two sessions, two sandboxes, each gone with its server", async (t) => {
	if (!ready(t)) return;
	const a = await connect(server, { cwd: w.ws, env });
	const b = await connect(server, { cwd: w.ws, env });
	const names = [await a.sandbox(), await b.sandbox()];
	try {
		assert.notEqual(names[0], names[1]);
		for (const c of [a, b]) assert.equal((await c.call("docker_ps")).isError, false);
		const sb = simSandboxes();
		for (const n of names) assert.equal(sb[n], "running", JSON.stringify(sb));
	} finally {
		await a.close();
		await b.close();
	}
	await until(() => names.every((n) => !(n in simSandboxes())), 30000, "both sandboxes to go");
});
