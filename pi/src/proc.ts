/*
 * Spawning the programs: an argv, never a shell, in its own process group
 * so Esc kills all of it; output kept (bounded) and streamed.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePrivate } from "./hostfs.ts";

export interface RunOptions {
	signal?: AbortSignal;
	/** called with the output so far, at most every 250 ms */
	onOutput?: (text: string) => void;
	/** stdin, as an unlinked file so /dev/stdin opens it; /dev/null otherwise */
	input?: string;
	env?: NodeJS.ProcessEnv;
	/** sbx-run -O 3: whose the status is, into RunResult.own */
	origin?: boolean;
}

export interface RunResult {
	code: number;
	stdout: string;
	stderr: string;
	/** stdout and stderr as they came: the last KEEP_BYTES */
	output: string;
	/** bytes of output that came before what `output` keeps */
	dropped: number;
	log?: LogSink;
	/** the status is the program's own; with origin, false when it is the command's */
	own?: boolean;
	/** with origin: what sbx-run found after a failed call (sbx-run(1), -O) */
	outward?: Outward;
}

/** Hosts sbx blocked during a call, and what sbx-run did about it. */
export interface Outward {
	blocked: { host: string; reason: string }[];
	/** the session's rules had been lost at a stop and were put back */
	reapplied: boolean;
	/** the output shows a container refusing the sandbox proxy's certificate */
	certificate: boolean;
}

/** The lines after -O's first: "blocked HOST REASON", "reapplied", "certificate". */
export function outwardOf(origin: string): Outward {
	const o: Outward = { blocked: [], reapplied: false, certificate: false };
	for (const l of origin.split("\n").slice(1)) {
		const m = /^blocked ([^ ]+) (.*)$/.exec(l);
		if (m) o.blocked.push({ host: m[1], reason: m[2] });
		else if (l === "reapplied") o.reapplied = true;
		else if (l === "certificate") o.certificate = true;
	}
	return o;
}

export interface LogSink {
	what: string;
	made: Set<string>;
	path?: string;
	closed?: () => boolean;
}

/** Per stream; past it the oldest bytes go. */
export const KEEP_BYTES = 4 * 1024 * 1024;
/** SIGKILL after SIGTERM: sbx-run needs up to 15 s to end inside the sandbox what it started. */
const KILL_GRACE_MS = 20000;

class Tail {
	private parts: Buffer[] = [];
	private size = 0;
	dropped = 0;
	push(b: Buffer): void {
		this.parts.push(b);
		this.size += b.length;
		while (this.size > KEEP_BYTES && this.parts.length > 1) {
			this.size -= this.parts[0].length;
			this.dropped += this.parts[0].length;
			this.parts.shift();
		}
	}
	text(): string {
		return Buffer.concat(this.parts).toString("utf8");
	}
}

export class Cancelled extends Error {
	readonly ended?: string;
	constructor(what: string, more?: string, ended?: string) {
		super(`${what}: cancelled${more ? `; ${more}` : ""}`);
		this.name = "Cancelled";
		this.ended = ended;
	}
}

/** What sbx-run said it ended inside the sandbox, from its last word on a signal. */
function endedWords(stderr: string): string | undefined {
	const lines = stderr.trimEnd().split("\n");
	for (let i = lines.length - 1; i >= 0; i--) {
		const m = /^sbx-run: sandbox [^:]+: ended by signal \d+; (.*)$/.exec(lines[i]);
		if (m) return m[1];
	}
	return undefined;
}

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
	if (pid === undefined) return;
	try {
		process.kill(-pid, sig);
	} catch {
		try {
			process.kill(pid, sig);
		} catch {
		}
	}
}

/** Run path with args: the status (128+n for a signal) and output; rejects if unstarted or cancelled. */
export function runProgram(path: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
	const what = path.slice(path.lastIndexOf("/") + 1);
	if (opts.signal?.aborted) return Promise.reject(new Cancelled(what));
	return new Promise((resolve, reject) => {
		const inFd = opts.input === undefined ? undefined : inputFile(opts.input);
		const child = spawn(path, args, {
			detached: true,
			stdio: opts.origin ? [inFd ?? "ignore", "pipe", "pipe", "pipe"] : [inFd ?? "ignore", "pipe", "pipe"],
			env: opts.env ?? process.env,
			windowsHide: true,
		});
		if (inFd !== undefined) closeSync(inFd);
		const out = new Tail();
		const err = new Tail();
		const both = new Tail();
		let aborted = false;
		let killTimer: NodeJS.Timeout | undefined;
		let updTimer: NodeJS.Timeout | undefined;
		let dirty = false;

		const flush = (): void => {
			updTimer = undefined;
			if (!dirty || !opts.onOutput) return;
			dirty = false;
			try {
				opts.onOutput(both.text());
			} catch {
			}
		};
		const take = (t: Tail) => (b: Buffer) => {
			t.push(b);
			both.push(b);
			if (opts.onOutput) {
				dirty = true;
				updTimer ??= setTimeout(flush, 250);
			}
		};
		child.stdout!.on("data", take(out));
		child.stderr!.on("data", take(err));
		let origin = "";
		const said = opts.origin ? (child.stdio[3] as NodeJS.ReadableStream | null) : null;
		said?.on("data", (b: Buffer) => {
			if (origin.length < 64) origin += b.toString("latin1");
		});
		said?.on("error", () => {});

		const onAbort = (): void => {
			aborted = true;
			// sbx-run passes TERM on to sbx's group
			killGroup(child.pid, "SIGTERM");
			killTimer = setTimeout(() => killGroup(child.pid, "SIGKILL"), KILL_GRACE_MS);
		};
		opts.signal?.addEventListener("abort", onAbort, { once: true });

		child.on("error", (e) => {
			opts.signal?.removeEventListener("abort", onAbort);
			if (updTimer) clearTimeout(updTimer);
			reject(new Error(`${what}: ${e.message}`));
		});
		child.on("close", (code, sig) => {
			opts.signal?.removeEventListener("abort", onAbort);
			if (updTimer) clearTimeout(updTimer);
			if (aborted) {
				killGroup(child.pid, "SIGKILL");
				if (killTimer) clearTimeout(killTimer);
				reject(new Cancelled(what, undefined, endedWords(err.text())));
				return;
			}
			flush();
			const status = code ?? 128 + signalNumber(sig);
			const word = origin.split("\n")[0];
			const own = !opts.origin ? true : word === "sbx-run" ? true : word === "command" ? false : undefined;
			const outward = opts.origin ? outwardOf(origin) : undefined;
			resolve({ code: status, stdout: out.text(), stderr: err.text(), output: both.text(), dropped: both.dropped, own, outward });
		});
	});
}

function inputFile(text: string): number {
	const dir = mkdtempSync(join(tmpdir(), "sbx-pi-"));
	try {
		const f = join(dir, "stdin");
		writePrivate(f, text);
		return openSync(f, "r");
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

function signalNumber(sig: NodeJS.Signals | null): number {
	const nums: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGPIPE: 13, SIGTERM: 15 };
	return sig ? (nums[sig] ?? 0) : 0;
}
