// Bundle sbx-tools-mcp into one file that plain node runs (no type
// stripping before Node 22): the extension's sources, the MCP SDK, and of
// pi only its validator and its output cutters, so the package needs no
// dependency at install.  Run by prepack; the tests build their own copy.
// usage: node scripts/build-mcp.mjs [OUTFILE]
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const pi = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = resolve(process.argv[2] ?? join(pi, "dist", "sbx-tools-mcp.mjs"));

await build({
	absWorkingDir: pi,
	entryPoints: ["src/mcp/main.ts"],
	outfile,
	bundle: true,
	platform: "node",
	format: "esm",
	target: "node20",
	minify: true,
	legalComments: "none",
	logLevel: "warning",
	// the two pieces of pi the tools use, not pi itself (whose index loads all of it)
	alias: {
		"@mariozechner/pi-coding-agent": "./node_modules/@mariozechner/pi-coding-agent/dist/core/tools/truncate.js",
		"@mariozechner/pi-ai": "./node_modules/@mariozechner/pi-ai/dist/utils/validation.js",
	},
	banner: { js: '#!/usr/bin/env node\nimport { createRequire as sbxRequire } from "node:module";\nconst require = sbxRequire(import.meta.url);' },
});
