/*
 * Commands inside containers: a string is shell, an array argv; a
 * cancelled foreground run's container is stopped (sbx-run ends execs).
 */
import { commandWords } from "../paths.ts";
import type { Session } from "../session.ts";
import { EX } from "../status.ts";

export function shellCommand(cmd: string | string[] | undefined): string[] {
	if (typeof cmd === "string") return cmd.trim() === "" ? [] : commandWords(["sh", "-c", cmd]);
	return commandWords(cmd);
}

export const END_SECONDS = 20;

/** Stop the container of a cancelled foreground run (--rm removes it). */
export async function endRun(s: Session, name: string): Promise<string> {
	const r = await s.docker(["kill", name], { what: "docker kill (ending a cancelled run)", timeout: END_SECONDS, allowFail: true, env: { ...process.env, DOCKER_SANDBOX_AUTOCREATE: "0" } }).catch((e: Error) => ({ code: 1, output: e.message }));
	if (r.code === EX.OK || /is not running|No such container/.test(r.output)) return `its container ${name} was stopped`;
	return `its container ${name} may still run (stopping it failed: ${r.output.trim().split("\n").pop()?.slice(0, 200) ?? ""})`;
}
