import { join } from "node:path";
import { hostUserDir } from "../hook-kit/user-dir.js";

/** Gemini CLI's user folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export function geminiUserDir(env: Record<string, string | undefined>): string {
  return join(hostUserDir(env, "GEMINI_CLI_HOME", []), ".gemini");
}

export type GeminiTarget = "project" | "user";

export function geminiSettingsPath(
  target: GeminiTarget,
  project: string,
  env: Record<string, string | undefined>,
): string {
  return target === "user"
    ? join(geminiUserDir(env), "settings.json")
    : join(project, ".gemini", "settings.json");
}

export function trustedHooksPath(env: Record<string, string | undefined>): string {
  return join(geminiUserDir(env), "trusted_hooks.json");
}

export function trustedFoldersPath(env: Record<string, string | undefined>): string {
  const custom = env.GEMINI_CLI_TRUSTED_FOLDERS_PATH?.trim();
  return custom ? custom : join(geminiUserDir(env), "trustedFolders.json");
}
