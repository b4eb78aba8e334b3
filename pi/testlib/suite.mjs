// One session and one sandbox for a test file: the world, the extension
// loaded through pi's loader and started, and the helpers every such
// file wants.  Call at the top level of the file; setup runs in before().
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before } from "node:test";
import { loadExtension, need, piMissing, programsMissing, simMissing, world } from "./harness.mjs";

/**
 * Returns { w, pi, name, ready(t), inner(...args) }, filled in before the
 * first test.  setup(s) runs after the session started (make containers,
 * set s.name).
 */
export function sessionSuite(setup = async () => {}) {
	const missing = [...piMissing(), ...simMissing(), ...programsMissing()];
	const s = {
		w: undefined,
		pi: undefined,
		name: undefined,
		/** skip outside CI when the simulator cannot run here; fail under CI */
		ready: (t) => need(t, missing, "the sbx simulator") && s.pi,
		/** pinned docker in the session's sandbox, straight through sbx-run (to check what the tools did) */
		inner(...args) {
			const r = spawnSync("sbx-run", ["-s", s.name, "-w", s.w.ws, "--", ...args], { encoding: "utf8", env: process.env });
			assert.equal(r.status, 0, `sbx-run ${args.join(" ")}: ${r.stderr}`);
			return r.stdout;
		},
	};
	before(async () => {
		if (missing.length) return;
		s.w = world();
		s.pi = await loadExtension(s.w.ws);
		await s.pi.start();
		await setup(s);
	});
	after(async () => {
		if (s.pi) {
			await s.pi.shutdown();
			s.pi.cleanupAgentDir();
		}
		s.w?.cleanup();
	});
	return s;
}
