// Settings through pi (issue 11 findings 7 and 11): the extension parses
// none of the DOCKER_SANDBOX* settings itself, it asks the programs; and
// no sandbox is made unless the session's teardown watcher is armed.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { FLAVOUR, loadExtension, need, piMissing, processesWith, programsMissing, simMissing, simSandboxes, until, withEnv, world } from "../testlib/harness.mjs";

const missing = [...piMissing(), ...simMissing(), ...programsMissing()];
let w;

before(() => {
	if (!missing.length) w = world();
});
after(() => w?.cleanup());

const BAD = [
	["DOCKER_SANDBOX_TEARDOWN", "destroy", /DOCKER_SANDBOX_TEARDOWN: expected remove, stop or none/],
	["DOCKER_SANDBOX_TEARDOWN", "rm", /DOCKER_SANDBOX_TEARDOWN: expected remove, stop or none/],
	["DOCKER_SANDBOX_KEEPALIVE", "maybe", /DOCKER_SANDBOX_KEEPALIVE: expected 1, true, yes, on, 0, false, no or off/],
	["DOCKER_SANDBOX_TIMEOUT", "100000", /DOCKER_SANDBOX_TIMEOUT: number is too large \(0 to 86400\)/],
];

for (const [name, value, said] of BAD) {
	for (const start of [true, false]) {
		test(`[${FLAVOUR}] no sandbox without a teardown class: ${name}=${value} ${start ? "after session_start" : "without session_start"}: the tool refuses, naming it, and nothing is provisioned`, async (t) => {
			if (!need(t, missing, "the sbx simulator")) return;
			await until(() => Object.keys(simSandboxes()).length === 0, 15000, "earlier sandboxes to go");
			await withEnv({ [name]: value }, async () => {
				const pi = await loadExtension(w.ws);
				try {
					if (start) await pi.start();
					for (const tool of ["docker_ps", "docker_images"]) await assert.rejects(pi.call(tool), (e) => said.test(e.message), `${tool} names ${name}`);
					await assert.rejects(pi.call("docker_pull", { image: "busybox:local" }), said);
					assert.deepEqual(simSandboxes(), {}, "nothing provisioned");
					assert.equal(processesWith("sbx-watch").filter((l) => l.includes(w.ws)).length, 0);
					await pi.shutdown();
				} finally {
					pi.cleanupAgentDir();
				}
			});
		});
	}
}

test(`[${FLAVOUR}] no sandbox without a teardown class: once the variable is fixed, the next call arms and provisions, and shutdown removes it`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const pi = await withEnv({ DOCKER_SANDBOX_TEARDOWN: "destroy" }, async () => {
		const p = await loadExtension(w.ws);
		await p.start();
		await assert.rejects(p.call("docker_ps"), /DOCKER_SANDBOX_TEARDOWN/);
		return p;
	});
	try {
		const r = await pi.call("docker_ps");
		const name = r.result.details.sandbox;
		assert.ok(name in simSandboxes());
		assert.match((await pi.call("docker_status")).text, /teardown watcher: armed/);
		await pi.shutdown();
		await until(() => !(name in simSandboxes()), 15000, `sandbox ${name} to go`);
	} finally {
		pi.cleanupAgentDir();
	}
});

test(`[${FLAVOUR}] settings class: pi takes what the programs take (Remove, ro, GC hours 1.5) and shows their values`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	await withEnv({ DOCKER_SANDBOX_TEARDOWN: "Remove", DOCKER_SANDBOX_WORKSPACE_RO: "ro", DOCKER_SANDBOX_GC_HOURS: "1.5", DOCKER_SANDBOX_KEEPALIVE: "ON" }, async () => {
		const pi = await loadExtension(w.ws);
		try {
			await pi.start();
			const st = await pi.call("docker_status");
			assert.match(st.text, /teardown at session end: remove/);
			assert.match(st.text, /workspace mount: read-only/);
			assert.match(st.text, /keepalive: always/);
			assert.match(st.text, /older than 2 h/);
			assert.match(st.text, /teardown watcher: armed/);
			await pi.shutdown();
		} finally {
			pi.cleanupAgentDir();
		}
	});
});

test(`[${FLAVOUR}] settings class: what the programs refuse pi refuses too, with their message`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	for (const [name, value] of [["DOCKER_SANDBOX_GC_HOURS", "abc"], ["DOCKER_SANDBOX_WORKSPACE_RO", "maybe"], ["DOCKER_SANDBOX_TEARDOWN", "Destroy"], ["DOCKER_SANDBOX_MEMORY", "lots"]]) {
		await withEnv({ [name]: value }, async () => {
			const pi = await loadExtension(w.ws);
			try {
				// a status that shows the program's message, or a failure that is it
				let said;
				try {
					said = (await pi.call("docker_status")).text;
				} catch (e) {
					said = e.message;
				}
				assert.match(said, new RegExp(`sbx-[a-z]+: ${name}: `), `${name}=${value}: ${said}`);
				await assert.rejects(pi.call("docker_gc", {}), (e) => name !== "DOCKER_SANDBOX_GC_HOURS" || e.message.includes(name));
			} finally {
				pi.cleanupAgentDir();
			}
		});
	}
	assert.deepEqual(simSandboxes(), {});
});

test(`[${FLAVOUR}] no sandbox without a teardown class: teardown none on purpose still provisions, with its watcher armed`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	await withEnv({ DOCKER_SANDBOX_TEARDOWN: "none" }, async () => {
		const pi = await loadExtension(w.ws);
		let name;
		try {
			await pi.start();
			name = (await pi.call("docker_ps")).result.details.sandbox;
			assert.ok(name in simSandboxes());
			assert.match((await pi.call("docker_status")).text, /teardown at session end: none/);
			await pi.shutdown();
			await new Promise((r) => setTimeout(r, 1000));
			assert.ok(name in simSandboxes(), "kept: teardown none");
		} finally {
			pi.cleanupAgentDir();
			if (name) await withEnv({}, () => import("node:child_process").then((cp) => cp.spawnSync(process.env.DOCKER_SANDBOX_SBX, ["rm", "--force", name], { env: process.env })));
		}
	});
});
