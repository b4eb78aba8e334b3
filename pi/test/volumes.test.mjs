// A habit from the prior extension (issue 12, "Volumes"): docker_run
// volumes ["data:/d"] binds the workspace's data folder when there is one;
// a bare name that exists nowhere in the workspace is a named volume; the
// answer says which each became.  Against the sbx simulator (a real
// private dockerd), through pi's loader.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { endSession, FLAVOUR, loadExtension, need, piMissing, programsMissing, simMissing, world } from "../testlib/harness.mjs";

const missing = [...piMissing(), ...simMissing(), ...programsMissing()];
let w;
let pi;

function ready(t) {
	return need(t, missing, "the sbx simulator") && pi;
}

before(async () => {
	if (missing.length) return;
	w = world();
	mkdirSync(join(w.ws, "data"), { recursive: true });
	writeFileSync(join(w.ws, "data", "hello.txt"), "from the data folder\n");
	mkdirSync(join(w.ws, "sub", "dir"), { recursive: true });
	writeFileSync(join(w.ws, "sub", "dir", "f.txt"), "from sub/dir\n");
	pi = await loadExtension(w.ws);
	await pi.start();
});
after(() => endSession(pi, w));

/** A foreground run of busybox with the given volumes and command. */
function run(volumes, command) {
	return pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, volumes, command });
}

test(`[${FLAVOUR}] volumes habit (issue 12): data, ./data and sub/dir bind the workspace paths, as the prior extension did`, async (t) => {
	if (!ready(t)) return;
	for (const src of ["data", "./data", "/workspace/data"]) {
		const r = await run([`${src}:/d`], ["cat", "/d/hello.txt"]);
		assert.match(r.text, /from the data folder/, `${src}: ${r.text}`);
		assert.ok(r.text.includes(`${src}: workspace path ${join(w.ws, "data")} bound at /d`), r.text);
	}
	const r = await run(["sub/dir:/s:ro"], ["cat", "/s/f.txt"]);
	assert.match(r.text, /from sub\/dir/);
	assert.ok(r.text.includes(`sub/dir: workspace path ${join(w.ws, "sub", "dir")} bound at /s (ro)`), r.text);
});

test(`[${FLAVOUR}] volumes habit (issue 12): a bare name that is nowhere in the workspace is a named volume, and the answer says so`, async (t) => {
	if (!ready(t)) return;
	const a = await run(["cache:/c"], ["sh", "-c", "echo kept > /c/x"]);
	assert.ok(a.text.includes('cache: named volume "cache" at /c (no such path in the workspace)'), a.text);
	const b = await run(["cache:/c"], ["cat", "/c/x"]);
	assert.match(b.text, /kept/, "the same volume the second time");
	assert.equal(existsSync(join(w.ws, "cache")), false, "nothing made in the workspace");
	// one call, both kinds: each said
	const c = await pi.call("docker_run", { image: "busybox:local", name: "vols", volumes: ["data:/d", "cache:/c:ro"], command: ["sleep", "30"] });
	assert.match(c.text, /^volumes:$/m, c.text);
	assert.ok(c.text.includes(`  data: workspace path ${join(w.ws, "data")} bound at /d`), c.text);
	assert.ok(c.text.includes('  cache: named volume "cache" at /c'), c.text);
	const ls = spawnSync("sbx-run", ["-s", c.result.details.sandbox, "-w", w.ws, "--", "volume", "ls", "-q"], { encoding: "utf8", env: process.env });
	assert.equal(ls.status, 0, ls.stderr);
	assert.deepEqual(ls.stdout.split("\n").filter(Boolean), ["cache"]);
	await pi.call("docker_rm", { id: "vols" });
});
