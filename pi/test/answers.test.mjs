// What the agent gets back: failures with both streams in order, short
// success answers with the whole output in a file, a command string run
// by a shell, Esc reaching into the container, and a docker_status that
// answers whatever is wrong.  Through pi's loader against the simulator.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { FLAVOUR, PI_DIR, need, piMissing, rejection, withEnv } from "../testlib/harness.mjs";
import { sessionSuite } from "../testlib/suite.mjs";

const S = sessionSuite(async (s) => {
	const r = await s.pi.call("docker_run", { image: "busybox:local", name: "ans", command: ["sleep", "1000"] });
	s.name = r.result.details.sandbox;
});
const inner = (...args) => S.inner(...args);
// the session's extension and world, once before() has made them
let pi;
let w;
function ready(t) {
	if (!S.ready(t)) return false;
	({ pi, w } = S);
	return true;
}

const bytes = (s) => Buffer.byteLength(s);

/** A Dockerfile on busybox:local in the workspace directory dir. */
function project(dir, steps) {
	mkdirSync(join(w.ws, dir), { recursive: true });
	writeFileSync(join(w.ws, dir, "Dockerfile"), `FROM busybox:local\n${steps.join("\n")}\n`);
}

// stdout and stderr alternate, with pauses so that the order written is the order they arrive
const INTERLEAVED = "echo OUT-1; sleep 0.3; echo ERR-1 >&2; sleep 0.3; echo OUT-2; sleep 0.3; echo ERR-2 >&2; exit 4";
const IN_ORDER = /OUT-1\nERR-1\nOUT-2\nERR-2/;

test(`[${FLAVOUR}] failure class: docker_exec answers stdout and stderr in the order written, with the status and the command`, async (t) => {
	if (!ready(t)) return;
	const e = await rejection(pi.call("docker_exec", { id: "ans", command: INTERLEAVED }));
	assert.match(e.message, /^docker exec ans failed \(exit 4\):/);
	assert.match(e.message, IN_ORDER, e.message);
	assert.ok(e.message.includes(`command: docker exec ans sh -c '${INTERLEAVED}'`), e.message);
	// stdout alone, nothing on stderr: still there
	const quiet = await rejection(pi.call("docker_exec", { id: "ans", command: ["sh", "-c", "echo only-stdout; exit 3"] }));
	assert.match(quiet.message, /failed \(exit 3\):[\s\S]*only-stdout/);
	assert.match(quiet.message, /command: docker exec ans sh -c 'echo only-stdout; exit 3'/);
});

test(`[${FLAVOUR}] failure class: a foreground docker_run and a docker_build answer both streams in order too`, async (t) => {
	if (!ready(t)) return;
	const run = await rejection(pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, command: INTERLEAVED }));
	assert.match(run.message, /^docker run busybox:local failed \(exit 4\):/);
	assert.match(run.message, IN_ORDER, run.message);
	assert.match(run.message, /command: docker run .*busybox:local sh -c/);
	project("failing", [`RUN ${INTERLEAVED}`]);
	const build = await rejection(pi.call("docker_build", { context: "/workspace/failing", tag: "failing:dev" }));
	assert.match(build.message, /^docker build failing:dev failed \(exit [1-9]\d*\):/);
	assert.match(build.message, /OUT-1\n(.*\n)?ERR-1\n(.*\n)?OUT-2\n(.*\n)?ERR-2/, build.message);
	assert.match(build.message, /command: docker build -t failing:dev /);
	assert.doesNotMatch(build.message, /\x1b\[/, "no terminal colour codes");
	// all of it is in the answer, so no log is kept (attack-logs.test.mjs has the cut ones)
	assert.match(build.message, /all of it\):/, build.message);
	assert.doesNotMatch(build.message, /pi-docker-/);
});

test(`[${FLAVOUR}] brief class: a build printing 3,000 lines answers at most 2 KB, the whole log at the path it gives`, async (t) => {
	if (!ready(t)) return;
	project("big", ["RUN i=0; while [ $i -lt 3000 ]; do echo big-line-$i; i=$((i+1)); done"]);
	const r = await pi.call("docker_build", { context: "/workspace/big", tag: "big:dev" });
	assert.ok(bytes(r.text) <= 2048, `${bytes(r.text)} bytes:\n${r.text}`);
	assert.match(r.text, /^build \/workspace\/big -> big:dev/);
	assert.match(r.text, /^built big:dev \([0-9a-f]{12}, /m);
	assert.match(r.text, /^last \d+ of \d+ lines:$/m);
	const log = /^whole output \(\d+ lines, [^)]+\): (\S+)$/m.exec(r.text)?.[1];
	assert.ok(log, r.text);
	assert.equal(r.result.details.fullOutputPath, log);
	const all = readFileSync(log, "utf8");
	for (const l of ["big-line-0", "big-line-1500", "big-line-2999"]) assert.ok(all.includes(`${l}\n`), `${l} in ${log}`);
	assert.ok(bytes(all) > 3000 * 10, "the log holds the whole output");
	assert.ok(r.updates.length >= 1, "the output still streamed through onUpdate");
	// each call its own file (another project: a cached build of this one is short, and keeps none)
	project("big2", ["RUN i=0; while [ $i -lt 3001 ]; do echo big-line-$i; i=$((i+1)); done"]);
	const again = await pi.call("docker_build", { context: "/workspace/big2", tag: "big:dev" });
	const log2 = again.result.details.fullOutputPath;
	assert.ok(log2 && log2 !== log && existsSync(log2));
	assert.ok(bytes(again.text) <= 2048);
});

test(`[${FLAVOUR}] brief class: prune answers at most 2 KB with the reclaimed space and the log`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_prune");
	assert.ok(bytes(r.text) <= 2048, r.text);
	assert.match(r.text, /^pruned sandbox "/);
	// a log only when the answer was cut
	if (r.result.details.truncated) assert.ok(existsSync(r.result.details.fullOutputPath), r.text);
	else assert.equal(r.result.details.fullOutputPath, undefined, r.text);
});

test(`[${FLAVOUR}] shell class: a command string runs as sh -c in the container, an array as given`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_exec", { id: "ans", command: "echo A-$((40+2)) | tr A B" });
	assert.equal(r.text, "B-42");
	const vars = await pi.call("docker_exec", { id: "ans", command: "cd /etc && X=1 && echo $X-$(pwd) > /tmp/o; cat /tmp/o" });
	assert.equal(vars.text, "1-/etc");
	const arr = await pi.call("docker_exec", { id: "ans", command: ["echo", "A-$((40+2))", "|", "tr"] });
	assert.equal(arr.text, "A-$((40+2)) | tr");
	const run = await pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, command: "echo A-$((40+2)) | tr A B" });
	assert.match(run.text, /\nB-42$/);
	const def = pi.tool("docker_exec");
	assert.match(def.description, /sh -c STRING/);
	assert.match(def.promptSnippet, /sh -c STRING/);
	assert.match(pi.tool("docker_run").description, /sh -c STRING/);
});

test(`[${FLAVOUR}] brief class: the 2 KB bound holds for any output and keeps the outcome and the log's path`, async (t) => {
	if (!need(t, piMissing(), "pi")) return;
	const { createJiti } = await import(pathToFileURL(join(PI_DIR, "node_modules", "jiti", "lib", "jiti.mjs")).href);
	const { brief, BRIEF_MAX } = await createJiti(import.meta.url).import(join(PI_DIR, "src", "text.ts"));
	assert.equal(BRIEF_MAX, 2048);
	const made = new Set();
	const run = (output) => ({ code: 0, stdout: output, stderr: "", output, dropped: 0, log: { what: "build", made } });
	const lines = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join("\n");
	const cases = {
		"long lines": [["built x:1"], run(lines(100, (i) => `${i}:${"x".repeat(5000)}`))],
		"a long head (200 containers)": [[lines(200, (i) => `container-${i} (Up 2 seconds)`)], run(lines(50, (i) => `line-${i}`))],
		"multi-byte text": [["built ü:1"], run(lines(10000, () => "üüüüüüüüüüüüüüüüüüüü"))],
		"colour codes and carriage returns": [["built x:1"], run(lines(3000, (i) => `\x1b[91mstep ${i}\r\x1b[0m`))],
		"no output": [["built x:1"], run("")],
	};
	try {
		for (const [what, [head, r]] of Object.entries(cases)) {
			const b = brief(head, r);
			const text = b.content[0].text;
			const log = b.details.fullOutputPath;
			assert.ok(Buffer.byteLength(text) <= 2048, `${what}: ${Buffer.byteLength(text)} bytes`);
			assert.ok(text.startsWith(head[0].split("\n")[0]), `${what}: the outcome comes first`);
			// a log, and its path in the answer, exactly when something was left out
			if (what === "no output") assert.equal(log, undefined, what);
			else assert.ok(log && existsSync(log) && text.endsWith(log), `${what}: the log's path is kept:\n${text.slice(-200)}`);
			assert.ok(!text.includes("\ufffd") && !text.includes("\x1b"), `${what}: clean text`);
		}
	} finally {
		for (const f of made) rmSync(f, { force: true });
	}
});

/** Processes in the container whose command line holds s. */
function inside(s) {
	return inner("exec", "ans", "ps", "-o", "pid,args")
		.split("\n")
		.filter((l) => l.includes(s));
}

test(`[${FLAVOUR}] cancel class: Esc during docker_exec ends what it started inside the container (string, array, background child)`, async (t) => {
	if (!ready(t)) return;
	for (const [command, marks] of [
		["sleep 77", ["sleep 77"]],
		[["sh", "-c", "sleep 78 & sleep 79; wait"], ["sleep 78", "sleep 79"]],
		["setsid sleep 76 & sleep 75", ["sleep 76", "sleep 75"]],
	]) {
		const ac = new AbortController();
		const p = pi.call("docker_exec", { id: "ans", command }, { signal: ac.signal });
		// wait until it runs in the container
		const t0 = Date.now();
		while (marks.some((m) => !inside(m).length)) {
			assert.ok(Date.now() - t0 < 20000, `${marks} never started`);
			await new Promise((r) => setTimeout(r, 100));
		}
		const t1 = Date.now();
		ac.abort();
		const e = await rejection(p);
		assert.ok(Date.now() - t1 < 8000, `cancel took ${Date.now() - t1} ms`);
		for (const m of marks) assert.deepEqual(inside(m), [], `${m} still runs in the container`);
		// sbx-run's own words, as it verified them: in the sandbox, then in
		// the container, which gives no cgroup: the answer says so
		assert.match(e.message, /cancelled; .*ended what it started in container ans in its process tree \(\d+ process(es)?\); no cgroup could be made for it there, so what left that tree \(a daemon\) was not looked for$/);
	}
	// the container itself is untouched
	assert.equal((await pi.call("docker_exec", { id: "ans", command: "echo alive" })).text, "alive");
});

test(`[${FLAVOUR}] cancel class: Esc during a foreground docker_run stops its container, with and without rm`, async (t) => {
	if (!ready(t)) return;
	for (const [rm, secs] of [[true, 74], [false, 73]]) {
		const ac = new AbortController();
		const p = pi.call("docker_run", { image: "busybox:local", detach: false, rm, command: ["sleep", String(secs)] }, { signal: ac.signal });
		const running = () => inner("ps", "--format", "{{.Names}} {{.Command}}").split("\n").filter((l) => l.includes(`sleep ${secs}`));
		const t0 = Date.now();
		while (!running().length) {
			assert.ok(Date.now() - t0 < 20000, `sleep ${secs} never started`);
			await new Promise((r) => setTimeout(r, 100));
		}
		ac.abort();
		const e = await rejection(p);
		assert.deepEqual(running(), [], `the container of sleep ${secs} still runs`);
		assert.match(e.message, /^docker run busybox:local: cancelled; its container pi-run-[0-9a-f]{12} was stopped$/);
	}
});

test(`[${FLAVOUR}] status class: docker_status answers, never throws, with sbx missing, not signed in, or the programs missing`, async (t) => {
	if (!ready(t)) return;
	const nosbx = await withEnv({ DOCKER_SANDBOX_SBX: "/nonexistent/sbx" }, () => pi.call("docker_status"));
	assert.match(nosbx.text, /state: unknown: docker info failed \(not found \(exit 127\)\)/);
	assert.match(nosbx.text, /fix: the sbx CLI \(Docker Sandboxes\) was not found at \/nonexistent\/sbx: install it, or set DOCKER_SANDBOX_SBX/);
	assert.equal(nosbx.result.details.provisioned, false);
	const auth = await withEnv({ SBX_SIM_FAIL: "all:*:auth" }, () => pi.call("docker_status"));
	assert.match(auth.text, /Not authenticated to Docker/);
	assert.match(auth.text, /fix: sign in to Docker with `\S*sbx login`/);
	const noprog = await withEnv({ PATH: "/usr/bin:/bin", DOCKER_SANDBOX_BIN: undefined }, () => pi.call("docker_status"));
	assert.match(noprog.text, /sandbox: none \(the sbx-tools programs are missing: sbx-run/);
	assert.match(noprog.text, /make && make install/);
	// after an sbx upgrade: the fix named, from the status alone (69)
	const up = await withEnv({ SBX_SIM_FAULT: "restart" }, () => pi.call("docker_status"));
	assert.match(up.text, /state: unknown: sbx was upgraded and waits for its daemon to restart/);
	// the non-interactive fix named, and that it stops every sandbox: the user's to run
	assert.match(up.text, /fix: ask the user to run `\S*sbx daemon restart` \(or `\S*sbx ls` in a terminal, and confirm\): it stops every sandbox, this one and those of other sessions too, so nothing here runs it for them/);
	assert.equal(up.result.details.restart, true);
	// and back to normal
	assert.match((await pi.call("docker_status")).text, /state: running/);
});
