// Code from the workspace class (issue 18, finding 1): nothing the
// extension executes, builds or reads as a program may come from a
// directory the sandbox can write, which is the workspace (by identity,
// links resolved) and everything under it.  The package's own bin/ when
// the package lies in the workspace (`pi install -l`, `pi -e ./pi` in a
// checkout), its install script, a relative or in-workspace
// DOCKER_SANDBOX_BIN, PATH entries in the workspace, links into it.
// Every planted program writes a mark outside the workspace; no mark may
// appear.  Last, the simulator repro: a container that binds /workspace
// replaces the package's sbx-run.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { FLAVOUR, PI_DIR, PROGRAMS, TOP, loadExtension, need, piMissing, programsMissing, simMissing, withEnv, world } from "../testlib/harness.mjs";

const noPi = piMissing();
let w;
let mark; // outside the workspace: what a planted program writes
let good; // a directory of harmless stand-ins, outside the workspace

/** Planted programs in dir: each appends its name to the mark and fails. */
function plant(dir, names = PROGRAMS) {
	mkdirSync(dir, { recursive: true });
	for (const p of names) {
		writeFileSync(join(dir, p), `#!/bin/sh\necho ${p} >>'${mark}'\nexit 0\n`);
		chmodSync(join(dir, p), 0o755);
	}
}

/** What planted programs ran so far. */
const ran = () => (existsSync(mark) ? readFileSync(mark, "utf8") : "");

/** The extension's files copied to dir, as a package there (no bin/ unless asked). */
function packageAt(dir) {
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	for (const f of ["index.ts", "package.json", "src"]) cpSync(join(PI_DIR, f), join(dir, f), { recursive: true });
	return dir;
}

before(() => {
	w = world({ programs: false });
	mark = join(w.base, "mark");
	good = join(w.base, "good");
	mkdirSync(good);
	// stand-ins that log their PATH, so the test sees what the children got
	for (const p of PROGRAMS) {
		// the settings and the workspace rule are the real programs' (sbx-env -c, sbx-run -C)
		const logged = `echo "$PATH" >>'${join(w.base, "child-path")}'\nexit 0`;
		const body =
			p === "sbx-env" ? `exec '${join(TOP, "sbx-env", "sbx-env")}' "$@"` : p === "sbx-run" ? `[ "$1" = -C ] && exec '${join(TOP, "sbx-run", "sbx-run")}' "$@"\n${logged}` : logged;
		writeFileSync(join(good, p), `#!/bin/sh\n${body}\n`);
		chmodSync(join(good, p), 0o755);
	}
	// pinned: no sbx-run -n at load, nothing to arm
	process.env.DOCKER_SANDBOX = "pi-sbx-code-abcdefgh";
});
after(() => w?.cleanup());

/** Load pi from extension with the workspace as cwd; call the tool; unload. */
async function attempt(extension, tool, args = {}) {
	rmSync(mark, { force: true });
	const pi = await loadExtension(w.ws, extension);
	try {
		return await pi.call(tool, args).then(
			(r) => ({ ok: true, text: r.text }),
			(e) => ({ ok: false, text: e.message }),
		);
	} finally {
		await pi.shutdown();
		pi.cleanupAgentDir();
	}
}

test(`[${FLAVOUR}] code from the workspace class: a project-local package's bin/ is never run; the tools say to install it globally`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const pkg = packageAt(join(w.ws, ".pi", "npm", "node_modules", "sbx-tools-pi"));
	plant(join(pkg, "bin"));
	await withEnv({ DOCKER_SANDBOX_BIN: good, PATH: `${good}:/usr/bin:/bin` }, async () => {
		for (const tool of ["docker_ps", "docker_status", "docker_init"]) {
			const r = await attempt(join(pkg, "index.ts"), tool, tool === "docker_init" ? { lang: "generic" } : {});
			assert.equal(ran(), "", `${tool}: a planted program ran: ${ran()}`);
			assert.equal(r.ok, false, `${tool} answered: ${r.text}`);
			assert.match(r.text, /lies in the workspace/, r.text);
			assert.match(r.text, /install it globally/i, r.text);
		}
		assert.ok(!existsSync(join(w.ws, "Dockerfile")), "docker_init wrote nothing");
	});
	rmSync(join(w.ws, ".pi"), { recursive: true, force: true });
});

test(`[${FLAVOUR}] code from the workspace class: a package in the workspace with c/Makefile and no bin/ never runs its install script`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const pkg = packageAt(join(w.ws, "vendor", "sbx-tools-pi"));
	writeFile(join(pkg, "c", "Makefile"), "all:\n");
	writeFile(join(pkg, "scripts", "install.sh"), `echo install.sh >>'${mark}'\n`);
	await withEnv({ PATH: `${good}:/usr/bin:/bin` }, async () => {
		const r = await attempt(join(pkg, "index.ts"), "docker_status");
		assert.equal(ran(), "", "the workspace's install script ran");
		assert.equal(r.ok, false, r.text);
		assert.match(r.text, /install it globally/i, r.text);
	});
	rmSync(join(w.ws, "vendor"), { recursive: true, force: true });
});

test(`[${FLAVOUR}] code from the workspace class: when every sbx-run lies in the workspace, none is asked whether it would be mounted, and none runs`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	// the only sbx-run is the planted one in the package's bin/: no sbx-run outside can answer -C
	const pkg = packageAt(join(w.ws, ".pi", "npm", "node_modules", "sbx-tools-pi"));
	plant(join(pkg, "bin"));
	await withEnv({ DOCKER_SANDBOX_BIN: undefined, PATH: "/usr/bin:/bin" }, async () => {
		for (const tool of ["docker_status", "docker_init", "docker_ps"]) {
			const r = await attempt(join(pkg, "index.ts"), tool, tool === "docker_init" ? { lang: "generic" } : {});
			assert.equal(ran(), "", `${tool}: a planted program ran: ${ran()}`);
			assert.equal(r.ok, false, `${tool} answered: ${r.text}`);
			assert.match(r.text, /no sbx-run outside that directory was found to say whether sbx-run would mount it \(`sbx-run -C`\)/, r.text);
			assert.match(r.text, /install it globally/i, r.text);
		}
		assert.ok(!existsSync(join(w.ws, "Dockerfile")), "docker_init wrote nothing");
	});
	rmSync(join(w.ws, ".pi"), { recursive: true, force: true });
});

function writeFile(p, s) {
	mkdirSync(join(p, ".."), { recursive: true });
	writeFileSync(p, s);
}

test(`[${FLAVOUR}] code from the workspace class: a DOCKER_SANDBOX_BIN that is relative, in the workspace, or linked into it is refused`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	plant(join(w.ws, "bin"));
	const link = join(w.base, "link-to-bin");
	symlinkSync(join(w.ws, "bin"), link);
	const wslink = join(w.base, "link-to-ws");
	symlinkSync(w.ws, wslink);
	const cases = [
		["bin", /DOCKER_SANDBOX_BIN "bin" is not an absolute path/],
		["./bin", /is not an absolute path/],
		["bin/", /is not an absolute path/],
		[join(w.ws, "bin"), /DOCKER_SANDBOX_BIN .* lies in the workspace/],
		[link, /lies in the workspace/],
		[join(wslink, "bin"), /lies in the workspace/],
		// not there yet: a container could make it later
		[join(w.ws, "later", "bin"), /lies in the workspace/],
	];
	await withEnv({ PATH: `${good}:/usr/bin:/bin` }, async () => {
		for (const [bin, says] of cases) {
			const r = await withEnv({ DOCKER_SANDBOX_BIN: bin }, () => attempt(undefined, "docker_ps"));
			assert.equal(ran(), "", `DOCKER_SANDBOX_BIN=${bin}: a planted program ran`);
			assert.equal(r.ok, false, `DOCKER_SANDBOX_BIN=${bin}: ${r.text}`);
			assert.match(r.text, says, `DOCKER_SANDBOX_BIN=${bin}`);
		}
	});
	rmSync(join(w.ws, "bin"), { recursive: true, force: true });
});

test(`[${FLAVOUR}] code from the workspace class: the workspace by identity: a bind mount of it elsewhere is the workspace too`, async (t) => {
	const root = process.getuid?.() === 0 ? [] : ["root (mount --bind)"];
	if (!need(t, [...noPi, ...root], "pi as root")) return;
	plant(join(w.ws, "bin"));
	const bound = join(w.base, "bound");
	mkdirSync(bound);
	assert.equal(spawnSync("mount", ["--bind", w.ws, bound]).status, 0, "mount --bind");
	try {
		await withEnv({ PATH: `${join(bound, "bin")}:${good}:/usr/bin:/bin` }, async () => {
			const r = await withEnv({ DOCKER_SANDBOX_BIN: join(bound, "bin") }, () => attempt(undefined, "docker_ps"));
			assert.equal(ran(), "", "a planted program ran through the bind mount");
			assert.match(r.text, /lies in the workspace/, r.text);
			// on PATH: passed over, the stand-in further on answers
			const p = await attempt(undefined, "docker_ps");
			assert.equal(ran(), "", "a planted program ran from PATH through the bind mount");
			assert.ok(p.ok, p.text);
		});
	} finally {
		spawnSync("umount", [bound]);
		rmSync(join(w.ws, "bin"), { recursive: true, force: true });
	}
});

test(`[${FLAVOUR}] code from the workspace class: PATH entries in the workspace (or linked into it, or relative) are passed over, for the tools and their children`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	plant(join(w.ws, "bin"));
	const link = join(w.base, "path-link");
	symlinkSync(join(w.ws, "bin"), link);
	// a program in a safe directory that is itself a link into the workspace
	const mixed = join(w.base, "mixed");
	mkdirSync(mixed);
	symlinkSync(join(w.ws, "bin", "sbx-run"), join(mixed, "sbx-run"));
	const path = [join(w.ws, "bin"), link, mixed, "", ".", "bin", good, "/usr/bin", "/bin"].join(":");
	rmSync(join(w.base, "child-path"), { force: true });
	await withEnv({ PATH: path }, async () => {
		const r = await attempt(undefined, "docker_ps");
		assert.equal(ran(), "", `a planted program ran: ${ran()}`);
		assert.ok(r.ok, r.text);
	});
	// what the programs were given: no workspace entry, nothing relative
	const seen = readFileSync(join(w.base, "child-path"), "utf8").trim().split("\n");
	for (const p of seen) assert.equal(p, [mixed, good, "/usr/bin", "/bin"].join(":"));
	rmSync(join(w.ws, "bin"), { recursive: true, force: true });
});

test(`[${FLAVOUR}] code from the workspace class (simulator): a container binding /workspace replaces the package's sbx-run; nothing of it runs on the host`, async (t) => {
	if (!need(t, [...noPi, ...simMissing(), ...programsMissing()], "the sbx simulator")) return;
	const pkg = packageAt(join(w.ws, ".pi", "npm", "node_modules", "sbx-tools-pi"));
	mkdirSync(join(pkg, "bin"));
	for (const p of PROGRAMS) cpSync(join(TOP, p, p), join(pkg, "bin", p));
	const evil = `#!/bin/sh\necho sbx-run >>${mark}\n`;
	await withEnv({ DOCKER_SANDBOX: undefined, PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" }, async () => {
		rmSync(mark, { force: true });
		const pi = await loadExtension(w.ws, join(pkg, "index.ts"));
		try {
			await pi.start();
			// a new file in its place (the running one is busy), executable
			const bin = "/w/.pi/npm/node_modules/sbx-tools-pi/bin/sbx-run";
			const script = `rm -f ${bin} && printf '${evil.replace(/\n/g, "\\n")}' >${bin} && chmod 755 ${bin}`;
			const run = await pi.call("docker_run", { image: "busybox:local", detach: false, volumes: ["/workspace:/w"], command: script }).then(
				(r) => r.text,
				(e) => e.message,
			);
			const ps = await pi.call("docker_ps").then(
				(r) => r.text,
				(e) => e.message,
			);
			assert.equal(ran(), "", `the replaced sbx-run ran on the host (docker_run: ${run})`);
			assert.match(run, /install it globally/i, run);
			assert.match(ps, /install it globally/i, ps);
		} finally {
			await pi.shutdown();
			pi.cleanupAgentDir();
		}
	});
	rmSync(join(w.ws, ".pi"), { recursive: true, force: true });
});
