// docker_history and the /docker count against the sbx simulator, through
// pi's loader: the session's docker calls (tools and by hand) from
// sbx-run's journal, no forwarded value in it, kept after teardown as a
// past session's record that docker_history's session reads, /docker
// lists, and no tool of the agent can remove.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { endSession, FLAVOUR, loadExtension, need, piMissing, programsMissing, simMissing, simSandboxes, until, world } from "../testlib/harness.mjs";

const missing = [...piMissing(), ...simMissing(), ...programsMissing()];
const SECRET = "sekrit-history-4711";
let w;
let pi;
let name;

function ready(t) {
	return need(t, missing, "the sbx simulator") && pi;
}

const journal = () => join(process.env.SBX_STATE_DIR, `${name}.journal`);
/** The call lines of a record: its event lines have an "event" member. */
const callsOf = (file) => readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((r) => !("event" in r));
/** The past sessions' records of the sandbox, by file name. */
const pasts = () => readdirSync(process.env.SBX_STATE_DIR).filter((f) => f.startsWith(`${name}.past-`));

/** What /docker says. */
async function slashDocker() {
	const cmd = pi.runner.getRegisteredCommands().find((c) => (c.invocationName ?? c.name) === "docker");
	const seen = [];
	pi.runner.setUIContext({ ...pi.ctx.ui, notify: (m) => seen.push(m) });
	await cmd.handler("", pi.runner.createCommandContext());
	assert.equal(seen.length, 1);
	return seen[0];
}

before(async () => {
	if (missing.length) return;
	w = world();
	// a variable forwarded into the sandbox: its value must stay out of the journal
	process.env.DOCKER_SANDBOX_ENV_ALLOWLIST = "HISTORY_TOKEN";
	process.env.HISTORY_TOKEN = SECRET;
	pi = await loadExtension(w.ws);
	await pi.start();
});

after(() => endSession(pi, w));

test(`[${FLAVOUR}] docker_history: none before the first call, and it provisions nothing`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_history");
	name = r.result.details.sandbox;
	assert.match(r.text, /^no docker calls yet in sandbox "pi-sbx-\d+-[a-z0-9]{8}"\.$/);
	assert.equal(r.result.details.calls, 0);
	assert.deepEqual(simSandboxes(), {});
	assert.match(await slashDocker(), /docker calls: 0 made through sbx-run\n/);
});

test(`[${FLAVOUR}] docker_history: the tools' calls and one by hand, in order, with status, and last`, async (t) => {
	if (!ready(t)) return;
	await pi.call("docker_ps", { all: true });
	await pi.call("docker_images");
	await assert.rejects(pi.call("docker_logs", { id: "no-such-container" }), /exit 1/);
	const hand = spawnSync("sbx-run", ["-s", name, "--", "version", "--format", "{{.Server.Version}}"], { encoding: "utf8", env: process.env });
	assert.equal(hand.status, 0, hand.stderr);

	const raw = callsOf(journal());
	const r = await pi.call("docker_history");
	assert.equal(r.result.details.calls, raw.length);
	const lines = r.text.split("\n");
	assert.equal(lines[0], `${raw.length} docker calls in sandbox "${name}":`);
	assert.equal(lines.length, raw.length + 1);
	for (const l of lines.slice(1)) assert.match(l, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}exit \d+ {2}\d+ ms {2}\d+(\.\d)? (B|KiB|MiB) {2}docker /, l);
	const order = ["docker ps -a --format '{{json .}}'", "docker images --format '{{json .}}'", "docker logs", "docker version --format '{{.Server.Version}}'"];
	let at = 0;
	for (const want of order) {
		const i = lines.findIndex((l, k) => k > at && l.includes(want));
		assert.ok(i > at, `${want} after line ${at}:\n${r.text}`);
		at = i;
	}
	assert.match(lines.find((l) => l.includes("docker logs")), /exit 1 .*no-such-container/);
	assert.match(lines.find((l) => l.includes("docker version")), /exit 0 /);
	assert.ok(!readFileSync(journal(), "utf8").includes(SECRET), "no forwarded value in the journal");
	assert.ok(!r.text.includes(SECRET));

	t.diagnostic(r.text);
	const one = await pi.call("docker_history", { last: 1 });
	assert.deepEqual(one.text.split("\n"), [`${raw.length} docker calls in sandbox "${name}"; the last 1:`, lines.at(-1)]);
	// pi's validation refuses what is out of range, the tool a fraction: both name the parameter
	for (const last of [0, -3, 1.5, 1001, "1e21", "NaN"]) await assert.rejects(pi.call("docker_history", { last }), /\blast\b/, String(last));
	const def = pi.tool("docker_history").parameters.properties.last;
	assert.deepEqual([def.minimum, def.maximum], [1, 1000]);
	assert.match(await slashDocker(), new RegExp(`docker calls: ${raw.length} made through sbx-run \\(docker_history shows them\\)\\n`));
});

test(`[${FLAVOUR}] docker_history: session takes a sandbox name and nothing else`, async (t) => {
	if (!ready(t)) return;
	for (const session of ["../x", "-rf", "a b", "default", "x/y", "", "a".repeat(64), "a\nb"]) await assert.rejects(pi.call("docker_history", { session }), /\bsession\b/, JSON.stringify(session));
	const r = await pi.call("docker_history", { session: "pi-sbx-1-nosuch00" });
	assert.match(r.text, /^no docker calls yet in sandbox "pi-sbx-1-nosuch00"\.$/);
	// this session's own name reads what the default reads
	assert.equal((await pi.call("docker_history", { session: name })).text, (await pi.call("docker_history")).text);
});

test(`[${FLAVOUR}] docker_history: the record outlives the sandbox; session reads it, /docker lists it, no tool removes it`, async (t) => {
	if (!ready(t)) return;
	assert.ok(existsSync(journal()));
	const before = (await pi.call("docker_history")).text;
	const n = callsOf(journal()).length;
	await pi.shutdown("quit");
	await until(() => !(name in simSandboxes()), 15000, `sandbox ${name} to go`);
	await until(() => !existsSync(journal()) && pasts().length === 1, 15000, "its journal to be kept as a past record");
	const file = join(process.env.SBX_STATE_DIR, pasts()[0]);
	const kept = readFileSync(file, "utf8");
	assert.match(kept.trim().split("\n").at(-1), /"event":"end","by":"sbx-watch"/);
	assert.ok(!kept.includes(SECRET), "no forwarded value in the record");
	assert.equal(callsOf(file).length, n);
	const r = await pi.call("docker_history", { session: name });
	assert.equal(r.text, before);
	const slash = await slashDocker();
	assert.match(slash, new RegExp(`last sessions here \\(docker_history with session NAME reads one\\):\\n {2}${name} {2}\\d{4}-\\d\\d-\\d\\dT[\\d:]+Z to [\\dT:-]+Z {2}${n} calls, 1 failed`));
	// the agent's tools: what could reach the state directory leaves the record as it was
	await pi.call("docker_gc").catch(() => {});
	for (const session of [`${name}.past-1`, "..", `${name}/../x`]) await pi.call("docker_history", { session }).catch(() => {});
	await pi.call("docker_sandbox_rm").catch(() => {});
	assert.deepEqual(pasts(), [file.split("/").at(-1)]);
	assert.equal(readFileSync(file, "utf8"), kept);
});
