// What the session's sandbox may reach, through pi's loader against the
// sbx simulator: the session's rules from DOCKER_SANDBOX_EGRESS_ALLOW, a
// blocked pull's answer naming the host and telling the agent to ask,
// docker_egress reading rules and denials, and /docker allow as the one
// way to widen them: the user's, never a tool's.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FLAVOUR, loadExtension, need, piMissing, programsMissing, simMissing, until, world } from "../testlib/harness.mjs";

const missing = [...piMissing(), ...simMissing(), ...programsMissing()];
let w;
let pi;
let web;

function ready(t) {
	return need(t, missing, "the sbx simulator") && pi;
}

function freePort() {
	return new Promise((resolve, reject) => {
		const srv = createServer();
		srv.once("error", reject);
		srv.listen(0, "127.0.0.1", () => {
			const { port } = srv.address();
			srv.close(() => resolve(port));
		});
	});
}

/** /docker with args, and what it said. */
async function slashDocker(args) {
	const cmd = pi.runner.getRegisteredCommands().find((c) => (c.invocationName ?? c.name) === "docker");
	const seen = [];
	pi.runner.setUIContext({ ...pi.ctx.ui, notify: (m, kind) => seen.push({ m, kind }) });
	await cmd.handler(args, pi.runner.createCommandContext());
	assert.equal(seen.length, 1);
	return seen[0];
}

before(async () => {
	if (missing.length) return;
	w = world();
	const www = join(w.base, "www");
	mkdirSync(www);
	writeFileSync(join(www, "index.html"), "hello-web\n");
	const port = await freePort();
	web = spawn("/usr/bin/python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1"], { cwd: www, stdio: "ignore", detached: true });
	process.env.SBX_SIM_HOSTS = `web.test=127.0.0.1:${port},other.test=127.0.0.1:${port}`;
	process.env.DOCKER_SANDBOX_EGRESS_ALLOW = "web.test";
	pi = await loadExtension(w.ws);
	await pi.start();
});

after(async () => {
	if (web) process.kill(-web.pid, "SIGTERM");
	if (pi) {
		await pi.shutdown("quit");
		pi.cleanupAgentDir();
	}
	w?.cleanup();
});

test(`[${FLAVOUR}] the agent's tools read the rules and never change them`, (t) => {
	if (!ready(t)) return;
	const names = pi.tools.map((d) => d.name);
	assert.ok(names.includes("docker_egress"));
	assert.deepEqual(names.filter((n) => /allow|deny|policy|egress_(set|add)/.test(n)), []);
	const def = pi.tool("docker_egress");
	assert.deepEqual(Object.keys(def.parameters.properties ?? {}), []);
});

test(`[${FLAVOUR}] a pull from a host sbx blocks: the answer names it and tells the agent to ask the user`, async (t) => {
	if (!ready(t)) return;
	const e = await pi.call("docker_pull", { image: "other.test/x:1" }).then(
		() => assert.fail("the pull succeeded"),
		(err) => err,
	);
	assert.match(e.message, /sbx blocked, for this sandbox, during the call:\n {2}other\.test:\d+: no rule allows it/);
	assert.match(e.message, /You cannot change them: if one is needed, ask the user, who can allow it with \/docker allow HOST/);
});

test(`[${FLAVOUR}] docker_egress lists the session's rule and the blocked host, and says to ask`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_egress", {});
	const text = r.result.content[0].text;
	assert.match(text, /allow web\.test \(this session's\)/);
	assert.match(text, /other\.test:\d+: no rule allows it/);
	assert.match(text, /ask the user/);
	assert.deepEqual(r.result.details.rules, 1);
});

test(`[${FLAVOUR}] /docker allow is the user's way to widen: checked, put in force, listed`, async (t) => {
	if (!ready(t)) return;
	const bad = await slashDocker("allow localhost");
	assert.equal(bad.kind, "error");
	assert.match(bad.m, /exit 64/);
	const ok = await slashDocker("allow other.test");
	assert.equal(ok.kind, "info", ok.m);
	assert.match(ok.m, /allowed other\.test/);
	const r = await pi.call("docker_egress", {});
	assert.match(r.result.content[0].text, /allow other\.test \(this session's\)/);
	const usage = await slashDocker("open other.test");
	assert.match(usage.m, /^usage: \/docker \[allow HOST\.\.\. \| deny HOST\.\.\.\]/);
});

test(`[${FLAVOUR}] a container refusing the proxy's certificate: the answer says so, from sbx-run's -O line`, async (t) => {
	if (!ready(t)) return;
	const e = await pi
		.call("docker_run", { image: "busybox:local", detach: false, rm: true, command: "echo 'x509: certificate signed by unknown authority' >&2; exit 1" })
		.then(
			() => assert.fail("the run succeeded"),
			(err) => err,
		);
	assert.match(e.message, /A container refused the sandbox proxy's TLS certificate/);
	assert.match(e.message, /sbx-run: a container refused the certificate of the sandbox's proxy/);
});
