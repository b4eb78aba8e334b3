/*
 * The extension hosted outside pi: its factory runs against an API that
 * keeps what it registers (the tools, the /docker command, the session's
 * handlers), so the MCP server offers the very definitions pi is given,
 * guards included, and fires the session's events as pi does.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import sbxTools from "../../index.ts";

export type ToolDef = Parameters<ExtensionAPI["registerTool"]>[0];
type CommandDef = Parameters<ExtensionAPI["registerCommand"]>[1];
type Handler = (event: Record<string, unknown>, ctx: ExtensionContext) => unknown;

/** What pi would show the user, and how badly. */
export type Notify = (text: string, level: "info" | "warning" | "error") => void;

export interface Hosted {
	/** in the order the extension registers them, as pi lists them */
	tools: ToolDef[];
	/** the context a tool or handler is given: the session's directory, notices to the client */
	context(cwd: string, notify: Notify): ExtensionContext;
	/** fire an event at the extension's handlers, one after the other, as pi does */
	emit(type: string, event: Record<string, unknown>, ctx: ExtensionContext): Promise<void>;
	/** run a command as the user typing /NAME ARGS would */
	command(name: string, args: string, ctx: ExtensionContext): Promise<void>;
}

/** Whatever else the extension asks of its host is a no-op here: it runs without pi's UI. */
function lenient<T extends object>(known: T): T {
	return new Proxy(known, {
		get: (t, k) => (k in t ? t[k as keyof T] : () => undefined),
	});
}

/** A message pi would put in the session for the user: its text. */
function said(content: string | { type: string; text?: string }[]): string {
	return typeof content === "string" ? content : content.map((c) => c.text ?? `[${c.type}]`).join("\n");
}

export function hostExtension(): Hosted {
	const tools: ToolDef[] = [];
	const commands = new Map<string, CommandDef>();
	const handlers = new Map<string, Handler[]>();
	// the session's notices go where its context's do
	let notice: Notify = () => {};
	const api = lenient({
		registerTool: (def: ToolDef) => void tools.push(def),
		registerCommand: (name: string, def: CommandDef) => void commands.set(name, def),
		on: (type: string, h: Handler) => void handlers.set(type, [...(handlers.get(type) ?? []), h]),
		sendMessage: (m: { content: string | { type: string; text?: string }[] }) => notice(said(m.content), "info"),
	});
	sbxTools(api as unknown as ExtensionAPI);
	return {
		tools,
		context(cwd, notify) {
			notice = notify;
			const ui = lenient({
				notify: (text: string, level?: "info" | "warning" | "error") => notify(text, level ?? "info"),
			});
			return lenient({ cwd, hasUI: true, ui }) as unknown as ExtensionContext;
		},
		async emit(type, event, ctx) {
			for (const h of handlers.get(type) ?? []) await h({ type, ...event }, ctx);
		},
		async command(name, args, ctx) {
			await commands.get(name)?.handler(args, ctx as Parameters<CommandDef["handler"]>[1]);
		},
	};
}
