// docker_init against a workspace that changes under it (issue 13,
// finding 1, the race the link checks leave): a process swaps a directory
// of the init context for a link out of the workspace and back, as fast
// as it can, while the agent asks for the files again and again.  Some
// calls are refused; none may create, replace or write a file outside.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FLAVOUR, need, piMissing } from "../testlib/harness.mjs";
import { stubbedPi } from "../testlib/stubs.mjs";

const noPi = piMissing();
let w;
let pi;
let done;
let outside;

before(async () => {
	({ w, pi, cleanup: done } = await stubbedPi());
	outside = mkdtempSync(join(tmpdir(), "pir-"));
});
after(() => {
	if (outside) rmSync(outside, { recursive: true, force: true });
	done?.();
});

// sub and sub.link trade places through sub.real; each step is one rename
const FLIPPER = `
const { renameSync } = require("node:fs");
const [sub, real, link] = process.argv.slice(1);
const end = Date.now() + Number(process.argv[4]);
const step = (a, b) => { try { renameSync(a, b); } catch {} };
while (Date.now() < end) {
	step(sub, real); step(link, sub); step(sub, link); step(real, sub);
}`;

test(`[${FLAVOUR}] link race (finding 1): a directory swapped for a link out and back, again and again, gets nothing written outside`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const ms = 4000;
	const base = join(w.ws, "race");
	const sub = join(base, "sub");
	mkdirSync(sub, { recursive: true });
	writeFileSync(join(outside, "Dockerfile"), "host file\n");
	symlinkSync(outside, join(base, "sub.link"));
	const flipper = spawn(process.execPath, ["-e", FLIPPER, sub, join(base, "sub.real"), join(base, "sub.link"), String(ms)], { stdio: "ignore" });
	const gone = new Promise((res) => flipper.on("exit", res));
	let ok = 0;
	let refused = 0;
	const end = Date.now() + ms;
	while (Date.now() < end) {
		// the optional files are made anew each time: more creates to race
		for (const d of [sub, join(base, "sub.real")])
			try {
				unlinkSync(join(d, ".dockerignore"));
			} catch {
				/* not there now */
			}
		try {
			await pi.call("docker_init", { context: "race/sub", lang: "generic", force: true, compose: false });
			ok++;
		} catch {
			refused++;
		}
	}
	await gone;
	assert.ok(ok > 0 && refused > 0, `the race was not run: ${ok} written, ${refused} refused`);
	t.diagnostic(`${ok} written, ${refused} refused`);
	assert.deepEqual(readdirSync(outside), ["Dockerfile"], `nothing new outside (${ok} written, ${refused} refused)`);
	assert.equal(readFileSync(join(outside, "Dockerfile"), "utf8"), "host file\n", "the host file is untouched");
});
