import type { HookIo } from "./process.js";

/** One host's hook: its arguments (after the host name) and io in, the exit code out. */
export type HookRunner = (argv: readonly string[], io: HookIo) => Promise<number>;

/**
 * Every host that answers per-event hook processes, loaded on demand so that
 * `hook <host>` loads that host's hook and nothing else. A new host adds one
 * line here; the CLI's `hook` command and the fast start in `cli/main` both
 * read this table.
 */
export const HOOK_RUNNERS: Readonly<Record<string, () => Promise<HookRunner>>> = {
  "claude-code": async () => (await import("../claude-code/hook.js")).runClaudeCodeHook,
  codex: async () => (await import("../codex/hook.js")).runCodexHook,
  copilot: async () => (await import("../copilot/hook.js")).runCopilotHook,
  gemini: async () => (await import("../gemini/hook.js")).runGeminiHook,
  qwen: async () => (await import("../qwen/hook.js")).runQwenHook,
};

/** The runner for `host`, or null when no host of that name has hooks. */
export async function loadHookRunner(host: string | undefined): Promise<HookRunner | null> {
  if (host === undefined || !Object.hasOwn(HOOK_RUNNERS, host)) return null;
  const load = HOOK_RUNNERS[host];
  return load === undefined ? null : load();
}
