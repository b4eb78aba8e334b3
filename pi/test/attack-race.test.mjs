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
import { stubbedFile } from "../testlib/stubs.mjs";

const noPi = piMissing();
const { w, pi } = await stubbedFile();
let outside;

before(() => {
	outside = mkdtempSync(join(tmpdir(), "pir-"));
});
after(() => {
	if (outside) rmSync(outside, { recursive: true, force: true });
});

// d and d.link trade places through d.real; each step is one rename
const FLIPPER = `
const { renameSync } = require("node:fs");
const [d, real, link] = process.argv.slice(1);
const end = Date.now() + Number(process.argv[4]);
const step = (a, b) => { try { renameSync(a, b); } catch {} };
while (Date.now() < end) {
	step(d, real); step(link, d); step(d, link); step(real, d);
}`;

/**
 * Swap directory d of the workspace for a link to a directory outside,
 * for ms, while docker_init writes into d (below = "") or into d/below.
 * The outside directory has the same shape, with a host Dockerfile where
 * the context would be.
 */
async function race(t, name, below) {
	const ms = 3000;
	const base = join(w.ws, name);
	const out = mkdtempSync(join(outside, `${name}-`));
	mkdirSync(join(out, below), { recursive: true });
	writeFileSync(join(out, below, "Dockerfile"), "host file\n");
	mkdirSync(join(base, "d", below), { recursive: true });
	symlinkSync(out, join(base, "d.link"));
	const flipper = spawn(process.execPath, ["-e", FLIPPER, join(base, "d"), join(base, "d.real"), join(base, "d.link"), String(ms)], { stdio: "ignore" });
	const gone = new Promise((res) => flipper.on("exit", res));
	let ok = 0;
	let refused = 0;
	const end = Date.now() + ms;
	while (Date.now() < end) {
		// the optional files are made anew each time: more creates to race
		for (const d of ["d", "d.real"])
			try {
				unlinkSync(join(base, d, below, ".dockerignore"));
			} catch {
				/* not there now */
			}
		try {
			await pi.call("docker_init", { context: join(name, "d", below), lang: "generic", force: true, compose: false });
			ok++;
		} catch {
			refused++;
		}
	}
	await gone;
	const counts = `${ok} written, ${refused} refused`;
	t.diagnostic(counts);
	assert.ok(ok > 0 && refused > 0, `the race was not run: ${counts}`);
	assert.deepEqual(readdirSync(join(out, below)), ["Dockerfile"], `nothing new outside (${counts})`);
	if (below) assert.deepEqual(readdirSync(out), [below], `nothing new outside (${counts})`);
	assert.equal(readFileSync(join(out, below, "Dockerfile"), "utf8"), "host file\n", "the host file is untouched");
}

test(`[${FLAVOUR}] link race (finding 1): the init directory swapped for a link out and back, again and again, gets nothing written outside`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	await race(t, "race-last", "");
});

test(`[${FLAVOUR}] link race (finding 1): a directory above the init directory swapped the same way gets nothing written outside`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	await race(t, "race-inner", "sub");
});
