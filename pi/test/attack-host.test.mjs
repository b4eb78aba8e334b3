// The agent's tools under attack, on the host side (issue 13, findings
// 1 to 3): no write through a link, no workspace sbx-run would refuse, no
// host service the sandbox never published.  Through pi's loader with
// pi's own argument validation; the programs are stubs that log their
// argv (testlib/stubs.mjs), except where sbx-run's own words are compared.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { FLAVOUR, TOP, loadExtension, need, piMissing, programsMissing, simMissing } from "../testlib/harness.mjs";
import { stubbedFile } from "../testlib/stubs.mjs";

const noPi = piMissing();
const { w, pi, stubs } = await stubbedFile();
let outside; // a directory beside the workspace: nothing may be written there

before(() => {
	outside = mkdtempSync(join(tmpdir(), "pio-"));
});
after(() => {
	if (outside) rmSync(outside, { recursive: true, force: true });
});

/** A fresh directory of the workspace for one case. */
function dir(name) {
	const d = join(w.ws, name);
	mkdirSync(d, { recursive: true });
	return d;
}

// ---- finding 1: docker_init writes through symbolic links ----

test(`[${FLAVOUR}] link class (finding 1): a Dockerfile link out of the workspace, dangling or not, is never written through, force or not`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const d = dir("f1-dangling");
	const target = join(outside, "planted-Dockerfile");
	symlinkSync(target, join(d, "Dockerfile"));
	const r = await pi.call("docker_init", { context: "f1-dangling", lang: "generic" });
	assert.match(r.text, /already exists \(pass force=true/, "a dangling link counts as there");
	assert.equal(existsSync(target), false, "nothing created through the dangling link");
	await assert.rejects(pi.call("docker_init", { context: "f1-dangling", lang: "generic", force: true }), /Dockerfile is a symbolic link; not writing through it/);
	assert.equal(existsSync(target), false, "force: nothing created through the dangling link");
	assert.equal(existsSync(join(d, ".dockerignore")), false, "nothing else written after the refusal");

	const e = dir("f1-existing");
	const victim = join(outside, "victim");
	writeFileSync(victim, "host file\n");
	symlinkSync(victim, join(e, "Dockerfile"));
	await assert.rejects(pi.call("docker_init", { context: "f1-existing", lang: "generic", force: true }), /symbolic link/);
	assert.equal(readFileSync(victim, "utf8"), "host file\n");
	assert.ok(lstatSync(join(e, "Dockerfile")).isSymbolicLink(), "the link itself is left alone");
});

test(`[${FLAVOUR}] link class (finding 1): .dockerignore and compose.yaml links, dangling or not, are not written through`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const d = dir("f1-others");
	const ign = join(outside, "planted-dockerignore");
	const cmp = join(outside, "planted-compose");
	symlinkSync(ign, join(d, ".dockerignore"));
	symlinkSync(cmp, join(d, "compose.yaml"));
	const r = await pi.call("docker_init", { context: "f1-others", lang: "generic", compose: true });
	assert.match(r.text, /files written: Dockerfile$/m, r.text);
	assert.equal(existsSync(ign), false);
	assert.equal(existsSync(cmp), false);
	assert.ok(statSync(join(d, "Dockerfile")).isFile());
	// the other compose names too: a dangling compose.yml stops compose.yaml from being made beside it
	const c = dir("f1-compose-yml");
	symlinkSync(join(outside, "planted-yml"), join(c, "docker-compose.yml"));
	const r2 = await pi.call("docker_init", { context: "f1-compose-yml", lang: "generic", compose: true });
	assert.doesNotMatch(r2.text, /compose\.yaml/);
	assert.equal(existsSync(join(outside, "planted-yml")), false);
});

test(`[${FLAVOUR}] link class (finding 1): force replaces a regular file only, and a hard link's other name keeps its content`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const d = dir("f1-force");
	writeFileSync(join(d, "Dockerfile"), "FROM old\n", { mode: 0o640 });
	const r = await pi.call("docker_init", { context: "f1-force", lang: "generic", force: true });
	assert.match(r.text, /overwrote Dockerfile/);
	assert.match(readFileSync(join(d, "Dockerfile"), "utf8"), /^FROM alpine/);
	assert.equal(statSync(join(d, "Dockerfile")).mode & 0o777, 0o640, "the mode is kept");

	const dd = dir("f1-dir");
	mkdirSync(join(dd, "Dockerfile"));
	await assert.rejects(pi.call("docker_init", { context: "f1-dir", lang: "generic", force: true }), /Dockerfile is not a regular file; not replacing it/);

	const h = dir("f1-hard");
	const other = join(outside, "hard-victim");
	writeFileSync(other, "host file\n");
	linkSync(other, join(h, "Dockerfile"));
	await pi.call("docker_init", { context: "f1-hard", lang: "generic", force: true });
	assert.equal(readFileSync(other, "utf8"), "host file\n", "the entry was replaced, not the file written through");
	assert.match(readFileSync(join(h, "Dockerfile"), "utf8"), /^FROM alpine/);
	// no temporary file left beside it
	assert.deepEqual(spawnSync("ls", ["-A", h], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).sort(), [".dockerignore", "Dockerfile"]);
});

test(`[${FLAVOUR}] link class (finding 1): a link at an inner component of the init context`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	mkdirSync(join(outside, "proj"), { recursive: true });
	symlinkSync(outside, join(w.ws, "f1-inner"));
	symlinkSync(join(outside, "gone"), join(w.ws, "f1-inner-dangling"));
	for (const context of ["f1-inner/proj", "/workspace/f1-inner/proj", "f1-inner-dangling/proj", `${w.ws}/f1-inner/proj`]) {
		await assert.rejects(pi.call("docker_init", { context, lang: "generic", force: true }), /escapes the workspace|cannot be resolved/, context);
	}
	assert.equal(existsSync(join(outside, "proj", "Dockerfile")), false);
	assert.equal(existsSync(join(outside, "gone")), false);
	// a link that stays inside is followed: the files land in its target
	const real = dir("f1-real");
	symlinkSync("f1-real", join(w.ws, "f1-alias"));
	const r = await pi.call("docker_init", { context: "f1-alias", lang: "generic" });
	assert.ok(r.text.includes(`scaffolded "generic" in ${real}`), r.text);
	assert.ok(statSync(join(real, "Dockerfile")).isFile());
});

// ---- finding 2: the workspace rule, in pi too ----

const ONLY_HOST = [
	["docker_init", { context: ".", lang: "generic", force: true }],
	["docker_init", { context: ".ssh", lang: "generic", force: true }],
	["docker_build", { context: ".", tag: "t:1" }],
	["docker_compose", { action: "ps" }],
	["docker_run", { image: "busybox:local", volumes: ["./.ssh:/k"] }],
];

/** Load pi with this working directory, as when pi is started there. */
async function piIn(cwd) {
	const back = process.cwd();
	process.chdir(cwd);
	try {
		return await loadExtension(cwd);
	} finally {
		process.chdir(back);
	}
}

async function refusedEverywhere(where, re) {
	const p = await piIn(where);
	try {
		stubs.reset();
		for (const [name, args] of ONLY_HOST) await assert.rejects(p.call(name, args), re, `${name} ${JSON.stringify(args)} in ${where}`);
		assert.deepEqual(stubs.calls().filter((c) => c[0] === "sbx-run"), [], "nothing ran");
	} finally {
		p.cleanupAgentDir();
	}
}

const RULE = /is \/, a home directory or above one, or holds the state directory; refusing to mount it/;

test(`[${FLAVOUR}] workspace rule (finding 2): pi started in $HOME writes nothing into ~/.ssh, and no tool takes a path there`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const ssh = join(w.home, ".ssh");
	mkdirSync(ssh, { recursive: true, mode: 0o700 });
	writeFileSync(join(ssh, "id_ed25519"), "secret\n");
	await refusedEverywhere(w.home, RULE);
	assert.equal(existsSync(join(ssh, "Dockerfile")), false);
	assert.equal(existsSync(join(ssh, ".dockerignore")), false);
	assert.equal(existsSync(join(w.home, "Dockerfile")), false);
});

test(`[${FLAVOUR}] workspace rule (finding 2): /, the home's parent, the account's home and a home reached through a link are refused by identity`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	await refusedEverywhere("/", RULE);
	await refusedEverywhere(dirname(w.home), RULE);
	const account = userInfo().homedir;
	if (account && existsSync(account) && account !== "/") await refusedEverywhere(account, RULE);
	// HOME spelled through a link: the identity is the same directory
	const saved = process.env.HOME;
	const alias = join(w.base, "home-alias");
	symlinkSync(w.home, alias);
	process.env.HOME = alias;
	try {
		await refusedEverywhere(w.home, RULE);
	} finally {
		process.env.HOME = saved;
	}
	// a directory below the home is a workspace like any other
	const r = await (await piIn(w.ws)).call("docker_init", { context: ".", lang: "generic" });
	assert.match(r.text, /scaffolded "generic"/);
});

test(`[${FLAVOUR}] workspace rule (finding 2): a workspace holding the state directory is refused`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const saved = process.env.SBX_STATE_DIR;
	process.env.SBX_STATE_DIR = join(w.ws, ".state", "sbx-tools");
	try {
		await assert.rejects(pi.call("docker_init", { context: "f2-state", lang: "generic" }), /holds the state directory/);
		await assert.rejects(pi.call("docker_build", { context: ".", tag: "t:1" }), /holds the state directory/);
	} finally {
		process.env.SBX_STATE_DIR = saved;
	}
});

test(`[${FLAVOUR}] workspace rule (finding 2): the message is sbx-run's own`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	if (!need(t, [...programsMissing(["sbx-run"]), ...simMissing()], "sbx-run and the simulator")) return;
	// sbx-run refuses the workspace at provisioning, before anything is created
	const r = spawnSync(join(TOP, "sbx-run", "sbx-run"), ["-s", "pi-sbx-1-abcdefgh", "-w", w.home, "--", "version"], {
		encoding: "utf8",
		env: { ...process.env, DOCKER_SANDBOX_BIN: "" },
	});
	assert.notEqual(r.status, 0);
	const theirs = /^sbx-run: (workspace .*)$/m.exec(r.stderr)?.[1];
	assert.ok(theirs, r.stderr);
	const p = await piIn(w.home);
	try {
		await assert.rejects(p.call("docker_init", { lang: "generic" }), (e) => e.message === `docker: ${theirs}`);
	} finally {
		p.cleanupAgentDir();
	}
});

// ---- finding 3: docker_curl to a host service the sandbox never published ----

/** An HTTP server on ip:port that says who it is; resolves to it, or undefined when the address cannot be bound. */
function serve(ip, port, handler) {
	return new Promise((resolve) => {
		const srv = http.createServer(handler ?? ((req, res) => res.end(`server ${ip}:${srv.address().port}\n`)));
		srv.once("error", () => resolve(undefined));
		srv.listen(port, ip, () => resolve(srv));
	});
}

test(`[${FLAVOUR}] published-pair class (finding 3): docker_curl reaches only an address and port pair of the listing`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	// the sandbox's service on 127.0.0.1:P; host services on the same port at other addresses, and on 127.0.0.1:Q
	let pub;
	let others;
	for (let i = 0; i < 20 && !others; i++) {
		pub = await serve("127.0.0.1", 0, (req, res) => {
			if (req.url === "/redir") {
				res.writeHead(302, { location: `http://127.0.0.1:${others.q.address().port}/` });
				return res.end();
			}
			res.end(`server 127.0.0.1:${pub.address().port} (published)\n`);
		});
		const P = pub.address().port;
		const v6 = await serve("::1", P);
		const alt = await serve("127.0.0.2", P);
		const q = await serve("127.0.0.1", 0);
		if (alt && q) others = { v6, alt, q };
		else for (const s of [pub, v6, alt, q]) s?.close();
	}
	assert.ok(others, "could not bind the host services");
	const P = pub.address().port;
	const Q = others.q.address().port;
	stubs.setPorts([{ ip: "127.0.0.1", port: P }]);
	try {
		const refused = [
			`http://[::1]:${P}/`,
			`http://[0:0:0:0:0:0:0:1]:${P}/`,
			`http://127.0.0.2:${P}/`,
			`http://127.255.255.254:${P}/`,
			`http://[::ffff:127.0.0.1]:${P}/`,
			`http://localhost.:${P}/`,
			`http://127.0.0.1:${P}@127.0.0.2:${P}/`,
			`http://127.0.0.1:${P}@evil.example/`,
			`http://user@127.0.0.1:${P}/`,
			`http://127.0.0.1:${Q}/`,
			`http://127.0.0.1:0${Q}/`,
			`http://localhost:${Q}/`,
			`http://0.0.0.0:${P}/`,
		];
		for (const url of refused) {
			await assert.rejects(pi.call("docker_curl", { url }), /docker_curl: (only 127\.0\.0\.1|port \d+ is not published|a URL with user information)/, url);
		}
		// other spellings of the published pair reach it, and only it
		const same = [`http://127.0.0.1:${P}/`, `http://0x7f.1:${P}/`, `http://2130706433:${P}/`, `http://127.1:${P}/`, `http://0177.0.0.1:${P}/`, `http://localhost:${P}/`, `http://LOCALHOST:${P}/`, `http://127.0.0.1:000${P}/`, `HTTP://127.0.0.1:${P}`];
		for (const url of same) {
			const r = await pi.call("docker_curl", { url });
			assert.match(r.text, new RegExp(`^HTTP 200 [\\s\\S]*server 127\\.0\\.0\\.1:${P} \\(published\\)`), url);
		}
		// a redirect to another pair is shown, not followed
		const red = await pi.call("docker_curl", { url: `http://127.0.0.1:${P}/redir` });
		assert.match(red.text, /^HTTP 302 /);
		assert.match(red.text, new RegExp(`location: http://127\\.0\\.0\\.1:${Q}/ \\(not followed`));
		assert.doesNotMatch(red.text, new RegExp(`server 127\\.0\\.0\\.1:${Q}`));
	} finally {
		for (const s of [pub, ...Object.values(others)]) s?.close();
	}
});

test(`[${FLAVOUR}] published-pair class (finding 3): localhost maps to the listed pair, IPv6 included, or is refused`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const v6 = await serve("::1", 0);
	if (!need(t, v6 ? [] : ["an IPv6 loopback"], "[::1]")) return;
	const P = v6.address().port;
	const v4 = await serve("127.0.0.1", P); // a host service on the IPv4 side of the same port
	try {
		stubs.setPorts([{ ip: "::1", port: P }]);
		for (const url of [`http://localhost:${P}/`, `http://[::1]:${P}/`, `http://[0::1]:${P}/`, "http://localhost/"]) {
			const r = await pi.call("docker_curl", { url });
			assert.match(r.text, new RegExp(`server ::1:${P}`), url);
		}
		if (v4) await assert.rejects(pi.call("docker_curl", { url: `http://127.0.0.1:${P}/` }), /port \d+ is not published/);
		stubs.setPorts([]);
		await assert.rejects(pi.call("docker_curl", { url: `http://localhost:${P}/` }), /port \d+ is not published by this sandbox at localhost\. Published: none/);
		await assert.rejects(pi.call("docker_curl", { url: "http://localhost/" }), /not published/);
		// only tcp pairs count
		stubs.setPorts([{ ip: "127.0.0.1", port: P, proto: "udp" }]);
		await assert.rejects(pi.call("docker_curl", { url: `http://127.0.0.1:${P}/` }), /not published/);
	} finally {
		v6.close();
		v4?.close();
	}
});
