// ports.ts reads sbx-ports -j in the one schema sbx-ports(1) documents
// (JSON OUTPUT): the spellings an older reader guessed at are errors now,
// and a container's URLs are the mappings sync names it in.  The programs
// are stand-ins (testlib/stubs.mjs); the extension is loaded through pi.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { FLAVOUR, need, piMissing } from "../testlib/harness.mjs";
import { stubbedFile } from "../testlib/stubs.mjs";

const noPi = piMissing();
const { pi, stubs } = await stubbedFile();

const GOOD = { url: "http://127.0.0.1:18080/", host_ip: "127.0.0.1", host_port: 18080, sandbox_port: 8080, protocol: "tcp" };

/** The lines sbx-ports prints for ls and sync. */
function ports(...lines) {
	writeFileSync(join(stubs.dir, "ports"), lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n");
}

test(`[${FLAVOUR}] ports schema: the documented line is read`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	ports(GOOD, { ...GOOD, host_ip: "::1", url: "http://[::1]:18080/", loopback: false, ephemeral: true, reason: "host port taken" });
	stubs.setRunOutput("{}\n");
	const r = await pi.call("docker_status");
	assert.match(r.text, /host ports: http:\/\/127\.0\.0\.1:18080\/ -> sandbox port 8080\/tcp \(also on ::1\)/);
});

test(`[${FLAVOUR}] ports schema: the family sbx lists is read and shown, tcp4 and tcp6 of one host port folded`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	ports({ ...GOOD, protocol: "tcp4" }, { ...GOOD, host_ip: "::1", url: "http://[::1]:18080/", protocol: "tcp6" }, { url: "udp://127.0.0.1:5353", host_ip: "127.0.0.1", host_port: 5353, sandbox_port: 53, protocol: "udp4" });
	stubs.setRunOutput("{}\n");
	const r = await pi.call("docker_status");
	assert.match(r.text, /host ports: http:\/\/127\.0\.0\.1:18080\/ -> sandbox port 8080\/tcp4 \(also on ::1\)/);
	assert.match(r.text, /udp:\/\/127\.0\.0\.1:5353 -> sandbox port 53\/udp4/);
});

test(`[${FLAVOUR}] ports schema class: other spellings, missing members, wrong types and other shapes are errors, not guesses`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const { url, host_port, sandbox_port, protocol, host_ip } = GOOD;
	const bad = {
		"unknown member \"hostPort\"": { url, host_ip, hostPort: host_port, sandbox_port, protocol },
		"unknown member \"HostPort\"": { url, host_ip, HostPort: host_port, sandbox_port, protocol },
		"unknown member \"host\"": { url, host_ip, host: host_port, sandbox_port, protocol },
		"unknown member \"vm_port\"": { url, host_ip, host_port, vm_port: sandbox_port, protocol },
		"unknown member \"sandboxPort\"": { url, host_ip, host_port, sandboxPort: sandbox_port, protocol },
		"unknown member \"proto\"": { url, host_ip, host_port, sandbox_port, proto: protocol },
		"unknown member \"ip\"": { url, ip: host_ip, host_port, sandbox_port, protocol },
		"unknown member \"URL\"": { URL: url, host_ip, host_port, sandbox_port, protocol },
		'no "url"': { host_ip, host_port, sandbox_port, protocol },
		'no "protocol"': { url, host_ip, host_port, sandbox_port },
		'"host_port" is not a port': { ...GOOD, host_port: "18080" },
		'"sandbox_port" is not a port': { ...GOOD, sandbox_port: 70000 },
		'"ephemeral" is not a boolean': { ...GOOD, ephemeral: "true" },
		'"container" is not a string': { ...GOOD, container_id: "abc", container: ["web"] },
		'"protocol" is not tcp, tcp4, tcp6, udp, udp4 or udp6': { ...GOOD, protocol: "TCP" },
		'"protocol" is not tcp, tcp4, tcp6, udp, udp4 or udp6 ': { ...GOOD, protocol: "tcp5" },
		"not an object": [GOOD],
		"not JSON": "http://127.0.0.1:18080/ -> 8080/tcp",
	};
	for (const [why, line] of Object.entries(bad)) {
		ports(GOOD, line);
		await assert.rejects(pi.call("docker_curl", { url: "http://127.0.0.1:18080/" }), (e) => e.message.includes(`sbx-ports -j: ${why.trim()}`), why);
		const s = await pi.call("docker_status");
		assert.ok(s.text.includes(`host ports: unknown (sbx-ports -j: ${why.trim()}`), `${why}: ${s.text}`);
	}
});

test(`[${FLAVOUR}] ports schema: docker_run's URLs are the mappings sync names its container in, no other`, async (t) => {
	if (!need(t, noPi, "pi")) return;
	const cid = "abc123def4567890abc123def4567890abc123def4567890abc123def4567890";
	ports(
		{ ...GOOD, container_id: "abc123def456", container: "web" },
		{ url: "http://127.0.0.1:18081/", host_ip: "127.0.0.1", host_port: 18081, sandbox_port: 8081, protocol: "tcp", container_id: "fff123def456", container: "other" },
	);
	stubs.setRunOutput(`${cid}\n`);
	const r = await pi.call("docker_run", { image: "busybox:local", ports: ["8080:8000"], command: ["true"] });
	assert.deepEqual(r.result.details.urls, ["http://127.0.0.1:18080/"]);
	// docker_start with the name: the same mapping
	const s = await pi.call("docker_start", { id: "web" });
	assert.deepEqual(s.result.details.urls, ["http://127.0.0.1:18080/"]);
	const o = await pi.call("docker_start", { id: "fff123" });
	assert.deepEqual(o.result.details.urls, ["http://127.0.0.1:18081/"]);
	// no docker port call re-parses what sbx-ports already read
	assert.ok(!stubs.calls().some((c) => c[0] === "sbx-run" && c.includes("port")), JSON.stringify(stubs.calls()));
});
