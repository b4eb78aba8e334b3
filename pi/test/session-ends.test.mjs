// A session's edges: nothing runs before its directory is known, every
// program gets the cleaned environment, one watcher however many first
// calls race, its end ends its calls (no sandbox made again, no file
// left), and Esc on a compose run returns within its bound while the VM
// hangs.  Through pi's loader against the simulator.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FLAVOUR, TOP, loadExtension, need, piMissing, processesWith, programsMissing, simMissing, simSandboxes, until, withEnv, world } from "../testlib/harness.mjs";

const missing = [...piMissing(), ...simMissing(), ...programsMissing()];
let w;
before(() => {
	if (!missing.length) w = world();
});
after(() => w?.cleanup());

/** A script at dir/name that appends its PATH and arguments to log, then runs real (or fails). */
function wrapper(dir, name, log, real) {
	mkdirSync(dir, { recursive: true });
	const p = join(dir, name);
	const tail = real ? `exec '${real}' "$@"` : "exit 1";
	writeFileSync(p, `#!/bin/sh\nprintf '%s\\t%s %s\\n' "\${PATH-(unset)}" "${name}" "$*" >>'${log}'\n${tail}\n`);
	chmodSync(p, 0o755);
	return p;
}
const lines = (f) => (existsSync(f) ? readFileSync(f, "utf8").split("\n").filter(Boolean) : []);
const logs = () => readdirSync(w.base).filter((f) => f.startsWith("pi-docker-"));

async function gone(name) {
	await until(() => !(name in simSandboxes()), 20000, `sandbox ${name} to go`);
}

test(`[${FLAVOUR}] session-directory class: no program runs before the session's directory is known, and every guard uses it`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	// pi started elsewhere (its home, another project); the session's project holds programs of its own on PATH
	const proj = join(w.base, "proj");
	const elsewhere = join(w.base, "elsewhere");
	mkdirSync(elsewhere, { recursive: true });
	const ran = join(w.base, "ran.log");
	for (const p of ["sbx-run", "sbx-env", "sbx-watch", "sbx-gc", "sbx-ports", "sbx-verify"]) wrapper(join(proj, "bin"), p, ran);
	const variants = [
		["session_start", {}, true],
		["pinned DOCKER_SANDBOX", { DOCKER_SANDBOX: "pinned-by-user" }, true],
		["no session_start (a tool's context names it)", {}, false],
	];
	for (const [what, env, start] of variants) {
		await withEnv({ ...env, PATH: `${join(proj, "bin")}:${process.env.PATH}` }, async () => {
			process.chdir(elsewhere);
			const pi = await loadExtension(proj);
			try {
				assert.deepEqual(lines(ran), [], `${what}: ran as the extension loaded`);
				if (start) await pi.start();
				assert.deepEqual(lines(ran), [], `${what}: ran at session_start`);
				const r = await pi.call("docker_status");
				assert.deepEqual(lines(ran), [], `${what}: a program of the session's directory ran`);
				assert.match(r.text, new RegExp(`workspace: ${proj}`), what);
			} finally {
				process.chdir(w.ws);
				await pi.shutdown();
				pi.cleanupAgentDir();
			}
		});
	}
	await until(() => Object.keys(simSandboxes()).length === 0, 20000, "every sandbox to go");
});

test(`[${FLAVOUR}] clean-environment class: the prewarm, like every program, gets PATH without relative or workspace entries`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const wrap = join(w.base, "wrap-env");
	const log = join(w.base, "env.log");
	wrapper(wrap, "sbx-run", log, join(TOP, "sbx-run", "sbx-run"));
	const dirty = [".", "rel/bin", join(w.ws, "bin"), ""];
	await withEnv({ DOCKER_SANDBOX_BIN: wrap, DOCKER_SANDBOX_PREWARM: "1", PATH: `${dirty.join(":")}:${process.env.PATH}` }, async () => {
		const pi = await loadExtension(w.ws);
		let name;
		try {
			await pi.start();
			await until(() => lines(log).some((l) => / -P /.test(l)), 20000, "the prewarm to start");
			name = (await pi.call("docker_ps")).result.details.sandbox;
			for (const l of lines(log)) {
				const path = l.split("\t")[0];
				if (path === "(unset)") continue; // sbx-run -C is given none
				const bad = path.split(":").filter((d) => !d.startsWith("/") || d.startsWith(w.ws));
				assert.deepEqual(bad, [], `${l}: PATH holds ${bad.join(", ")}`);
			}
		} finally {
			await pi.shutdown();
			pi.cleanupAgentDir();
		}
		if (name) await gone(name);
	});
});

test(`[${FLAVOUR}] one-watcher class: parallel first calls without session_start arm one watcher, and the session's end removes the sandbox`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const wrap = join(w.base, "wrap-watch");
	const log = join(w.base, "watch.log");
	wrapper(wrap, "sbx-watch", log, join(TOP, "sbx-watch", "sbx-watch"));
	await withEnv({ DOCKER_SANDBOX_BIN: wrap }, async () => {
		const pi = await loadExtension(w.ws);
		let name;
		try {
			// no session_start: an embedding that fires none, or a start that could not arm
			const rs = await Promise.all([1, 2, 3, 4, 5].map(() => pi.call("docker_ps")));
			name = rs[0].result.details.sandbox;
			assert.equal(lines(log).filter((l) => / -f 3 /.test(l)).length, 1, lines(log).join("\n"));
			assert.equal(processesWith(`sbx-watch -f 3 ${name}`).length, 1, "one watcher runs");
		} finally {
			await pi.shutdown();
			pi.cleanupAgentDir();
		}
		await gone(name);
	});
});

test(`[${FLAVOUR}] session-end class: a call in flight at /new is ended with it, makes no sandbox again and leaves no log`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const dir = join(w.ws, "slow-at-new");
	mkdirSync(dir, { recursive: true });
	// more than a failure's tail: the answer, were one given, would name a log
	writeFileSync(join(dir, "Dockerfile"), "FROM busybox:local\nRUN for i in $(seq 1 200); do echo line-$i; done; echo slow-step-begins; sleep 600\n");
	const pi = await loadExtension(w.ws);
	await pi.start();
	let started = false;
	const p = pi.call("docker_build", { context: "/workspace/slow-at-new", tag: "slow:new" }, {
		onUpdate: (u) => {
			if (u.content[0].text.includes("slow-step-begins")) started = true;
		},
	});
	const settled = p.then(
		() => "resolved",
		(e) => e,
	);
	try {
		await until(() => started, 120000, "the slow step to start");
		const t0 = Date.now();
		await pi.shutdown("new"); // pi does not abort the turn's calls
		const e = await settled;
		const ms = Date.now() - t0;
		t.diagnostic(`the call ended ${ms} ms after the session's end`);
		assert.ok(e instanceof Error, `the call ${e}`);
		assert.match(e.message, /cancelled|session has ended/);
		assert.ok(ms < 30000, `took ${ms} ms`);
		await until(() => Object.keys(simSandboxes()).length === 0, 20000, "the sandbox to go");
		await new Promise((r) => setTimeout(r, 3000));
		assert.deepEqual(Object.keys(simSandboxes()), [], "no sandbox made again");
		assert.deepEqual(logs(), [], "no log of the session left");
		assert.deepEqual(processesWith(dir), [], "nothing of the build runs");
	} finally {
		pi.cleanupAgentDir();
	}
});

test(`[${FLAVOUR}] bounded-Esc class: Esc on a compose run returns within 50 s while the VM hangs, DOCKER_SANDBOX_TIMEOUT=0`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const dir = join(w.base, "hang-compose");
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "compose.yaml"), "services:\n  app:\n    image: busybox:local\n    command: sleep 1000\n");
	const pi = await loadExtension(dir);
	let name;
	try {
		await pi.start();
		const ac = new AbortController();
		let started = false;
		const p = pi.call("docker_compose", { action: "run", service: "app", command: "echo run-started; sleep 600" }, {
			signal: ac.signal,
			onUpdate: (u) => {
				if (u.content[0].text.includes("run-started")) started = true;
			},
		});
		const settled = p.then(
			() => "resolved",
			(e) => e,
		);
		await until(() => started, 120000, "the run to start");
		name = Object.keys(simSandboxes())[0];
		const e = await withEnv({ SBX_SIM_HANG: "exec", DOCKER_SANDBOX_TIMEOUT: "0" }, async () => {
			const t0 = Date.now();
			ac.abort();
			const bound = new Promise((r) => setTimeout(() => r("still waiting after 80 s"), 80000));
			const out = await Promise.race([settled, bound]);
			t.diagnostic(`returned ${Date.now() - t0} ms after Esc`);
			assert.ok(Date.now() - t0 <= 50000, `took ${Date.now() - t0} ms: ${out}`);
			return out;
		});
		assert.ok(e instanceof Error, String(e));
		assert.match(e.message, /^docker compose run: cancelled/);
	} finally {
		await pi.shutdown();
		pi.cleanupAgentDir();
	}
	if (name) await gone(name);
});
