/*
 * One sandbox per session.  Its name comes from `sbx-run -n` (or the
 * pinned DOCKER_SANDBOX); its teardown is sbx-watch's, armed with a pipe
 * as descriptor 3 whose write end this process keeps: closing it at
 * session_shutdown and this process dying are the same event to the
 * watcher, so there is one teardown path.
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
	/**
	 * seconds, only while DOCKER_SANDBOX_TIMEOUT is unset: the long floor
	 * sbx-run gives pull, build and compose, for the long commands it does
	 * not know (a foreground run, a prune); a setting means what it says
	 */
	floor?: number;
	input?: string;
	env?: NodeJS.ProcessEnv;
	/** resolve with a failed result instead of throwing */
	allowFail?: boolean;
	/** sbx-run -O 3: it says on descriptor 3 whether the status is its own (proc.ts: RunResult.own) */
	origin?: boolean;
	/** should the answer be cut, keep the output in a temp file named for this (text.ts: logOf) */
	log?: string;
	/** the command as the answer shows it when it fails (default: the program and its arguments) */
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
	/** it ended for good (not a /reload): its calls were aborted, its files removed */
	private released = false;
	/** the logs of cut answers (text.ts: logOf), removed at the end and with the sandbox */
	logs = new Set<string>();
	/** sbx-run -P started at session start (prewarm.ts) */
	warm?: Prewarm;
	/** the arming in flight, shared by every caller (arm) */
	private arming?: Promise<void>;
	/** aborted at the session's end: every call of the session listens to it */
	private readonly end = new AbortController();

	/**
	 * Nothing is run here: pi's own working directory need not be the
	 * session's (`/resume` of another project, `pi --session FILE`), so
	 * no program is looked up or started before begin() names the
	 * session's directory.
	 */
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

	/**
	 * The session's directory is known (session_start's, or the context
	 * of a tool when the host fires no session_start): from now on it is
	 * the one every guard uses.  The first one named stays.
	 */
	begin(cwd: string | undefined): void {
		if (this.started || !cwd) return;
		this.setRoot(cwd);
		this.started = true;
	}

	/**
	 * The name is the programs' to say.  DOCKER_SANDBOX, when set, goes
	 * to them as it is: sbx-env -c prints what they read in it, or
	 * refuses it (exit 64, in their words); else sbx-run -n makes one.
	 */
	private pickName(): void {
		if (process.env.DOCKER_SANDBOX !== undefined) {
			if (!findProgram("sbx-env")) return; // every tool says how to install the programs
			const p = pinnedName();
			if (p && "name" in p) return void (this.name = p.name);
			if (p) return void (this.nameError = `${p.refused} (exit ${p.status})`);
		}
		const run = findProgram("sbx-run");
		if (!run) return; // every tool says how to install the programs
		const r = spawnSync(run, ["-n"], { encoding: "utf8", env: programEnv(), timeout: 10000 });
		const name = (r.stdout ?? "").replace(/\n$/, "");
		if (r.status === EX.OK && name && !/\s/.test(name)) this.name = name;
		else this.nameError = `sbx-run -n failed: ${(r.stderr || r.error?.message || "no name printed").trim()}`;
	}

	/** The sandbox name, or the reason there is none. */
	sandbox(): string {
		if (!this.started) throw new Error("docker sandbox: the session has not started: its directory is not known yet");
		if (!this.name && !this.nameError) this.pickName(); // installed since load
		if (this.name) return this.name;
		if (this.nameError) throw new Error(`docker sandbox: ${this.nameError}`);
		requireProgram(process.env.DOCKER_SANDBOX !== undefined ? "sbx-env" : "sbx-run"); // throws the install hint
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
		// past the end only what reads or removes runs (docker and exec calls are refused: runArgs)
		const r = await runProgram(path, args, {
			signal: this.released ? o.signal : this.signal(o.signal),
			input: o.input,
			env: programEnv(o.env),
			origin: o.origin,
			onOutput: o.stream ? streamer(o.stream.onUpdate, o.stream.head, { sandbox: this.name }) : undefined,
		});
		// an answer that comes after the session's end keeps no log: its files went with it
		if (o.log !== undefined) r.log = this.logSink(o.log);
		if (r.code !== EX.OK && !o.allowFail) throw failure(o.what, r, o.command ?? [prog, ...args]);
		return r;
	}

	/** Where a call's log goes: listed in the session's logs, none once the session ended. */
	logSink(what: string): LogSink {
		return { what, made: this.logs, closed: () => this.released };
	}

	/** The call's signal, and the session's end, which ends every call of it. */
	private signal(s: AbortSignal | undefined): AbortSignal {
		return s ? AbortSignal.any([s, this.end.signal]) : this.end.signal;
	}

	private runArgs(o: CallOptions): string[] {
		// past session_shutdown no watcher would take a new sandbox down
		if (this.ended) throw new Error(ENDED);
		const a = ["-s", this.sandbox(), "-w", this.root];
		if (o.timeout !== undefined) a.push("-t", String(Math.max(0, Math.round(o.timeout))));
		// unset as sbx-run reads it: absent or empty
		else if (o.floor !== undefined && !(o.env ?? process.env).DOCKER_SANDBOX_TIMEOUT) a.push("-t", String(o.floor));
		if (o.input !== undefined) a.push("-i");
		return a;
	}

	/** Pinned docker inside the sandbox (provisioned on first use). */
	async docker(args: string[], o: CallOptions): Promise<RunResult> {
		return this.run([...this.runArgs(o), "--", ...args], { command: ["docker", ...args], ...o });
	}

	/** Any command inside the sandbox. */
	async exec(args: string[], o: CallOptions): Promise<RunResult> {
		return this.run([...this.runArgs(o), "-x", "--", ...args], { command: args, ...o });
	}

	/** sbx-run with args, once the watcher is armed and a prewarm holds its lock. */
	private async run(args: string[], o: CallOptions): Promise<RunResult> {
		const signal = this.signal(o.signal);
		await this.armed(o);
		await this.warm?.ready(signal, o.what);
		// -O 3: sbx-run says on descriptor 3 whose the exit status is (sbx-run(1))
		return this.program("sbx-run", ["-O", "3", ...args], { ...o, signal, origin: true });
	}

	/**
	 * No sandbox without a teardown: a call that may provision runs only
	 * once this session's watcher is armed (sbx-watch arms with teardown
	 * none too, when that is what the settings say).  When the host never
	 * fired session_start (an SDK embedding, say), or arming failed, it is
	 * tried again here; its failure, which names the bad variable and
	 * what it accepts, is the tool's error.  A call that may not provision
	 * (DOCKER_SANDBOX_AUTOCREATE=0 set by the tool) only tries.
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

	/** sbx-ports -j ... for this sandbox. */
	ports(args: string[], o: CallOptions): Promise<RunResult> {
		return this.program("sbx-ports", ["-j", "-s", this.sandbox(), ...args], o);
	}

	/**
	 * Arm sbx-watch for this session: fd 3 is a pipe whose other end only
	 * this process holds.  Resolves once the watcher has detached.  One
	 * arming at a time, shared by every caller: parallel first calls wait
	 * for the same watcher, so the session has one.
	 */
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
		// teardown mode and keepalive: sbx-watch reads (and checks) them itself
		const args = ["-f", "3", name];
		const child = spawn(watch, args, {
			stdio: ["ignore", "ignore", "pipe", "pipe"],
			detached: true,
			env: programEnv(),
		});
		const lifeline = child.stdio[3] as Socket;
		lifeline.on("error", () => {
			/* the watcher's end went away: nothing to do here */
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
			// the session ended while it armed: the watcher sees its end at once
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
		// its calls first, so none is left to meet the teardown: sbx-run ends what it started
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

	/**
	 * Provision in the background now, as DOCKER_SANDBOX_PREWARM and the
	 * workspace say: sbx-run -P gets the setting's effective value and
	 * decides.  Only once the watcher is armed, so that no sandbox is
	 * made without its teardown.  Says whether sbx-run -P was started.
	 */
	startPrewarm(): boolean {
		if (this.warm || this.ended || !this.lifeline || this.lifeline.destroyed) return false;
		const c = settings();
		if (c.DOCKER_SANDBOX_AUTOCREATE === "0") return false;
		const env = { ...programEnv(), DOCKER_SANDBOX_PREWARM: c.DOCKER_SANDBOX_PREWARM };
		this.warm = new Prewarm(requireProgram("sbx-run"), ["-s", this.sandbox(), "-w", this.root], env);
		return true;
	}

	/**
	 * sbx-gc in the background, leaving this session's sandbox alone.
	 * Whether it sweeps and how old a sandbox must be are sbx-gc's to
	 * read (DOCKER_SANDBOX_GC_HOURS is its default -H, and 0 no sweep);
	 * a bad setting is still said here, in the programs' words.
	 */
	startGc(): void {
		if (this.gcStarted) return;
		settings(); // throws the programs' refusal of a bad setting
		const gc = findProgram("sbx-gc");
		if (!gc || !this.name) return;
		this.gcStarted = true;
		const child = spawn(gc, ["-x", this.name], { stdio: "ignore", detached: true, env: programEnv() });
		child.on("error", () => {});
		child.unref();
	}
}
