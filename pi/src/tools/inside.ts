/*
 * Commands inside containers: what a command parameter means (a string
 * is shell, an array is argv), and stopping the container of a cancelled
 * foreground docker_run or compose run.  What a cancelled docker_exec or
 * compose exec started, sbx-run ends itself (its exec mark, sbx-run(1)).
 */
import { commandWords } from "../paths.ts";
import type { Session } from "../session.ts";
import { EX } from "../status.ts";

/**
 * A command as the agent means it: a string is shell (sh -c STRING in
 * the container), as agents write it; an array is argv, for images
 * without a shell.
 */
export function shellCommand(cmd: string | string[] | undefined): string[] {
	if (typeof cmd === "string") return cmd.trim() === "" ? [] : commandWords(["sh", "-c", cmd]);
	return commandWords(cmd);
}

/** Seconds stopping a cancelled run's container may take, however the VM answers. */
export const END_SECONDS = 20;

/** Stop, inside the sandbox, the container of a cancelled foreground run (--rm then removes it). */
export async function endRun(s: Session, name: string): Promise<string> {
	const r = await s.docker(["kill", name], { what: "docker kill (ending a cancelled run)", timeout: END_SECONDS, allowFail: true, env: { ...process.env, DOCKER_SANDBOX_AUTOCREATE: "0" } }).catch((e: Error) => ({ code: 1, output: e.message }));
	// not running (any more) is as good as killed
	if (r.code === EX.OK || /is not running|No such container/.test(r.output)) return `its container ${name} was stopped`;
	return `its container ${name} may still run (stopping it failed: ${r.output.trim().split("\n").pop()?.slice(0, 200) ?? ""})`;
}
