/*
 * Provisioning before the first call: `sbx-run -P` in the background once
 * the watcher is armed, with DOCKER_SANDBOX_PREWARM's effective value;
 * sbx-run decides what it means.  A docker call waits for it to hold the
 * provisioning lock, then for the lock.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Cancelled } from "./proc.ts";

export class Prewarm {
	private child?: ChildProcess;
	/** settles once sbx-run -P holds the lock, or has ended */
	private held: Promise<void>;

	constructor(run: string, args: string[], env: NodeJS.ProcessEnv) {
		// its words go to NAME.prewarm; stdout's EOF is the signal
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

	stop(): void {
		this.child?.kill("SIGTERM");
	}
}
