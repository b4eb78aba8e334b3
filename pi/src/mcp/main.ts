/*
 * The sbx-tools-mcp command: its options, then the server until the
 * client goes.
 */
import { realpathSync, statSync } from "node:fs";
import { serve } from "./server.ts";

const USAGE = "usage: sbx-tools-mcp [--workspace DIR]";
const VERSION = "0.1.0";

function usage(status: number, why?: string): never {
	if (why) process.stderr.write(`sbx-tools-mcp: ${why}\n`);
	(status ? process.stderr : process.stdout).write(
		status
			? `${USAGE}\n`
			: `${USAGE}\n\nThe docker_* tools of sbx-tools over MCP on standard input and output.\n` +
					"The workspace is the client's first root when it offers roots, else --workspace DIR,\n" +
					"else the working directory.  The sandbox is this process's: it goes when the process does.\n",
	);
	process.exit(status);
}

function main(argv: string[]): string {
	let ws: string | undefined;
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === "-h" || a === "--help") usage(0);
		else if (a === "--workspace" && i + 1 < argv.length) ws = argv[++i];
		else if (a.startsWith("--workspace=")) ws = a.slice("--workspace=".length);
		else usage(64, a === "--workspace" ? "--workspace needs a directory" : `unknown argument: ${a}`);
	}
	if (ws === undefined) return process.cwd();
	try {
		if (!statSync(ws).isDirectory()) usage(64, `${ws}: not a directory`);
		return realpathSync(ws);
	} catch (e) {
		return usage(64, `${ws}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such directory" : (e as Error).message}`);
	}
}

serve({ workspace: main(process.argv.slice(2)), version: VERSION }).catch((e: Error) => {
	process.stderr.write(`sbx-tools-mcp: ${e.message}\n`);
	process.exit(1);
});
