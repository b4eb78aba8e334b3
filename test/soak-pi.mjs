// The soak's hostile session (test/soak.sh runs it with `node`): a pi
// session, the extension loaded through pi's own loader, that does what
// an agent turned hostile would while the soak's other sessions work.
// It publishes port ranges and well-known ports from its sandbox, plants
// programs, a Makefile, a package.json linked to a host secret and a .pi/
// install in the shared workspace from a container that binds it, and
// calls docker_curl on and on against a service that floods and one that
// sends a byte a second.  It records, for soak.sh to judge:
//   $T/sessions        "pid name hostile time", as every session does
//   $T/hostile.ready   once the set-up is done (what it did, one a line)
//   $T/log/curl        "what elapsed_s timeout_s outcome status", a call a line
// Every file it plants is a canary that appends to $T/canary when run
// (and then runs the real program, so a weakened build keeps working).
//
// Environment (from soak.sh): T, SOAK_BUILD (where the programs and the
// pi package under test are), SOAK_SIM, SOAK_CURL_TIMEOUT, and
// SOAK_HOSTILE_PORTS_MAX (a control: the bound the programs get).
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadExtension } from "../pi/testlib/harness.mjs";

const T = process.env.T;
const BUILD = process.env.SOAK_BUILD;
const SIM = process.env.SOAK_SIM;
const TO = Number(process.env.SOAK_CURL_TIMEOUT || "15");
const ws = process.cwd();
const prog = (p) => join(BUILD, p, p);
const now = () => (Date.now() / 1000).toFixed(3);
const note = (f, line) => appendFileSync(join(T, f), f === "hostile.ready" && line !== "ready" ? `${line} [${now()}]\n` : `${line}\n`);

// the programs run straight from here get the soak's own PATH
const cleanEnv = { ...process.env };
if (process.env.SOAK_HOSTILE_PORTS_MAX) process.env.DOCKER_SANDBOX_PORTS_MAX = process.env.SOAK_HOSTILE_PORTS_MAX;
// a user whose PATH names the project's bin/ and the working directory:
// the tools must pass over both (everything below them is the agent's)
const dirs = ["sbx-run", "sbx-env", "sbx-watch", "sbx-gc", "sbx-ports", "sbx-verify"].map((p) => join(BUILD, p));
process.env.PATH = [join(ws, "bin"), ws, ".", ...dirs, cleanEnv.PATH].join(":");

/** A program of the build, with the soak's environment; never throws. */
function run(args, p = "sbx-run") {
	const env = { ...cleanEnv };
	if (process.env.SOAK_HOSTILE_PORTS_MAX) env.DOCKER_SANDBOX_PORTS_MAX = process.env.SOAK_HOSTILE_PORTS_MAX;
	const r = spawnSync(prog(p), args, { encoding: "utf8", env, timeout: 120000 });
	return { code: r.status ?? 128, out: r.stdout ?? "", err: r.stderr ?? "" };
}

async function call(name, args = {}, opts = {}) {
	try {
		return await pi.call(name, args, opts);
	} catch (e) {
		return { error: e };
	}
}

// ------------------------------------------------------------ set-up

const pi = await loadExtension(ws, join(BUILD, "pi", "index.ts"));
await pi.start();
const st = await call("docker_status");
const name = st.result?.details?.sandbox;
if (!name) {
	note("hostile.ready", `no sandbox: ${st.error?.message ?? st.text}`);
	process.exit(1);
}
note("sessions", `${process.pid} ${name} hostile ${now()}`);

// an exec that lasts keeps the sandbox from its idle stop, which would end
// the service mid-call or leave it restarting, its hundred docker-proxy
// processes slow to come back (a keepalive's short execs lose to a loaded
// machine).  Two, each started again when the soak's chaos kills its
// sbx-run, so that one is always there: the idle time counts from the
// start of the last exec, and a call in the gap would stop the sandbox.
function busy() {
	const c = spawn(prog("sbx-run"), ["-s", name, "-x", "--", "sleep", "100000"], { stdio: "ignore", env: cleanEnv });
	c.on("exit", () => setTimeout(busy, 200));
}
busy();
setTimeout(busy, 1000);

// a service on VM port 8080: /cgi-bin/flood never ends, /cgi-bin/drip
// sends a byte a second; restarted with the sandbox after a stop.  It
// publishes, first, ports other host services own (5432 6379 9222),
// ports below 1024 and one in the host's ephemeral range.
const [lo] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
const SRV = [
	"mkdir -p /srv/cgi-bin",
	`printf '#!/bin/sh\\nprintf "Content-Type: text/plain\\\\r\\\\n\\\\r\\\\n"\\nexec cat /dev/zero\\n' >/srv/cgi-bin/flood`,
	`printf '#!/bin/sh\\nprintf "Content-Type: text/plain\\\\r\\\\n\\\\r\\\\n"\\nwhile :; do printf x; sleep 1; done\\n' >/srv/cgi-bin/drip`,
	"chmod +x /srv/cgi-bin/*",
	"exec httpd -f -p 8080 -h /srv",
].join("\n");
/** Up to five tries of a step (the soak kills sbx-run and sbx create at random). */
async function retry(what, f) {
	let r;
	for (let i = 0; i < 5; i++) {
		r = await f();
		if (r.ok) break;
	}
	note("hostile.ready", `${what}: ${r.ok ? "done" : "failed"}${r.why ? ` (${r.why})` : ""}`);
}
const ok = (r) => ({ ok: !r.error, why: r.error?.message.split("\n")[0] });
await retry("service", async () => {
	run(["-s", name, "--", "rm", "-f", "soak-srv"]);
	return ok(await call("docker_run", { image: "busybox:local", name: "soak-srv", ports: ["8080:8080", ...[5432, 6379, 9222, 22, 80, 443, lo + 7].map((p) => `${p}:${p}`)], restart: "always", command: ["sh", "-c", SRV] }));
});

// then twenty ranges (docker_run takes none: straight through sbx-run, as
// an agent's docker_exec could) and a wide --expose
const pub = [];
for (let i = 0; i < 20; i++) {
	const a = 21000 + i * 50;	// clear of the stand-in suites' 18000-20999
	pub.push("-p", `0.0.0.0:${a}-${a + 3}:${a}-${a + 3}`);
}
await retry("ranges", async () => {
	run(["-s", name, "--", "rm", "-f", "soak-ranges"]);
	const r = run(["-s", name, "--", "run", "-d", "--name", "soak-ranges", "--restart", "always", ...pub, "--expose", "30000-31999", "busybox:local", "sleep", "100000"]);
	return { ok: r.code === 0, why: `exit ${r.code}` };
});

// the plants, from a container that binds the workspace
const canary = (what) => `#!/bin/sh
echo "${what} ran: $0 $*" >>${T}/canary
exit 0
`;
const chained = (p) => canary(p).replace("exit 0", `exec ${p === "sbx" ? SIM : prog(p)} "$@"`);
const files = {};
for (const p of ["sbx-run", "sbx-env", "sbx-watch", "sbx-gc", "sbx-ports", "sbx-verify", "sbx"]) {
	files[`bin/${p}`] = chained(p);
	files[p] = chained(p);
	files[`.pi/npm/node_modules/sbx-tools-pi/bin/${p}`] = chained(p);
}
for (const p of ["docker", "make", "cc", "npm"]) files[`bin/${p}`] = canary(p);
const mk = `all install:\n\techo "make ran in $(CURDIR)" >>${T}/canary\n`;
files.Makefile = mk;
files["c/Makefile"] = mk;
files["scripts/install.sh"] = canary("install.sh");
const pkg = ".pi/npm/node_modules/sbx-tools-pi";
files[`${pkg}/c/Makefile`] = mk;
files[`${pkg}/scripts/install.sh`] = canary("install.sh");
files[`${pkg}/package.json`] = '{"name":"sbx-tools-pi","pi":{"extensions":["./index.ts"]}}\n';
const loaded = `import { appendFileSync } from "node:fs";\nappendFileSync("${T}/canary", "an extension of the workspace was loaded\\n");\nexport default function () {}\n`;
files[`${pkg}/index.ts`] = loaded;
files[".pi/extensions/soak.ts"] = loaded;
files[".pi/settings.json"] = '{"packages":["npm:sbx-tools-pi"]}\n';
let plant = "set -e\ncd /w\n";
let n = 0;
for (const [f, text] of Object.entries(files)) {
	plant += `mkdir -p "$(dirname '${f}')"\ncat >'${f}' <<'EOF${n}'\n${text}EOF${n}\nchmod 755 '${f}'\n`;
	n++;
}
// links out: to a host secret at the top and in init/, which docker_init
// is asked about (it must read a link out as it reads absence)
plant += `rm -f package.json\nln -s ${cleanEnv.HOME}/.ssh/id_ed25519 package.json\n`;
plant += `mkdir -p init\nrm -f init/package.json init/go.mod\nln -s ${cleanEnv.HOME}/.ssh/id_ed25519 init/package.json\nln -s ${cleanEnv.HOME}/.ssh/none init/go.mod\n`;
writeFileSync(join(T, "hostile.plant"), plant);
await retry("plants", async () => ok(await call("docker_run", { image: "busybox:local", detach: false, rm: true, volumes: ["/workspace:/w"], command: ["sh", "-c", plant] })));

const init = await call("docker_init", { context: "init", force: true });
note("hostile.ready", `init: lang=${init.result?.details?.lang ?? `none (${init.error?.message.split("\n")[0]})`}`);

const sync = () => run(["-s", name, "sync"], "sbx-ports");
note("hostile.ready", `sync: exit ${sync().code}`);

/** The host port published for VM port 8080, or 0. */
function hostPort() {
	const r = run(["-j", "-s", name, "ls"], "sbx-ports");
	for (const l of r.out.split("\n")) {
		try {
			const m = JSON.parse(l);
			if (m.sandbox_port === 8080 && /^tcp/.test(m.protocol)) return m.host_port;
		} catch {
			/* not a mapping */
		}
	}
	return 0;
}
let hp = 0;
await retry("service's host port", async () => {
	hp = hostPort();
	if (!hp) sync();
	return { ok: hp > 0, why: `${hp}` };
});

// parallel docker_run in one call round, as pi runs a turn's tool calls:
// each publishes its own ports (the sandbox is already past the bound), so
// their syncs race; afterwards sbx's listing holds no more host ports than
// the bound and is exactly what sbx-ports recorded (NAME.ports)
/** Host ports of sbx's listing of the sandbox (a dual-stack pair is one). */
function listed() {
	const r = run(["-j", "-s", name, "ls"], "sbx-ports");
	const h = new Set();
	for (const l of r.out.split("\n")) {
		try {
			const m = JSON.parse(l);
			if (m.host_port) h.add(`${m.host_port}/${m.protocol.replace(/[46]$/, "")}`);
		} catch {
			/* not a mapping */
		}
	}
	return h;
}
function recorded() {
	let t = "";
	try {
		t = readFileSync(join(cleanEnv.SBX_STATE_DIR, `${name}.ports`), "utf8");
	} catch {
		/* none recorded */
	}
	return new Set(t.split("\n").filter(Boolean).map((l) => { const [p, h] = l.split(" "); return `${h}/${p.replace(/[46]$/, "")}`; }));
}
const par = await Promise.all([0, 1, 2].map((i) => {
	run(["-s", name, "--", "rm", "-f", `soak-par-${i}`]);
	return call("docker_run", { image: "busybox:local", name: `soak-par-${i}`, ports: [0, 1, 2, 3, 4, 5].map((k) => `${23000 + i * 100 + k}:${7000 + k}`), command: ["sleep", "100000"] });
}));
{
	const h = listed();
	const rec = recorded();
	const extra = [...h].filter((p) => !rec.has(p));
	const lost = [...rec].filter((p) => !h.has(p));
	note("hostile.ready", `parallel: ${par.filter((r) => !r.error).length} of 3 runs, held ${h.size} host ports, recorded ${rec.size}, listed not recorded ${extra.length}${extra.length ? ` (${extra.slice(0, 4).join(" ")})` : ""}, recorded not listed ${lost.length}`);
}

// a daemon started by a docker_exec, then Esc: afterwards no process of
// it lives (found by its environment, whatever its parent), or the answer
// said it could not end it
{
	const tag = `SOAK_DAEMON=${T}`;
	const daemons = () => {
		const found = [];
		for (const p of readdirSync("/proc")) {
			if (!/^\d+$/.test(p)) continue;
			try {
				if (readFileSync(`/proc/${p}/environ`, "latin1").split("\0").includes(tag)) found.push(p);
			} catch {
				/* gone, or not ours to read */
			}
		}
		return found;
	};
	const until = async (f, ms) => {
		for (const t0 = Date.now(); Date.now() - t0 < ms; await new Promise((r) => setTimeout(r, 200))) if (f()) return true;
		return f();
	};
	const ac = new AbortController();
	const ex = call("docker_exec", { id: "soak-srv", command: `export ${tag}; setsid sh -c 'sleep 347 &'; sleep 300` }, { signal: ac.signal });
	const seen = await until(() => daemons().length > 0, 60000);
	ac.abort();
	const r = await ex;
	const said = (r.error?.message ?? r.text ?? "").replace(/\s+/g, " ");
	// an answer that says what it did not look for is not waited on
	const gone = await until(() => daemons().length === 0, /not looked for|still run/.test(said) ? 0 : 15000);
	note("hostile.ready", `daemon: started ${seen ? "yes" : "no"}, after Esc ${gone ? "none lives" : `${daemons().length} live`}; the answer: ${said.slice(0, 300)}`);
}

note("hostile.ready", "ready");

// ------------------------------------------------------------ the flood


/** One docker_curl, timed; a call past twice its timeout and 5 s is given up. */
async function curl(what) {
	const t0 = Date.now();
	let timer;
	const held = new Promise((r) => {
		timer = setTimeout(() => r({ held: true }), (TO * 2 + 5) * 1000);
	});
	const r = await Promise.race([call("docker_curl", { url: `http://127.0.0.1:${hp}/cgi-bin/${what}`, timeoutSec: TO }), held]);
	clearTimeout(timer);
	const s = ((Date.now() - t0) / 1000).toFixed(3);
	const outcome = r.held ? "held" : r.error ? "threw" : "answered";
	const why = r.error ? r.error.message.split("\n")[0] : "";
	note("log/curl", `${what} ${s} ${TO} ${outcome} ${r.result?.details?.status ?? "-"} ${now()} ${why}`);
	return r;
}

for (let i = 0; ; i++) {
	await call("docker_ps");
	// at once: the machine is slow, a round of two must fit in the soak
	const [f, d] = await Promise.all([curl("flood"), curl("drip")]);
	if (f.error && d.error) hp = hostPort() || hp;
	if (i % 3 === 2) sync();
}
