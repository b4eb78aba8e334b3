/*
 * Projects: docker_init writes the files (on the host, in the workspace);
 * docker_compose runs an allow-listed compose verb on a compose file of
 * the workspace, labels what it creates, and syncs the host ports.
 */
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
import { present, workspaceRoot, writeInWorkspace } from "../hostfs.ts";
import { mapHostPath, safeArg } from "../paths.ts";
import { describe, ofContainer, sync } from "../ports.ts";
import type { Session } from "../session.ts";
import { DOCKERIGNORE, LANGS, type Lang, compose as composeFile, detect, dockerfile } from "../templates.ts";
import { result } from "../text.ts";

const COMPOSE_FILES = ["compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml"];
const SERVICE_RE = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** Per verb: the words compose runs, and the extra options allowed (true: takes a value). */
const VERBS: Record<string, { run: string[]; flags: Record<string, false | RegExp> }> = {
	up: {
		run: ["up", "-d", "--build"],
		flags: {
			"--build": false, "--no-build": false, "--force-recreate": false, "--no-recreate": false, "--remove-orphans": false,
			"--no-deps": false, "--always-recreate-deps": false, "--renew-anon-volumes": false, "-V": false, "--quiet-pull": false,
			"--no-start": false, "--wait": false, "--scale": /^[a-zA-Z0-9][a-zA-Z0-9_.-]*=\d+$/, "-t": /^\d+$/, "--timeout": /^\d+$/,
		},
	},
	down: { run: ["down"], flags: { "-v": false, "--volumes": false, "--remove-orphans": false, "--rmi": /^(local|all)$/, "-t": /^\d+$/, "--timeout": /^\d+$/ } },
	ps: { run: ["ps"], flags: { "-a": false, "--all": false, "-q": false, "--quiet": false, "--services": false } },
	logs: { run: ["logs", "--no-color"], flags: { "--tail": /^(\d+|all)$/, "-t": false, "--timestamps": false, "--since": /^[0-9A-Za-z:.+-]+$/, "--until": /^[0-9A-Za-z:.+-]+$/ } },
	restart: { run: ["restart"], flags: { "-t": /^\d+$/, "--timeout": /^\d+$/ } },
	stop: { run: ["stop"], flags: { "-t": /^\d+$/, "--timeout": /^\d+$/ } },
	start: { run: ["start"], flags: {} },
	config: { run: ["config"], flags: { "--services": false, "--volumes": false, "-q": false, "--quiet": false, "--resolve-image-digests": false } },
	build: { run: ["build"], flags: { "--no-cache": false, "--pull": false, "-q": false, "--quiet": false, "--build-arg": /^[A-Za-z_][A-Za-z0-9_]*=[^\0\r\n]*$/ } },
	pull: { run: ["pull"], flags: { "-q": false, "--quiet": false, "--ignore-pull-failures": false, "--include-deps": false } },
};
const CHANGES_PORTS = new Set(["up", "down", "restart", "stop", "start"]);

/** extraArgs checked against the verb's allow-list: its options, and service names (plain names). */
export function checkExtraArgs(action: string, extra: string[]): { opts: string[]; services: string[] } {
	const allowed = VERBS[action].flags;
	const out: string[] = [];
	const services: string[] = [];
	for (let i = 0; i < extra.length; i++) {
		const a = String(extra[i]);
		if (/[\0-\x1f\x7f]/.test(a)) throw new Error("docker compose: extraArgs must not contain control characters");
		if (!a.startsWith("-")) {
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
			out.push(a);
			continue;
		}
		const value = flag !== a ? a.slice(eq + 1) : extra[++i];
		if (value === undefined || !rule.test(String(value))) throw new Error(`docker compose ${action}: bad value for ${flag}: "${value ?? ""}"`);
		out.push(flag, String(value));
	}
	return { opts: out, services };
}

/** The compose file: given (in the workspace) or the first of the usual names in the workspace root. */
function composePath(root: string, file: string | undefined): string {
	const real = workspaceRoot(root);
	if (file !== undefined && file.trim() !== "") {
		const p = mapHostPath(root, file, "compose file");
		if (!statSync(p, { throwIfNoEntry: false })?.isFile()) throw new Error(`docker compose: file not found: ${file}`);
		return p;
	}
	for (const f of COMPOSE_FILES) {
		const p = join(real, f);
		if (statSync(p, { throwIfNoEntry: false })?.isFile()) return mapHostPath(root, p, "compose file");
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
			let lang: Lang;
			if (params.lang !== undefined && params.lang.trim() !== "") {
				const l = params.lang.trim().toLowerCase();
				if (!(LANGS as readonly string[]).includes(l)) throw new Error(`docker_init: unknown lang "${params.lang}" (use ${LANGS.join("|")})`);
				lang = l as Lang;
			} else lang = detect(dir);
			// a link (dangling or not) counts as there: it is never written through
			const existed = present(join(dir, "Dockerfile"));
			if (existed && !params.force) return result(`docker_init: ${join(dir, "Dockerfile")} already exists (pass force=true to overwrite).`, { sandbox: s.name });
			const written: string[] = [];
			const text = dockerfile(lang, dir);
			writeInWorkspace(s.root, dir, "Dockerfile", text, true);
			written.push("Dockerfile");
			// the optional files are written only where nothing is, not even a link
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
		promptSnippet: "Run docker compose (up, down, ps, logs, ...) on a workspace compose file",
		description:
			"Run docker compose on a compose file of the workspace (default: compose.yaml, compose.yml, docker-compose.yaml or docker-compose.yml in the root). " +
			"action: up (detached, builds), down, ps, logs (last 200 lines), restart, stop, start, config, build or pull. " +
			"extraArgs: service names and the options of that action (e.g. down: -v, --remove-orphans). Published ports are forwarded to the host; the result gives the URLs.",
		parameters: Type.Object({
			file: Type.Optional(Type.String({ description: "compose file in the workspace" })),
			action: Type.Optional(Type.String({ description: "up | down | ps | logs | restart | stop | start | config | build | pull (default up)" })),
			service: Type.Optional(Type.String({ description: "only this service" })),
			extraArgs: Type.Optional(Type.Array(Type.String(), { description: "more service names or allowed options of the action" })),
		}),
		async execute(_id, params, signal, onUpdate) {
			const action = (params.action ?? "up").trim().toLowerCase();
			const verb = VERBS[action];
			if (!verb) throw new Error(`docker compose: action "${params.action}" is not allowed (use ${Object.keys(VERBS).join(", ")})`);
			const { opts: extra, services: more } = checkExtraArgs(action, params.extraArgs ?? []);
			const svc: string[] = [];
			if (params.service !== undefined && params.service.trim() !== "") {
				const v = safeArg(params.service.trim(), "service");
				if (!SERVICE_RE.test(v)) throw new Error(`docker compose: invalid service "${v}"`);
				svc.push(v);
			}
			const file = composePath(s.root, params.file);
			let run = [...verb.run];
			if (action === "up" && extra.includes("--no-build")) run = run.filter((w) => w !== "--build");
			if (action === "logs" && !extra.some((a) => a === "--tail")) run.push("--tail", "200");

			const base = ["compose", "-f", file];
			let input: string | undefined;
			if (action === "up") {
				// every container compose creates gets the label, through an override file read from stdin
				// (compose v1 takes no "-f -"; /dev/stdin works for v1 and v2)
				const r = await s.docker([...base, "config", "--services"], { signal, what: "docker compose config" });
				const services = r.stdout.split("\n").map((l) => l.trim()).filter((l) => SERVICE_RE.test(l));
				if (services.length) {
					const o: Record<string, unknown> = {};
					for (const n of services) o[n] = { labels: { "com.pi.sandbox": "true" } };
					input = JSON.stringify({ services: o }) + "\n";
					base.push("-f", "/dev/stdin");
				}
			}
			const head = `compose ${action} (${file})`;
			// options first, then services: compose v1 takes them in that order only
			const r = await s.docker([...base, ...run, ...extra, ...svc, ...more], {
				signal,
				input,
				what: `docker compose ${action}`,
				stream: ["up", "build", "pull"].includes(action) ? { onUpdate, head } : undefined,
			});
			const lines = [head, r.output.trim() || "(no output)"];
			const details: Record<string, unknown> = { sandbox: s.name, action, file };
			if (CHANGES_PORTS.has(action)) {
				const { mappings, note } = await sync(s, signal);
				if (action !== "down" && action !== "stop") {
					const ps = await s.docker(["ps", "--filter", `label=com.docker.compose.project.working_dir=${dirname(file)}`, "--format", "{{.ID}}"], {
						signal,
						what: "docker ps",
						allowFail: true,
					});
					const ids = ps.code === 0 ? ps.stdout.split("\n").filter((l) => l.trim()) : [];
					const ours = mappings.filter((m) => ids.some((id) => ofContainer([m], id).length));
					details.urls = ours.map((m) => m.url);
					if (ours.length) lines.push("host reachable at (use docker_curl):", ...describe(ours).map((l) => `  ${l}`));
				}
				if (note) lines.push(note);
			}
			return result(lines.join("\n"), details);
		},
	});
}
