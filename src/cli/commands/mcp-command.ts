import type { CommandSpec } from "../command.js";
import { forwardGlobals } from "./hook-command.js";

export const mcpCommand: CommandSpec = {
  name: "mcp",
  summary: "Serve the todo tools to an MCP client on stdio",
  usage: [
    "mcp [--scope <key> | --session <id> [--host <name>]] [--dialect <name>] [--dir <path> | --database-url <url>]",
  ],
  details: [
    "Runs until the client closes stdin; stdout carries only the protocol. Run `mcp --help` for",
    "its options. With --database-url (or TODO_CONTINUATION_DATABASE_URL) it serves PostgreSQL.",
    "Global options work before or after `mcp`.",
  ],
  args: { min: 0, max: Number.MAX_SAFE_INTEGER },
  passthrough: true,
  async run(ctx) {
    const { runMcpServer } = await import("./mcp.js");
    // Global options given before `mcp` reach it as if given after (flags after it win).
    const argv = [
      ...forwardGlobals(ctx.global, ["preset", "dir", "databaseUrl", "schema"]),
      ...ctx.positionals,
    ];
    return runMcpServer({ argv, env: ctx.io.env });
  },
};
