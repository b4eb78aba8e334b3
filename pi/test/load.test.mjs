// Loading and argument checks: pi's own loader, no sandbox needed.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { EXTENSION, FLAVOUR, PI_DIR, TOP, loadExtension, need, piCli, piMissing, programsMissing, simSandboxes, world } from "../testlib/harness.mjs";

// The prior extension's tools and parameters (reference/prior-extension.md, section 9).
const PRIOR = {
	docker_status: [],
	docker_verify: [],
	docker_resources: [],
	docker_prune: ["volumes"],
	docker_ps: ["all"],
	docker_images: [],
	docker_pull: ["image"],
	docker_run: ["image", "name", "command", "detach", "rm", "ports", "env", "memory", "volumes", "network", "restart", "workdir"],
	docker_logs: ["id", "tail", "timestamps"],
	docker_exec: ["id", "command"],
	docker_build: ["context", "tag", "dockerfile", "buildargs"],
	docker_stop: ["id"],
	docker_start: ["id"],
	docker_rm: ["id"],
	docker_init: ["context", "lang", "force", "compose"],
	// command: added for compose exec and run (a string runs as sh -c); the prior's names all stay
	docker_compose: ["file", "action", "service", "extraArgs", "command"],
	docker_curl: ["url", "timeoutSec", "method", "body"],
	docker_sandbox_rm: [],
	docker_gc: ["hours"],
};
// Added here: the docker history (sbx-run's journal) of this session or a past one.
const ADDED = { docker_history: ["last", "session"], docker_egress: [] };
const REQUIRED = {
	docker_pull: ["image"],
	docker_run: ["image"],
	docker_logs: ["id"],
	docker_exec: ["id"],
	docker_build: ["context", "tag"],
	docker_stop: ["id"],
	docker_start: ["id"],
	docker_rm: ["id"],
	docker_curl: ["url"],
};

const noPi = piMissing();
let w;
let pi;
before(async () => {
	w = world();
	if (!noPi.length) pi = await loadExtension(w.ws);
});
after(() => {
	pi?.cleanupAgentDir();
	w?.cleanup();
});

test(`[${FLAVOUR}] 21 tools: the prior extension's 19 with their parameter names, docker_history and docker_egress`, (t) => {
	if (!need(t, noPi, "pi")) return;
	const got = Object.fromEntries(pi.tools.map((d) => [d.name, Object.keys(d.parameters.properties ?? {}).sort()]));
	const want = Object.fromEntries(Object.entries({ ...PRIOR, ...ADDED }).map(([k, v]) => [k, [...v].sort()]));
	assert.deepEqual(got, want);
	assert.equal(pi.tools.length, 21);
	for (const d of pi.tools) {
		assert.equal(d.parameters.type, "object", d.name);
		assert.deepEqual([...(d.parameters.required ?? [])].sort(), [...(REQUIRED[d.name] ?? [])].sort(), `${d.name} required`);
		assert.ok(d.label && d.description && d.promptSnippet, `${d.name} has a label, a description and a prompt line`);
	}
	assert.ok(pi.ext.handlers.get("session_start")?.length, "session_start handler");
	assert.ok(pi.ext.handlers.get("session_shutdown")?.length, "session_shutdown handler");
});

test(`[${FLAVOUR}] arguments are validated as the agent loop does`, (t) => {
	if (!need(t, noPi, "pi")) return;
	assert.throws(() => pi.validate("docker_pull", {}), /Validation failed for tool "docker_pull"/);
	assert.throws(() => pi.validate("docker_run", { image: "busybox:local", privileged: true }), /Validation failed/);
	assert.throws(() => pi.validate("docker_run", { image: "x", network: "bogus" }), /Validation failed/);
	assert.equal(pi.validate("docker_logs", { id: "web", tail: "5" }).tail, 5);
	assert.deepEqual(pi.validate("docker_run", { image: "x", command: ["sh", "-c", "true"] }).command, ["sh", "-c", "true"]);
});

test(`[${FLAVOUR}] arguments that could parse as options are refused before anything runs`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const refused = [
		["docker_pull", { image: "-q" }, /must not be empty or start with "-"/],
		["docker_run", { image: "--privileged" }, /start with "-"/],
		["docker_run", { image: "busybox:local", name: "--privileged" }, /start with "-"/],
		["docker_run", { image: "busybox:local", ports: ["127.0.0.1:8080:80"] }, /bad port spec/],
		["docker_run", { image: "busybox:local", ports: ["--publish-all"] }, /bad port spec/],
		["docker_run", { image: "busybox:local", env: ["--privileged"] }, /bad env entry/],
		["docker_run", { image: "busybox:local", memory: "1.5.5g" }, /bad memory/],
		["docker_run", { image: "busybox:local", volumes: ["/workspace/app"] }, /bad volume spec/],
		["docker_run", { image: "busybox:local", volumes: ["--x:/y"] }, /bad volume name/],
		["docker_run", { image: "busybox:local", workdir: "-w" }, /absolute path/],
		["docker_run", { image: "busybox:local", rm: true }, /--rm cannot be combined/],
		["docker_exec", { id: "-x", command: "true" }, /invalid container id/],
		["docker_exec", { id: "web" }, /^Error: docker exec: empty command$/],
		["docker_logs", { id: "--since=0" }, /start with "-"/],
		["docker_stop", { id: "-t" }, /start with "-"/],
		["docker_start", { id: "-a" }, /start with "-"/],
		["docker_rm", { id: "--volumes" }, /start with "-"/],
		["docker_build", { context: "/workspace", tag: "--no-cache" }, /start with "-"/],
		["docker_build", { context: "/workspace", tag: "t:1", buildargs: "[1]" }, /JSON object/],
		["docker_compose", { action: "events" }, /not allowed/],
		["docker_compose", { action: "exec", extraArgs: ["--privileged", "web", "true"] }, /not allowed/],
		["docker_compose", { action: "run", extraArgs: ["-v", "/:/host", "web", "true"] }, /not allowed/],
		["docker_compose", { action: "up", extraArgs: ["-H", "tcp://x"] }, /not allowed/],
		["docker_compose", { action: "down", extraArgs: ["--rmi", "-x"] }, /bad value/],
		["docker_compose", { action: "up", service: "-d" }, /start with "-"/],
		["docker_curl", { url: "http://example.com/" }, /only 127\.0\.0\.1/],
		["docker_curl", { url: "file:///etc/passwd" }, /only http and https/],
		["docker_init", { lang: "cobol" }, /unknown lang/],
	];
	for (const [name, args, re] of refused) {
		await assert.rejects(pi.call(name, args), re, `${name} ${JSON.stringify(args)}`);
	}
	// no sandbox was made on the way
	assert.deepEqual(simSandboxes(), {});
});

test(`[${FLAVOUR}] workspace paths map to the host and may not escape it, symlinks included`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	mkdirSync(join(w.ws, "app"), { recursive: true });
	const outside = mkdtempSync(join(tmpdir(), "pio-"));
	symlinkSync(outside, join(w.ws, "link"));
	symlinkSync("/etc", join(w.ws, "etc-link"));
	try {
		for (const ctx of ["/workspace/../..", "/workspace/../sibling", "../..", "/etc", "/workspace/link", "link/sub", "/workspace/etc-link", "/workspacefoo/../../x"]) {
			await assert.rejects(pi.call("docker_init", { context: ctx }), /escapes the workspace|not found/, ctx);
			await assert.rejects(pi.call("docker_build", { context: ctx, tag: "t:1" }), /escapes the workspace|not found/, ctx);
		}
		await assert.rejects(pi.call("docker_build", { context: "/workspace/link", tag: "t:1" }), /symlink/);
		await assert.rejects(pi.call("docker_run", { image: "busybox:local", volumes: ["/workspace/link:/data"] }), /symlink/);
		await assert.rejects(pi.call("docker_run", { image: "busybox:local", volumes: ["/etc:/data"] }), /escapes/);
		await assert.rejects(pi.call("docker_compose", { file: "/workspace/etc-link/passwd" }), /symlink/);
		const r = await pi.call("docker_init", { context: "/workspace/app", lang: "generic" });
		assert.match(r.text, new RegExp(`scaffolded "generic" in ${join(w.ws, "app").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
	} finally {
		rmSync(outside, { recursive: true, force: true });
	}
});

test(`[${FLAVOUR}] /docker shows the sandbox, workspace, modes and tools`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const cmd = pi.runner.getRegisteredCommands().find((c) => (c.invocationName ?? c.name) === "docker");
	assert.ok(cmd, "a /docker command");
	const seen = [];
	pi.runner.setUIContext({ ...pi.ctx.ui, notify: (m, t) => seen.push([m, t]) });
	await cmd.handler("", pi.runner.createCommandContext());
	assert.equal(seen.length, 1);
	const [msg] = seen[0];
	assert.match(msg, /docker sandbox: pi-sbx-\d+-[a-z0-9]{8}/);
	assert.match(msg, new RegExp(`workspace: ${w.ws}`));
	assert.match(msg, /teardown at session end: remove/);
	assert.match(msg, /workspace mount: read-write/);
	assert.match(msg, /docker calls: 0 made through sbx-run\n/);
	assert.match(msg, /tools \(21\): /);
	for (const name of Object.keys({ ...PRIOR, ...ADDED })) assert.ok(msg.includes(name), `lists ${name}`);
});

test(`[${FLAVOUR}] without the programs every tool says how to install them`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const path = process.env.PATH;
	process.env.PATH = "/usr/bin:/bin";
	try {
		const bare = await loadExtension(w.ws);
		await bare.start(); // must not throw: pi keeps running
		for (const d of bare.tools) {
			const args = { docker_pull: { image: "busybox:local" }, docker_run: { image: "busybox:local" }, docker_logs: { id: "web" }, docker_exec: { id: "web", command: "true" }, docker_build: { context: "/workspace", tag: "t:1" }, docker_stop: { id: "web" }, docker_start: { id: "web" }, docker_rm: { id: "web" }, docker_curl: { url: "http://127.0.0.1:8080/" }, docker_init: { lang: "generic", force: true }, docker_compose: {} }[d.name] ?? {};
			// host-side only, but the workspace it may write is sbx-run's to say (sbx-run -C)
			if (d.name === "docker_compose") continue; // checked below, once a compose file exists
			if (d.name === "docker_status") {
				// a status report, not an error
				const st = await bare.call(d.name, args);
				assert.match(st.text, /programs are missing: sbx-run.*\n.*\n.*make && make install/, st.text);
				continue;
			}
			await assert.rejects(bare.call(d.name, args), /make && make install/, d.name);
		}
		writeFileSync(join(w.ws, "compose.yaml"), "services: {}\n");
		await assert.rejects(bare.call("docker_compose", {}), /make && make install/);
		rmSync(join(w.ws, "compose.yaml"));
		await bare.shutdown();
		bare.cleanupAgentDir();
	} finally {
		process.env.PATH = path;
	}
});

test(`[${FLAVOUR}] pi -ne -e ./pi/index.ts -p </dev/null exits 0`, (t) => {
	if (!need(t, noPi, "pi")) return;
	if (!need(t, programsMissing(["sbx-run", "sbx-watch"]), "built programs")) return;
	const { node, cli } = piCli();
	const agentDir = mkdtempSync(join(tmpdir(), "pia-"));
	try {
		for (const path of [process.env.PATH, "/usr/bin:/bin"]) {
			const r = spawnSync(node, [cli, "-ne", "-e", "./pi/index.ts", "-p"], {
				cwd: TOP,
				env: { ...process.env, PATH: path, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
				stdio: ["ignore", "pipe", "pipe"],
				encoding: "utf8",
				timeout: 60000,
			});
			assert.equal(r.status, 0, `pi exited ${r.status} (PATH=${path}): ${r.stderr}`);
		}
	} finally {
		rmSync(agentDir, { recursive: true, force: true });
	}
	assert.ok(EXTENSION.startsWith(PI_DIR));
});

// the types are checked once, on the 0.73 tier
if (FLAVOUR !== "1x") test(`[${FLAVOUR}] tsc --noEmit is clean (strict)`, (t) => {
	if (!need(t, noPi, "pi")) return;
	const r = spawnSync(process.execPath, [join(PI_DIR, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", join(PI_DIR, "tsconfig.json")], { encoding: "utf8", timeout: 120000 });
	assert.equal(r.status, 0, r.stdout + r.stderr);
});
