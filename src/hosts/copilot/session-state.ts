import { join } from "node:path";
import { hostUserDir } from "../hook-kit/user-dir.js";

/** Copilot's own folder: `$COPILOT_HOME`, else `~/.copilot` (the hook inherits Copilot's env). */
export const copilotHome = (env: Record<string, string | undefined>): string =>
  hostUserDir(env, "COPILOT_HOME", [".copilot"]);

/**
 * Where Copilot keeps a session's files: `<copilotHome>/session-state/<id>/`. `agentStop` names
 * the transcript in it; `userPromptSubmitted` names nothing, so the hook finds it here. Null for
 * an id that is not one path segment.
 */
export function copilotTranscriptPath(
  sessionId: string,
  env: Record<string, string | undefined>,
): string | null {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(sessionId)) return null;
  return join(copilotHome(env), "session-state", sessionId, "events.jsonl");
}
