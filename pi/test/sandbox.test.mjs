// The tools against the sbx simulator (a real private dockerd per
// sandbox), through pi's loader, one session and one sandbox for the file.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { endSession, FLAVOUR, loadExtension, need, piMissing, programsMissing, SIM, simMissing, simSandboxes, world } from "../testlib/harness.mjs";

const missing = [...piMissing(), ...simMissing(), ...programsMissing()];
let w;
let pi;
let name;

/** Each test: skip outside CI when the simulator cannot run here; fail under CI. */
function ready(t) {
	return need(t, missing, "the sbx simulator") && pi;
}

/** pinned docker in this session's sandbox, straight through sbx-run (to check what the tools did) */
function inner(...args) {
	const r = spawnSync("sbx-run", ["-s", name, "-w", w.ws, "--", ...args], { encoding: "utf8", env: process.env });
	assert.equal(r.status, 0, `sbx-run ${args.join(" ")}: ${r.stderr}`);
	return r.stdout;
}

function hostPorts() {
	const r = spawnSync("sbx-ports", ["-j", "-s", name, "ls"], { encoding: "utf8", env: process.env });
	assert.equal(r.status, 0, r.stderr);
	return r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

before(async () => {
	if (missing.length) return;
	w = world();
	pi = await loadExtension(w.ws);
	await pi.start();
});

after(() => endSession(pi, w));

test(`[${FLAVOUR}] docker_status before first use: not provisioned, and it does not provision`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_status");
	name = r.result.details.sandbox;
	assert.match(name, /^pi-sbx-\d+-[a-z0-9]{8}$/);
	assert.match(r.text, /not provisioned yet/);
	assert.match(r.text, /teardown watcher: armed/);
	assert.deepEqual(simSandboxes(), {});
});

const PROJECTS = {
	node: { files: { "package.json": '{"name":"n","scripts":{"start":"node ."}}' }, from: "FROM node:22-alpine", port: 3000 },
	pnpm: { files: { "package.json": "{}", "pnpm-lock.yaml": "" }, from: "FROM node:22-alpine", port: 3000 },
	go: { files: { "go.mod": "module x\n" }, from: "FROM golang:1.24-alpine AS build", port: 8080 },
	python: { files: { "requirements.txt": "" }, from: "FROM python:3.12-slim", port: 8000 },
	rust: { files: { "Cargo.toml": '[package]\nname = "r"\n' }, from: "FROM rust:1.80-alpine AS build", port: 3000 },
	generic: { files: {}, from: "FROM alpine:3.20", port: 8080 },
};

test(`[${FLAVOUR}] docker_init writes a Dockerfile, .dockerignore and compose.yaml for node, pnpm, go, python, rust and generic`, async (t) => {
	if (!ready(t)) return;
	for (const [lang, p] of Object.entries(PROJECTS)) {
		const dir = join(w.ws, "init", lang);
		mkdirSync(dir, { recursive: true });
		for (const [f, text] of Object.entries(p.files)) writeFileSync(join(dir, f), text);
		const r = await pi.call("docker_init", { context: `/workspace/init/${lang}`, compose: true });
		assert.match(r.text, new RegExp(`scaffolded "${lang}"`), r.text);
		assert.equal(readFileSync(join(dir, "Dockerfile"), "utf8").split("\n")[0], p.from);
		assert.match(readFileSync(join(dir, "Dockerfile"), "utf8"), new RegExp(`EXPOSE ${p.port}`));
		assert.match(readFileSync(join(dir, ".dockerignore"), "utf8"), /node_modules/);
		assert.match(readFileSync(join(dir, "compose.yaml"), "utf8"), new RegExp(`"${p.port}:${p.port}"`));
		const again = await pi.call("docker_init", { context: `/workspace/init/${lang}` });
		assert.match(again.text, /already exists \(pass force=true/);
	}
	const forced = await pi.call("docker_init", { context: "/workspace/init/go", lang: "generic", force: true });
	assert.match(forced.text, /scaffolded "generic".*overwrote Dockerfile/);
	assert.deepEqual(simSandboxes(), {}, "docker_init is host-side only");
});

test(`[${FLAVOUR}] docker_build builds the generic project on busybox:local, streaming its output`, async (t) => {
	if (!ready(t)) return;
	const dir = join(w.ws, "app");
	mkdirSync(join(dir, "www"), { recursive: true });
	writeFileSync(join(dir, "www", "index.html"), "<h1>built by docker_build</h1>\n");
	await pi.call("docker_init", { context: "/workspace/app", lang: "generic" });
	const df = readFileSync(join(dir, "Dockerfile"), "utf8").replace("FROM alpine:3.20", "FROM busybox:local");
	writeFileSync(join(dir, "Dockerfile"), df.replace("COPY . .", "COPY . .\nRUN sleep 1 && echo step-one-done\nRUN test -f /app/www/index.html"));
	const r = await pi.call("docker_build", { context: "/workspace/app", tag: "app:dev", buildargs: '{"VERSION":"1"}' });
	name ??= r.result.details.sandbox;
	assert.match(r.text, /build \/workspace\/app -> app:dev/);
	assert.match(r.text, /Successfully tagged app:dev|naming to .*app:dev/);
	assert.ok(r.updates.length >= 1, "progress came through onUpdate");
	assert.match(r.updates.at(-1).content[0].text, /build \/workspace\/app/);
	assert.deepEqual(Object.keys(simSandboxes()), [name], "the first call provisioned the session's sandbox");
});

test(`[${FLAVOUR}] docker_images shows real repositories, tags, ids and sizes`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_images");
	const lines = r.text.split("\n");
	assert.match(lines[0], /^IMAGE\s+ID\s+SIZE\s+CREATED$/);
	const app = lines.find((l) => l.startsWith("app:dev "));
	const bb = lines.find((l) => l.startsWith("busybox:local "));
	assert.ok(app && bb, r.text);
	assert.match(app, /^app:dev\s+[0-9a-f]{12}\s+\d[\d.]*[kMG]?B\s+\S/);
	assert.doesNotMatch(r.text, /<none>:<none>|1970-01-01/);
});

let url;
test(`[${FLAVOUR}] docker_run with ports ["8080:8000"] returns a URL that docker_curl fetches`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_run", {
		image: "app:dev",
		name: "web",
		ports: ["8080:8000"],
		// a PID 1 that ends on TERM, so docker_stop need not wait out its grace
		command: ["sh", "-c", "trap 'exit 0' TERM; httpd -f -v -p 8000 -h /app/www & wait"],
	});
	assert.match(r.text, /started app:dev as [0-9a-f]{12} \(web\)/);
	assert.equal(r.result.details.urls.length, 1, r.text);
	url = r.result.details.urls[0];
	assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
	assert.match(r.text, /sandbox port 8080\/tcp/);
	const c = await pi.call("docker_curl", { url });
	assert.match(c.text, /^HTTP 200/);
	assert.match(c.text, /built by docker_build/);
	assert.equal(inner("ps", "--filter", "label=com.pi.sandbox=true", "--format", "{{.Names}}").trim(), "web");
});

test(`[${FLAVOUR}] docker_curl: a missing port, an unpublished port, https and methods`, async (t) => {
	if (!ready(t)) return;
	const port = new URL(url).port;
	// no port in the URL, and 80 is not published: the only published port is used
	const only = await pi.call("docker_curl", { url: "http://localhost/" });
	assert.match(only.text, new RegExp(`only published port, ${port}`));
	assert.match(only.text, /HTTP 200/);
	await assert.rejects(pi.call("docker_curl", { url: "http://127.0.0.1:1/" }), (e) => /port 1 is not published/.test(e.message) && e.message.includes(url));
	// https to a plain-HTTP server: a clear TLS error, not a silent plain-HTTP request
	await assert.rejects(pi.call("docker_curl", { url: `https://127.0.0.1:${port}/` }), /docker_curl: GET https:\/\/127\.0\.0\.1:\d+\/: .*(SSL|TLS|wrong version|EPROTO)/i);
	const post = await pi.call("docker_curl", { url, method: "post", body: '{"a":1}' });
	assert.match(post.text, /^HTTP \d{3} /);
	await assert.rejects(pi.call("docker_curl", { url, method: "TRACE" }), /unsupported method/);
});

test(`[${FLAVOUR}] a port bound on ::1 as well (as sbx does on dual-stack hosts) is not a failure`, async (t) => {
	if (!ready(t)) return;
	const port = new URL(url).port;
	// what real sbx does for tcp by default: the same host port on ::1 too
	const pub = spawnSync(SIM, ["port", "publish", name, `[::1]:${port}:8080`], { encoding: "utf8", env: process.env });
	assert.equal(pub.status, 0, pub.stderr);
	try {
		const ps = await pi.call("docker_ps");
		assert.ok(ps.text.includes(`host side: ${url} -> sandbox port 8080/tcp4 (also on ::1)`), ps.text);
		const c = await pi.call("docker_curl", { url: `http://[::1]:${port}/` });
		assert.match(c.text, /^HTTP 200/);
		assert.match(c.text, /built by docker_build/);
		const v = await pi.call("docker_verify");
		assert.match(v.text, /^PASS port-binds:/m, v.text);
		assert.doesNotMatch(v.text, /^FAIL /m, v.text);
	} finally {
		spawnSync(SIM, ["port", "unpublish", name, `[::1]:${port}:8080/tcp6`], { env: process.env });
	}
});

test(`[${FLAVOUR}] docker_ps shows real ids, images, status, ports and names`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_ps");
	const lines = r.text.split("\n");
	assert.match(lines[0], /^CONTAINER ID\s+IMAGE\s+STATUS\s+PORTS \(sandbox side\)\s+NAMES$/);
	const web = lines.find((l) => l.endsWith(" web"));
	assert.ok(web, r.text);
	assert.match(web, /^[0-9a-f]{12}\s+app:dev\s+Up .*8080->8000\/tcp.*\s+web$/);
	assert.ok(r.text.includes(`host side: ${url} -> sandbox port 8080/tcp`), r.text);
});

test(`[${FLAVOUR}] docker_logs and docker_exec work`, async (t) => {
	if (!ready(t)) return;
	const e = await pi.call("docker_exec", { id: "web", command: "sh -c 'cat /app/www/index.html; echo to-stderr >&2'" });
	assert.match(e.text, /built by docker_build/);
	assert.match(e.text, /to-stderr/);
	await assert.rejects(pi.call("docker_exec", { id: "web", command: ["sh", "-c", "echo failing; exit 3"] }), /docker exec web failed \(exit 3\)/);
	await assert.rejects(pi.call("docker_exec", { id: "nosuch", command: "true" }), /No such container: nosuch/);
	const l = await pi.call("docker_logs", { id: "web", tail: 50, timestamps: true });
	assert.match(l.text, /response:200/);
	assert.match(l.text, /^\d{4}-\d\d-\d\dT/m);
	await assert.rejects(pi.call("docker_logs", { id: "nosuch" }), /No such container/);
});

test(`[${FLAVOUR}] named volumes and workspace binds work; foreground runs return their output`, async (t) => {
	if (!ready(t)) return;
	const a = await pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, volumes: ["piData:/data"], command: "sh -c 'echo kept > /data/f'" });
	assert.match(a.text, /container exited \(busybox:local\), removed/);
	const b = await pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, volumes: ["piData:/data:ro"], command: ["cat", "/data/f"] });
	assert.match(b.text, /kept/);
	mkdirSync(join(w.ws, "bind"), { recursive: true });
	writeFileSync(join(w.ws, "bind", "x"), "from-the-host\n");
	const c = await pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, volumes: ["/workspace/bind:/b"], command: "cat /b/x" });
	assert.match(c.text, /from-the-host/);
	const d = await pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, volumes: ["./bind:/b"], command: "sh -c 'echo w > /b/y'" });
	assert.ok(d.text);
	assert.equal(readFileSync(join(w.ws, "bind", "y"), "utf8"), "w\n", "a read-write bind writes the host workspace");
	await assert.rejects(pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, command: "sh -c 'exit 4'" }), /docker run busybox:local failed \(exit 4\)/);
	assert.match(inner("volume", "ls", "--format", "{{.Name}}"), /^piData$/m);
});

test(`[${FLAVOUR}] docker_run env values reach the container through stdin, never argv`, async (t) => {
	if (!ready(t)) return;
	const secret = `s3cret-${process.pid}-value with spaces`;
	const r = await pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, env: [`PI_SECRET=${secret}`, "PI_OTHER=2"], command: ["sh", "-c", 'echo "[$PI_SECRET] [$PI_OTHER]"'] });
	assert.ok(r.text.includes(`[${secret}] [2]`), r.text);
	const calls = readFileSync(join(w.simRoot, "calls.log"), "utf8");
	assert.ok(calls.includes("--env-file"), "sbx was called");
	assert.ok(!calls.includes("s3cret-"), "the value is in no sbx argv");
	const csv = await pi.call("docker_run", { image: "busybox:local", detach: false, rm: true, env: "A=1,B=2", command: "sh -c 'echo $A$B'" });
	assert.match(csv.text, /^12$/m);
});

test(`[${FLAVOUR}] results are cut to pi's limits (2000 lines / 50 KB) with a note`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_exec", { id: "web", command: ["sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo line-$i; i=$((i+1)); done"] });
	const lines = r.text.split("\n");
	assert.ok(lines.length <= 2001, `${lines.length} lines`);
	assert.match(lines[0], /^\[output truncated to its last 2000 of 3000 lines/);
	assert.equal(lines.at(-1), "line-2999");
	assert.equal(r.result.details.truncated, true);
	const big = await pi.call("docker_exec", { id: "web", command: ["sh", "-c", "i=0; while [ $i -lt 1200 ]; do echo $i-0123456789012345678901234567890123456789012345678901234567890123456789; i=$((i+1)); done"] });
	assert.ok(Buffer.byteLength(big.text) <= 51200 + 200, `${Buffer.byteLength(big.text)} bytes`);
	assert.match(big.text, /^\[output truncated/);
});

test(`[${FLAVOUR}] docker_stop, docker_start and docker_rm: host ports follow the container`, async (t) => {
	if (!ready(t)) return;
	await pi.call("docker_stop", { id: "web" });
	assert.deepEqual(hostPorts(), [], "stopped: unpublished");
	const s = await pi.call("docker_start", { id: "web" });
	assert.match(s.text, /started web/);
	assert.equal(s.result.details.urls.length, 1, s.text);
	const c = await pi.call("docker_curl", { url: s.result.details.urls[0] });
	assert.match(c.text, /HTTP 200/);
	const r = await pi.call("docker_rm", { id: "web" });
	assert.match(r.text, /removed web/);
	assert.deepEqual(hostPorts(), [], "removed: unpublished");
	assert.equal(inner("ps", "-a", "--format", "{{.Names}}").trim(), "");
});

test(`[${FLAVOUR}] docker_compose up and down work, with ports, and label the containers`, async (t) => {
	if (!ready(t)) return;
	const dir = join(w.ws, "proj");
	mkdirSync(join(dir, "www"), { recursive: true });
	writeFileSync(join(dir, "www", "index.html"), "compose-served\n");
	writeFileSync(
		join(dir, "compose.yaml"),
		`services:
  web:
    image: busybox:local
    command: ["httpd", "-f", "-p", "8000", "-h", "/srv"]
    ports:
      - "18081:8000"
    volumes:
      - ./www:/srv:ro
    labels:
      owner: test
  worker:
    image: busybox:local
    command: ["sleep", "3600"]
`,
	);
	const up = await pi.call("docker_compose", { file: "/workspace/proj/compose.yaml", action: "up" });
	assert.match(up.text, /compose up/);
	assert.equal(up.result.details.urls.length, 1, up.text);
	const c = await pi.call("docker_curl", { url: up.result.details.urls[0] });
	assert.match(c.text, /compose-served/);
	const labelled = inner("ps", "--filter", "label=com.pi.sandbox=true", "--format", "{{.Names}} {{.Label \"owner\"}}").trim().split("\n").sort();
	assert.equal(labelled.length, 2, labelled.join("\n"));
	assert.match(labelled.join("\n"), /web.* test/, "the project's own labels are kept");
	const ps = await pi.call("docker_compose", { file: "/workspace/proj/compose.yaml", action: "ps" });
	assert.match(ps.text, /web/);
	const logs = await pi.call("docker_compose", { file: "/workspace/proj/compose.yaml", action: "logs", service: "web", extraArgs: ["--tail", "5"] });
	assert.match(logs.text, /compose logs/);
	await assert.rejects(pi.call("docker_compose", { file: "/workspace/proj/compose.yaml", action: "down", extraArgs: ["-f", "/etc/x"] }), /not allowed/);
	const down = await pi.call("docker_compose", { file: "/workspace/proj/compose.yaml", action: "down", extraArgs: ["-t", "0", "--volumes"] });
	assert.match(down.text, /compose down/);
	assert.deepEqual(hostPorts(), [], "down: unpublished");
	assert.equal(inner("ps", "-a", "--format", "{{.Names}}").trim(), "");
});

test(`[${FLAVOUR}] docker_verify reports all PASS`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_verify");
	assert.match(r.text, new RegExp(`^Isolation audit for sandbox "${name}"`));
	assert.doesNotMatch(r.text, /^FAIL /m, r.text);
	assert.match(r.text, /All isolation checks passed/, r.text);
	for (const check of ["transport", "env-scrub", "env-forward", "daemon-pinning", "mounts", "contexts", "host-socket", "port-binds", "teardown-armed", "ssh-agent", "mcp-gateway", "egress-rules"])
		assert.match(r.text, new RegExp(`^PASS ${check}:`, "m"), `${check} passes:\n${r.text}`);
	assert.ok(r.result.details.passed >= 12);
});

test(`[${FLAVOUR}] docker_pull fails clearly: no registry is reachable`, async (t) => {
	if (!ready(t)) return;
	await assert.rejects(pi.call("docker_pull", { image: "alpine:3.20" }), (e) => {
		assert.match(e.message, /^docker pull alpine:3\.20 failed \(exit 1\):/);
		assert.match(e.message, /Error response from daemon|dial tcp|lookup|no such host|connection refused/i);
		return true;
	});
});

test(`[${FLAVOUR}] docker_status, docker_resources and docker_prune report on the running sandbox`, async (t) => {
	if (!ready(t)) return;
	const s = await pi.call("docker_status");
	assert.match(s.text, new RegExp(`sandbox: ${name}`));
	assert.match(s.text, /state: running/);
	assert.match(s.text, /daemon: docker \d+\.\d+/);
	assert.match(s.text, /images: [1-9]/);
	assert.match(s.text, /host ports: none/);
	const r = await pi.call("docker_resources");
	assert.match(r.text, /VM memory: \d+ MiB used/);
	assert.match(r.text, /VM CPUs: \d+/);
	assert.match(r.text, /docker disk:\n.*TYPE/);
	const p = await pi.call("docker_prune", { volumes: true });
	assert.match(p.text, /Total reclaimed space|nothing to prune/);
	assert.doesNotMatch(inner("images", "--format", "{{.Repository}}:{{.Tag}}"), /app:dev/, "prune -a removed the unused image");
});

test(`[${FLAVOUR}] docker_gc sweeps with sbx-gc and keeps this session's sandbox`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_gc", { hours: 0 });
	assert.match(r.text, /gc sweep/);
	assert.ok(name in simSandboxes(), "the session's own sandbox is kept");
});

test(`[${FLAVOUR}] docker_sandbox_rm removes the sandbox; the next call makes a fresh one`, async (t) => {
	if (!ready(t)) return;
	const r = await pi.call("docker_sandbox_rm");
	assert.match(r.text, new RegExp(`sandbox "${name}" removed`));
	assert.deepEqual(simSandboxes(), {});
	const again = await pi.call("docker_sandbox_rm");
	assert.match(again.text, /does not exist: nothing to remove/);
	const ps = await pi.call("docker_ps", { all: true });
	assert.match(ps.text, /no containers/);
	assert.deepEqual(Object.keys(simSandboxes()), [name]);
	assert.ok(existsSync(w.ws));
});
