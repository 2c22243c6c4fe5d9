import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Where Copilot keeps a session's files: `$COPILOT_HOME/session-state/<id>/`
 * (`COPILOT_HOME` defaults to `$HOME/.copilot`; the hook inherits Copilot's
 * environment). `agentStop` names the transcript in it; `userPromptSubmitted`
 * names nothing, so the hook finds it here. Null for an id that is not one
 * path segment.
 */
export function copilotTranscriptPath(
  sessionId: string,
  env: Record<string, string | undefined>,
): string | null {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(sessionId)) return null;
  const home = env.COPILOT_HOME || join(env.HOME || homedir(), ".copilot");
  return join(home, "session-state", sessionId, "events.jsonl");
}
