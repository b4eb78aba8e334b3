/*
 * Provisioning before the first call.  At session start, once the
 * watcher is armed, `sbx-run -P` runs in the background with
 * DOCKER_SANDBOX_PREWARM's effective value (sbx-env -c: 1, 0 or auto),
 * and sbx-run decides what it means: 0 nothing, auto only when the
 * workspace shows docker will be used.  sbx-run -P lets its standard
 * output go once it holds the sandbox's provisioning lock, or ends; a
 * docker call waits for that EOF, then its own sbx-run waits for the
 * lock within the call's timeout and finds the sandbox ready, or the
 * prewarm's failure with what sbx said.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Cancelled } from "./proc.ts";

export class Prewarm {
	private child?: ChildProcess;
	/** settles once sbx-run -P holds the lock, or has ended */
	private held: Promise<void>;

	/** env: the cleaned environment every program gets (trust.ts: programEnv) */
	constructor(run: string, args: string[], env: NodeJS.ProcessEnv) {
		// its words go to NAME.prewarm for the first call; stdout is the signal
		const child = spawn(run, ["-P", ...args], { stdio: ["ignore", "pipe", "ignore"], env });
		this.child = child;
		this.held = new Promise<void>((resolve) => {
			child.stdout!.on("data", () => {});
			child.stdout!.on("close", () => resolve());
			child.on("error", () => resolve());
		});
		child.on("exit", () => {
			this.child = undefined;
		});
		child.unref();
	}

	/** Wait until a docker call will wait for it (milliseconds: its lock). */
	async ready(signal: AbortSignal | undefined, what: string): Promise<void> {
		if (!signal) return this.held;
		if (signal.aborted) throw new Cancelled(what);
		let onAbort = (): void => {};
		const aborted = new Promise<never>((_, reject) => {
			onAbort = () => reject(new Cancelled(what));
			signal.addEventListener("abort", onAbort, { once: true });
		});
		try {
			await Promise.race([this.held, aborted]);
		} finally {
			signal.removeEventListener("abort", onAbort);
		}
	}

	/** The session ended: its sbx calls end, and the watcher tears down. */
	stop(): void {
		this.child?.kill("SIGTERM");
	}
}
