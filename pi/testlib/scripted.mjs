// A scripted model for `pi -p --mode json`: an HTTP server on 127.0.0.1
// that speaks OpenAI chat completions (SSE chunks) and answers each turn
// with the next tool call of a fixed script, then a final message; and
// the extension that registers it as pi's provider "scripted".
import { writeFileSync } from "node:fs";
import http from "node:http";

export const MODEL = "scripted-1";

/** The extension file (plain JS, so both pi flavours load it as it is). */
export function writeProviderExtension(path) {
	writeFileSync(
		path,
		`export default function (pi) {
	pi.registerProvider("scripted", {
		name: "Scripted test model",
		baseUrl: process.env.SCRIPTED_BASE_URL,
		apiKey: "SCRIPTED_API_KEY",
		api: "openai-completions",
		models: [{ id: "${MODEL}", name: "Scripted", reasoning: false, input: ["text"],
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 4096 }],
	});
}
`,
	);
}

function chunk(delta, finish) {
	return `data: ${JSON.stringify({ id: "scripted", object: "chat.completion.chunk", created: 1, model: MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

/**
 * Serve the script: steps[i](results) gives the i-th tool call as
 * { name, args }, where results are the texts of the tool results so far
 * (so a step can use what an earlier one answered); past the last step,
 * the final message.  Resolves to { url, requests, close }.
 */
export function scriptedModel(steps, final = "done") {
	const requests = [];
	const server = http.createServer((req, res) => {
		let body = "";
		req.on("data", (b) => {
			body += b;
		});
		req.on("end", () => {
			let msgs = [];
			try {
				msgs = JSON.parse(body).messages ?? [];
			} catch {
				/* answered as turn 0 */
			}
			requests.push({ path: req.url, messages: msgs.length });
			const results = msgs.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : (m.content ?? []).map((c) => c.text ?? "").join("\n")));
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
			const i = results.length;
			if (i < steps.length) {
				const { name, args } = steps[i](results);
				const call = { index: 0, id: `call_${i}`, type: "function", function: { name, arguments: JSON.stringify(args) } };
				res.write(chunk({ role: "assistant", content: null, tool_calls: [call] }, null));
				res.write(chunk({}, "tool_calls"));
			} else {
				res.write(chunk({ role: "assistant", content: final }, null));
				res.write(chunk({}, "stop"));
			}
			res.end("data: [DONE]\n\n");
		});
	});
	return new Promise((resolve) => {
		server.listen(0, "127.0.0.1", () => {
			const url = `http://127.0.0.1:${server.address().port}/v1`;
			resolve({ url, requests, close: () => new Promise((r) => server.close(r)) });
		});
	});
}
