import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hookServerEnv } from "./hook-server-setup.js";

/**
 * Older releases (2.1.75) fetch a plugin blocklist from GitHub unless their cached copy is under
 * an hour old, whatever CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC says: gives `configDir` (a
 * `CLAUDE_CONFIG_DIR`, `~/.claude` by default) one.
 */
export function seedPluginBlocklist(configDir: string): void {
  mkdirSync(join(configDir, "plugins"), { recursive: true });
  writeFileSync(
    join(configDir, "plugins", "blocklist.json"),
    JSON.stringify({ fetchedAt: new Date().toISOString(), plugins: [] }),
  );
}
/**
 * Which todo tools the model gets. 2.1.332 offers neither by default:
 * `CLAUDE_CODE_ENABLE_TODO_TOOLS=1` brings the Task tools back, and with
 * `CLAUDE_CODE_ENABLE_TASKS=false` the older TodoWrite instead.
 */
export type ToolGeneration = "todo-write" | "tasks";

/**
 * The environment of a Claude Code process under test (the CLI, or the one
 * the Agent SDK starts): offline, a temp HOME, the scripted model server,
 * the chosen todo tools, and every other outbound request into the trap.
 */
export function claudeOfflineEnv(options: {
  home: string;
  /** The scripted model server's URL. */
  modelUrl: string;
  /** The trap's URL (see `startTrap`). */
  trapUrl: string;
  tools: ToolGeneration;
}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...hookServerEnv(),
    HOME: options.home,
    ANTHROPIC_BASE_URL: options.modelUrl,
    ANTHROPIC_API_KEY: "sk-ant-test-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    IS_SANDBOX: "1",
    HTTP_PROXY: options.trapUrl,
    HTTPS_PROXY: options.trapUrl,
    http_proxy: options.trapUrl,
    https_proxy: options.trapUrl,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    CLAUDE_CODE_ENABLE_TODO_TOOLS: "1",
    ENABLE_TOOL_SEARCH: "false",
    ...(options.tools === "todo-write" ? { CLAUDE_CODE_ENABLE_TASKS: "false" } : {}),
  };
}
