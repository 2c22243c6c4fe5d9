import type { CommandSpec } from "../command.js";
import { storeTarget } from "../global-options.js";

export const mcpCommand: CommandSpec = {
  name: "mcp",
  summary: "Serve the todo tools to an MCP client on stdio",
  usage: ["mcp [--scope <key> | --session <id> [--host <name>]] [--dialect <name>]"],
  details: [
    "Runs until the client closes stdin; stdout carries only the protocol. Run `mcp --help` for",
    "its options. With --database-url (or TODO_CONTINUATION_DATABASE_URL) it serves PostgreSQL.",
  ],
  args: { min: 0, max: Number.MAX_SAFE_INTEGER },
  passthrough: true,
  async run(ctx) {
    const { runMcpServer } = await import("./mcp.js");
    const argv = [...ctx.positionals];
    // Global options given before `mcp` reach it as if given after.
    if (ctx.global.preset !== undefined) argv.push("--preset", ctx.global.preset);
    const target = storeTarget(ctx.global, ctx.io.env);
    if (
      target.kind === "postgres" &&
      !argv.includes("--dir") &&
      !argv.some((a) => a.startsWith("--dir="))
    ) {
      return runMcpServer({ argv, store: await ctx.store() });
    }
    if (ctx.global.dir !== undefined) argv.push("--dir", ctx.global.dir);
    return runMcpServer({ argv });
  },
};
