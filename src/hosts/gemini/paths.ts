import { homedir } from "node:os";
import { join } from "node:path";

/** Gemini CLI's user folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export function geminiUserDir(env: Record<string, string | undefined>): string {
  const home = env.GEMINI_CLI_HOME?.trim() || env.HOME?.trim() || homedir();
  return join(home, ".gemini");
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
