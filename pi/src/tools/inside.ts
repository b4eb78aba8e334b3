/*
 * Commands inside containers: what a command parameter means (a string
 * is shell, an array is argv), and ending, inside the sandbox, what a
 * cancelled docker_exec, docker_run or compose exec/run started there.
 */
import { commandWords } from "../paths.ts";
import type { Session } from "../session.ts";

/** The environment mark every process of one docker_exec inherits. */
export const EXEC_MARK = "PI_DOCKER_EXEC";

/**
 * A command as the agent means it: a string is shell (sh -c STRING in
 * the container), as agents write it; an array is argv, for images
 * without a shell.
 */
export function shellCommand(cmd: string | string[] | undefined): string[] {
	if (typeof cmd === "string") return cmd.trim() === "" ? [] : commandWords(["sh", "-c", cmd]);
	return commandWords(cmd);
}

/**
 * End, inside the container, every process a cancelled docker_exec
 * started (docker_exec, compose exec).  exec: the words that run a
 * command in the same container.  Killing the local client leaves them
 * running in the container (the daemon owns them), and they may have
 * forked, changed group or daemonized: what they cannot shed is the
 * environment mark they all inherited.  Three sweeps, so an exec the
 * daemon was still starting when the client died is caught too.
 * Returns what happened.
 */
export async function endMarked(s: Session, exec: string[], mark: string): Promise<string> {
	const sweep =
		`for i in 1 2 3; do for p in /proc/[0-9]*; do ` +
		`grep -q '${EXEC_MARK}=${mark}' "$p/environ" 2>/dev/null && kill -KILL "\${p#/proc/}" 2>/dev/null; ` +
		"done; sleep 0.2; done; exit 0";
	const r = await s.docker([...exec, "sh", "-c", sweep], { what: "docker exec (ending a cancelled exec)", timeout: 30, allowFail: true }).catch((e: Error) => ({
		code: 1,
		output: e.message,
	}));
	if (r.code === 0) return "what it started in the container was ended";
	return `what it started in the container may still run (ending it failed: ${r.output.trim().split("\n").pop()?.slice(0, 200) ?? ""})`;
}

/** Stop, inside the sandbox, the container of a cancelled foreground run (--rm then removes it). */
export async function endRun(s: Session, name: string): Promise<string> {
	const r = await s.docker(["kill", name], { what: "docker kill (ending a cancelled run)", timeout: 30, allowFail: true }).catch((e: Error) => ({ code: 1, output: e.message }));
	// not running (any more) is as good as killed
	if (r.code === 0 || /is not running|No such container/.test(r.output)) return `its container ${name} was stopped`;
	return `its container ${name} may still run (stopping it failed: ${r.output.trim().split("\n").pop()?.slice(0, 200) ?? ""})`;
}
