// The agent's tools under attack: path arguments (issue 13, finding 5).
// A path whose resolution leaves the workspace, or that cannot be
// resolved (a dangling link, a loop), is refused for every tool that takes
// a path, before anything runs.  Through pi's loader with pi's argument
// validation; the programs are stubs that log their argv.
import assert from "node:assert/strict";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { before, test } from "node:test";
import { FLAVOUR, need, piMissing } from "../testlib/harness.mjs";
import { stubbedFile } from "../testlib/stubs.mjs";

const noPi = piMissing();
const { w, pi, stubs } = await stubbedFile();

before(() => {
	stubs.setRunOutput("0123456789abcdef0123456789abcdef\n");
	const ws = w.ws;
	mkdirSync(join(ws, "app", "sub"), { recursive: true });
	writeFileSync(join(ws, "app", "Dockerfile"), "FROM busybox:local\n");
	writeFileSync(join(ws, "app", "compose.yaml"), "services: {}\n");
	symlinkSync("/nonexistent/x", join(ws, "dl")); // dangling, last component
	symlinkSync("/nonexistent/dir", join(ws, "di")); // dangling, used as an inner component
	symlinkSync("missing", join(ws, "dn")); // dangling, pointing inside
	symlinkSync("loop2", join(ws, "loop1"));
	symlinkSync("loop1", join(ws, "loop2"));
	symlinkSync("self", join(ws, "self"));
	symlinkSync("..", join(ws, "up")); // the workspace root's parent
	symlinkSync(".", join(ws, "here")); // the root itself: "here/.." is its parent
	symlinkSync("..", join(ws, "app", "back")); // the root, from below
	symlinkSync(join(ws, "app"), join(ws, "abs")); // absolute, inside: fine
	symlinkSync("app/sub", join(ws, "rel")); // relative, inside: fine
});

/** Paths that leave the workspace or cannot be resolved, and the class each stands for. */
function bad() {
	const wsName = basename(w.ws);
	return [
		["dl", "dangling link, last component"],
		["dl/", "dangling link, trailing slash"],
		["di/sub", "dangling link, inner component"],
		["app/../di/sub", "dangling link after .."],
		["dn", "dangling link pointing inside"],
		["dn/x", "dangling link pointing inside, inner"],
		["loop1", "link loop"],
		["loop1/x", "link loop, inner"],
		["self", "self loop"],
		["up", "link to the root's parent"],
		[`up/${wsName}/app`, "link to the root's parent, and back in"],
		["here/../x", ".. after a link to the root"],
		["app/back/../x", ".. after a link to the root, from below"],
		["app/back/..", ".. after a link, last"],
		["app/Dockerfile/x", "a file as a directory"],
		["missing/../app", ".. after a missing component"],
	];
}

/** Each tool's path parameters, with the path p put in. */
function uses(p) {
	const rel = !p.startsWith("/");
	return [
		["docker_run volumes", "docker_run", { image: "busybox:local", volumes: [`${p}:/d`] }],
		...(rel ? [["docker_run volumes ./", "docker_run", { image: "busybox:local", volumes: [`./${p}:/d`] }]] : []),
		...(rel ? [["docker_run volumes /workspace", "docker_run", { image: "busybox:local", volumes: [`/workspace/${p}:/d`] }]] : []),
		["docker_build context", "docker_build", { context: p, tag: "t:1" }],
		["docker_build dockerfile", "docker_build", { context: "app", tag: "t:1", dockerfile: `../${p}` }],
		["docker_build dockerfile /workspace", "docker_build", { context: "app", tag: "t:1", dockerfile: `/workspace/${p}` }],
		["docker_compose file", "docker_compose", { action: "ps", file: p }],
		["docker_init context", "docker_init", { context: p, lang: "generic", force: true }],
	];
}

const REFUSED = /escapes the workspace|cannot be resolved/;

test(`[${FLAVOUR}] path class (finding 5): dangling links, loops, links to the parent and .. after a link are refused for every path parameter`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	stubs.reset();
	for (const [p, cls] of bad()) {
		for (const [where, tool, args] of uses(p)) {
			await assert.rejects(pi.call(tool, args), REFUSED, `${cls}: ${where} ${JSON.stringify(args)}`);
		}
	}
	assert.deepEqual(stubs.calls().filter((c) => c[0] === "sbx-run"), [], "nothing ran");
});

test(`[${FLAVOUR}] path class (finding 5): the refusal says why: the link, the loop`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	// a link out answers as any link out, whether its target is there or not: no word of the host path
	await assert.rejects(pi.call("docker_build", { context: "dl", tag: "t:1" }), /build context escapes the workspace \(symlink\): dl$/);
	await assert.rejects(pi.call("docker_build", { context: "dn", tag: "t:1" }), /build context cannot be resolved \(a dangling symbolic link in the workspace\): dn/);
	await assert.rejects(pi.call("docker_build", { context: "loop1", tag: "t:1" }), /cannot be resolved \(a symbolic link loop: more than 40 links\)/);
	await assert.rejects(pi.call("docker_build", { context: "up", tag: "t:1" }), /build context escapes the workspace \(symlink\): up/);
	await assert.rejects(pi.call("docker_run", { image: "busybox:local", volumes: ["./here/../x:/d"] }), /volume source escapes the workspace \(\.\.\): \.\/here\/\.\.\/x/);
});

test(`[${FLAVOUR}] path class (finding 5): links that stay in the workspace still work, resolved, for every path parameter`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const app = join(w.ws, "app");
	for (const p of ["app", "abs", "./abs", "/workspace/abs", "rel/..", "app/back/app", `${w.ws}/abs`]) {
		stubs.reset();
		for (const [where, tool, args] of uses(p)) {
			if (where.startsWith("docker_build dockerfile")) continue; // below: it names a file
			await pi.call(tool, tool === "docker_compose" ? { ...args, file: `${p}/compose.yaml` } : args);
			// a tool may make more than one call (a build then inspects its image): one of them has the path
			const runs = stubs.calls().filter((c) => c[0] === "sbx-run");
			if (tool === "docker_init") continue; // host side only
			const want = tool === "docker_run" ? `${app}:/d` : tool === "docker_compose" ? join(app, "compose.yaml") : app;
			assert.ok(runs.some((r) => r.includes(want)), `${where} ${p}: ${JSON.stringify(runs)}`);
		}
		stubs.reset();
		await pi.call("docker_build", { context: p, tag: "t:1", dockerfile: "../abs/Dockerfile" });
		assert.ok(stubs.calls().some((c) => c.includes(join(app, "Dockerfile"))), JSON.stringify(stubs.calls()));
	}
	// a path that does not exist yet, with no link on the way, is a volume docker creates
	stubs.reset();
	await pi.call("docker_run", { image: "busybox:local", volumes: ["./app/new/dir:/d"] });
	assert.ok(stubs.calls().some((c) => c.includes(`${join(app, "new", "dir")}:/d`)), JSON.stringify(stubs.calls()));
});

test(`[${FLAVOUR}] path class (finding 5): a missing directory is still "not found", not a pass`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	rmSync(join(w.ws, "nothing"), { recursive: true, force: true });
	await assert.rejects(pi.call("docker_build", { context: "nothing", tag: "t:1" }), /context not found/);
	await assert.rejects(pi.call("docker_init", { context: "nothing" }), /directory not found/);
	await assert.rejects(pi.call("docker_compose", { file: "nothing.yaml" }), /file not found/);
});
