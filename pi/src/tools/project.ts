/*
 * Projects: docker_init writes the files (on the host, in the workspace);
 * docker_compose runs an allow-listed compose verb on a compose file of
 * the workspace, labels what it creates, and syncs the host ports.
 */
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
import { plainFile, present, workspaceRoot, writeInWorkspace } from "../hostfs.ts";
import { mapHostPath, safeArg } from "../paths.ts";
import { describe, ofContainer, sync } from "../ports.ts";
import { Cancelled, type RunResult } from "../proc.ts";
import type { Session } from "../session.ts";
import { EX } from "../status.ts";
import { DOCKERIGNORE, LANGS, type Lang, compose as composeFile, detect, dockerfile } from "../templates.ts";
import { brief, jsonLines, result, str } from "../text.ts";
import { endRun, shellCommand } from "./inside.ts";

const LABEL_KEY = "com.pi.sandbox";
const COMPOSE_FILES = ["compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml"];
const SERVICE_RE = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

const ENV_RE = /^[A-Za-z_][A-Za-z0-9_]*(=[^\0\r\n]*)?$/;
const ABS_RE = /^\/[^\0\r\n]*$/;
const USER_RE = /^[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)?$/;
const NUM_RE = /^\d+$/;
const TIMEOUT = { "-t": NUM_RE, "--timeout": NUM_RE };

/**
 * Per verb: the words compose runs and its allowed options (true: takes a
 * value).  An allow-list, since compose takes global options after the
 * verb, and -H or --context would point it at another daemon.
 */
interface Verb {
	run: string[];
	flags: Record<string, false | RegExp>;
	command?: "required" | "optional";
}
const VERBS: Record<string, Verb> = {
	up: {
		run: ["up", "-d", "--build"],
		flags: {
			"--build": false, "--no-build": false, "--force-recreate": false, "--no-recreate": false, "--remove-orphans": false,
			"--no-deps": false, "--always-recreate-deps": false, "--renew-anon-volumes": false, "-V": false, "--quiet-pull": false,
			"--no-start": false, "--wait": false, "--scale": /^[a-zA-Z0-9][a-zA-Z0-9_.-]*=\d+$/, ...TIMEOUT,
		},
	},
	down: { run: ["down"], flags: { "-v": false, "--volumes": false, "--remove-orphans": false, "--rmi": /^(local|all)$/, ...TIMEOUT } },
	ps: { run: ["ps"], flags: { "-a": false, "--all": false, "-q": false, "--quiet": false, "--services": false } },
	logs: { run: ["logs", "--no-color"], flags: { "--tail": /^(\d+|all)$/, "-t": false, "--timestamps": false, "--since": /^[0-9A-Za-z:.+-]+$/, "--until": /^[0-9A-Za-z:.+-]+$/ } },
	restart: { run: ["restart"], flags: { ...TIMEOUT } },
	stop: { run: ["stop"], flags: { ...TIMEOUT } },
	start: { run: ["start"], flags: {} },
	config: { run: ["config"], flags: { "--services": false, "--volumes": false, "-q": false, "--quiet": false, "--resolve-image-digests": false } },
	build: { run: ["build"], flags: { "--no-cache": false, "--pull": false, "-q": false, "--quiet": false, "--build-arg": /^[A-Za-z_][A-Za-z0-9_]*=[^\0\r\n]*$/ } },
	pull: { run: ["pull"], flags: { "-q": false, "--quiet": false, "--ignore-pull-failures": false, "--include-deps": false } },
	exec: {
		run: ["exec", "-T"],
		flags: { "-T": false, "-d": false, "--detach": false, "-e": ENV_RE, "--env": ENV_RE, "-w": ABS_RE, "--workdir": ABS_RE, "-u": USER_RE, "--user": USER_RE, "--index": NUM_RE },
		command: "required",
	},
	run: {
		run: ["run", "-T", "--rm", "--label", `${LABEL_KEY}=true`],
		flags: {
			"-T": false, "--rm": false, "--no-deps": false, "-e": ENV_RE, "--env": ENV_RE, "-w": ABS_RE, "--workdir": ABS_RE, "-u": USER_RE, "--user": USER_RE,
			"--entrypoint": /^[^\0\r\n]+$/, "--name": /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/,
		},
		command: "optional",
	},
	kill: { run: ["kill"], flags: { "-s": /^(SIG)?[A-Z0-9]+$/i, "--signal": /^(SIG)?[A-Z0-9]+$/i } },
	rm: { run: ["rm", "-f"], flags: { "-f": false, "--force": false, "-s": false, "--stop": false, "-v": false } },
	top: { run: ["top"], flags: {} },
	images: { run: ["images"], flags: { "-q": false, "--quiet": false } },
	pause: { run: ["pause"], flags: {} },
	unpause: { run: ["unpause"], flags: {} },
	port: { run: ["port"], flags: { "--protocol": /^(tcp|udp)$/, "--index": NUM_RE } },
};
const CREATES = new Set(["up", "run"]);
const CHANGES_PORTS = new Set(["up", "down", "restart", "stop", "start", "kill", "rm", "pause", "unpause"]);
const LONG = new Set(["up", "build", "pull"]);

/** extraArgs against the verb's allow-list; for exec and run, the words after the service are the command. */
export function checkExtraArgs(action: string, extra: string[], service?: string): { opts: string[]; services: string[]; command: string[] } {
	const verb = VERBS[action];
	const allowed = verb.flags;
	const out: string[] = [];
	const services: string[] = [];
	for (let i = 0; i < extra.length; i++) {
		const a = String(extra[i]);
		if (/[\0-\x1f\x7f]/.test(a) && !(verb.command && (service || services.length))) throw new Error("docker compose: extraArgs must not contain control characters");
		if (!a.startsWith("-")) {
			if (verb.command && (service || services.length)) return { opts: out, services, command: extra.slice(i).map(String) };
			if (!SERVICE_RE.test(a)) throw new Error(`docker compose: "${a}" is not a service name`);
			services.push(a);
			continue;
		}
		const eq = a.indexOf("=");
		const flag = eq > 0 && a.startsWith("--") ? a.slice(0, eq) : a;
		const rule = allowed[flag];
		if (rule === undefined)
			throw new Error(`docker compose ${action}: option "${flag}" is not allowed (allowed: ${Object.keys(allowed).join(" ") || "none"})`);
		if (rule === false) {
			if (flag !== a) throw new Error(`docker compose ${action}: option ${flag} takes no value`);
			if (!verb.run.includes(a)) out.push(a);
			continue;
		}
		const value = flag !== a ? a.slice(eq + 1) : extra[++i];
		if (value === undefined || !rule.test(String(value))) throw new Error(`docker compose ${action}: bad value for ${flag}: "${value ?? ""}"`);
		out.push(flag, String(value));
	}
	return { opts: out, services, command: [] };
}

/** A private file in the VM holding text (a container could rewrite the workspace); its path. */
async function vmFile(s: Session, text: string, signal: AbortSignal | undefined): Promise<string> {
	const r = await s.exec(["sh", "-c", 'umask 077 && f=$(mktemp /tmp/pi-compose-XXXXXXXX) && cat >"$f" && echo "$f"'], { signal, input: text, what: "compose label override" });
	const path = r.stdout.trim().split("\n").pop() ?? "";
	if (!/^\/tmp\/pi-compose-[A-Za-z0-9]+$/.test(path)) throw new Error(`docker compose: no label override file in the sandbox (got "${path.slice(0, 80)}")`);
	return path;
}

/** Seconds the override file's removal may take, so a hung VM cannot hold a cancelled run. */
export const DROP_SECONDS = 10;

async function dropVmFile(s: Session, path: string): Promise<void> {
	await s
		.exec(["rm", "-f", path], { what: "compose label override", allowFail: true, timeout: DROP_SECONDS, env: { ...process.env, DOCKER_SANDBOX_AUTOCREATE: "0" } })
		.catch(() => undefined);
}

function composePath(root: string, file: string | undefined): string {
	const real = workspaceRoot(root);
	if (file !== undefined && file.trim() !== "") {
		const p = mapHostPath(root, file, "compose file");
		if (!statSync(p, { throwIfNoEntry: false })?.isFile()) throw new Error(`docker compose: file not found: ${file}`);
		return p;
	}
	// the first name there at all: a link out answers as one, whatever it names
	for (const f of COMPOSE_FILES) {
		if (!present(join(real, f))) continue;
		const p = mapHostPath(root, join(real, f), "compose file");
		if (!statSync(p, { throwIfNoEntry: false })?.isFile()) throw new Error(`docker compose: ${f} in the workspace is not a file`);
		return p;
	}
	throw new Error(`docker compose: no compose file found in the workspace (${COMPOSE_FILES.join(", ")}); pass file=...`);
}

export function registerProjectTools(pi: ExtensionAPI, s: Session): void {
	pi.registerTool({
		name: "docker_init",
		label: "Docker init",
		promptSnippet: "Write a Dockerfile, .dockerignore and compose.yaml for a project",
		description:
			"Write a starting Dockerfile (and .dockerignore; compose.yaml with compose=true) for a workspace directory. " +
			"The kind is detected (package.json, pnpm-lock.yaml, go.mod, pyproject.toml/requirements.txt, Cargo.toml) or given: node|pnpm|go|python|rust|generic.",
		parameters: Type.Object({
			context: Type.Optional(Type.String({ description: 'directory in the workspace (default ".", the workspace root)' })),
			lang: Type.Optional(Type.String({ description: "node | pnpm | go | python | rust | generic (default: detected)" })),
			force: Type.Optional(Type.Boolean({ description: "overwrite an existing Dockerfile (default false)" })),
			compose: Type.Optional(Type.Boolean({ description: "also write compose.yaml if there is none (default false)" })),
		}),
		async execute(_id, params) {
			const dir = mapHostPath(s.root, params.context?.trim() || ".", "directory");
			const st = statSync(dir, { throwIfNoEntry: false });
			if (!st) throw new Error(`docker_init: directory not found: ${params.context ?? "."}`);
			if (!st.isDirectory()) throw new Error(`docker_init: not a directory: ${params.context}`);
			const has = (f: string) => plainFile(s.root, join(dir, f));
			let lang: Lang;
			if (params.lang !== undefined && params.lang.trim() !== "") {
				const l = params.lang.trim().toLowerCase();
				if (!(LANGS as readonly string[]).includes(l)) throw new Error(`docker_init: unknown lang "${params.lang}" (use ${LANGS.join("|")})`);
				lang = l as Lang;
			} else lang = detect(has);
			// a link counts as there: it is never written through
			const existed = present(join(dir, "Dockerfile"));
			if (existed && !params.force) return result(`docker_init: ${join(dir, "Dockerfile")} already exists (pass force=true to overwrite).`, { sandbox: s.name });
			const written: string[] = [];
			const text = dockerfile(lang, has);
			writeInWorkspace(s.root, dir, "Dockerfile", text, true);
			written.push("Dockerfile");
			if (!present(join(dir, ".dockerignore"))) {
				writeInWorkspace(s.root, dir, ".dockerignore", DOCKERIGNORE);
				written.push(".dockerignore");
			}
			if (params.compose && !COMPOSE_FILES.some((f) => present(join(dir, f)))) {
				writeInWorkspace(s.root, dir, "compose.yaml", composeFile(lang));
				written.push("compose.yaml");
			}
			const lines = [
				`docker_init: scaffolded "${lang}" in ${dir}${existed ? " (overwrote Dockerfile)" : ""}`,
				`files written: ${written.join(", ")}`,
				`base image: ${text.split("\n")[0]}`,
				`next: docker_build(context="${params.context?.trim() || "/workspace"}", tag="app:dev"), then docker_run(image="app:dev", ports=[...])${written.includes("compose.yaml") ? " or docker_compose(action=\"up\")" : ""}`,
				"check the CMD line: it decides what the container runs",
			];
			return result(lines.join("\n"), { sandbox: s.name, lang, files: written });
		},
	});

	pi.registerTool({
		name: "docker_compose",
		label: "Docker compose",
		promptSnippet: "Run docker compose (up, down, ps, logs, exec, run, ...) on a workspace compose file",
		description:
			"Run docker compose on a compose file of the workspace (default: compose.yaml, compose.yml, docker-compose.yaml or docker-compose.yml in the root). " +
			"action: up (detached, builds), down, ps, logs (last 200 lines), restart, stop, start, config, build, pull, " +
			"exec (no TTY: -T), run (no TTY, removed after: -T --rm), kill, rm (forced), top, images, pause, unpause or port. " +
			"extraArgs: service names and the options of that action (e.g. down: -v, --remove-orphans; exec: -e NAME=value, -w /dir, -u user); " +
			"options that would name another daemon or a file outside the workspace are refused. " +
			"exec and run: the command goes in `command` (a string runs as sh -c STRING in the container, an array as given), or after the service in extraArgs. " +
			"up, build and pull answer with the outcome and the last lines; when that leaves output out, it is in the file the answer names. " +
			"Published ports are forwarded to the host; the result gives the URLs.",
		parameters: Type.Object({
			file: Type.Optional(Type.String({ description: "compose file in the workspace" })),
			action: Type.Optional(Type.String({ description: `${Object.keys(VERBS).join(" | ")} (default up)` })),
			service: Type.Optional(Type.String({ description: "only this service (exec and run: the service to run in)" })),
			command: Type.Optional(
				Type.Union([Type.String(), Type.Array(Type.String())], { description: "exec and run: the command; a string runs as sh -c STRING in the container, an array as given" }),
			),
			extraArgs: Type.Optional(Type.Array(Type.String(), { description: "more service names or allowed options of the action" })),
		}),
		async execute(_id, params, signal, onUpdate) {
			const action = (params.action ?? "up").trim().toLowerCase();
			const verb = VERBS[action];
			if (!verb) throw new Error(`docker compose: action "${params.action}" is not allowed (use ${Object.keys(VERBS).join(", ")})`);
			const svc: string[] = [];
			if (params.service !== undefined && params.service.trim() !== "") {
				const v = safeArg(params.service.trim(), "service");
				if (!SERVICE_RE.test(v)) throw new Error(`docker compose: invalid service "${v}"`);
				svc.push(v);
			}
			const { opts: extra, services: more, command: trailing } = checkExtraArgs(action, params.extraArgs ?? [], svc[0]);
			let command: string[] = [];
			if (verb.command) {
				if ([...svc, ...more].length !== 1) throw new Error(`docker compose ${action}: name one service (service="web"), then the command`);
				const given = shellCommand(params.command);
				if (given.length && trailing.length) throw new Error(`docker compose ${action}: give the command once: in command, or after the service in extraArgs`);
				command = given.length ? given : trailing;
				if (verb.command === "required" && !command.length) throw new Error(`docker compose ${action}: no command (command="ls -la" runs as sh -c in the container)`);
			} else if (params.command !== undefined) throw new Error(`docker compose ${action}: takes no command (only exec and run do)`);
			const file = composePath(s.root, params.file);
			let run = [...verb.run];
			if (action === "up" && extra.includes("--no-build")) run = run.filter((w) => w !== "--build");
			if (action === "logs" && !extra.some((a) => a === "--tail")) run.push("--tail", "200");

			const base = ["compose", "-f", file];
			let input: string | undefined;
			let scratch: string | undefined;
			if (CREATES.has(action)) {
				// the label goes on every service compose lists, whatever its name
				const r = await s.docker([...base, "config", "--services"], { signal, what: "docker compose config" });
				const services = r.stdout.split("\n").map((l) => l.trim()).filter(Boolean);
				if (services.length) {
					const o: Record<string, unknown> = {};
					for (const n of services) o[n] = { labels: { [LABEL_KEY]: "true" } };
					const json = `${JSON.stringify({ services: o })}\n`;
					if (action === "up") {
						// compose v1 takes no "-f -"
						input = json;
						base.push("-f", "/dev/stdin");
					} else {
						// run hands stdin to its container
						scratch = await vmFile(s, json, signal);
						base.push("-f", scratch);
					}
				}
			}
			const head = `compose ${action} (${file})`;
			const shown = ["docker", ...base, ...run, ...extra, ...svc, ...more, ...command];
			if (action === "run" && !extra.includes("--name")) extra.push("--name", `pi-run-${randomBytes(6).toString("hex")}`);
			// compose v1 takes options before services only
			let r: RunResult;
			try {
				r = await s.docker([...base, ...run, ...extra, ...svc, ...more, ...command], {
					signal,
					input,
					what: `docker compose ${action}`,
					command: shown,
					log: LONG.has(action) ? `compose-${action}` : undefined,
					stream: LONG.has(action) || verb.command ? { onUpdate, head } : undefined,
				});
			} catch (e) {
				const drop = scratch ? dropVmFile(s, scratch) : Promise.resolve();
				if (!(e instanceof Cancelled) || !verb.command) {
					await drop;
					throw e;
				}
				const [done] = await Promise.all([
					action === "exec" ? (e.ended ?? "whether what it started still runs inside is unknown (sbx-run said nothing)") : endRun(s, extra[extra.indexOf("--name") + 1]),
					drop,
				]);
				throw new Cancelled(`docker compose ${action}`, done);
			}
			if (scratch) await dropVmFile(s, scratch);
			const lines = [head];
			const details: Record<string, unknown> = { sandbox: s.name, action, file };
			if (CHANGES_PORTS.has(action)) {
				const { mappings, note } = await sync(s, signal);
				if (action !== "down" && action !== "stop") {
					const ps = await s.docker(["ps", "--filter", `label=com.docker.compose.project.working_dir=${dirname(file)}`, "--format", "{{json .}}"], {
						signal,
						what: "docker ps",
						allowFail: true,
					});
					const ids: string[] = [];
					const made: string[] = [];
					for (const c of ps.code === EX.OK ? jsonLines("docker ps", ps.stdout) : []) {
						made.push(`${str(c.Names)} (${str(c.Status)})`);
						ids.push(str(c.ID));
					}
					const ours = mappings.filter((m) => ids.some((id) => ofContainer([m], id).length));
					details.urls = ours.map((m) => m.url);
					if (ours.length) lines.push("host reachable at (use docker_curl):", ...describe(ours).map((l) => `  ${l}`));
					if (made.length) lines.push(`containers: ${made.join(", ")}`);
				}
				if (note) lines.push(note);
			}
			if (LONG.has(action)) return brief(lines, r, details);
			return result([...lines, r.output.trim() || "(no output)"].join("\n"), details, "tail", r.dropped);
		},
	});
}
