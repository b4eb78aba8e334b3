// Whole-output logs under attack (issue 18, finding 4): a log
// ($TMPDIR/pi-docker-*.log) exists only when the answer was cut; it is
// bounded, keeping the end and saying how much went before; the
// session's logs go at its end and with its sandbox (docker_sandbox_rm).
// Through pi's loader; the programs are stubs (testlib/stubs.mjs), whose
// sbx-run prints what the test sets and exits with the status it sets.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { FLAVOUR, loadExtension, need, piMissing } from "../testlib/harness.mjs";
import { stubbedFile } from "../testlib/stubs.mjs";

const noPi = piMissing();
const { w, pi, stubs } = await stubbedFile();

before(() => mkdirSync(join(w.ws, "app"), { recursive: true }));

/** The logs in the temp directory (the world's TMPDIR). */
const logs = () => readdirSync(w.base).filter((f) => /^pi-docker-.*\.log$/.test(f)).map((f) => join(w.base, f));
const lines = (n, f = (i) => `line-${i}`) => `${Array.from({ length: n }, (_, i) => f(i)).join("\n")}\n`;

/** The calls that keep a log, each with its arguments. */
const LOGGED = [
	["docker_build", { context: "/workspace/app", tag: "app:dev" }],
	["docker_pull", { image: "busybox:1" }],
	["docker_prune", {}],
];

test(`[${FLAVOUR}] log class (finding 4): an answer given whole leaves no log, success or failure`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	stubs.setRunOutput(lines(5));
	for (const [tool, args] of LOGGED) {
		const before = logs();
		const r = await pi.call(tool, args);
		assert.deepEqual(logs(), before, `${tool}: a log for an answer that was not cut`);
		assert.equal(r.result.details.fullOutputPath, undefined, tool);
		assert.doesNotMatch(r.text, /whole output|pi-docker-/, r.text);
	}
	// empty output: no log either
	stubs.setRunOutput("");
	await pi.call("docker_prune");
	assert.deepEqual(logs(), []);
	// a failure whose tail is all of it
	stubs.setRunOutput(lines(5));
	stubs.setRunStatus(3);
	try {
		await assert.rejects(pi.call("docker_build", LOGGED[0][1]), (e) => {
			assert.match(e.message, /all of it\):/, e.message);
			assert.doesNotMatch(e.message, /pi-docker-/);
			return true;
		});
	} finally {
		stubs.setRunStatus(undefined);
	}
	assert.deepEqual(logs(), []);
});

test(`[${FLAVOUR}] log class (finding 4): a cut answer names its log, which holds all of it; a cut failure too`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	stubs.setRunOutput(lines(3000));
	for (const [tool, args] of LOGGED) {
		const r = await pi.call(tool, args);
		const log = r.result.details.fullOutputPath;
		assert.ok(log && existsSync(log), `${tool}: ${r.text}`);
		assert.ok(r.text.includes(`: ${log}`), r.text);
		const all = readFileSync(log, "utf8");
		assert.ok(all.startsWith("line-0\n") && all.endsWith("line-2999\n"), `${tool}: the log holds the whole output`);
		assert.equal(statSync(log).mode & 0o777, 0o600);
	}
	stubs.setRunStatus(2);
	try {
		await assert.rejects(pi.call("docker_build", LOGGED[0][1]), (e) => {
			const log = /the whole of it in (\S+)\):/.exec(e.message)?.[1];
			assert.ok(log && existsSync(log), e.message);
			assert.match(readFileSync(log, "utf8"), /line-2999/);
			return true;
		});
	} finally {
		stubs.setRunStatus(undefined);
	}
});

test(`[${FLAVOUR}] log class (finding 4): a log is bounded, keeps the end, and says how much went before, as the answer does`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	// 6 MiB: more than the 4 MiB kept
	stubs.setRunOutput(lines(100000, (i) => `${String(i).padStart(8, "0")}-${"z".repeat(54)}`));
	const r = await pi.call("docker_prune");
	const log = r.result.details.fullOutputPath;
	assert.ok(log, r.text);
	const size = statSync(log).size;
	assert.ok(size <= 4 * 1024 * 1024 + 200, `${size} bytes`);
	const text = readFileSync(log, "utf8");
	assert.match(text.split("\n")[0], /^\[pi-docker: the first \S+ of the output were dropped; this file keeps the last \S+\]$/, text.slice(0, 200));
	assert.ok(text.endsWith(`00099999-${"z".repeat(54)}\n`), "the end is kept");
	assert.doesNotMatch(text, /^00000000-/m, "the start went");
	// it begins at a line: every line after the note is whole
	assert.match(text.split("\n")[1], /^\d{8}-z{54}$/);
	assert.match(r.text, /the \S+ before were dropped\): \S+\.log$/m, r.text);
	assert.ok(Buffer.byteLength(r.text) <= 2048);
});

test(`[${FLAVOUR}] log class (finding 4): the session's logs go with its sandbox (docker_sandbox_rm) and at its end`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	stubs.setRunOutput(lines(3000));
	const p = await loadExtension(w.ws);
	try {
		const a = (await p.call("docker_prune")).result.details.fullOutputPath;
		const b = (await p.call("docker_build", LOGGED[0][1])).result.details.fullOutputPath;
		// another session's log is not this one's to remove
		const other = (await pi.call("docker_prune")).result.details.fullOutputPath;
		assert.ok(existsSync(a) && existsSync(b) && existsSync(other));
		const rm = await p.call("docker_sandbox_rm");
		assert.match(rm.text, /removed/, rm.text);
		assert.ok(!existsSync(a) && !existsSync(b), "docker_sandbox_rm left the session's logs");
		assert.ok(existsSync(other), "another session's log went");
		const c = (await p.call("docker_pull", LOGGED[1][1])).result.details.fullOutputPath;
		assert.ok(existsSync(c));
		await p.shutdown();
		assert.ok(!existsSync(c), "the session's end left its log");
		assert.ok(existsSync(other));
	} finally {
		p.cleanupAgentDir();
	}
});
