// Lifecycle: sbx-watch holds the other end of a pipe the extension keeps;
// session_shutdown and the death of pi are the same event to it.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FLAVOUR, PI_DIR, SIM, loadExtension, need, piMissing, processesWith, programsMissing, simMissing, simSandboxes, teardownStart, until, world } from "../testlib/harness.mjs";

const missing = [...piMissing(), ...simMissing(), ...programsMissing()];
let w;

before(() => {
	if (!missing.length) w = world();
});
after(() => w?.cleanup());

test(`[${FLAVOUR}] firing session_shutdown removes the sandbox`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const pi = await loadExtension(w.ws);
	try {
		await pi.start();
		const r = await pi.call("docker_ps");
		const name = r.result.details.sandbox;
		assert.ok(name in simSandboxes());
		await pi.shutdown("quit");
		const ms = await until(() => !(name in simSandboxes()), 15000, `sandbox ${name} to go`);
		t.diagnostic(`removed ${ms} ms after session_shutdown`);
		await assert.rejects(pi.call("docker_ps"), /this session has ended/, "no new sandbox without a watcher");
		assert.ok(!(name in simSandboxes()));
		await until(() => processesWith(`sbx-watch`).every((l) => !l.includes(name)), 15000, "its watcher to exit");
	} finally {
		pi.cleanupAgentDir();
	}
});

test(`[${FLAVOUR}] session_shutdown for a /reload keeps the sandbox for the reloaded extension`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const first = await loadExtension(w.ws);
	await first.start();
	const name = (await first.call("docker_ps")).result.details.sandbox;
	await first.shutdown("reload");
	const second = await loadExtension(w.ws); // pi re-imports the module on /reload
	try {
		await second.emit({ type: "session_start", reason: "reload" });
		await new Promise((r) => setTimeout(r, 500));
		assert.ok(name in simSandboxes(), "kept across the reload");
		assert.equal((await second.call("docker_ps")).result.details.sandbox, name, "the same sandbox");
		await second.shutdown("quit");
		await until(() => !(name in simSandboxes()), 15000, `sandbox ${name} to go`);
	} finally {
		first.cleanupAgentDir();
		second.cleanupAgentDir();
	}
});

test(`[${FLAVOUR}] kill -9 of a node process that loaded the extension begins tearing down its sandbox within 1 s`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const child = spawn(process.execPath, [join(PI_DIR, "testlib", "hold.mjs")], { cwd: w.ws, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
	let out = "";
	let err = "";
	child.stdout.on("data", (b) => (out += b));
	child.stderr.on("data", (b) => (err += b));
	try {
		await until(() => /READY \S+\n/.test(out) || child.exitCode !== null, 60000, "the holder to be ready");
		const name = /READY (\S+)/.exec(out)?.[1];
		assert.ok(name, `holder failed: ${err}`);
		assert.ok(name in simSandboxes());
		const t0 = Date.now();
		process.kill(child.pid, "SIGKILL");
		await until(() => !(name in simSandboxes()), 10000, `sandbox ${name} to go`);
		const ms = Date.now() - t0;
		// the bound is on the teardown's start, its first sbx call (the
		// pollers here only list); what the calls then take is the VM's
		// business, and a loaded machine's
		const { first, ms: started } = teardownStart(w.simRoot, t0, name);
		t.diagnostic(`the teardown's first sbx call (${first}) began ${started} ms and the sandbox was gone ${ms} ms after SIGKILL`);
		assert.ok(started < 1000, `teardown began after ${started} ms`);
	} finally {
		if (child.exitCode === null) child.kill("SIGKILL");
	}
});

test(`[${FLAVOUR}] aborting a running docker_build leaves no child process behind`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const pi = await loadExtension(w.ws);
	try {
		await pi.start();
		const dir = join(w.ws, "slow-build-context");
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, "Dockerfile"), "FROM busybox:local\nRUN echo starting-the-slow-step && sleep 120\n");
		const ac = new AbortController();
		let started = false;
		const p = pi.call("docker_build", { context: "/workspace/slow-build-context", tag: "slow:1" }, {
			signal: ac.signal,
			onUpdate: (u) => {
				if (u.content[0].text.includes("starting-the-slow-step")) started = true;
			},
		});
		p.catch(() => {});
		await until(() => started, 60000, "the slow step to start");
		assert.ok(processesWith(dir).length > 0, "the build runs");
		const t0 = Date.now();
		ac.abort();
		await assert.rejects(p, /cancelled/);
		t.diagnostic(`cancelled in ${Date.now() - t0} ms`);
		assert.deepEqual(processesWith(dir), [], "no process of the build is left");
		await pi.shutdown("quit");
	} finally {
		pi.cleanupAgentDir();
	}
});

function lsCalls() {
	const f = join(w.simRoot, "calls.log");
	return existsSync(f) ? readFileSync(f, "utf8").split("\n").filter((l) => / ls --json/.test(l)).length : 0;
}

test(`[${FLAVOUR}] session start runs sbx-gc in the background when DOCKER_SANDBOX_GC_HOURS > 0, not at 0`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	// the teardowns of the tests before are done (they call sbx too)
	await until(() => Object.keys(simSandboxes()).length === 0, 15000, "earlier sandboxes to go");
	await new Promise((r) => setTimeout(r, 500));
	process.env.DOCKER_SANDBOX_GC_HOURS = "0";
	const off = await loadExtension(w.ws);
	try {
		const before = lsCalls();
		await off.start();
		await new Promise((r) => setTimeout(r, 1000));
		assert.equal(lsCalls(), before, "no sweep at 0");
		await off.shutdown();
		process.env.DOCKER_SANDBOX_GC_HOURS = "2";
		const on = await loadExtension(w.ws);
		const t0 = Date.now();
		await on.start();
		assert.ok(Date.now() - t0 < 2000, "session start does not wait for the sweep");
		await until(() => lsCalls() > before, 10000, "sbx-gc's sbx ls --json");
		// whether and how old are sbx-gc's to read: the extension gives no -H
		await until(() => processesWith("sbx-gc -x", `SBX_SIM_ROOT=${w.simRoot}`).length === 0, 10000, "sbx-gc to finish");
		await on.shutdown();
		on.cleanupAgentDir();
	} finally {
		delete process.env.DOCKER_SANDBOX_GC_HOURS;
		off.cleanupAgentDir();
	}
});

test(`[${FLAVOUR}] read-only workspace mode: binds are read-only, named volumes writable, the audit checks it`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	process.env.DOCKER_SANDBOX_WORKSPACE_RO = "1";
	const pi = await loadExtension(w.ws);
	try {
		await pi.start();
		mkdirSync(join(w.ws, "rodata"), { recursive: true });
		writeFileSync(join(w.ws, "rodata", "in"), "readable\n");
		const r = await pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, volumes: ["/workspace/rodata:/d:rw"], command: "cat /d/in" });
		assert.match(r.text, /readable/);
		await assert.rejects(
			pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, volumes: ["/workspace/rodata:/d"], command: "sh -c 'echo x > /d/out'" }),
			/Read-only file system/,
		);
		assert.ok(!existsSync(join(w.ws, "rodata", "out")));
		const v = await pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, volumes: ["scratch:/s"], command: "sh -c 'echo ok > /s/f && cat /s/f'" });
		assert.match(v.text, /ok/);
		const st = await pi.call("docker_status");
		assert.match(st.text, /workspace mount: read-only/);
		const a = await pi.call("docker_verify");
		assert.match(a.text, /^PASS workspace-ro:/m, a.text);
		assert.doesNotMatch(a.text, /^FAIL /m, a.text);
		const name = st.result.details.sandbox;
		await pi.shutdown();
		await until(() => !(name in simSandboxes()), 15000, `sandbox ${name} to go`);
	} finally {
		delete process.env.DOCKER_SANDBOX_WORKSPACE_RO;
		pi.cleanupAgentDir();
	}
});

test(`[${FLAVOUR}] without session_start (an SDK embedding), the first call arms the watcher before provisioning`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const pi = await loadExtension(w.ws);
	try {
		const r = await pi.call("docker_ps");
		const name = r.result.details.sandbox;
		assert.ok(name in simSandboxes());
		const st = await pi.call("docker_status");
		assert.match(st.text, /teardown watcher: armed/);
		await pi.shutdown();
		await until(() => !(name in simSandboxes()), 15000, `sandbox ${name} to go`);
	} finally {
		pi.cleanupAgentDir();
	}
});

test(`[${FLAVOUR}] a pinned DOCKER_SANDBOX is used as is and kept at session end (teardown none)`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const name = `pinned-${process.pid}`;
	process.env.DOCKER_SANDBOX = name;
	const pi = await loadExtension(w.ws);
	try {
		await pi.start();
		const r = await pi.call("docker_ps");
		assert.equal(r.result.details.sandbox, name);
		const st = await pi.call("docker_status");
		assert.match(st.text, /teardown at session end: none/);
		await pi.shutdown();
		await new Promise((res) => setTimeout(res, 1000));
		assert.ok(name in simSandboxes(), "kept");
	} finally {
		delete process.env.DOCKER_SANDBOX;
		pi.cleanupAgentDir();
		spawnSync(SIM, ["rm", "--force", name], { env: process.env });
	}
});

test(`[${FLAVOUR}] with DOCKER_SANDBOX_AUTOCREATE=0 a missing sandbox is not made, and the error says how`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	process.env.DOCKER_SANDBOX_AUTOCREATE = "0";
	const pi = await loadExtension(w.ws);
	try {
		await pi.start();
		await assert.rejects(pi.call("docker_ps"), (e) => /does not exist and DOCKER_SANDBOX_AUTOCREATE is off/.test(e.message) && /sbx create/.test(e.message));
		assert.deepEqual(simSandboxes(), {});
		await pi.shutdown();
	} finally {
		delete process.env.DOCKER_SANDBOX_AUTOCREATE;
		pi.cleanupAgentDir();
	}
});
