// The tools under attack on the simulator (issue 18, findings 5, 7, 8):
// every container docker_compose creates carries com.pi.sandbox=true
// (run's, and services named _x or .x); a DOCKER_SANDBOX_TIMEOUT of 2
// ends a foreground docker_run at 2 s; docker_sandbox_rm on a pinned
// sandbox made by hand leaves it, and says so.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { FLAVOUR, SIM, loadExtension, simSandboxes, until, withEnv } from "../testlib/harness.mjs";
import { sessionSuite } from "../testlib/suite.mjs";

const FILE = "/workspace/lproj/compose.yaml";
const S = sessionSuite(async (s) => {
	const dir = join(s.w.ws, "lproj");
	mkdirSync(dir, { recursive: true });
	writeFileSync(
		join(dir, "compose.yaml"),
		`services:
  app:
    image: busybox:local
    command: ["sleep", "600"]
    depends_on: ["_dep"]
  _dep:
    image: busybox:local
    command: ["sleep", "600"]
  .dot:
    image: busybox:local
    command: ["sleep", "600"]
    labels:
      com.pi.sandbox: "false"
`,
	);
	const ps = await s.pi.call("docker_ps");
	s.name = ps.result.details.sandbox;
});
const inner = (...a) => S.inner(...a);

/** Every container of the project: name -> its com.pi.sandbox label. */
function labels() {
	const out = {};
	for (const l of inner("ps", "-a", "--filter", "label=com.docker.compose.project=lproj", "--format", '{{.Names}}\t{{.Label "com.pi.sandbox"}}').split("\n").filter(Boolean)) {
		const [n, v] = l.split("\t");
		out[n] = v;
	}
	return out;
}

test(`[${FLAVOUR}] label class (finding 7): compose up labels every service, _dep and .dot included, over a label of its own`, async (t) => {
	if (!S.ready(t)) return;
	await S.pi.call("docker_compose", { file: FILE, action: "up" });
	const got = labels();
	assert.ok(Object.keys(got).length >= 3, JSON.stringify(got));
	for (const [n, v] of Object.entries(got)) assert.equal(v, "true", `${n}: ${JSON.stringify(got)}`);
	await S.pi.call("docker_compose", { file: FILE, action: "down", extraArgs: ["-t", "0"] });
});

test(`[${FLAVOUR}] label class (finding 7): compose run labels its container and the dependencies it starts, and its command's stdin stays empty`, async (t) => {
	if (!S.ready(t)) return;
	const call = S.pi.call("docker_compose", { file: FILE, action: "run", service: "app", command: "sleep 3; wc -c" });
	let seen = {};
	await until(() => {
		seen = labels();
		return Object.keys(seen).some((n) => n.startsWith("pi-run-"));
	}, 20000, "the run container");
	const r = await call;
	for (const [n, v] of Object.entries(seen)) assert.equal(v, "true", `${n}: ${JSON.stringify(seen)}`);
	assert.ok(Object.keys(seen).some((n) => n.includes("_dep")), JSON.stringify(seen));
	assert.match(r.text, /\n0$/, `the command read nothing from stdin: ${r.text}`);
	// the override file of the VM is gone
	const left = spawnSync("sbx-run", ["-s", S.name, "-w", S.w.ws, "-x", "--", "sh", "-c", "ls /tmp | grep -c pi-compose- || true"], { encoding: "utf8" });
	assert.equal(left.stdout.trim(), "0", left.stderr);
	await S.pi.call("docker_compose", { file: FILE, action: "down", extraArgs: ["-t", "0"] });
});

test(`[${FLAVOUR}] timeout setting class (finding 5): DOCKER_SANDBOX_TIMEOUT=2 ends a foreground docker_run at 2 s`, async (t) => {
	if (!S.ready(t)) return;
	const t0 = Date.now();
	await withEnv({ DOCKER_SANDBOX_TIMEOUT: "2" }, () =>
		assert.rejects(S.pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, command: "sleep 30" }), /timed out \(exit 124\)/),
	);
	const ms = Date.now() - t0;
	assert.ok(ms < 10000, `the run took ${ms} ms`);
});

test(`[${FLAVOUR}] not ours class (finding 8): docker_sandbox_rm on a pinned sandbox made by hand leaves it and says so`, async (t) => {
	if (!S.ready(t)) return;
	const name = "hand-made-sbx";
	const ws = join(S.w.base, "hand-ws");
	mkdirSync(ws, { recursive: true });
	const c = spawnSync(SIM, ["create", "--name", name, "shell", ws], { encoding: "utf8", env: process.env });
	assert.equal(c.status, 0, c.stderr);
	await withEnv({ DOCKER_SANDBOX: name }, async () => {
		const p = await loadExtension(S.w.ws);
		try {
			await p.start();
			const ps = await p.call("docker_ps");
			assert.equal(ps.result.details.sandbox, name);
			const r = await p.call("docker_sandbox_rm");
			assert.match(r.text, /was not made by these tools .* so it was not removed/, r.text);
			assert.doesNotMatch(r.text, /does not exist/);
			assert.equal(r.result.details.removed, false);
			assert.ok(name in simSandboxes(), "the hand-made sandbox was removed");
		} finally {
			await p.shutdown();
			p.cleanupAgentDir();
		}
	});
	assert.ok(name in simSandboxes(), "the session's end removed the hand-made sandbox");
	spawnSync(SIM, ["rm", "--force", name], { env: process.env });
});
