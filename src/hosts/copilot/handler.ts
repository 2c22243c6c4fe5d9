import { ContinuationRuntime } from "../../runtime/runtime.js";
import { type HookContext, NO_REPLY } from "../hook-kit/main.js";
import { isNotedNudge, noteNudge } from "../hook-kit/nudge-note.js";
import type { HookReply } from "../hook-kit/process.js";
import { blockDecision, describeIdle, sessionScopeOf } from "../hook-kit/reply.js";
import { type CopilotEvent, CopilotInputError } from "./payload.js";
import { readCopilotTodos } from "./todos.js";

/** The host name in scope keys: `session/copilot.<session id>`. */
export const HOST = "copilot";

/** One Copilot hook event; errors propagate (the caller allows the stop). */
export async function handleCopilotEvent(
  event: CopilotEvent,
  options: Pick<HookContext, "store" | "preset" | "storeRoot"> & { projectDir?: string },
): Promise<HookReply> {
  const scope = sessionScopeOf(HOST, event.sessionId, CopilotInputError);
  const runtime = new ContinuationRuntime({
    store: options.store,
    ...(options.preset !== undefined ? { preset: options.preset } : {}),
    ...(options.projectDir !== undefined ? { projectDir: options.projectDir } : {}),
  });
  if (event.kind === "userPromptSubmitted") {
    // Copilot hands a block's reason back as a userPromptSubmitted: that one is not the user's.
    const ours = await isNotedNudge(options.storeRoot, HOST, event.sessionId, event.prompt);
    await runtime.turnStarted(scope, { real: !ours });
    return NO_REPLY;
  }
  if (event.transcriptPath === null) {
    return {
      stdout: "",
      stderr: ["todo-continuation: agentStop without transcriptPath; no nudge"],
    };
  }
  const todos = readCopilotTodos(event.transcriptPath);
  const stored = await options.store.read(scope);
  // A session that never had a list leaves nothing behind.
  if (todos.length > 0 || stored.todos.todos.length > 0) await runtime.setTodos(scope, todos);
  let stdout = "";
  const result = await runtime.runIdle(scope, {
    trigger: "stop-hook",
    outcome: { stopReason: "stop" },
    deliver: async (nudge) => {
      await noteNudge(options.storeRoot, HOST, event.sessionId, nudge.text);
      stdout = blockDecision(nudge.text);
    },
  });
  return { stdout, stderr: [`todo-continuation: ${describeIdle(result)}`] };
}
