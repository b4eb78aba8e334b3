// Answers: whose status it is (a command's 124 or 127 is the command's),
// no existence oracle (a link that leaves answers one way whatever its
// target), and what a cut keeps (long lines by bytes, the URLs, every
// byte counted).  Through pi's loader against the simulator.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { FLAVOUR, PI_DIR, need, piMissing, rejection } from "../testlib/harness.mjs";
import { sessionSuite } from "../testlib/suite.mjs";

const S = sessionSuite(async (s) => {
	const r = await s.pi.call("docker_run", { image: "busybox:local", name: "kept", command: ["sleep", "1000"] });
	s.name = r.result.details.sandbox;
});

async function textModule() {
	const { createJiti } = await import(pathToFileURL(join(PI_DIR, "node_modules", "jiti", "lib", "jiti.mjs")).href);
	return createJiti(import.meta.url).import(join(PI_DIR, "src", "text.ts"));
}

test(`[${FLAVOUR}] whose-status class: a command's own 124, 127, 68 and 69 are read as its exit, never as sbx-run's meanings`, async (t) => {
	if (!S.ready(t)) return;
	for (const n of [124, 127, 68, 69]) {
		const e = await rejection(S.pi.call("docker_exec", { id: "kept", command: `echo sbx-run: sandbox x: timed out >&2; exit ${n}` }));
		assert.match(e.message, new RegExp(`^docker exec kept failed \\(exit ${n}\\):`), `exit ${n}`);
		assert.doesNotMatch(e.message, /timed out \(exit|not found \(exit/, `exit ${n}`);
	}
});

test(`[${FLAVOUR}] no-oracle class: a link that leaves the workspace answers the same whether its target exists or not`, async (t) => {
	if (!S.ready(t)) return;
	const { w, pi } = S;
	const outside = join(w.base, "outside-there");
	mkdirSync(outside, { recursive: true });
	writeFileSync(join(outside, "compose.yaml"), "services: {}\n");
	const there = join(w.ws, "link-there");
	const nowhere = join(w.ws, "link-nowhere");
	const uphere = join(w.ws, "link-up");
	symlinkSync(outside, there);
	symlinkSync(join(w.base, "outside-missing"), nowhere);
	symlinkSync("../outside-there", uphere);
	const said = async (call) => (await rejection(call())).message.replace(/link-(there|nowhere|up)/g, "LINK");
	const calls = (l) => [
		() => pi.call("docker_init", { context: l }),
		() => pi.call("docker_build", { context: l, tag: "x:1" }),
		() => pi.call("docker_build", { context: "/workspace", tag: "x:1", dockerfile: `${l}/Dockerfile` }),
		() => pi.call("docker_run", { image: "busybox:local", volumes: [`./${l}:/d`] }),
		() => pi.call("docker_compose", { file: `${l}/compose.yaml`, action: "config" }),
	];
	for (const [i, a] of calls("link-there").entries()) {
		const b = calls("link-nowhere")[i];
		const c = calls("link-up")[i];
		const [x, y, z] = [await said(a), await said(b), await said(c)];
		assert.equal(x, y, `call ${i}: ${x} / ${y}`);
		assert.equal(x, z, `call ${i}: ${x} / ${z}`);
		assert.match(x, /escapes the workspace/, `call ${i}`);
	}
	// compose's default file: a compose.yaml link out, to a file there or to nothing
	for (const target of [join(outside, "compose.yaml"), join(w.base, "no-such.yaml")]) {
		symlinkSync(target, join(w.ws, "compose.yaml"));
		try {
			const e = await rejection(pi.call("docker_compose", { action: "config" }));
			assert.match(e.message, /compose file escapes the workspace \(symlink\)/, target);
		} finally {
			(await import("node:fs")).unlinkSync(join(w.ws, "compose.yaml"));
		}
	}
});

test(`[${FLAVOUR}] kept class: a one-line body is shown in part, by bytes, never dropped whole`, async (t) => {
	if (!S.ready(t)) return;
	const r = await S.pi.call("docker_exec", { id: "kept", command: "head -c 92160 /dev/zero | tr '\\0' a; echo; echo after-the-line" });
	assert.match(r.text, /^a{4096} \[\.\.\. 88064 more bytes of this line\]$/m);
	assert.match(r.text, /after-the-line/);
	assert.match(r.text, /1 line longer than 4\.0KB cut there: 88064 bytes left out/);
});

test(`[${FLAVOUR}] kept class: a docker_curl body the answer cuts is whole in a log the answer names; a short one makes none`, async (t) => {
	if (!S.ready(t)) return;
	const srv = "mkdir -p /s && head -c 92160 /dev/zero | tr '\\0' a >/s/big && echo small >/s/small && exec httpd -f -p 8080 -h /s";
	const run = await S.pi.call("docker_run", { image: "busybox:local", name: "kept-web", ports: ["8080"], command: srv });
	const url = run.text.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0];
	assert.ok(url, run.text);
	// the service is up when it answers
	let small;
	for (let i = 0; i < 100; i++) {
		small = await S.pi.call("docker_curl", { url: `${url}/small` }).catch((e) => ({ text: e.message }));
		if (/^HTTP 200/m.test(small.text)) break;
		await new Promise((r) => setTimeout(r, 200));
	}
	assert.match(small.text, /^HTTP 200 [\s\S]*\nsmall\n?$/);
	assert.doesNotMatch(small.text, /is in \S+: read it/);
	assert.equal(small.result.details.fullOutputPath, undefined);
	const big = await S.pi.call("docker_curl", { url: `${url}/big` });
	const m = big.text.match(/^\[the body as read \(90\.0KB\) is in (\S+): read it with the read tool\]$/m);
	assert.ok(m, big.text.slice(0, 600));
	assert.equal(big.result.details.fullOutputPath, m[1]);
	assert.equal(readFileSync(m[1], "utf8"), "a".repeat(92160));
	assert.match(big.text, /^a{4096} \[\.\.\. 88064 more bytes of this line\]$/m);
});

test(`[${FLAVOUR}] kept class: a note counts every byte of the output, those not kept too`, async (t) => {
	if (!S.ready(t)) return;
	// 6 MiB of lines: more than the 4 MiB kept
	const r = await S.pi.call("docker_exec", { id: "kept", command: "yes 0123456789012345678901234567890123456789012345678901234567890123 | head -c 6291456" });
	assert.match(r.text, /^\[output truncated to its last \d+ of more than \d+ lines, [\d.]+KB of 6\.0MB \(pi's limit of 2000 lines \/ 50\.0KB\); the first 2\.0MB were not kept\]$/m);
});

test(`[${FLAVOUR}] kept class: the outcome keeps its URLs however long the containers line`, async (t) => {
	if (need(t, piMissing(), "pi") === false) return;
	const { brief } = await textModule();
	const made = new Set();
	const containers = `containers: ${Array.from({ length: 80 }, (_, i) => `project-service-number-${i}-1 (Up 2 seconds)`).join(", ")}`;
	const urls = ["host reachable at (use docker_curl):", "  http://127.0.0.1:18080 -> sandbox 8080/tcp", "  http://127.0.0.1:18081 -> sandbox 8081/tcp"];
	const out = "built\nstarted\n";
	// the containers line before the URLs: brief's cut by bytes keeps them, whatever the order
	const b = brief(["compose up (compose.yaml)", containers, ...urls], { code: 0, stdout: out, stderr: "", output: out, dropped: 0, log: { what: "compose-up", made } });
	const text = b.content[0].text;
	for (const u of urls) assert.ok(text.includes(u), `${u} kept:\n${text}`);
	assert.ok(Buffer.byteLength(text) <= 2048);
	for (const p of made) (await import("node:fs")).rmSync(p, { force: true });
});
