/*
 * One sandbox per session, named by `sbx-run -n` (or DOCKER_SANDBOX), torn
 * down by sbx-watch when the pipe on its descriptor 3 closes: this process
 * ending and session_shutdown are the same event.
 */
import { spawn, spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import type { Socket } from "node:net";
import type { AgentToolUpdateCallback } from "@mariozechner/pi-coding-agent";
import { findProgram, pinnedName, type Program, requireProgram, settings } from "./config.ts";
import { Prewarm } from "./prewarm.ts";
import { type LogSink, type RunResult, runProgram } from "./proc.ts";
import { EX } from "./status.ts";
import { guardWorkspace, programEnv } from "./trust.ts";
import { type Details, failure, removeLogs, streamer } from "./text.ts";

export interface CallOptions {
	signal?: AbortSignal;
	/** what failed, for the error message ("docker build") */
	what: string;
	/** stream the output through onUpdate, under this heading */
	stream?: { onUpdate: AgentToolUpdateCallback<Details> | undefined; head: string };
	/** seconds; sbx-run's own default otherwise (120, or 600 for pull/build/compose) */
	timeout?: number;
	/** seconds, while DOCKER_SANDBOX_TIMEOUT is unset: sbx-run's long floor for commands it does not know */
	floor?: number;
	input?: string;
	env?: NodeJS.ProcessEnv;
	/** resolve with a failed result instead of throwing */
	allowFail?: boolean;
	/** sbx-run -O 3: RunResult.own says whose the status is */
	origin?: boolean;
	/** keep the output in a temp file named for this, should the answer be cut */
	log?: string;
	/** the command as a failure shows it (default: the program and its arguments) */
	command?: string[];
}

const HANDOVER = Symbol.for("sbx-tools.pi.handover");
const ENDED = "docker sandbox: this session has ended; its sandbox is being removed";

interface Handover {
	name: string;
	root: string;
	lifeline?: Socket;
	logs: Set<string>;
}

export class Session {
	name?: string;
	nameError?: string;
	/** the session's directory, once the host named it (begin); "" before */
	root = "";
	/** begin() came: the directory every guard uses is known */
	started = false;
	lifeline?: Socket;
	watchError?: string;
	gcStarted = false;
	/** session_shutdown came: arm no watcher any more */
	ended = false;
	/** it ended for good (not a /reload) */
	private released = false;
	/** the logs of cut answers, removed at the end and with the sandbox */
	logs = new Set<string>();
	/** sbx-run -P started at session start (prewarm.ts) */
	warm?: Prewarm;
	/** the arming in flight, shared by every caller (arm) */
	private arming?: Promise<void>;
	/** aborted at the session's end: every call listens to it */
	private readonly end = new AbortController();

	/** Nothing runs before begin() names the session's directory: pi's own may be another project's. */
	constructor() {
		// a /reload keeps the session: take over the sandbox and its lifeline
		const g = globalThis as Record<symbol, unknown>;
		const h = g[HANDOVER] as Handover | undefined;
		if (h) {
			delete g[HANDOVER];
			this.name = h.name;
			this.lifeline = h.lifeline;
			this.logs = h.logs;
			this.begin(h.root);
		}
	}

	/** The session's directory is known; the first one named stays. */
	begin(cwd: string | undefined): void {
		if (this.started || !cwd) return;
		this.setRoot(cwd);
		this.started = true;
	}

	/** The name is the programs' to say: DOCKER_SANDBOX through sbx-env -c, else sbx-run -n. */
	private pickName(): void {
		if (process.env.DOCKER_SANDBOX !== undefined) {
			if (!findProgram("sbx-env")) return; // every tool says how to install the programs
			const p = pinnedName();
			if (p && "name" in p) return void (this.name = p.name);
			if (p) return void (this.nameError = `${p.refused} (exit ${p.status})`);
		}
		const run = findProgram("sbx-run");
		if (!run) return;
		const r = spawnSync(run, ["-n"], { encoding: "utf8", env: programEnv(), timeout: 10000 });
		const name = (r.stdout ?? "").replace(/\n$/, "");
		if (r.status === EX.OK && name && !/\s/.test(name)) this.name = name;
		else this.nameError = `sbx-run -n failed: ${(r.stderr || r.error?.message || "no name printed").trim()}`;
	}

	sandbox(): string {
		if (!this.started) throw new Error("docker sandbox: the session has not started: its directory is not known yet");
		if (!this.name && !this.nameError) this.pickName();
		if (this.name) return this.name;
		if (this.nameError) throw new Error(`docker sandbox: ${this.nameError}`);
		requireProgram(process.env.DOCKER_SANDBOX !== undefined ? "sbx-env" : "sbx-run");
		throw new Error("docker sandbox: no sandbox name");
	}

	setRoot(cwd: string | undefined): void {
		if (!cwd) return;
		try {
			this.root = realpathSync(cwd);
		} catch {
			this.root = cwd;
		}
		guardWorkspace(this.root);
	}

	/** Run a program with the sandbox's name; throws its message on failure. */
	async program(prog: Program, args: string[], o: CallOptions): Promise<RunResult> {
		const path = requireProgram(prog);
		// past the end only what reads or removes runs (runArgs)
		const r = await runProgram(path, args, {
			signal: this.released ? o.signal : this.signal(o.signal),
			input: o.input,
			env: programEnv(o.env),
			origin: o.origin,
			onOutput: o.stream ? streamer(o.stream.onUpdate, o.stream.head, { sandbox: this.name }) : undefined,
		});
		if (o.log !== undefined) r.log = this.logSink(o.log);
		if (r.code !== EX.OK && !o.allowFail) throw failure(o.what, r, o.command ?? [prog, ...args]);
		return r;
	}

	logSink(what: string): LogSink {
		return { what, made: this.logs, closed: () => this.released };
	}

	private signal(s: AbortSignal | undefined): AbortSignal {
		return s ? AbortSignal.any([s, this.end.signal]) : this.end.signal;
	}

	private runArgs(o: CallOptions): string[] {
		if (this.ended) throw new Error(ENDED);
		const a = ["-s", this.sandbox(), "-w", this.root];
		if (o.timeout !== undefined) a.push("-t", String(Math.max(0, Math.round(o.timeout))));
		else if (o.floor !== undefined && !(o.env ?? process.env).DOCKER_SANDBOX_TIMEOUT) a.push("-t", String(o.floor));
		if (o.input !== undefined) a.push("-i");
		return a;
	}

	async docker(args: string[], o: CallOptions): Promise<RunResult> {
		return this.run([...this.runArgs(o), "--", ...args], { command: ["docker", ...args], ...o });
	}

	async exec(args: string[], o: CallOptions): Promise<RunResult> {
		return this.run([...this.runArgs(o), "-x", "--", ...args], { command: args, ...o });
	}

	private async run(args: string[], o: CallOptions): Promise<RunResult> {
		const signal = this.signal(o.signal);
		await this.armed(o);
		await this.warm?.ready(signal, o.what);
		return this.program("sbx-run", ["-O", "3", ...args], { ...o, signal, origin: true });
	}

	/**
	 * No sandbox without a teardown: a call that may provision runs only
	 * once this session's watcher is armed, arming again if it failed or
	 * session_start never came; its failure is the tool's error.
	 */
	private async armed(o: CallOptions): Promise<void> {
		if (this.ended || (this.lifeline && !this.lifeline.destroyed)) return;
		const provisions = o.env?.DOCKER_SANDBOX_AUTOCREATE !== "0";
		try {
			await this.arm();
		} catch (e) {
			if (provisions) throw new Error(`docker sandbox: no sandbox is made without its teardown watcher, and it could not be armed: ${(e as Error).message}`);
		}
	}

	ports(args: string[], o: CallOptions): Promise<RunResult> {
		return this.program("sbx-ports", ["-j", "-s", this.sandbox(), ...args], o);
	}

	/** Arm sbx-watch with fd 3, shared by parallel first calls so the session has one watcher. */
	arm(): Promise<void> {
		if (this.lifeline && !this.lifeline.destroyed) return Promise.resolve();
		this.arming ??= this.armOnce().finally(() => {
			this.arming = undefined;
		});
		return this.arming;
	}

	private async armOnce(): Promise<void> {
		if (this.ended) throw new Error(ENDED);
		const name = this.sandbox();
		const watch = requireProgram("sbx-watch");
		const args = ["-f", "3", name];
		const child = spawn(watch, args, {
			stdio: ["ignore", "ignore", "pipe", "pipe"],
			detached: true,
			env: programEnv(),
		});
		const lifeline = child.stdio[3] as Socket;
		lifeline.on("error", () => {
		});
		let err = "";
		child.stderr!.on("data", (b: Buffer) => {
			err += b.toString("utf8");
		});
		child.stderr!.on("error", () => {});
		const code = await new Promise<number>((resolve) => {
			child.on("error", (e) => {
				err += e.message;
				resolve(EX.NOTFOUND);
			});
			// "exit", not "close": the detached watcher keeps fd 3 open for good
			child.on("exit", (c, s) => resolve(c ?? (s ? 128 : 1)));
		});
		child.stderr!.destroy();
		if (code !== EX.OK) {
			lifeline.destroy();
			this.watchError = `sbx-watch failed (exit ${code}): ${err.trim() || "(no output)"}`;
			throw new Error(this.watchError);
		}
		lifeline.unref(); // the session ends when pi says so, not when this pipe does
		if (this.released) {
			lifeline.destroy();
			throw new Error(ENDED);
		}
		this.lifeline = lifeline;
		this.watchError = undefined;
	}

	/** The one teardown path: the watcher sees EOF on its descriptor 3. */
	release(): void {
		this.ended = true;
		this.released = true;
		// its calls first: sbx-run ends what it started
		this.end.abort();
		this.warm?.stop();
		removeLogs(this.logs);
		this.lifeline?.destroy();
		this.lifeline = undefined;
	}

	/** Keep the sandbox and its watcher for the next instance of the module (/reload). */
	handOver(): void {
		if (!this.name) return this.release();
		this.ended = true;
		(globalThis as Record<symbol, unknown>)[HANDOVER] = { name: this.name, root: this.root, lifeline: this.lifeline, logs: this.logs } satisfies Handover;
		this.lifeline = undefined;
	}

	/** Provision in the background once the watcher is armed; sbx-run -P decides from the setting. */
	startPrewarm(): boolean {
		if (this.warm || this.ended || !this.lifeline || this.lifeline.destroyed) return false;
		const c = settings();
		if (c.DOCKER_SANDBOX_AUTOCREATE === "0") return false;
		const env = { ...programEnv(), DOCKER_SANDBOX_PREWARM: c.DOCKER_SANDBOX_PREWARM };
		this.warm = new Prewarm(requireProgram("sbx-run"), ["-s", this.sandbox(), "-w", this.root], env);
		return true;
	}

	/** sbx-gc in the background, sparing this session's sandbox; its settings are its own. */
	startGc(): void {
		if (this.gcStarted) return;
		settings();
		const gc = findProgram("sbx-gc");
		if (!gc || !this.name) return;
		this.gcStarted = true;
		const child = spawn(gc, ["-x", this.name], { stdio: "ignore", detached: true, env: programEnv() });
		child.on("error", () => {});
		child.unref();
	}
}
