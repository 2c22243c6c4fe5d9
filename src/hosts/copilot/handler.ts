import { nudgeDigest } from "../../core/engine/state.js";
import type { Scope, ScopeSnapshot, Todo } from "../../core/types.js";
import type { ContinuationRuntime } from "../../runtime/runtime.js";
import { claimEvent } from "../hook-kit/event-claim.js";
import { type HookContext, NO_REPLY } from "../hook-kit/main.js";
import type { HookReply } from "../hook-kit/process.js";
import type { HookProject } from "../hook-kit/project.js";
import { blockDecision, sessionScopeOf } from "../hook-kit/reply.js";
import { endStop, hookRuntime } from "../hook-kit/stop.js";
import { type CopilotEvent, CopilotInputError } from "./payload.js";
import { copilotTranscriptPath } from "./session-state.js";
import { readCopilotTodos } from "./todos.js";

/** The host name in scope keys: `session/copilot.<session id>`. */
export const HOST = "copilot";

/**
 * Copilot ends a turn itself after 8 consecutive blocked `agentStop`s (measured on 1.0.102; a
 * user's prompt resets it): an episode nudges at most that many times, so our budget ends it and
 * the log says so.
 */
export const COPILOT_BLOCK_CAP = 8;

/** How the nudge tells the model to close an item: Copilot keeps its list in a table, not a tool. */
export const COPILOT_CLOSE_INSTRUCTION =
  "When an item is done and verified, set its status to 'done' in the session's todos table with the sql tool (UPDATE todos SET status = 'done' WHERE id = '<id>'); an item that cannot be done is set to 'blocked', with the reason in its description.";

type CopilotOptions = Pick<HookContext, "store" | "preset" | "storeRoot" | "env"> & {
  projectDir?: string;
  /** The project's config (the hook command's `--preset` and `--mode` folded in); read at a stop. */
  project?: () => HookProject;
};

function runtimeFor(options: CopilotOptions, project: HookProject | null): ContinuationRuntime {
  const host = { closeInstruction: COPILOT_CLOSE_INSTRUCTION, maxNudges: COPILOT_BLOCK_CAP };
  // Copilot hands a block's reason back as a userPromptSubmitted: the state keeps its digest.
  return hookRuntime(options, project, { ...host, echoesNudges: true });
}

/** One Copilot hook event; errors propagate (the caller allows the stop). */
export async function handleCopilotEvent(
  event: CopilotEvent,
  options: CopilotOptions,
): Promise<HookReply> {
  if (event.kind === "subagent") return NO_REPLY; // answered before the store opens
  const scope = sessionScopeOf(HOST, event.sessionId, CopilotInputError);
  // Ours in both hooks folders: Copilot runs both with one payload; the second run does nothing.
  const stamp = event.timestamp;
  if (stamp !== null && !claimEvent(options.storeRoot, HOST, event.sessionId, event.kind, stamp)) {
    const again = `todo-continuation: this ${event.kind} was handled by another copy of this hook (installed twice); nothing done`;
    return { stdout: "", stderr: [again] };
  }
  if (event.kind === "userPromptSubmitted") {
    const runtime = runtimeFor(options, null);
    // Copilot hands a block's reason back as a userPromptSubmitted: that one is not the user's.
    const stored = await options.store.read(scope);
    const ours = stored.state.nudgeDigest === nudgeDigest(event.prompt);
    // The user speaks to the list as it is now: a turn the user interrupted fired no agentStop,
    // so what it wrote to the list was never read, and the baseline would be an older list.
    const stderr = ours ? [] : await refreshTodos(event.sessionId, scope, stored, runtime, options);
    await runtime.turnStarted(scope, { real: !ours });
    return { stdout: "", stderr };
  }
  if (event.transcriptPath === null) {
    return {
      stdout: "",
      stderr: ["todo-continuation: agentStop without transcriptPath; no nudge"],
    };
  }
  let stdout = "";
  const runtime = (project: HookProject | null) => runtimeFor(options, project);
  const stderr = await endStop(runtime, scope, options.project?.() ?? null, {
    outcome: { stopReason: "stop" },
    // Stored with the decision, in its one write (the same list is not written again).
    todos: readCopilotTodos(event.transcriptPath),
    deliver: (nudge) => {
      stdout = blockDecision(nudge.text);
    },
  });
  return { stdout, stderr };
}

/** Stores the session's list as it is at a user's prompt; a list it cannot read keeps the stored one. */
async function refreshTodos(
  sessionId: string,
  scope: Scope,
  stored: ScopeSnapshot,
  runtime: ContinuationRuntime,
  options: Pick<HookContext, "env">,
): Promise<string[]> {
  const transcriptPath = copilotTranscriptPath(sessionId, options.env);
  if (transcriptPath === null) return [];
  let todos: Todo[];
  try {
    todos = readCopilotTodos(transcriptPath);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return [
      `todo-continuation: the list could not be read at the prompt, keeping the last one: ${message}`,
    ];
  }
  // A session that never had a list leaves nothing behind.
  if (todos.length > 0 || stored.todos.todos.length > 0) await runtime.setTodos(scope, todos);
  return [];
}
