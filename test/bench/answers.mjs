// Bytes per answer: what the pi extension's tools put into the agent's
// context for a small and a large build, a pull, a failed build and
// docker_ps, next to what the prior extension returned for the same
// output by its rules (shared/reference/prior-extension.md sections 8,
// 9, 17).  Prints one markdown section; test/bench/report appends it to
// REPORT.md.  Needs the simulator (root, dockerd) and `npm ci` in pi/.
// Run from the top of the tree after make:  node test/bench/answers.mjs
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PI_DIR, loadExtension, piMissing, programsMissing, simMissing, world } from "../../pi/testlib/harness.mjs";

const missing = [...piMissing(), ...simMissing(), ...programsMissing()];
if (missing.length) {
	console.log(`## 7. Bytes per answer of the pi tools\n\nNot measured on this machine: missing ${missing.join(", ")}.\n`);
	process.exit(0);
}

const bytes = (s) => Buffer.byteLength(s);
const log = (s) => process.stderr.write(`bench: answers: ${s}\n`);

// ---- the prior extension's rules, applied to the same output
/** Its docker() output: stdout, a newline, stderr, trimmed (here: the whole output as it came). */
const priorOutput = (out) => out.trim();
function priorBuild(ctx, tag, sandbox, out) {
	const lines = priorOutput(out).split("\n");
	const hits = lines.filter((l) => /(^#|naming to|writing image|exporting|built |digest|sha256)/i.test(l)).slice(-10);
	return `build ${ctx} -> ${tag} (inside sandbox "${sandbox}")\n${(hits.length ? hits : lines.slice(-3)).join("\n")}`;
}
function priorPull(image, out) {
	const lines = priorOutput(out).split("\n");
	const hits = lines.filter((l) => /Status:|Digest:|Downloaded newer|up to date/i.test(l));
	return `pull ${image}\n${(hits.length ? hits : lines.slice(-3)).join("\n")}`;
}
const priorFailure = (sandbox, code, out) => `docker (in sandbox "${sandbox}") failed (exit ${code}): ${priorOutput(out).slice(0, 1500)}`;
/** Its ps table: ids blank, ports "-", names "?" (it read the Engine API's field names), columns padded 12/30/28. */
function priorPs(rows) {
	const line = (id, image, status, ports, names) => `${id.padEnd(12)} ${image.padEnd(30)} ${status.padEnd(28)} ${ports} ${names}`;
	return [line("CONTAINER", "IMAGE", "STATUS", "PORTS", "NAMES"), ...rows.map((r) => line("", r.Image, r.Status, "-", "?"))].join("\n");
}

/** A docker pull transcript as the CLI prints it without a terminal: four layers. */
function pullTranscript(image) {
	const layers = ["f18232174bc9", "a54dd1ac3bb1", "e3b2a3a1e0c7", "0c4a1d7a6e24"];
	const out = [`${image.split(":")[1]}: Pulling from library/${image.split(":")[0]}`];
	for (const s of ["Pulling fs layer", "Waiting", "Verifying Checksum", "Download complete", "Pull complete"]) for (const l of layers) out.push(`${l}: ${s}`);
	out.push(`Digest: sha256:${"9f".repeat(32)}`, `Status: Downloaded newer image for ${image}`, `docker.io/library/${image}`);
	return `${out.join("\n")}\n`;
}

const w = world();
const rows = [];
let pi;
try {
	pi = await loadExtension(w.ws);
	await pi.start();
	const project = (dir, steps) => {
		mkdirSync(join(w.ws, dir), { recursive: true });
		writeFileSync(join(w.ws, dir, "Dockerfile"), `FROM busybox:local\n${steps.join("\n")}\n`);
	};
	const fail = async (p) => {
		try {
			await p;
		} catch (e) {
			return e.message;
		}
		throw new Error("bench: the call should have failed");
	};

	log("small build");
	project("small", ["WORKDIR /app", "COPY . .", "RUN echo small-build-done"]);
	const small = await pi.call("docker_build", { context: "/workspace/small", tag: "small:dev" });
	const sandbox = small.result.details.sandbox;
	rows.push(["`docker_build`, small (3 steps)", bytes(small.text), bytes(priorBuild("/workspace/small", "small:dev", sandbox, readFileSync(small.result.details.fullOutputPath, "utf8")))]);

	log("large build");
	project("large", ["RUN i=0; while [ $i -lt 3000 ]; do echo large-build-line-$i; i=$((i+1)); done"]);
	const large = await pi.call("docker_build", { context: "/workspace/large", tag: "large:dev" });
	const largeLog = readFileSync(large.result.details.fullOutputPath, "utf8");
	rows.push([`\`docker_build\`, RUN printing 3,000 lines (whole output ${bytes(largeLog)} bytes)`, bytes(large.text), bytes(priorBuild("/workspace/large", "large:dev", sandbox, largeLog))]);

	log("failed build");
	project("broken", ["RUN i=0; while [ $i -lt 200 ]; do echo compiling-$i; i=$((i+1)); done; echo 'error: undefined symbol main' >&2; exit 2"]);
	const broken = await fail(pi.call("docker_build", { context: "/workspace/broken", tag: "broken:dev" }));
	const brokenLog = readFileSync(/the whole of it in (\S+)\):/.exec(broken)[1], "utf8");
	const brokenCode = /failed \(exit (\d+)\)/.exec(broken)[1];
	rows.push(["`docker_build`, failing after 200 lines (an error on stderr)", bytes(broken), bytes(priorFailure(sandbox, brokenCode, brokenLog))]);

	log("pull");
	const failedPull = await fail(pi.call("docker_pull", { image: "alpine:3.20" }));
	const pullOut = /\):\n([\s\S]*)$/.exec(failedPull)[1];
	rows.push(["`docker_pull`, failing (the simulator reaches no registry)", bytes(failedPull), bytes(priorFailure(sandbox, 1, pullOut))]);
	// a successful pull cannot happen here: the answer is built by the tool's own brief() on a typical transcript
	const { createJiti } = await import(pathToFileURL(join(PI_DIR, "node_modules", "jiti", "lib", "jiti.mjs")).href);
	const { brief } = await createJiti(import.meta.url).import(join(PI_DIR, "src", "text.ts"));
	const transcript = pullTranscript("node:22-alpine");
	const pulled = brief([`pulled node:22-alpine into sandbox "${sandbox}"`], { code: 0, stdout: transcript, stderr: "", output: transcript, log: "/tmp/pi-docker-pull-0123456789abcdef.log" });
	rows.push(["`docker_pull`, succeeding (4 layers; transcript, see below)", bytes(pulled.content[0].text), bytes(priorPull("node:22-alpine", transcript))]);

	log("docker_ps");
	for (const n of ["web", "worker", "cache"]) await pi.call("docker_run", { image: "busybox:local", name: n, command: ["sleep", "1000"], ...(n === "web" ? { ports: ["8080"] } : {}) });
	const ps = await pi.call("docker_ps");
	const inner = spawnSync("sbx-run", ["-s", sandbox, "-w", w.ws, "--", "ps", "--format", "{{json .}}"], { encoding: "utf8", env: process.env });
	const cs = inner.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
	rows.push([`\`docker_ps\`, ${cs.length} containers, one with a published port`, bytes(ps.text), bytes(priorPs(cs))]);
} finally {
	if (pi) {
		await pi.shutdown();
		pi.cleanupAgentDir();
	}
	w.cleanup();
}

console.log(`## 7. Bytes per answer of the pi tools

From \`node test/bench/answers.mjs\`: the pi extension loaded through pi's
loader against the simulator (a real private dockerd), each tool called
as the agent loop calls it; a figure is the UTF-8 bytes of the text the
agent gets (a failure: the error text pi hands it).  The prior
extension's figure is its rule applied to the same output
(\`reference/prior-extension.md\` sections 8, 9 and 17): a build keeps
its last 10 lines matching \`^#|naming to|writing image|exporting|built
|digest|sha256\` (else the last 3) under a heading; a pull its
\`Status:|Digest:|Downloaded newer|up to date\` lines; a failure is
\`docker (in sandbox "N") failed (exit C): \` and the first 1,500
characters of the output; its ps table is rebuilt from the reference's
description (ids blank, ports \`-\`, names \`?\`, columns padded 12/30/28;
the header is a guess of the same width).  A successful pull cannot
happen in the simulator (no registry): that row is the pull tool's own
answer builder given a typical four-layer transcript.

| answer | sbx-tools (bytes) | prior extension (bytes) |
|---|---:|---:|
${rows.map(([what, ours, prior]) => `| ${what} | ${ours} | ${prior} |`).join("\n")}

Success answers of build, pull, compose up/build/pull and prune are
bounded at 2,048 bytes: the outcome (image id and size, containers,
URLs), the last lines, and the path of a temp file holding the whole
output; the prior extension's build answer was shorter but kept only
lines that matched its filter (none of a RUN step's own output), and
named no file holding the rest.  A failure here carries the tail of
stdout and stderr as they came (at most 60 lines / 8 KB), the exit
status and the command; the prior one the first 1,500 characters, which
for a long build is its beginning, not the error.`);
