// The tools under attack, round 3 (issue 18, findings 3 and 5): project
// detection is no existence oracle for host paths, and the timeout
// setting means what it says for every tool.  Through pi's loader with
// pi's own argument validation; the programs are stubs that log their
// argv (testlib/stubs.mjs).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FLAVOUR, need, piMissing, withEnv } from "../testlib/harness.mjs";
import { stubbedFile } from "../testlib/stubs.mjs";

const noPi = piMissing();
const { w, pi, stubs } = await stubbedFile();
let host; // stands for the host's files outside the workspace

before(() => {
	host = mkdtempSync(join(tmpdir(), "pih-"));
	mkdirSync(join(host, ".ssh"));
	writeFileSync(join(host, ".ssh", "id_ed25519"), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
});
after(() => {
	if (host) rmSync(host, { recursive: true, force: true });
});

// ---- finding 3: detection follows links out ----

/** docker_init in a fresh directory d of the workspace holding entries; its answer with d's name taken out. */
async function initIn(name, entries) {
	const d = join(w.ws, name);
	rmSync(d, { recursive: true, force: true });
	mkdirSync(d, { recursive: true });
	for (const [f, what] of Object.entries(entries)) {
		if (what.link) symlinkSync(what.link, join(d, f));
		else if (what.dir) mkdirSync(join(d, f));
		else writeFileSync(join(d, f), what.text ?? "{}\n");
	}
	const r = await pi.call("docker_init", { context: name });
	return { lang: r.result.details.lang, text: r.text.replaceAll(d, "DIR").replaceAll(name, "DIR"), dockerfile: readFileSync(join(d, "Dockerfile"), "utf8") };
}

const DETECTED = [
	[["package.json"], "node"],
	[["pnpm-lock.yaml", "package.json"], "pnpm"],
	[["go.mod"], "go"],
	[["pyproject.toml"], "python"],
	[["requirements.txt"], "python"],
	[["Cargo.toml"], "rust"],
];

test(`[${FLAVOUR}] existence oracle class (finding 3): a detection file linked out of the workspace answers as absence, whether its target exists or not`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const key = join(host, ".ssh", "id_ed25519");
	const none = await initIn("f3-none", {});
	assert.equal(none.lang, "generic");
	for (const [files] of DETECTED) {
		const there = Object.fromEntries(files.map((f) => [f, { link: key }]));
		const missing = Object.fromEntries(files.map((f) => [f, { link: join(host, ".ssh", `missing-${f}`) }]));
		const a = await initIn("f3-there", there);
		const b = await initIn("f3-missing", missing);
		assert.equal(a.lang, "generic", `${files} -> an existing host file`);
		assert.equal(b.lang, "generic", `${files} -> a missing host file`);
		assert.equal(a.text, b.text, `${files}: the answers tell the two apart`);
		assert.equal(a.text, none.text, `${files}: the answer differs from absence`);
	}
	// the lock file that picks npm ci: a link out says nothing either
	const lockThere = await initIn("f3-lock", { "package.json": {}, "package-lock.json": { link: key } });
	const lockMissing = await initIn("f3-lock", { "package.json": {}, "package-lock.json": { link: join(host, "nothing") } });
	assert.equal(lockThere.lang, "node");
	assert.equal(lockThere.text, lockMissing.text);
	assert.match(lockThere.dockerfile, /RUN npm install$/m, lockThere.dockerfile);
	// through a linked directory out of the workspace: the same walk refuses it
	const viaDir = await initIn("f3-dir", { sub: { link: join(host, ".ssh") } });
	assert.equal(viaDir.lang, "generic");
});

test(`[${FLAVOUR}] existence oracle class (finding 3): plain files count, and links that stay in the workspace; a directory of the name does not`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	for (const [files, lang] of DETECTED) {
		const plain = await initIn("f3-plain", Object.fromEntries(files.map((f) => [f, {}])));
		assert.equal(plain.lang, lang, `${files} plain`);
		mkdirSync(join(w.ws, "f3-real"), { recursive: true });
		for (const f of files) writeFileSync(join(w.ws, "f3-real", f), "{}\n");
		const linked = await initIn("f3-linked", Object.fromEntries(files.map((f) => [f, { link: join("..", "f3-real", f) }])));
		assert.equal(linked.lang, lang, `${files} linked inside the workspace`);
		const dirs = await initIn("f3-dirs", Object.fromEntries(files.map((f) => [f, { dir: true }])));
		assert.equal(dirs.lang, "generic", `${files} as directories`);
	}
	const lock = await initIn("f3-lockplain", { "package.json": {}, "npm-shrinkwrap.json": {} });
	assert.match(lock.dockerfile, /RUN npm ci$/m);
});

// ---- finding 5: DOCKER_SANDBOX_TIMEOUT is overridden ----

/** The -t given to sbx-run by the last call of the tool, or undefined. */
async function timeoutOf(tool, args, setting) {
	stubs.reset();
	await withEnv({ DOCKER_SANDBOX_TIMEOUT: setting }, () => pi.call(tool, args));
	const runs = stubs.calls().filter((c) => c[0] === "sbx-run" && c.includes("--"));
	assert.ok(runs.length > 0, `${tool} ran sbx-run`);
	const a = runs[0].slice(0, runs[0].indexOf("--"));
	return a.includes("-t") ? a[a.indexOf("-t") + 1] : undefined;
}

test(`[${FLAVOUR}] timeout setting class (finding 5): a foreground docker_run and docker_prune take the long floor only when DOCKER_SANDBOX_TIMEOUT is unset`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const cases = [
		["docker_run", { image: "busybox:local", detach: false, command: "true" }],
		["docker_prune", {}],
	];
	for (const [tool, args] of cases) {
		// unset, as sbx-run reads it (absent or empty): the 600 s floor
		assert.equal(await timeoutOf(tool, args, undefined), "600", `${tool}, unset`);
		assert.equal(await timeoutOf(tool, args, ""), "600", `${tool}, empty`);
		// set: sbx-run applies it itself (0: no limit, 2: two seconds)
		for (const v of ["2", "0", "120", "900"]) assert.equal(await timeoutOf(tool, args, v), undefined, `${tool}, DOCKER_SANDBOX_TIMEOUT=${v}`);
	}
	// a detached run never had a floor: the setting, or sbx-run's 120
	assert.equal(await timeoutOf("docker_run", { image: "busybox:local" }, undefined), undefined);
});

// ---- finding 2: docker_curl's timeoutSec bounds only idle time ----

/** A loopback HTTP service answering with handler(res); the stubs publish its port. */
async function service(handler) {
	const srv = http.createServer((req, res) => handler(res));
	await new Promise((r) => srv.listen(0, "127.0.0.1", r));
	const port = srv.address().port;
	stubs.setPorts([{ ip: "127.0.0.1", port }]);
	const stop = () => {
		srv.closeAllConnections?.();
		srv.close();
	};
	return { port, stop };
}

/** The call's outcome and how long it took. */
async function timed(args) {
	const t0 = Date.now();
	const out = await pi.call("docker_curl", args).then(
		(r) => ({ ok: true, text: r.text }),
		(e) => ({ ok: false, text: e.message }),
	);
	return { ...out, ms: Date.now() - t0 };
}

test(`[${FLAVOUR}] deadline class (finding 2): timeoutSec bounds the whole call against a service that sends a byte a second`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const timers = new Set();
	const { port, stop } = await service((res) => {
		res.writeHead(200, { "content-type": "text/plain" });
		let n = 0;
		const iv = setInterval(() => (++n > 20 ? (clearInterval(iv), res.end()) : res.write("x")), 1000);
		timers.add(iv);
	});
	try {
		const r = await timed({ url: `http://127.0.0.1:${port}/`, timeoutSec: 2 });
		assert.ok(r.ms < 4500, `the call took ${r.ms} ms with timeoutSec 2`);
		assert.equal(r.ok, false, r.text);
		assert.match(r.text, /timed out after 2 s/, r.text);
		// headers that never come are the same deadline
		const { port: p2, stop: stop2 } = await service(() => {});
		try {
			const h = await timed({ url: `http://127.0.0.1:${p2}/`, timeoutSec: 1 });
			assert.ok(h.ms < 3500, `${h.ms} ms`);
			assert.match(h.text, /timed out after 1 s/);
		} finally {
			stop2();
		}
	} finally {
		for (const iv of timers) clearInterval(iv);
		stop();
	}
});

test(`[${FLAVOUR}] deadline class (finding 2): a flood is read up to the size cap and no further, and a slow flood meets the deadline`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const chunk = Buffer.alloc(64 * 1024, "y");
	let sent = 0;
	const { port, stop } = await service((res) => {
		res.writeHead(200, { "content-type": "text/plain" });
		const t0 = Date.now();
		// as fast as the reader takes it, for 20 s at most
		const pump = () => {
			while (Date.now() - t0 < 20000) {
				sent += chunk.length;
				if (!res.write(chunk)) return res.once("drain", pump);
			}
			res.end();
		};
		pump();
	});
	try {
		const r = await timed({ url: `http://127.0.0.1:${port}/`, timeoutSec: 60 });
		assert.ok(r.ms < 10000, `a flood held the call ${r.ms} ms`);
		assert.ok(r.ok, r.text);
		assert.match(r.text, /body cut at 8 MiB/, r.text.slice(0, 500));
		assert.ok(sent < 64 * 1024 * 1024, `the reader took ${sent} bytes`);
	} finally {
		stop();
	}
	const slow = await service((res) => {
		res.writeHead(200);
		const iv = setInterval(() => res.write(chunk.subarray(0, 1024)), 5);
		res.on("close", () => clearInterval(iv));
	});
	try {
		const r = await timed({ url: `http://127.0.0.1:${slow.port}/`, timeoutSec: 1 });
		assert.ok(r.ms < 3000, `${r.ms} ms`);
		assert.match(r.text, /timed out after 1 s/);
	} finally {
		slow.stop();
	}
});
