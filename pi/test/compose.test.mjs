// docker_compose verbs an agent needs (exec and run without a TTY, kill,
// rm, top, images, pause, unpause, port ...), and the options that would
// redirect the daemon or name a file outside the workspace refused, for
// every verb.  Through pi's loader against the simulator.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { FLAVOUR } from "../testlib/harness.mjs";
import { sessionSuite } from "../testlib/suite.mjs";

const FILE = "/workspace/cproj/compose.yaml";
const S = sessionSuite(async (s) => {
	const dir = join(s.w.ws, "cproj");
	mkdirSync(dir, { recursive: true });
	writeFileSync(
		join(dir, "compose.yaml"),
		`services:
  app:
    image: busybox:local
    command: ["sh", "-c", "echo app-started; exec httpd -f -p 8000 -h /"]
    ports:
      - "8000"
    environment:
      GREETING: hello
`,
	);
	const up = await s.pi.call("docker_compose", { file: FILE, action: "up" });
	s.name = up.result.details.sandbox;
});
const ready = (t) => S.ready(t);
const inner = (...args) => S.inner(...args);
const compose = (action, more = {}, signal = undefined) => S.pi.call("docker_compose", { file: FILE, action, ...more }, { signal });

test(`[${FLAVOUR}] compose verbs class: exec runs without a TTY, a string through sh -c, or the words after the service`, async (t) => {
	if (!ready(t)) return;
	const a = await compose("exec", { service: "app", command: "echo $GREETING-$((40+2)) | tr h H" });
	assert.match(a.text, /\nHello-42$/, a.text);
	const b = await compose("exec", { extraArgs: ["-e", "X=from-extra", "app", "sh", "-c", "echo $X; pwd"], });
	assert.match(b.text, /\nfrom-extra\n\/$/, b.text);
	const c = await compose("exec", { service: "app", extraArgs: ["-w", "/etc"], command: ["pwd"] });
	assert.match(c.text, /\n\/etc$/);
	await assert.rejects(compose("exec", { service: "app", command: "echo out; echo err >&2; exit 5" }), (e) => {
		assert.match(e.message, /^docker compose exec failed \(exit 5\):/);
		// both streams (compose v1 buffers its stdout, so their order is compose's)
		assert.match(e.message, /^out$/m);
		assert.match(e.message, /^err$/m);
		return true;
	});
	await assert.rejects(compose("exec", { service: "app" }), /no command/);
	await assert.rejects(compose("exec", { command: "true" }), /name one service/);
});

test(`[${FLAVOUR}] compose verbs class: run without a TTY leaves no container behind`, async (t) => {
	if (!ready(t)) return;
	const before = inner("ps", "-aq").trim().split("\n").filter(Boolean).length;
	const r = await compose("run", { service: "app", command: "echo run-$GREETING" });
	assert.match(r.text, /\nrun-hello$/, r.text);
	const e = await compose("run", { extraArgs: ["--no-deps", "-e", "Y=2", "app", "sh", "-c", "echo y=$Y"] });
	assert.match(e.text, /\ny=2$/);
	assert.equal(inner("ps", "-aq").trim().split("\n").filter(Boolean).length, before, "run --rm removed its containers");
});

test(`[${FLAVOUR}] cancel class: Esc during compose exec ends what it started in the container, during compose run stops its container`, async (t) => {
	if (!ready(t)) return;
	const running = (s) => inner("exec", inner("ps", "-q", "--filter", "name=app").trim().split("\n")[0], "ps", "-o", "args").split("\n").filter((l) => l.includes(s));
	const ac = new AbortController();
	const p = compose("exec", { service: "app", command: "sleep 71 & sleep 72; wait" }, ac.signal);
	const t0 = Date.now();
	while (running("sleep 7").length < 2) {
		assert.ok(Date.now() - t0 < 30000, "the exec never started");
		await new Promise((r) => setTimeout(r, 200));
	}
	ac.abort();
	const e = await p.then(() => assert.fail("not cancelled"), (x) => x);
	assert.deepEqual(running("sleep 7"), [], "compose exec's processes still run");
	assert.match(e.message, /^docker compose exec: cancelled; .*ended what it started in container app in its process tree \(\d+ process(es)?\); no cgroup could be made for it there, so what left that tree \(a daemon\) was not looked for$/);
	const ac2 = new AbortController();
	const p2 = compose("run", { service: "app", command: ["sleep", "70"] }, ac2.signal);
	const runs = () => inner("ps", "--format", "{{.Names}} {{.Command}}").split("\n").filter((l) => l.includes("sleep 70"));
	const t1 = Date.now();
	while (!runs().length) {
		assert.ok(Date.now() - t1 < 30000, "the run never started");
		await new Promise((r) => setTimeout(r, 200));
	}
	ac2.abort();
	const e2 = await p2.then(() => assert.fail("not cancelled"), (x) => x);
	assert.deepEqual(runs(), [], "compose run's container still runs");
	assert.match(e2.message, /^docker compose run: cancelled; its container pi-run-[0-9a-f]{12} was stopped$/);
});

test(`[${FLAVOUR}] compose verbs class: top, images, port, pause, unpause, kill and rm work without asking`, async (t) => {
	if (!ready(t)) return;
	assert.match((await compose("top")).text, /httpd -f -p 8000/);
	assert.match((await compose("images")).text, /busybox/);
	assert.match((await compose("port", { extraArgs: ["app", "8000"] })).text, /:\d+$/m);
	await compose("pause");
	assert.match(inner("ps", "--format", "{{.Status}}"), /Paused/);
	await compose("unpause");
	assert.doesNotMatch(inner("ps", "--format", "{{.Status}}"), /Paused/);
	await compose("kill", { extraArgs: ["-s", "SIGKILL"] });
	assert.equal(inner("ps", "-q").trim(), "");
	await compose("rm", { extraArgs: ["-v"] });
	assert.equal(inner("ps", "-aq").trim(), "", "rm -f removed the killed container, no prompt");
});

test(`[${FLAVOUR}] compose redirection class: options naming another daemon or a file outside the workspace are refused, for every verb`, async (t) => {
	if (!ready(t)) return;
	const bad = [
		["-H", "tcp://10.0.0.1:2375"],
		["--host=unix:///var/run/other.sock"],
		["--context", "other"],
		["-c", "other"],
		["-f", "/etc/passwd"],
		["--file=/etc/x.yaml"],
		["--env-file", "/root/.env"],
		["--project-directory", "/"],
		["-p", "other"],
		["--profile", "x"],
	];
	for (const action of ["up", "down", "exec", "run", "kill", "rm", "top", "images", "pause", "unpause", "port", "logs", "ps", "config"]) {
		for (const args of bad) {
			await assert.rejects(
				compose(action, { extraArgs: [...args, "app", "true"] }),
				/is not allowed|not a service name|bad value/,
				`${action} ${args.join(" ")} was not refused`,
			);
		}
	}
	// options that take a host path, or would give the container more than the file says
	await assert.rejects(compose("run", { extraArgs: ["-v", "/etc:/x", "app", "true"] }), /"-v" is not allowed/);
	await assert.rejects(compose("run", { extraArgs: ["--volume=/:/host", "app", "true"] }), /"--volume" is not allowed/);
	await assert.rejects(compose("run", { extraArgs: ["-p", "80:80", "app", "true"] }), /"-p" is not allowed/);
	await assert.rejects(compose("exec", { extraArgs: ["--privileged", "app", "true"] }), /"--privileged" is not allowed/);
	await assert.rejects(compose("exec", { extraArgs: ["-w", "relative", "app", "true"] }), /bad value for -w/);
	await assert.rejects(compose("events"), /action "events" is not allowed/);
	await assert.rejects(compose("ps", { command: "ls" }), /takes no command/);
	// the compose file itself must be in the workspace
	await assert.rejects(S.pi.call("docker_compose", { file: "/etc/compose.yaml", action: "ps" }), /outside|workspace/);
});

test(`[${FLAVOUR}] brief class: compose up answers at most 2 KB with its containers and the whole log's path`, async (t) => {
	if (!ready(t)) return;
	const up = await compose("up");
	assert.ok(Buffer.byteLength(up.text) <= 2048, up.text);
	assert.match(up.text, /^containers: \S*app\S* \(Up/m, up.text);
	assert.match(up.text, /^host reachable at/m);
	// the log only when the answer was cut (attack-logs.test.mjs)
	if (up.result.details.truncated) assert.match(up.text, /^whole output \(\d+ lines, [^)]+\): \/\S+\.log$/m);
	else assert.doesNotMatch(up.text, /whole output/);
	const down = await compose("down", { extraArgs: ["-t", "0"] });
	assert.match(down.text, /compose down/);
});
