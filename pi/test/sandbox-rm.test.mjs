// docker_sandbox_rm goes through the programs' one teardown (sbx-watch -n):
// markers, port record and scratch directory go with the sandbox; the
// armed watcher keeps watching, a later call provisions again, and the
// session's end still tears that one down.  Against the simulator.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FLAVOUR, loadExtension, need, piMissing, programsMissing, simMissing, simSandboxes, until, world } from "../testlib/harness.mjs";

const missing = [...piMissing(), ...simMissing(), ...programsMissing()];
let w;

before(() => {
	if (missing.length) return;
	w = world();
	// read-only workspace: the sandbox gets a scratch directory NAME.prime too
	process.env.DOCKER_SANDBOX_WORKSPACE_RO = "1";
});
after(() => w?.cleanup());

function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** What the state directory holds of NAME, sorted, but its past sessions' records. */
function leftOf(name) {
	return readdirSync(process.env.SBX_STATE_DIR)
		.filter((f) => f.startsWith(`${name}.`) && !f.startsWith(`${name}.past-`))
		.sort();
}

/** The past sessions' records of NAME, which outlive its sandbox. */
function pastOf(name) {
	return readdirSync(process.env.SBX_STATE_DIR).filter((f) => f.startsWith(`${name}.past-`));
}

test(`[${FLAVOUR}] docker_sandbox_rm: the one teardown, markers and scratch dir included; provisioned again, torn down at the end`, async (t) => {
	if (!need(t, missing, "the sbx simulator")) return;
	const pi = await loadExtension(w.ws);
	let name;
	try {
		await pi.start();
		const run = await pi.call("docker_run", {
			image: "busybox:local",
			name: "w1",
			ports: ["18090:8000"],
			command: ["sh", "-c", "trap 'exit 0' TERM; httpd -f -p 8000 & wait"],
		});
		name = run.result.details.sandbox;
		assert.equal(run.result.details.urls.length, 1, run.text);
		const before = leftOf(name);
		for (const f of ["created", "lock", "owner", "ports", "prime"]) assert.ok(before.includes(`${name}.${f}`), `${name}.${f} before: ${before}`);

		const r = await pi.call("docker_sandbox_rm");
		assert.match(r.text, new RegExp(`sandbox "${name}" removed`));
		assert.ok(!(name in simSandboxes()));
		// nothing of NAME but what the armed watcher holds: its lock, and the owner marker that names it
		assert.deepEqual(leftOf(name), [`${name}.lock`, `${name}.owner`]);
		assert.equal(pastOf(name).length, 1, `the removed sandbox's record kept: ${pastOf(name)}`);
		const watcher = Number(/^watcher=(\d+)$/m.exec(readFileSync(join(process.env.SBX_STATE_DIR, `${name}.owner`), "utf8"))?.[1]);
		assert.ok(watcher > 0 && alive(watcher), `the watcher ${watcher} still watches`);
		const again = await pi.call("docker_sandbox_rm");
		assert.match(again.text, /does not exist: nothing to remove/);

		// a later call provisions again, under the same watcher
		const ps = await pi.call("docker_ps", { all: true });
		assert.match(ps.text, /no containers/);
		assert.ok(name in simSandboxes());
		assert.ok(leftOf(name).includes(`${name}.created`));

		await pi.shutdown("quit");
		await until(() => !(name in simSandboxes()), 15000, `sandbox ${name} to go at the session's end`);
		await until(() => leftOf(name).length === 0, 15000, `nothing of ${name} left: ${leftOf(name)}`);
		assert.equal(pastOf(name).length, 2, `both sandboxes' records kept: ${pastOf(name)}`);
	} finally {
		pi.cleanupAgentDir();
	}
});
