/*
 * Spawning the programs: an argv array, never a shell; the child leads
 * its own process group so Esc (the turn's AbortSignal) kills all of it;
 * output is kept (bounded) and can be streamed as it comes.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writePrivate } from "./hostfs.ts";

export interface RunOptions {
	signal?: AbortSignal;
	/** called with everything printed so far (stdout and stderr interleaved), at most every 250 ms */
	onOutput?: (text: string) => void;
	/**
	 * the child's stdin, which is /dev/null otherwise: given as an unlinked
	 * regular file, so a reader may also open it as /dev/stdin (it cannot
	 * when it is node's socketpair)
	 */
	input?: string;
	env?: NodeJS.ProcessEnv;
	/**
	 * the program says whose its exit status is on descriptor 3 (sbx-run
	 * -O 3): a pipe there, read into RunResult.own
	 */
	origin?: boolean;
}

export interface RunResult {
	code: number;
	stdout: string;
	stderr: string;
	/** stdout and stderr in the order they came: the last KEEP_BYTES of them */
	output: string;
	/** bytes of output that came before what `output` keeps */
	dropped: number;
	/** where the output goes should the answer be cut (text.ts: logOf) */
	log?: LogSink;
	/**
	 * true when the status is the program's own (its failure, its
	 * timeout, a signal); with origin, false when it is what the exec
	 * returned (the command's), undefined when it said neither
	 */
	own?: boolean;
}

/** A call's log, made only when its answer is cut, and the session's list of them. */
export interface LogSink {
	what: string;
	made: Set<string>;
	/** the file, once written */
	path?: string;
	/** true once the session ended: no log is written any more */
	closed?: () => boolean;
}

/**
 * Per stream; past it the oldest bytes go (results are cut to 50 KB
 * anyway, and a log keeps at most this much of the end).
 */
export const KEEP_BYTES = 4 * 1024 * 1024;
/**
 * After SIGTERM to the group, SIGKILL to it.  sbx-run passes the TERM on
 * to sbx's own group and then, with one more exec, ends inside the
 * sandbox what its exec started there (bounded by 15 s, then its answer);
 * only a program that outlives all that is killed.
 */
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
	/** what sbx-run said it ended inside the sandbox, if it said so */
	readonly ended?: string;
	constructor(what: string, more?: string, ended?: string) {
		super(`${what}: cancelled${more ? `; ${more}` : ""}`);
		this.name = "Cancelled";
		this.ended = ended;
	}
}

/**
 * sbx-run's last word on a signal: "sbx-run: sandbox N: ended by signal
 * 15; WHAT", the WHAT part (what it ended inside, as it verified it).
 */
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
			/* gone already */
		}
	}
}

/**
 * Run path with args.  Resolves with the exit status (128+n for a signal)
 * and the output; rejects only when it could not be started or was
 * cancelled through the signal.
 */
export function runProgram(path: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
	const what = path.slice(path.lastIndexOf("/") + 1);
	if (opts.signal?.aborted) return Promise.reject(new Cancelled(what));
	return new Promise((resolve, reject) => {
		const inFd = opts.input === undefined ? undefined : inputFile(opts.input);
		const child = spawn(path, args, {
			detached: true, // its own process group: kill(-pid) reaches everything under it
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
				/* a UI callback must not break the run */
			}
		};
		// one buffer for both pipes, appended in the order the chunks arrive
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
		// one short line at its exit; what the command prints never reaches it
		let origin = "";
		const said = opts.origin ? (child.stdio[3] as NodeJS.ReadableStream | null) : null;
		said?.on("data", (b: Buffer) => {
			if (origin.length < 64) origin += b.toString("latin1");
		});
		said?.on("error", () => {});

		const onAbort = (): void => {
			aborted = true;
			// the programs own their process groups: sbx-run passes TERM on to
			// sbx's group, and its guardian kills that group should sbx-run die
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
				// the group may hold stragglers that kept no pipe open
				killGroup(child.pid, "SIGKILL");
				if (killTimer) clearTimeout(killTimer);
				reject(new Cancelled(what, undefined, endedWords(err.text())));
				return;
			}
			flush();
			const status = code ?? 128 + signalNumber(sig);
			const word = origin.split("\n")[0];
			// a program that runs no command of the sandbox's has only statuses of its own
			const own = !opts.origin ? true : word === "sbx-run" ? true : word === "command" ? false : undefined;
			resolve({ code: status, stdout: out.text(), stderr: err.text(), output: both.text(), dropped: both.dropped, own });
		});
	});
}

/** A descriptor of a private file holding text, already unlinked. */
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
