// The agent's tools under attack: numbers (issue 13, finding 6).  Every
// number parameter of every tool is a whole number in its range, or it is
// refused with a message naming the parameter; nothing goes out cut down
// (0.5 as 0, which means "all" for tail) or as 1e+21.  Through pi's loader
// with pi's argument validation, which converts strings and may coerce;
// the programs are stubs that log their argv.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import http from "node:http";
import { join } from "node:path";
import { test } from "node:test";
import { FLAVOUR, TOP, need, piMissing, programsMissing } from "../testlib/harness.mjs";
import { stubbedFile } from "../testlib/stubs.mjs";

const noPi = piMissing();
const { w, pi, stubs } = await stubbedFile();

/** Not whole numbers in any range, or out of every range: what a model or a prompt injection may send. */
const BAD = [0.5, "0.5", 1.5, -0.5, -1, "-1", 1e15, 1e21, "1e21", 1e308, 2 ** 53 + 2, "NaN", "Infinity", "-Infinity", "abc", "12abc", [], {}];

/** The number parameters in a tool's schema (also under anyOf/oneOf). */
function numberParams(def) {
	const out = [];
	for (const [k, s] of Object.entries(def.parameters.properties ?? {})) {
		const kinds = [s, ...(s.anyOf ?? []), ...(s.oneOf ?? [])].map((x) => x.type);
		if (kinds.includes("number") || kinds.includes("integer")) out.push([k, s]);
	}
	return out;
}

function names(param) {
	return new RegExp(`\\b${param}\\b:? (must|expected)`);
}

test(`[${FLAVOUR}] number class (finding 6): every number parameter of every tool has its range in the schema, and pi refuses outside it naming the parameter`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const found = [];
	for (const def of pi.tools) {
		for (const [param, s] of numberParams(def)) {
			found.push(`${def.name}.${param}`);
			assert.ok(Number.isFinite(s.minimum) && Number.isFinite(s.maximum), `${def.name}.${param}: a range in the schema (Int() in tools/schema.ts)`);
			for (const v of [s.minimum - 1, s.maximum + 1, 1e21, "1e21", "NaN"])
				assert.throws(() => pi.validate(def.name, { [param]: v }), (e) => names(param).test(e.message), `${def.name}.${param} = ${JSON.stringify(v)}`);
		}
	}
	for (const known of ["docker_logs.tail", "docker_curl.timeoutSec", "docker_gc.hours"]) assert.ok(found.includes(known), `${known} among ${found.join(", ")}`);
});

/** Call the tool; a refusal must name the parameter, and nothing may have run. */
async function refused(tool, args, param) {
	stubs.reset();
	await assert.rejects(pi.call(tool, args), names(param), `${tool} ${JSON.stringify(args)}`);
	assert.deepEqual(stubs.calls().filter((c) => c[0] !== "sbx-watch"), [], `${tool} ${JSON.stringify(args)}: nothing ran`);
}

/** Call the tool; returns the argv of the program it ran (the last call). */
async function sent(tool, args, prog) {
	stubs.reset();
	await pi.call(tool, args);
	const c = stubs.calls().filter((x) => x[0] === prog);
	assert.ok(c.length, `${tool} ${JSON.stringify(args)} ran ${prog}`);
	for (const a of c.at(-1)) assert.doesNotMatch(a, /^-?\d+(\.\d+)?e[+-]?\d+$/i, "no number in exponent form");
	return c.at(-1);
}

test(`[${FLAVOUR}] number class (finding 6): docker_logs tail 0.5 is not sent as 0 (all), 1e21 not as 1e+21`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	for (const v of BAD) await refused("docker_logs", { id: "web", tail: v }, "tail");
	const tailOf = (argv) => (argv.includes("--tail") ? argv[argv.indexOf("--tail") + 1] : "all");
	assert.equal(tailOf(await sent("docker_logs", { id: "web" }, "sbx-run")), "200");
	assert.equal(tailOf(await sent("docker_logs", { id: "web", tail: 0 }, "sbx-run")), "all");
	assert.equal(tailOf(await sent("docker_logs", { id: "web", tail: 5 }, "sbx-run")), "5");
	assert.equal(tailOf(await sent("docker_logs", { id: "web", tail: "7" }, "sbx-run")), "7");
	assert.equal(tailOf(await sent("docker_logs", { id: "web", tail: 1000000 }, "sbx-run")), "1000000");
	await refused("docker_logs", { id: "web", tail: 1000001 }, "tail");
});

test(`[${FLAVOUR}] number class (finding 6): docker_gc hours 1e15 is refused naming hours, not a bare usage line`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	for (const v of BAD) await refused("docker_gc", { hours: v }, "hours");
	const hoursOf = (argv) => argv[argv.indexOf("-H") + 1];
	assert.equal(hoursOf(await sent("docker_gc", { hours: 0 }, "sbx-gc")), "0");
	assert.equal(hoursOf(await sent("docker_gc", { hours: 3 }, "sbx-gc")), "3");
	assert.equal(hoursOf(await sent("docker_gc", { hours: 1000000 }, "sbx-gc")), "1000000");
	assert.equal(hoursOf(await sent("docker_gc", {}, "sbx-gc")), "24");
	// the host's setting, as the programs read it (sbx-env -c): a fraction is
	// rounded up, never "any age"; too much is refused naming the variable
	const saved = process.env.DOCKER_SANDBOX_GC_HOURS;
	try {
		process.env.DOCKER_SANDBOX_GC_HOURS = "0.25";
		assert.equal(hoursOf(await sent("docker_gc", {}, "sbx-gc")), "1");
		process.env.DOCKER_SANDBOX_GC_HOURS = "1e15";
		await assert.rejects(pi.call("docker_gc", {}), /DOCKER_SANDBOX_GC_HOURS: expected hours from 0 to 1000000/);
	} finally {
		if (saved === undefined) delete process.env.DOCKER_SANDBOX_GC_HOURS;
		else process.env.DOCKER_SANDBOX_GC_HOURS = saved;
	}
});

test(`[${FLAVOUR}] number class (finding 6): docker_gc's range is sbx-gc's own`, (t) => {
	if (!need(t, noPi, "pi")) return;
	if (!need(t, programsMissing(["sbx-gc"]), "sbx-gc")) return;
	const max = pi.tool("docker_gc").parameters.properties.hours.maximum;
	const gc = (h) => spawnSync(join(TOP, "sbx-gc", "sbx-gc"), ["-n", "-H", String(h), "-P", "no-such-prefix-"], { encoding: "utf8", env: { ...process.env, DOCKER_SANDBOX_SBX: "/nonexistent/sbx" } });
	const over = gc(max + 1);
	assert.equal(over.status, 64, `sbx-gc -H ${max + 1} is a usage error: ${over.stderr}`);
	const at = gc(max);
	assert.notEqual(at.status, 64, `sbx-gc -H ${max} is accepted: ${at.stderr}`);
});

test(`[${FLAVOUR}] number class (finding 6): docker_curl timeoutSec is a whole number of seconds from 1 to 600`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	let hits = 0;
	const srv = await new Promise((resolve) => {
		const s = http.createServer((req, res) => {
			hits++;
			res.end("ok\n");
		});
		s.listen(0, "127.0.0.1", () => resolve(s));
	});
	const port = srv.address().port;
	stubs.setPorts([{ ip: "127.0.0.1", port }]);
	const url = `http://127.0.0.1:${port}/`;
	try {
		for (const v of [...BAD, 0, 601]) await refused("docker_curl", { url, timeoutSec: v }, "timeoutSec");
		assert.equal(hits, 0, "no request was made");
		for (const v of [1, "2", 600]) assert.match((await pi.call("docker_curl", { url, timeoutSec: v })).text, /^HTTP 200/);
		assert.equal(hits, 3);
	} finally {
		srv.close();
	}
});
