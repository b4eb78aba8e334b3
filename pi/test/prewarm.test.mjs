// Provisioning before the first call, through pi's loader against the
// simulator with its create slowed: a workspace that shows docker will be
// used (or DOCKER_SANDBOX_PREWARM=1) is provisioned at session start, once
// the watcher is armed, and the first tool call finds it ready: one create
// before it, then its one exec; 0 never; a failed prewarm is the first
// call's error, in sbx's words; a session ended meanwhile leaves nothing.
// Then `pi -p` with the scripted model, as users run it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { EXTENSION, FLAVOUR, PI_DIR, loadExtension, need, piMissing, processesWith, programsMissing, simMissing, simSandboxes, until, withEnv, world, writeFile } from "../testlib/harness.mjs";
import { MODEL, scriptedModel, writeProviderExtension } from "../testlib/scripted.mjs";

const missing = [...piMissing(), ...simMissing(), ...programsMissing()];
let w;

before(() => {
	if (!missing.length) w = world();
});
after(() => w?.cleanup());

/** The calls log from line n on: { rc, verb, name } each. */
function callsFrom(n) {
	const f = join(w.simRoot, "calls.log");
	const lines = existsSync(f) ? readFileSync(f, "utf8").split("\n").filter(Boolean) : [];
	return lines.slice(n).map((l) => {
		const [, rc, verb, ...rest] = l.split(" ");
		return { rc: Number(rc), verb, rest: rest.join(" ") };
	});
}
const ncalls = () => callsFrom(0).length;
const verbs = (calls) => calls.map((c) => c.verb).join(" ");

/** A project directory of its own, with these files. */
function project(name, files = {}) {
	const dir = join(w.ws, name);
	mkdirSync(dir, { recursive: true });
	for (const [f, text] of Object.entries(files)) writeFile(join(dir, f), text);
	return dir;
}

/** The watchers' owner markers: the session names armed so far. */
function owners() {
	const d = process.env.SBX_STATE_DIR;
	return existsSync(d) ? readdirSync(d).filter((f) => f.endsWith(".owner")) : [];
}

/** The name of the session armed since before (owners()), or undefined. */
function armedSince(before) {
	return owners()
		.find((f) => !before.includes(f))
		?.replace(/\.owner$/, "");
}

const creates = (n, name) => callsFrom(n).filter((c) => c.verb === "create" && c.rest.includes(name));

const DOCKERFILE = "FROM busybox:local\n";
const SLOW = { SBX_SIM_CREATE_DELAY: "1.5" };

test(`[${FLAVOUR}] prewarm: a workspace with a Dockerfile is provisioned at session start; the first docker_ps costs one exec`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const dir = project("with-dockerfile", { Dockerfile: DOCKERFILE });
	await withEnv(SLOW, async () => {
		const n = ncalls();
		const pi = await loadExtension(dir);
		try {
			await pi.start();
			const r = await pi.call("docker_ps");
			const name = r.result.details.sandbox;
			const calls = callsFrom(n).filter((c) => c.rest.includes(name));
			assert.equal(calls[0]?.verb, "create", verbs(calls));
			assert.equal(calls.filter((c) => c.verb === "create").length, 1, verbs(calls));
			// the call's own sbx calls: one exec, which answered (no "no such sandbox" first)
			const own = calls.slice(1).filter((c) => c.verb === "exec" && c.rest.includes("docker -H"));
			assert.ok(own.length >= 1 && own.every((c) => c.rc === 0), verbs(calls));
			await pi.shutdown("quit");
			await until(() => !(name in simSandboxes()), 15000, `sandbox ${name} to go`);
		} finally {
			pi.cleanupAgentDir();
		}
	});
});

test(`[${FLAVOUR}] prewarm: DOCKER_SANDBOX_PREWARM=0 never, 1 always, auto only with a Dockerfile, compose file or .devcontainer/`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const cases = [
		["0", { Dockerfile: DOCKERFILE }, false],
		["auto", { "README.md": "no docker here\n" }, false],
		["auto", { "src/Dockerfile": DOCKERFILE }, false], // only the workspace's own entries
		["1", { "README.md": "no docker here\n" }, true],
		["auto", { "compose.yaml": "services: {}\n" }, true],
		["auto", { ".devcontainer/devcontainer.json": "{}\n" }, true],
		["auto", { "api.Dockerfile": DOCKERFILE }, true],
		[undefined, { "docker-compose.yml": "services: {}\n" }, true],
	];
	for (const [i, [setting, files, want]] of cases.entries()) {
		const dir = project(`case-${i}`, files);
		const n = ncalls();
		const before = owners();
		const pi = await loadExtension(dir);
		try {
			await withEnv({ DOCKER_SANDBOX_PREWARM: setting }, () => pi.start());
			const name = armedSince(before);
			assert.ok(name, "a watcher is armed");
			const what = `PREWARM=${setting} with ${Object.keys(files)}`;
			if (want) await until(() => creates(n, name).length === 1, 20000, `${what}: a create`);
			else {
				await new Promise((r) => setTimeout(r, 1500));
				assert.deepEqual(creates(n, name), [], `${what}: no create`);
			}
		} finally {
			await pi.shutdown("quit");
			pi.cleanupAgentDir();
		}
	}
	await until(() => Object.keys(simSandboxes()).length === 0, 20000, "every sandbox to go");
});

test(`[${FLAVOUR}] prewarm: no watcher, no prewarm; a failed prewarm is the first call's error in sbx's words`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const dir = project("fails", { Dockerfile: DOCKERFILE });
	// a watcher that cannot be armed: nothing is provisioned
	let n = ncalls();
	const bad = await loadExtension(dir);
	try {
		await withEnv({ DOCKER_SANDBOX_TEARDOWN: "bogus" }, () => bad.start());
		await new Promise((r) => setTimeout(r, 1500));
		assert.deepEqual(
			callsFrom(n).filter((c) => c.verb === "create"),
			[],
			"no create",
		);
	} finally {
		await bad.shutdown("quit");
		bad.cleanupAgentDir();
	}
	n = ncalls();
	const pi = await loadExtension(dir);
	try {
		await withEnv({ SBX_SIM_FAIL: "create:1:auth" }, () => pi.start());
		const err = await pi.call("docker_ps").then(
			() => undefined,
			(e) => e,
		);
		assert.ok(err, "docker_ps failed");
		assert.match(err.message, /provisioning it ahead of this call \(sbx-run -P\) failed, exit 1/);
		assert.match(err.message, /Not authenticated|ERROR: /);
		assert.equal(callsFrom(n).filter((c) => c.verb === "create").length, 1, verbs(callsFrom(n)));
		// once: the next call provisions and answers
		const r = await pi.call("docker_ps");
		assert.match(r.text, /no containers|CONTAINER|running/i);
	} finally {
		await pi.shutdown("quit");
		pi.cleanupAgentDir();
	}
});

test(`[${FLAVOUR}] prewarm: a session that ends while it creates leaves no sandbox, marker or process, only its record`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const dir = project("ends", { Dockerfile: DOCKERFILE });
	await withEnv({ SBX_SIM_CREATE_DELAY: "2" }, async () => {
		const before = owners();
		const pi = await loadExtension(dir);
		await pi.start();
		const name = armedSince(before);
		assert.ok(name, "a watcher is armed");
		await until(() => existsSync(join(w.simRoot, "creating", name)), 10000, "the create to be under way");
		await pi.shutdown("quit");
		pi.cleanupAgentDir();
		await until(() => !(name in simSandboxes()), 30000, `sandbox ${name} to go`);
		// its markers go; the session's record stays, kept as a past one
		await until(() => readdirSync(process.env.SBX_STATE_DIR).every((f) => !f.startsWith(`${name}.`) || f.startsWith(`${name}.past-`)), 15000, "its markers to go");
		await until(() => processesWith(name).length === 0, 15000, `processes naming ${name}: ${processesWith(name).join("; ")}`);
	});
});

test(`[${FLAVOUR}] prewarm through pi -p: the scripted model's first tool call finds the sandbox ready`, { timeout: 300000 }, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const cli =
		FLAVOUR === "1x"
			? join(PI_DIR, "compat", "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js")
			: join(PI_DIR, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js");
	if (!need(t, existsSync(cli) ? [] : [cli], "pi's cli")) return;
	const dir = project("agent", { Dockerfile: DOCKERFILE });
	const agentDir = mkdtempSync(join(w.base, "agent-"));
	const providerExt = join(w.base, "scripted-provider.mjs");
	writeProviderExtension(providerExt);
	const model = await scriptedModel([() => ({ name: "docker_ps", args: {} }), () => ({ name: "docker_images", args: {} })], "Looked.");
	const n = ncalls();
	let out = "";
	let code;
	try {
		code = await new Promise((resolve) => {
			const child = spawn(process.execPath, [cli, "-p", "--mode", "json", "--no-session", "--offline", "-ne", "-e", providerExt, "-e", EXTENSION, "--provider", "scripted", "--model", MODEL, "What runs here?"], {
				cwd: dir,
				env: { ...process.env, ...SLOW, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", SCRIPTED_BASE_URL: model.url, SCRIPTED_API_KEY: "not-a-secret" },
				stdio: ["ignore", "pipe", "pipe"],
			});
			child.stdout.on("data", (b) => {
				out += b;
			});
			child.stderr.on("data", () => {});
			const timer = setTimeout(() => child.kill("SIGKILL"), 240000);
			child.on("close", (c) => {
				clearTimeout(timer);
				resolve(c);
			});
		});
	} finally {
		await model.close();
	}
	assert.equal(code, 0, out.slice(-2000));
	const ends = out
		.split("\n")
		.filter((l) => l.startsWith("{"))
		.map((l) => JSON.parse(l))
		.filter((e) => e.type === "tool_execution_end");
	assert.deepEqual(
		ends.map((e) => [e.toolName, e.isError]),
		[
			["docker_ps", false],
			["docker_images", false],
		],
	);
	const calls = callsFrom(n);
	// the session's sandbox: the one its first docker_ps named
	const name = /in sandbox "([^"]+)"|"sandbox":"([^"]+)"/.exec(out)?.slice(1).find(Boolean) ?? calls.map((c) => /pi-sbx-\d+-[a-z0-9]{8}/.exec(c.rest)?.[0]).find(Boolean);
	assert.ok(name, verbs(calls));
	const mine = calls.filter((c) => c.rest.includes(name));
	// one create, the prewarm's, before any exec; every exec answered
	assert.equal(mine[0].verb, "create", verbs(mine));
	assert.equal(mine.filter((c) => c.verb === "create").length, 1, verbs(mine));
	// (the watcher's hold is an exec of its own, ended at teardown)
	const docker = mine.filter((c) => c.verb === "exec" && c.rest.includes("docker -H"));
	assert.ok(docker.length >= 2 && docker.every((c) => c.rc === 0), verbs(mine));
	t.diagnostic(`sbx calls of the session: ${verbs(mine)}`);
	await until(() => !(name in simSandboxes()), 30000, `sandbox ${name} to go`);
});
