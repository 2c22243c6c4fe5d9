import { hostUserDir } from "../hook-kit/user-dir.js";

/** Claude Code's user folder (settings, tasks): `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export const claudeConfigDir = (env: Record<string, string | undefined>): string =>
  hostUserDir(env, "CLAUDE_CONFIG_DIR", [".claude"]);
