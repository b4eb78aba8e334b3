/* Images and containers: each tool is sbx-run with an argv. */
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { type ExtensionAPI, formatSize } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
import { setting } from "../config.ts";
import { mapHostPath, safeArg } from "../paths.ts";
import { describe, list, ofContainer, sync } from "../ports.ts";
import { Cancelled, type RunResult } from "../proc.ts";
import type { Session } from "../session.ts";
import { EX } from "../status.ts";
import { brief, jsonLines, result, str, table } from "../text.ts";
import { checkEnv, checkId, checkImage, checkPort, checkVolume, ENV_NAME_RE, MEMORY_RE, NAME_RE } from "./args.ts";
import { endRun, shellCommand } from "./inside.ts";
import { Int, intArg, StringEnum } from "./schema.ts";

const LABEL = "com.pi.sandbox=true";
const TAIL_MAX = 1000000;
const ID_HELP = "container id or name (from docker_ps)";
const COMMAND_HELP = "a string runs as sh -c STRING in the container (pipes, $VARS work); an array runs as given, without a shell";

export function registerContainerTools(pi: ExtensionAPI, s: Session): void {
	pi.registerTool({
		name: "docker_ps",
		label: "Docker ps",
		promptSnippet: "List containers in the session's docker sandbox",
		description: "List containers in the session's sandbox: id, image, status, ports (sandbox side) and names. all=true includes stopped ones.",
		parameters: Type.Object({ all: Type.Optional(Type.Boolean({ description: "include stopped containers (default false)" })) }),
		async execute(_id, params, signal) {
			const args = ["ps", ...(params.all ? ["-a"] : []), "--format", "{{json .}}"];
			const r = await s.docker(args, { signal, what: "docker ps" });
			const rows = jsonLines("docker ps", r.stdout).map((c) => [str(c.ID), str(c.Image), str(c.Status), str(c.Ports) || "-", str(c.Names)]);
			if (!rows.length) return result(params.all ? "(no containers)" : "(no running containers; all=true lists stopped ones)", { sandbox: s.name });
			let text = table(["CONTAINER ID", "IMAGE", "STATUS", "PORTS (sandbox side)", "NAMES"], rows);
			if (rows.some((r) => r[3].includes("->"))) {
				const ms = await list(s, signal).catch(() => []);
				text += `\nhost side: ${ms.length ? describe(ms).join("; ") : "no ports published on the host"}`;
			}
			return result(text, { sandbox: s.name, count: rows.length }, "head");
		},
	});

	pi.registerTool({
		name: "docker_images",
		label: "Docker images",
		promptSnippet: "List images in the session's docker sandbox",
		description: "List the images in the session's sandbox: repository:tag, id, size and age.",
		parameters: Type.Object({}),
		async execute(_id, _params, signal) {
			const r = await s.docker(["images", "--format", "{{json .}}"], { signal, what: "docker images" });
			const rows = jsonLines("docker images", r.stdout).map((i) => [
				`${str(i.Repository) || "<none>"}:${str(i.Tag) || "<none>"}`,
				str(i.ID),
				str(i.Size),
				str(i.CreatedSince) || str(i.CreatedAt),
			]);
			if (!rows.length) return result("(no images)", { sandbox: s.name });
			return result(table(["IMAGE", "ID", "SIZE", "CREATED"], rows), { sandbox: s.name, count: rows.length }, "head");
		},
	});

	pi.registerTool({
		name: "docker_pull",
		label: "Docker pull",
		promptSnippet: "Pull an image into the docker sandbox",
		description: "Pull an image into the session's sandbox (progress streams; up to 10 minutes). The answer gives the outcome and the last lines; when that leaves output out, it is in the file the answer names.",
		parameters: Type.Object({ image: Type.String({ description: "image reference, e.g. nginx:1.27" }) }),
		async execute(_id, params, signal, onUpdate) {
			const image = checkImage(params.image);
			const r = await s.docker(["pull", image], { signal, what: `docker pull ${image}`, log: "pull", stream: { onUpdate, head: `pull ${image}` } });
			return brief([`pulled ${image} into sandbox "${s.name}"`], r, { sandbox: s.name, image });
		},
	});

	pi.registerTool({
		name: "docker_run",
		label: "Docker run",
		promptSnippet: "Run a container in the docker sandbox; ports come back as host URLs",
		promptGuidelines: ["Use the docker_* tools for containers and images; they reach the session's private docker daemon in its sandbox. Do not run `docker` through bash: that would be the host's daemon, or none."],
		description:
			"Run a container in the session's sandbox (labelled com.pi.sandbox=true). Detached by default (restart=unless-stopped); " +
			"detach=false runs it in the foreground and returns its output (Esc stops the container). ports: CONTAINER or HOST:CONTAINER[/udp]; each is published " +
			"on the host's loopback, at HOST when it is free and 1024 or above, else at a free port: the result gives the URLs, for docker_curl. " +
			"volumes: SOURCE:/path[:ro], SOURCE a path in the workspace (/workspace/..., ./data, or a bare name that exists in the workspace) or else a named volume; the result says which. env values reach docker through stdin, not the command line. " +
			"command: a string runs as `sh -c STRING` in the container (pipes, $VARS, &&); an array runs as given (for images without a shell).",
		parameters: Type.Object(
			{
				image: Type.String({ description: "image reference" }),
				name: Type.Optional(Type.String({ description: "container name" })),
				command: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description: COMMAND_HELP })),
				detach: Type.Optional(Type.Boolean({ description: "run in the background (default true)" })),
				rm: Type.Optional(Type.Boolean({ description: "remove the container when it exits (foreground runs only)" })),
				ports: Type.Optional(Type.Array(Type.String(), { description: 'e.g. ["8080:8000"] or ["3000"]' })),
				env: Type.Optional(Type.Union([Type.Array(Type.String()), Type.String()], { description: "NAME=value entries (array, or a comma-separated string)" })),
				memory: Type.Optional(Type.String({ description: "memory limit, e.g. 512m" })),
				volumes: Type.Optional(Type.Array(Type.String(), { description: "SOURCE:/container/path[:ro]" })),
				network: Type.Optional(StringEnum(["bridge", "host", "none"], { description: "network (default bridge)" })),
				restart: Type.Optional(StringEnum(["no", "always", "unless-stopped", "on-failure"], { description: "restart policy" })),
				workdir: Type.Optional(Type.String({ description: "working directory inside the container (absolute)" })),
			},
			{ additionalProperties: false },
		),
		async execute(_id, params, signal, onUpdate) {
			const detach = params.detach ?? true;
			if (params.rm && detach) throw new Error("docker run: --rm cannot be combined with a detached run (pass detach=false, or remove it later with docker_rm)");
			const args = ["run", "--label", LABEL];
			if (detach) args.push("-d");
			if (params.rm) args.push("--rm");
			if (params.name !== undefined) {
				const n = safeArg(params.name.trim(), "container name");
				if (!NAME_RE.test(n)) throw new Error(`docker run: invalid container name "${n}" ([a-zA-Z0-9][a-zA-Z0-9_.-]+)`);
				args.push("--name", n);
			} else if (!detach) {
				// a name to stop it by if the run is cancelled
				args.push("--name", `pi-run-${randomBytes(6).toString("hex")}`);
			}
			for (const p of params.ports ?? []) args.push("-p", checkPort(p));
			const env = (typeof params.env === "string" ? params.env.split(",") : (params.env ?? [])).filter((e) => e.trim()).map(checkEnv);
			// values go through stdin, never argv (which any user can read with ps)
			const input = env.length ? `${env.join("\n")}\n` : undefined;
			if (input) args.push("--env-file", "/dev/stdin");
			const ro = setting("DOCKER_SANDBOX_WORKSPACE_RO") === "1";
			const vols = (params.volumes ?? []).map((v) => checkVolume(s.root, v, ro));
			for (const v of vols) args.push("-v", v.arg);
			const volLines = vols.length ? ["volumes:", ...vols.map((v) => `  ${v.said}`)] : [];
			if (params.network && params.network !== "bridge") args.push("--network", params.network);
			const restart = params.restart ?? (detach ? "unless-stopped" : "no");
			if (restart !== "no") args.push("--restart", restart);
			if (params.memory !== undefined) {
				const m = params.memory.trim();
				if (!MEMORY_RE.test(m)) throw new Error(`docker run: bad memory "${m}" (e.g. 512m, 1.5g)`);
				args.push("-m", m);
			}
			if (params.workdir !== undefined) {
				const w = params.workdir.trim();
				if (!isAbsolute(w) || /[\0\r\n]/.test(w)) throw new Error(`docker run: workdir must be an absolute path: "${w}"`);
				args.push("-w", w);
			}
			const image = checkImage(params.image);
			args.push(image, ...shellCommand(params.command));

			if (!detach) {
				let r: RunResult;
				try {
					r = await s.docker(args, { signal, input, what: `docker run ${image}`, floor: 600, stream: { onUpdate, head: `run ${image}` } });
				} catch (e) {
					if (!(e instanceof Cancelled)) throw e;
					throw new Cancelled(`docker run ${image}`, await endRun(s, args[args.indexOf("--name") + 1]));
				}
				return result([`container exited (${image})${params.rm ? ", removed" : ""}:`, r.output.trim() || "(no output)", ...volLines].join("\n"), { sandbox: s.name, image }, "tail", r.dropped);
			}
			const r = await s.docker(args, { signal, input, what: `docker run ${image}` });
			const cid = r.stdout.trim().split("\n").pop()?.trim() ?? "";
			const lines = [`started ${image} as ${cid.slice(0, 12)}${params.name ? ` (${params.name.trim()})` : ""} in sandbox "${s.name}" (restart=${restart})`];
			lines.push(...volLines);
			const details: Record<string, unknown> = { sandbox: s.name, id: cid, image };
			if (params.ports?.length) {
				const { mappings, note } = await sync(s, signal);
				const ours = ofContainer(mappings, cid);
				details.urls = ours.map((m) => m.url);
				if (ours.length) lines.push("host reachable at (use docker_curl):", ...describe(ours).map((l) => `  ${l}`));
				else lines.push(`no host port published for ${params.ports.join(", ")}`);
				if (note) lines.push(note);
			}
			lines.push("use docker_logs / docker_exec with this id; docker_rm removes it");
			return result(lines.join("\n"), details);
		},
	});

	pi.registerTool({
		name: "docker_logs",
		label: "Docker logs",
		promptSnippet: "Show a container's logs",
		description: "Show a container's logs (last 200 lines by default; tail=0 for all, cut to 50 KB / 2000 lines).",
		parameters: Type.Object({
			id: Type.String({ description: ID_HELP }),
			tail: Type.Optional(Int(0, TAIL_MAX, "lines from the end (default 200; 0 = all)")),
			timestamps: Type.Optional(Type.Boolean({ description: "prefix timestamps" })),
		}),
		async execute(_id, params, signal) {
			const id = checkId(params.id);
			const tail = intArg("docker logs", "tail", params.tail, 0, TAIL_MAX, 200);
			const args = ["logs"];
			if (tail > 0) args.push("--tail", String(tail));
			if (params.timestamps) args.push("--timestamps");
			args.push(id);
			const r = await s.docker(args, { signal, what: `docker logs ${id}` });
			return result(r.output.trimEnd() || "(no logs)", { sandbox: s.name, id }, "tail", r.dropped);
		},
	});

	pi.registerTool({
		name: "docker_exec",
		label: "Docker exec",
		promptSnippet: "Run a command in a running container (a string runs as sh -c STRING)",
		description:
			"Run a command in a running container and return its output. A string runs as `sh -c STRING` inside the container, so pipes, " +
			"redirections, $VARS and && work; an array runs as given, without a shell (for images that have none). " +
			"A non-zero exit is an error that gives the command, the status and the tail of stdout and stderr as they came. " +
			"Cancelling (Esc) also ends what the command started inside the container.",
		parameters: Type.Object({
			id: Type.String({ description: ID_HELP }),
			command: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description: COMMAND_HELP })),
		}),
		async execute(_id, params, signal, onUpdate) {
			const words = shellCommand(params.command);
			if (!words.length || words.every((w) => w.trim() === "")) throw new Error("docker exec: empty command");
			const id = checkId(params.id);
			if (!NAME_RE.test(id)) throw new Error(`docker exec: invalid container id "${id}"`);
			const argv = ["exec", id, ...words];
			let r: RunResult;
			try {
				r = await s.docker(argv, { signal, what: `docker exec ${id}`, command: ["docker", "exec", id, ...words], stream: { onUpdate, head: `exec ${id}` } });
			} catch (e) {
				if (!(e instanceof Cancelled)) throw e;
				throw new Cancelled(`docker exec ${id}`, e.ended ?? "whether what it started still runs inside is unknown (sbx-run said nothing)");
			}
			return result(r.output.trimEnd() || "(no output)", { sandbox: s.name, id, exitCode: r.code }, "tail", r.dropped);
		},
	});

	pi.registerTool({
		name: "docker_build",
		label: "Docker build",
		promptSnippet: "Build an image from a workspace directory",
		promptGuidelines: ["docker_build, docker_compose, docker_init and docker_run volumes take workspace paths: /workspace/... (or relative) is the project directory; nothing outside it."],
		description:
			"Build an image from a directory of the workspace (/workspace/... or relative); output streams, up to 10 minutes. " +
			"The answer gives the image and the last lines; when that leaves output out, it is in the file the answer names (read it with the read tool when you need more).",
		parameters: Type.Object({
			context: Type.String({ description: "build context directory, e.g. /workspace or /workspace/app" }),
			tag: Type.String({ description: "image tag, e.g. myapp:dev" }),
			dockerfile: Type.Optional(Type.String({ description: "Dockerfile, relative to the context (default Dockerfile)" })),
			buildargs: Type.Optional(Type.String({ description: 'build args as a JSON object string, e.g. {"VERSION":"1.2"}' })),
		}),
		async execute(_id, params, signal, onUpdate) {
			const ctxDir = mapHostPath(s.root, params.context, "build context");
			let st;
			try {
				st = statSync(ctxDir);
			} catch {
				throw new Error(`docker build: context not found: ${params.context}`);
			}
			if (!st.isDirectory()) throw new Error(`docker build: context must be a directory: ${params.context}`);
			const tag = checkImage(params.tag, "tag");
			const args = ["build", "-t", tag];
			if (params.dockerfile !== undefined && params.dockerfile.trim() !== "") {
				const d = params.dockerfile.trim();
				const p = d === "/workspace" || d.startsWith("/workspace/") || isAbsolute(d) ? d : `${ctxDir}/${d}`; // not join: ".." is the walk's, after links
				const df = mapHostPath(s.root, p, "dockerfile");
				if (!statSync(df, { throwIfNoEntry: false })?.isFile()) throw new Error(`docker build: dockerfile not found: ${d}`);
				args.push("-f", df);
			}
			if (params.buildargs !== undefined && params.buildargs.trim() !== "") {
				let o: unknown;
				try {
					o = JSON.parse(params.buildargs);
				} catch (e) {
					throw new Error(`docker build: buildargs must be a JSON object string, e.g. {"VERSION":"1.2"} (${(e as Error).message})`);
				}
				if (!o || typeof o !== "object" || Array.isArray(o)) throw new Error('docker build: buildargs must be a JSON object string, e.g. {"VERSION":"1.2"}');
				for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
					if (!ENV_NAME_RE.test(k)) throw new Error(`docker build: bad build arg name "${k}"`);
					const val = typeof v === "string" ? v : JSON.stringify(v);
					if (/[\0\r\n]/.test(val)) throw new Error(`docker build: build arg ${k} holds a newline`);
					args.push("--build-arg", `${k}=${val}`);
				}
			}
			args.push(ctxDir);
			const head = `build ${params.context} -> ${tag} (in sandbox "${s.name}")`;
			const r = await s.docker(args, { signal, what: `docker build ${tag}`, log: "build", stream: { onUpdate, head } });
			const img = await s.docker(["image", "inspect", "--format", "{{.Id}} {{.Size}}", tag], { signal, what: "docker image inspect", allowFail: true });
			const [imageId = "", size = ""] = img.code === EX.OK ? img.stdout.trim().split(" ") : [];
			const built = imageId ? `built ${tag} (${imageId.replace(/^sha256:/, "").slice(0, 12)}, ${formatSize(Number(size) || 0)})` : `built ${tag}`;
			return brief([head, built], r, { sandbox: s.name, tag, image: imageId || undefined });
		},
	});

	pi.registerTool({
		name: "docker_stop",
		label: "Docker stop",
		promptSnippet: "Stop a container",
		description: "Stop a running container (10 s grace); its host ports are unpublished.",
		parameters: Type.Object({ id: Type.String({ description: ID_HELP }) }),
		async execute(_id, params, signal) {
			const id = checkId(params.id);
			await s.docker(["stop", "--time", "10", id], { signal, what: `docker stop ${id}` });
			const { note } = await sync(s, signal);
			return result([`stopped ${id}`, ...(note ? [note] : [])].join("\n"), { sandbox: s.name, id });
		},
	});

	pi.registerTool({
		name: "docker_start",
		label: "Docker start",
		promptSnippet: "Start a stopped container",
		description: "Start a stopped container; its ports are published on the host again.",
		parameters: Type.Object({ id: Type.String({ description: ID_HELP }) }),
		async execute(_id, params, signal) {
			const id = checkId(params.id);
			await s.docker(["start", id], { signal, what: `docker start ${id}` });
			const { mappings, note } = await sync(s, signal);
			const ours = ofContainer(mappings, id);
			const lines = [`started ${id}`];
			if (ours.length) lines.push("host reachable at:", ...describe(ours).map((l) => `  ${l}`));
			if (note) lines.push(note);
			return result(lines.join("\n"), { sandbox: s.name, id, urls: ours.map((m) => m.url) });
		},
	});

	pi.registerTool({
		name: "docker_rm",
		label: "Docker rm",
		promptSnippet: "Remove a container",
		description: "Remove a container (forced, with its anonymous volumes); its host ports are unpublished.",
		parameters: Type.Object({ id: Type.String({ description: ID_HELP }) }),
		async execute(_id, params, signal) {
			const id = checkId(params.id);
			await s.docker(["rm", "-f", "-v", id], { signal, what: `docker rm ${id}` });
			const { note } = await sync(s, signal);
			return result([`removed ${id}`, ...(note ? [note] : [])].join("\n"), { sandbox: s.name, id });
		},
	});

	pi.registerTool({
		name: "docker_prune",
		label: "Docker prune",
		promptSnippet: "Reclaim space: remove stopped containers, unused images, networks, build cache",
		description: "Remove stopped containers, unused networks, ALL images not used by a container, and the build cache (docker system prune -af); volumes=true also removes unused volumes.",
		parameters: Type.Object({ volumes: Type.Optional(Type.Boolean({ description: "also remove unused volumes (default false)" })) }),
		async execute(_id, params, signal, onUpdate) {
			const args = ["system", "prune", "-af", ...(params.volumes ? ["--volumes"] : [])];
			const r = await s.docker(args, { signal, what: "docker system prune", floor: 600, log: "prune", stream: { onUpdate, head: "prune" } });
			const freed = /Total reclaimed space:\s*(.*)/.exec(r.output)?.[1]?.trim();
			return brief([`pruned sandbox "${s.name}"${freed ? `: ${freed} reclaimed` : ""}`], r, { sandbox: s.name });
		},
	});
}
