// The npm route (issue 10): `npm pack` in pi/, `npm install` of that
// tarball into a fresh prefix as `pi install npm:...` runs it, with no
// sbx-tools program on PATH; the install builds the six programs into the
// package, and pi's own loader loads the installed package, whose
// docker_ps answers through the simulator with those programs.  Then the
// failures: no C compiler or no make (one message, nothing left behind),
// a build that breaks half-way, and a checkout with no carried tree.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { after, before, test } from "node:test";
import { FLAVOUR, PI_DIR, PROGRAMS, TOP, loadExtension, need, piMissing, processesWith, simMissing, world } from "../testlib/harness.mjs";

const PKG_NAME = JSON.parse(readFileSync(join(PI_DIR, "package.json"), "utf8")).name;
const MESSAGE = "cannot build the sbx-tools programs";
const STD = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];
// what scripts/install.sh runs besides cc and make
const BASICS = ["sh", "cat", "cp", "mv", "rm", "mkdir", "mktemp", "chmod", "tail", "dirname", "basename"];

const tmp = mkdtempSync(join(tmpdir(), "pinst-"));
const prefix = join(tmp, "prefix");
const pkg = join(prefix, "lib", "node_modules", PKG_NAME);
let npm;
let tarball;
let packed;
let cleanPath;
let installed;

function which(cmd, path) {
	const r = spawnSync("sh", ["-c", `command -v "$0"`, cmd], { encoding: "utf8", env: { PATH: path } });
	return r.status === 0 ? r.stdout.trim() : undefined;
}

/** STD on PATH, each directory that holds an sbx-tools program (a `make install`) replaced by a copy without them. */
function pathWithoutPrograms() {
	const dirs = [];
	for (const d of STD) {
		if (!existsSync(d)) continue;
		if (!PROGRAMS.some((p) => existsSync(join(d, p)))) {
			dirs.push(d);
			continue;
		}
		const shadow = join(tmp, "path", d.replaceAll("/", "_"));
		mkdirSync(shadow, { recursive: true });
		for (const f of readdirSync(d)) if (!PROGRAMS.includes(f)) symlinkSync(join(d, f), join(shadow, f));
		dirs.push(shadow);
	}
	return dirs.join(":");
}

/** A PATH of one directory holding the basics and, of cc and make, those named. */
function pathWith(name, tools) {
	const dir = join(tmp, name);
	mkdirSync(dir, { recursive: true });
	for (const t of [...BASICS, ...tools]) {
		const p = which(t, cleanPath);
		assert.ok(p, `${t} is on PATH`);
		symlinkSync(p, join(dir, t));
	}
	return dir;
}

/** The environment npm runs in: none of this shell's npm_*, DOCKER_* or CC settings. */
function npmEnv(path, extra = {}) {
	const env = {};
	for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|DOCKER_|SBX_|CC$|CFLAGS$|MAKEFLAGS$)/i.test(k)) env[k] = v;
	return { ...env, PATH: path, HOME: join(tmp, "home"), npm_config_cache: join(tmp, "npm-cache"), npm_config_update_notifier: "false", ...extra };
}

/** npm as `pi install npm:...` runs it (pi 0.73: `npm install -g <spec>`), into prefix, offline. */
function npmInstall(into, path, extra, args = ["-g", "--prefix", into]) {
	// cwd: a directory that outlives the tests (a loaded extension may leave this process in a removed one)
	return spawnSync(process.execPath, [npm, "install", ...args, "--offline", "--no-audit", "--no-fund", tarball], { cwd: tmp, encoding: "utf8", env: npmEnv(path, extra), timeout: 300000 });
}

/** Every program or scratch build directory under dir (the carried sources have directories named like the programs). */
function leftovers(dir) {
	if (!existsSync(dir)) return [];
	return readdirSync(dir, { recursive: true }).map(String).filter((f) => {
		const base = f.split("/").pop();
		const carried = f.startsWith("c/") || f.includes("/c/");
		return base.startsWith(".build.") || (PROGRAMS.includes(base) && !carried);
	});
}

function count(text, s) {
	return text.split(s).length - 1;
}

/** The checkout's sources and pi/ (no builds, no node_modules) under dir. */
function checkoutCopy(dir) {
	const skip = new Set(["node_modules", "bin", "c", ".git"]);
	const keep = (src) => !skip.has(src.split("/").pop()) && !/\.(o|a)$/.test(src);
	mkdirSync(dir, { recursive: true });
	for (const f of readdirSync(TOP))
		if (/^(Makefile|config\.mk|LICENSE|lib|man|pi|sbx-.*)$/.test(f)) cpSync(join(TOP, f), join(dir, f), { recursive: true, filter: keep });
	return dir;
}

before(() => {
	cleanPath = pathWithoutPrograms();
	const found = which("npm", process.env.PATH) ?? which("npm", cleanPath);
	npm = found && realpathSync(found);
	if (!npm) return;
	// packed from a copy of the checkout: prepack's c/ in the live pi/
	// would make an extension other suites load meanwhile build into bin/
	const checkout = checkoutCopy(join(tmp, "checkout"));
	// prepack bundles the MCP server with the checkout's bundler
	if (existsSync(join(PI_DIR, "node_modules"))) symlinkSync(join(PI_DIR, "node_modules"), join(checkout, "pi", "node_modules"));
	const r = spawnSync(process.execPath, [npm, "pack", "--json", "--pack-destination", tmp], { cwd: join(checkout, "pi"), encoding: "utf8", env: npmEnv(process.env.PATH) });
	assert.equal(r.status, 0, `npm pack: ${r.stderr}`);
	packed = JSON.parse(r.stdout)[0];
	packed.leftCopy = existsSync(join(checkout, "pi", "c"));
	packed.leftBundle = existsSync(join(checkout, "pi", "dist"));
	tarball = join(tmp, packed.filename);
	installed = npmInstall(prefix, cleanPath);
});

after(() => rmSync(tmp, { recursive: true, force: true }));

const toolsMissing = () => ["cc", "make", "npm"].filter((c) => !which(c, process.env.PATH));

test("npm pack: the tarball carries the C tree and the install script, no tests or node_modules, and is small", (t) => {
	if (!need(t, toolsMissing(), "npm, cc and make")) return;
	const files = packed.files.map((f) => f.path);
	for (const f of ["index.ts", "package.json", "scripts/install.sh", "dist/sbx-tools-mcp.mjs", "c/Makefile", "c/config.mk", "c/lib/sbx.h", "c/man/sbx-run.1"]) assert.ok(files.includes(f), `${f} in ${files.join(" ")}`);
	// every source of the C tree, found in the checkout, not listed here
	for (const dir of ["lib", ...PROGRAMS]) {
		for (const f of readdirSync(join(TOP, dir)).filter((n) => /\.[ch]$/.test(n))) assert.ok(files.includes(`c/${dir}/${f}`), `c/${dir}/${f} is carried`);
	}
	const stray = files.filter((f) => /^(test|testlib|compat|node_modules|bin)\/|\/node_modules\/|\.(o|a|tgz)$|^c\/test\//.test(f));
	assert.deepEqual(stray, []);
	// the C tree, its man pages and the extension: 322 KB with the
	// network rules, the session record and the tripwire; the MCP
	// server's bundle (the SDK, pi's validator) is bounded on its own,
	// compressed
	const bundle = gzipSync(readFileSync(join(pkg, "dist", "sbx-tools-mcp.mjs"))).length;
	assert.ok(bundle < 192 * 1024, `the MCP server's bundle is ${bundle} bytes compressed`);
	assert.ok(packed.size - bundle < 352 * 1024, `tarball of ${packed.size} bytes, ${bundle} of them the bundle`);
	assert.equal(packed.leftCopy, false, "postpack removes pi/c from the checkout");
	assert.equal(packed.leftBundle, false, "postpack removes pi/dist from the checkout");
});

test("npm install of the tarball builds the six programs into the package, offline, with none on PATH", (t) => {
	if (!need(t, toolsMissing(), "npm, cc and make")) return;
	for (const p of PROGRAMS) assert.equal(which(p, cleanPath), undefined, `${p} is not on the test's PATH`);
	assert.equal(installed.status, 0, `npm install: ${installed.stdout}\n${installed.stderr}`);
	assert.ok(existsSync(join(pkg, "bin")), `npm ran the install script (${installed.stderr})`);
	assert.deepEqual(readdirSync(join(pkg, "bin")).sort(), [...PROGRAMS].sort());
	for (const p of PROGRAMS) {
		// each one runs: a usage error is the program answering
		const r = spawnSync(join(pkg, "bin", p), ["-?"], { encoding: "utf8" });
		assert.match(r.stderr, new RegExp(`usage: ${p} `), `${p} runs`);
	}
	assert.deepEqual(readdirSync(pkg).filter((f) => f.startsWith(".build.")), [], "no scratch build left");
	assert.ok(!existsSync(join(pkg, "node_modules")), "no dependency was installed (the pi peers are optional)");
});

test("npm install links sbx-tools-mcp, which plain node runs from the installed package: --help, initialize, the 21 tools", (t) => {
	if (!need(t, toolsMissing(), "npm, cc and make")) return;
	assert.equal(installed.status, 0, `npm install: ${installed.stdout}\n${installed.stderr}`);
	const bin = join(prefix, "bin", "sbx-tools-mcp");
	assert.ok(existsSync(bin), "the bin is linked");
	const path = `${dirname(process.execPath)}:${cleanPath}`;
	const help = spawnSync(bin, ["--help"], { encoding: "utf8", env: npmEnv(path) });
	assert.equal(help.status, 0, help.stderr);
	assert.match(help.stdout, /^usage: sbx-tools-mcp \[--workspace DIR\]/);
	// a session with no sbx to reach: it answers, and its end removes nothing of the host's
	const ws = join(tmp, "mcp-ws");
	mkdirSync(ws);
	const input = [
		{ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "install-test", version: "1" } } },
		{ jsonrpc: "2.0", method: "notifications/initialized" },
		{ jsonrpc: "2.0", id: 1, method: "tools/list" },
	].map((m) => `${JSON.stringify(m)}\n`).join("");
	const r = spawnSync(bin, [], { cwd: ws, input, encoding: "utf8", timeout: 60000, env: npmEnv(path, { DOCKER_SANDBOX_SBX: "/bin/false", SBX_STATE_DIR: join(tmp, "mcp-state") }) });
	assert.equal(r.status, 0, r.stderr);
	const answers = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
	assert.equal(answers.find((m) => m.id === 0)?.result?.serverInfo?.name, "sbx-tools-mcp", r.stdout);
	assert.equal(answers.find((m) => m.id === 1)?.result?.tools?.length, 21, r.stdout);
});

test("pi 1.x's npm command (a project under ~/.pi/agent/npm, --legacy-peer-deps) builds the programs too", (t) => {
	if (!need(t, toolsMissing(), "npm, cc and make")) return;
	const root = join(tmp, "agent-npm");
	mkdirSync(root);
	writeFileSync(join(root, "package.json"), '{ "name": "pi-extensions", "private": true }\n');
	const r = npmInstall(root, cleanPath, {}, ["--prefix", root, "--legacy-peer-deps"]);
	assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
	assert.deepEqual(readdirSync(join(root, "node_modules", PKG_NAME, "bin")).sort(), [...PROGRAMS].sort());
});

test(`[${FLAVOUR}] an npm that skips install scripts: the first need builds the programs, or says why it could not and gives the command`, async (t) => {
	if (!need(t, [...toolsMissing(), ...piMissing()], "npm, cc, make and pi")) return;
	const unbuilt = (name) => {
		const into = join(tmp, name);
		const r = npmInstall(into, cleanPath, {}, ["-g", "--prefix", into, "--ignore-scripts"]);
		assert.equal(r.status, 0, r.stderr);
		const dir = join(into, "lib", "node_modules", PKG_NAME);
		assert.ok(!existsSync(join(dir, "bin")));
		return dir;
	};
	const w = world({ programs: false });
	const saved = process.env.PATH;
	try {
		// no compiler: the build at first use fails, and the answer says so
		const bare = unbuilt("prefix-noscripts-nocc");
		process.env.PATH = pathWith("nocc-first-use", []);
		let pi = await loadExtension(w.ws, join(bare, "index.ts"));
		const st = await pi.call("docker_status");
		assert.match(st.text, /were not built \(npm skipped its install script\) \(building them at first use failed: [^)]*missing a working C compiler/, st.text);
		assert.ok(st.text.includes(`run \`sh scripts/install.sh\` in ${bare}`), st.text);
		assert.ok(!existsSync(join(bare, "bin")), "no bin/ after a failed build");
		pi.cleanupAgentDir();
		// with cc and make: the first need builds all six, once
		const dir = unbuilt("prefix-noscripts");
		process.env.PATH = cleanPath;
		pi = await loadExtension(w.ws, join(dir, "index.ts"));
		const st2 = await pi.call("docker_status");
		assert.deepEqual(readdirSync(join(dir, "bin")).sort(), [...PROGRAMS].sort());
		assert.doesNotMatch(st2.text, /were not built|missing programs/, st2.text);
		pi.cleanupAgentDir();
	} finally {
		process.env.PATH = saved;
		w.cleanup();
	}
});

const simNeeds = () => [...toolsMissing(), ...piMissing(), ...simMissing()];

test(`[${FLAVOUR}] pi's loader loads the installed package; docker_ps answers through the simulator with the package's programs`, async (t) => {
	if (!need(t, simNeeds(), "npm, cc, make, pi and the sbx simulator")) return;
	assert.ok(existsSync(join(pkg, "bin", "sbx-run")), "installed");
	const w = world({ programs: false });
	process.env.PATH = cleanPath;
	let pi;
	try {
		pi = await loadExtension(w.ws, join(pkg, "index.ts"));
		await pi.start();
		await pi.call("docker_run", { image: "busybox:local", name: "npm-route", command: "sleep 600" });
		const ps = await pi.call("docker_ps");
		assert.match(ps.text, /^CONTAINER ID\s+IMAGE/m, ps.text);
		assert.match(ps.text, /busybox:local\s+Up .*\snpm-route$/m, ps.text);
		const st = await pi.call("docker_status");
		assert.match(st.text, /state: running/, st.text);
		assert.doesNotMatch(st.text, /missing/, st.text);
		// the watcher this session armed is the package's own sbx-watch
		assert.ok(processesWith(join(pkg, "bin", "sbx-watch")).length > 0, processesWith("sbx-watch").join("\n"));

		// lookup order class: the package's own programs come before DOCKER_SANDBOX_BIN and PATH
		const decoys = join(tmp, "decoys");
		const hits = join(tmp, "decoy-hits");
		mkdirSync(decoys, { recursive: true });
		for (const p of PROGRAMS) {
			writeFileSync(join(decoys, p), `#!/bin/sh\necho ${p} >>${hits}\necho decoy ${p} >&2\nexit 70\n`);
			chmodSync(join(decoys, p), 0o755);
		}
		process.env.DOCKER_SANDBOX_BIN = decoys;
		process.env.PATH = `${decoys}:${cleanPath}`;
		const again = await pi.call("docker_ps", { all: true });
		assert.match(again.text, /\snpm-route$/m, again.text);
		assert.equal(existsSync(hits) ? readFileSync(hits, "utf8") : "", "", "no decoy ran");
		delete process.env.DOCKER_SANDBOX_BIN;
		process.env.PATH = cleanPath;
	} finally {
		await pi?.shutdown();
		pi?.cleanupAgentDir();
		w.cleanup();
	}
});

// The no-compiler class: no cc, no make, neither.  macOS's /usr/bin/cc
// without the command-line tools is a cc that fails: the probe compiles.
const VARIANTS = [
	{ name: "neither cc nor make", tools: [], says: /missing a working C compiler \(cc\) and make\./ },
	{ name: "make but no cc", tools: ["make"], says: /missing a working C compiler \(cc\)\./ },
	{ name: "cc but no make", tools: ["cc", "as", "ld"], says: /missing make\./ },
];

function checkRefusal(r, v, dir) {
	const out = `${r.stdout}\n${r.stderr}`;
	assert.notEqual(r.status, 0, out);
	assert.equal(count(out, MESSAGE), 1, `the message once:\n${out}`);
	assert.match(out, v.says);
	assert.match(out, /xcode-select --install/);
	assert.match(out, /apt install gcc make/);
	assert.deepEqual(leftovers(dir), [], `nothing built is left under ${dir}`);
}

test("no C compiler class: npm install fails with the one message and leaves no programs", (t) => {
	if (!need(t, toolsMissing(), "npm, cc and make")) return;
	const v = VARIANTS[0];
	const into = join(tmp, "prefix-nocc");
	const r = npmInstall(into, pathWith("nocc-npm", v.tools));
	checkRefusal(r, v, into);
	assert.ok(!existsSync(join(into, "lib", "node_modules", PKG_NAME, "bin")), "no bin/ in the package");
});

for (const v of VARIANTS) {
	test(`no C compiler class: the install script with ${v.name} says what to install and leaves no bin/`, (t) => {
		if (!need(t, toolsMissing(), "npm, cc and make")) return;
		const dir = join(tmp, `unpacked-${v.tools.join("-") || "none"}`);
		mkdirSync(dir);
		assert.equal(spawnSync("tar", ["xzf", tarball, "-C", dir, "--strip-components=1"]).status, 0);
		const env = npmEnv(pathWith(`path-${v.tools.join("-") || "none"}`, v.tools));
		const r = spawnSync("/bin/sh", ["scripts/install.sh"], { cwd: dir, encoding: "utf8", env });
		checkRefusal(r, v, dir);
		assert.ok(!existsSync(join(dir, "bin")));
	});
}

test("nothing half-built class: a build that breaks half-way fails, says so, and leaves no bin/", (t) => {
	if (!need(t, toolsMissing(), "npm, cc and make")) return;
	const dir = join(tmp, "unpacked-halfway");
	mkdirSync(dir);
	assert.equal(spawnSync("tar", ["xzf", tarball, "-C", dir, "--strip-components=1"]).status, 0);
	// a cc that passes the probe and builds everything but the last program
	const cc = join(tmp, "breaking-cc");
	writeFileSync(cc, `#!/bin/sh\ncase "$*" in *sbx-verify/checks.c*) echo "checks.c: broken here" >&2; exit 1;; esac\nexec ${which("cc", cleanPath)} "$@"\n`);
	chmodSync(cc, 0o755);
	const r = spawnSync("/bin/sh", ["scripts/install.sh"], { cwd: dir, encoding: "utf8", env: npmEnv(cleanPath, { CC: cc }) });
	assert.notEqual(r.status, 0, r.stderr);
	assert.match(r.stderr, /building the sbx-tools programs failed/);
	assert.match(r.stderr, /checks\.c: broken here/);
	assert.ok(!existsSync(join(dir, "bin")), "no bin/");
	assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith(".build.")), []);
});

test("checkout route: without a carried C tree the install script builds nothing and succeeds", (t) => {
	if (!need(t, toolsMissing(), "npm, cc and make")) return;
	// pi/ of a checkout, as `npm ci` there runs it: scripts/, no c/
	const dir = join(tmp, "checkout-pi");
	cpSync(join(PI_DIR, "scripts"), join(dir, "scripts"), { recursive: true });
	const r = spawnSync("/bin/sh", ["scripts/install.sh"], { cwd: dir, encoding: "utf8", env: npmEnv(cleanPath) });
	assert.equal(r.status, 0, r.stderr);
	assert.match(r.stdout, /no carried C tree/);
	assert.deepEqual(readdirSync(dir), ["scripts"]);
});
