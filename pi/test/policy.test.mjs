// pi without policy (issue 20): the sandbox name, the workspace rule,
// loopback and the exit statuses are the programs' to say; the extension
// passes what it is given through and reports their answer.  Through
// pi's loader; the programs are stand-ins (testlib/stubs.mjs) except
// sbx-env -c and sbx-run -C, which are the real ones.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FLAVOUR, PI_DIR, TOP, loadExtension, need, piMissing, until, withEnv } from "../testlib/harness.mjs";
import { stubbedPi } from "../testlib/stubs.mjs";

const noPi = piMissing();
let w;
let pi;
let stubs;
let done;

before(async () => {
	({ w, pi, stubs, cleanup: done } = await stubbedPi());
});
after(() => done?.());

/** The extension loaded afresh (its sandbox name is picked at load) with env set. */
async function freshWith(env, f) {
	return withEnv(env, async () => {
		const p = await loadExtension(w.ws);
		try {
			return await f(p);
		} finally {
			p.cleanupAgentDir();
		}
	});
}

test(`[${FLAVOUR}] the pinned name goes to the programs as it is: " my-box" and other names they refuse are refused in their words, with their status`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	for (const pinned of [" my-box", "my-box ", "default", "-rf", "a", "my_box", "my-box\n"]) {
		stubs.reset();
		await freshWith({ DOCKER_SANDBOX: pinned }, async (p) => {
			const shown = JSON.stringify(pinned);
			await assert.rejects(
				p.call("docker_ps"),
				(e) => /^docker sandbox: sbx-env: DOCKER_SANDBOX: invalid sandbox name: want .* \(exit 64\)$/.test(e.message),
				`${shown}: docker_ps`,
			);
			const st = await p.call("docker_status");
			assert.match(st.text, /^sandbox: unknown \(docker sandbox: sbx-env: DOCKER_SANDBOX: invalid sandbox name: .*\(exit 64\)\)$/m, `${shown}: ${st.text}`);
			assert.match(st.text, /^fix: unset DOCKER_SANDBOX, or set it to a name the programs take/m, st.text);
			// the one question asked, sbx-env -c; nothing that acts
			assert.deepEqual(
				stubs.calls().filter((c) => c.join(" ") !== "sbx-env -cj"),
				[],
				`${shown}: a program was run with a name the programs refuse`,
			);
			assert.ok(stubs.calls().length > 0, "sbx-env -c was asked");
		});
	}
});

test(`[${FLAVOUR}] the pinned name the programs take is the one every program gets, unchanged`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	for (const pinned of ["my-box", "My.Box-2", "a1"]) {
		stubs.reset();
		await freshWith({ DOCKER_SANDBOX: pinned }, async (p) => {
			await p.call("docker_ps");
			const runs = stubs.calls().filter((c) => c[0] === "sbx-run");
			assert.ok(runs.length > 0, "sbx-run ran");
			for (const c of runs) assert.equal(c[c.indexOf("-s") + 1], pinned, c.join(" "));
		});
	}
	// the question is about the name alone: a bad setting elsewhere is for the program that reads it
	stubs.reset();
	await freshWith({ DOCKER_SANDBOX: "my-box", DOCKER_SANDBOX_GC_HOURS: "soon" }, async (p) => {
		await p.call("docker_ps");
		assert.ok(stubs.calls().some((c) => c[0] === "sbx-run" && c[c.indexOf("-s") + 1] === "my-box"), JSON.stringify(stubs.calls()));
	});
	// empty, as the programs read it, pins nothing: sbx-run -n names the sandbox
	stubs.reset();
	stubs.setRunOutput("pi-sbx-9-abcdefgh\n");
	try {
		await freshWith({ DOCKER_SANDBOX: "" }, async (p) => {
			await p.call("docker_ps").catch(() => {}); // the stand-in's output is no listing: the argv is what counts
			const calls = stubs.calls().filter((c) => c[0] === "sbx-run");
			assert.equal(calls[0].join(" "), "sbx-run -n", JSON.stringify(calls));
			assert.equal(calls[1][calls[1].indexOf("-s") + 1], "pi-sbx-9-abcdefgh", JSON.stringify(calls));
		});
	} finally {
		stubs.setRunOutput("");
	}
});

test(`[${FLAVOUR}] the workspace is sbx-run's to say: pi asks sbx-run -C before it writes, and takes its answer`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const d = join(w.ws, "asked");
	mkdirSync(d);
	stubs.reset();
	const r = await pi.call("docker_init", { context: "asked", lang: "generic" });
	assert.match(r.text, /scaffolded "generic"/);
	const asked = stubs.checks();
	assert.ok(
		asked.some((c) => c.join("\t") === ["sbx-run", "-C", "-w", w.ws].join("\t")),
		`no sbx-run -C -w ${w.ws}: ${JSON.stringify(asked)}`,
	);
	assert.deepEqual(stubs.calls(), [], "nothing but the check ran");
	// a setting only the programs read: SBX_STATE_DIR with a blank before it is no absolute path to them
	for (const sd of [` ${join(w.ws, ".state")}`, "relative/state"]) {
		await withEnv({ SBX_STATE_DIR: sd }, async () => {
			await assert.rejects(
				pi.call("docker_init", { context: "asked", lang: "generic", force: true }),
				(e) => e.message === "docker: SBX_STATE_DIR: not an absolute path (sbx-run -C: exit 64)",
				sd,
			);
		});
	}
	assert.deepEqual(readdirSync(d).sort(), [".dockerignore", "Dockerfile"], "nothing written after a refusal");
	assert.equal(existsSync(join(w.ws, ".state")), false);
});

/** An HTTP server on 127.0.0.1; resolves to it. */
function serve() {
	return new Promise((resolve) => {
		const srv = http.createServer((req, res) => res.end("served\n"));
		srv.listen(0, "127.0.0.1", () => resolve(srv));
	});
}

test(`[${FLAVOUR}] loopback is sbx-ports' word: a pair its listing flags as beyond loopback is never reached, whatever its address`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const srv = await serve();
	const P = srv.address().port;
	try {
		stubs.setPorts([{ ip: "127.0.0.1", port: P }]);
		const ok = await pi.call("docker_curl", { url: `http://127.0.0.1:${P}/` });
		assert.match(ok.text, /^HTTP 200 [\s\S]*served/, ok.text);
		stubs.setPorts([{ ip: "127.0.0.1", port: P, loopback: false }]);
		await assert.rejects(pi.call("docker_curl", { url: `http://127.0.0.1:${P}/` }), /port \d+ is not published by this sandbox at 127\.0\.0\.1\. Published: none/);
		await assert.rejects(pi.call("docker_curl", { url: `http://localhost:${P}/` }), /not published by this sandbox at localhost\. Published: none/);
		// a name is still no address
		await assert.rejects(pi.call("docker_curl", { url: `http://example.com:${P}/` }), /only 127\.0\.0\.1, localhost or \[::1\]/);
	} finally {
		srv.close();
	}
});

/** Every .ts file of the extension, as [path, text]. */
function sources() {
	const out = [[join(PI_DIR, "index.ts"), readFileSync(join(PI_DIR, "index.ts"), "utf8")]];
	const walk = (dir) => {
		for (const e of readdirSync(dir, { withFileTypes: true })) {
			const p = join(dir, e.name);
			if (e.isDirectory()) walk(p);
			else if (e.name.endsWith(".ts")) out.push([p, readFileSync(p, "utf8")]);
		}
	};
	walk(join(PI_DIR, "src"));
	return out;
}

test("exit statuses: one table in pi/src/status.ts, equal to lib's SBX_EX_*, and no status compared with a bare number", () => {
	const lib = {};
	for (const f of readdirSync(join(TOP, "lib")).filter((f) => f.endsWith(".h")))
		for (const m of readFileSync(join(TOP, "lib", f), "utf8").matchAll(/^#define\s+SBX_EX_([A-Z]+)\s+(\d+)\b/gm)) lib[m[1]] = Number(m[2]);
	assert.ok(Object.keys(lib).length >= 10, `SBX_EX_* found in lib/*.h: ${JSON.stringify(lib)}`);
	const table = readFileSync(join(PI_DIR, "src", "status.ts"), "utf8");
	const body = /export const EX = \{([\s\S]*?)\} as const;/.exec(table)?.[1] ?? "";
	const pi = Object.fromEntries([...body.matchAll(/^\s*([A-Z]+): (\d+),/gm)].map((m) => [m[1], Number(m[2])]));
	assert.deepEqual(pi, lib);
	for (const [p, text] of sources()) {
		const bare = text.split("\n").filter((l) => /\b(code|status|rc)\s*(===|!==|==|!=)\s*\d/.test(l) || /\bEX_[A-Z]+\s*=\s*\d/.test(l));
		assert.deepEqual(bare, [], `${p} compares a status with a number`);
	}
});

test(`[${FLAVOUR}] the session-start sweep is sbx-gc's to decide: it gets no -H, whatever DOCKER_SANDBOX_GC_HOURS says`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	for (const hours of [undefined, "0", "1.5", "48"]) {
		stubs.reset();
		await freshWith({ DOCKER_SANDBOX_GC_HOURS: hours }, async (p) => {
			await p.start();
			await until(() => stubs.calls().some((c) => c[0] === "sbx-gc"), 10000, "the sweep to start");
			const gc = stubs.calls().filter((c) => c[0] === "sbx-gc");
			assert.deepEqual(gc, [["sbx-gc", "-x", process.env.DOCKER_SANDBOX]], `GC_HOURS ${hours}: ${JSON.stringify(gc)}`);
			await p.shutdown();
		});
	}
	// a bad value is still said at session start, in the programs' words, and nothing is swept
	stubs.reset();
	await freshWith({ DOCKER_SANDBOX_GC_HOURS: "soon" }, async (p) => {
		await p.start();
		await new Promise((r) => setTimeout(r, 1000));
		assert.deepEqual(stubs.calls().filter((c) => c[0] === "sbx-gc"), []);
		assert.ok(stubs.calls().some((c) => c[0] === "sbx-watch"), "the session started");
		await p.shutdown();
	});
});
