/*
 * docker_curl's one request, to a pair the sandbox publishes, bounded as
 * a whole in time (a byte a second would hold an idle timeout for ever)
 * and in size.
 */
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { str } from "../text.ts";

/** The most of a body that is read; the rest is never taken off the socket. */
export const BODY_CAP = 8 * 1024 * 1024;

export interface Request {
	url: URL;
	/** the published address and port to connect to (never a name resolved later) */
	ip: string;
	port: number;
	method: string;
	headers: Record<string, string>;
	body?: string;
	signal?: AbortSignal;
	deadline: number;
	seconds: number;
}

export interface Response {
	status: number;
	statusText: string;
	ct: string;
	location: string;
	text: string;
	/** the body was longer than BODY_CAP and was cut there */
	cut: boolean;
}

export function timedOut(seconds: number): string {
	return `timed out after ${seconds} s (timeoutSec bounds the whole call)`;
}

export function request(q: Request): Promise<Response> {
	const u = q.url;
	const lib = u.protocol === "https:" ? https : http;
	const shown = `docker_curl: ${q.method} ${u.protocol}//${u.hostname}:${q.port}${u.pathname}`;
	return new Promise<Response>((resolve, reject) => {
		let settled = false;
		const settle = (f: () => void): void => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			f();
		};
		const req = lib.request(
			{
				host: q.ip,
				port: q.port,
				family: isIP(q.ip),
				method: q.method,
				path: `${u.pathname}${u.search}`,
				headers: { ...q.headers, host: `${u.hostname}:${q.port}` },
				signal: q.signal,
				...(u.protocol === "https:" ? { rejectUnauthorized: false, servername: u.hostname === "localhost" ? "localhost" : undefined } : {}),
			},
			(resp) => {
				const chunks: Buffer[] = [];
				let size = 0;
				const done = (cut: boolean) =>
					settle(() =>
						resolve({
							status: resp.statusCode ?? 0,
							statusText: resp.statusMessage ?? "",
							ct: str(resp.headers["content-type"]),
							location: str(resp.headers.location),
							text: Buffer.concat(chunks).toString("utf8"),
							cut,
						}),
					);
				resp.on("data", (b: Buffer) => {
					const room = BODY_CAP - size;
					chunks.push(b.length > room ? b.subarray(0, room) : b);
					size += Math.min(b.length, room);
					if (size < BODY_CAP) return;
					done(true);
					req.destroy();
				});
				resp.on("end", () => done(false));
				resp.on("error", (e) => settle(() => reject(new Error(`${shown}: ${e.message}`))));
			},
		);
		const timer = setTimeout(() => req.destroy(new Error(timedOut(q.seconds))), Math.max(0, q.deadline - Date.now()));
		req.on("error", (e) => settle(() => reject(new Error(`${shown}: ${e.message}`))));
		if (q.body !== undefined) req.end(q.body);
		else req.end();
	});
}
