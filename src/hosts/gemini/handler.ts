import type { Limits, PresetName, Scope, Store } from "../../core/types.js";
import type { ContinuationRuntime } from "../../runtime/runtime.js";
import { asksTheUser } from "../claude-code/outcome.js";
import type { HookProject } from "../hook-kit/project.js";
import { blockDecision, sessionScopeOf } from "../hook-kit/reply.js";
import { endStop, hookRuntime } from "../hook-kit/stop.js";
import type { ChildRuns } from "./children.js";
import { turnEvidence } from "./evidence.js";
import { type GeminiHookEvent, GeminiHookInputError, type KnownGeminiEvent } from "./payload.js";
import {
  CHILD_AGENT_TOOL,
  closeInstructionFor,
  familyOf,
  familyOfList,
  todosAfterTool,
} from "./todos.js";
import { isRealUserPrompt, judgeTurn, lastMessageOf, nudgeReason } from "./turn.js";
import { modelOf, readSessionMessages, spendOf } from "./usage.js";

/** The host name in scope keys: `session/gemini.<session id>`. */
export const GEMINI_HOST = "gemini";

export interface GeminiHookOptions {
  store: Store;
  /** The session's project folder, recorded in the scope's state. */
  projectDir?: string;
  children: ChildRuns;
  preset?: PresetName;
  limits?: Partial<Limits>;
  now?: () => number;
  /** A closing question counts as waiting for the user. Default true. */
  waitOnQuestions?: boolean;
  /** Reads the session file's messages (token spend, turn evidence); injectable for tests. */
  readSession?: typeof readSessionMessages;
  /**
   * The project's config (see `loadHookProject`), asked for only at an
   * AfterAgent. Its preset and limits apply below `preset`/`limits` (a hook
   * flag wins); its `verify` runs at a finished stop.
   */
  project?: () => HookProject;
}

/** What the hook process prints and exits with. */
export interface GeminiHookResponse {
  /** Written to stdout: `{}` (allow) or the block decision as JSON. */
  stdout: string;
  stderr: string[];
  /** Always 0: a failing hook must never hold a session hostage. */
  exitCode: 0;
}

/** Gemini CLI reads `{}` as "nothing to say"; an empty stdout works too but `{}` is explicit. */
export const ALLOW = "{}";

/** The JSON Gemini CLI reads from an AfterAgent hook to send the reason back as a new prompt. */
export const geminiBlockDecision = blockDecision;

export const geminiScope = (sessionId: string): Scope =>
  sessionScopeOf(GEMINI_HOST, sessionId, GeminiHookInputError);

function runtimeOf(
  options: GeminiHookOptions,
  closeInstruction?: string,
  project: HookProject | null = null,
): ContinuationRuntime {
  return hookRuntime(options, project, { closeInstruction });
}

/**
 * The events that never touch the store (a child starting or ending, events
 * we do not act on), answered without opening it: the entry skips the store
 * for them. Null when the event needs the store.
 */
export async function handleStorelessEvent(
  event: GeminiHookEvent,
  children: ChildRuns,
): Promise<GeminiHookResponse | null> {
  const response: GeminiHookResponse = { stdout: ALLOW, stderr: [], exitCode: 0 };
  if (event.kind === "other") return response;
  if (event.kind === "BeforeTool") {
    if (event.toolName === CHILD_AGENT_TOOL) await children.open(event.sessionId, event.toolInput);
    return response;
  }
  if (event.kind === "AfterTool") {
    if (event.toolName === CHILD_AGENT_TOOL) {
      await children.close(event.sessionId, event.toolInput);
      return response;
    }
    if (familyOf(event.toolName) === null) return response;
  }
  return null;
}

/**
 * Handles one parsed hook event. Errors propagate; the entry turns them into
 * an allowed stop.
 */
export async function handleGeminiHookEvent(
  event: GeminiHookEvent,
  options: GeminiHookOptions,
): Promise<GeminiHookResponse> {
  const early = await handleStorelessEvent(event, options.children);
  if (early !== null) return early;
  const response = emptyResponse();
  switch (event.kind) {
    case "BeforeAgent":
      await beforeAgent(event, options);
      return response;
    case "AfterTool":
      await afterTool(event, options, response);
      return response;
    case "AfterAgent":
      return afterAgent(event, options, response);
    default:
      return response;
  }
}

function emptyResponse(): GeminiHookResponse {
  return { stdout: ALLOW, stderr: [], exitCode: 0 };
}

type Event<K extends KnownGeminiEvent["kind"]> = Extract<KnownGeminiEvent, { kind: K }>;

async function beforeAgent(event: Event<"BeforeAgent">, options: GeminiHookOptions) {
  // Our own nudge and the CLI's recovery prompts come back through here: not a person.
  if (!isRealUserPrompt(event.prompt)) return;
  // No child runs across a new prompt; markers left by a killed process go.
  await options.children.clear(event.sessionId);
  await runtimeOf(options).turnStarted(geminiScope(event.sessionId), { real: true });
}

async function afterTool(
  event: Event<"AfterTool">,
  options: GeminiHookOptions,
  response: GeminiHookResponse,
) {
  // A subagent keeps its own list; its writes arrive with the parent's session id.
  if (await options.children.running(event.sessionId)) {
    response.stderr.push(
      `todo-continuation: ${event.toolName} from a subagent; the session's list is unchanged`,
    );
    return;
  }
  const todos = todosAfterTool(event.toolName, event.toolInput, event.toolResponse);
  if (todos === null) return;
  await runtimeOf(options).setTodos(geminiScope(event.sessionId), todos);
}

async function afterAgent(
  event: Event<"AfterAgent">,
  options: GeminiHookOptions,
  response: GeminiHookResponse,
): Promise<GeminiHookResponse> {
  const scope = geminiScope(event.sessionId);
  const before = await options.store.read(scope);
  // A session that never wrote a todo has nothing to decide.
  if (before.todosRevision === 0 && before.todos.todos.length === 0) return response;
  // Everything recorded since the previous AfterAgent (or the user's prompt) is this turn's.
  const previous = before.state.lastOutcome ?? null;
  const since = previous?.endedAt ?? before.state.lastUserTurnAt ?? 0;
  const messages = await (options.readSession ?? readSessionMessages)(event.transcriptPath);
  const usage = messages === null ? null : spendOf(messages, since);
  const model = messages === null ? undefined : modelOf(messages, since);
  const turn = judgeTurn({
    prompt: event.prompt,
    promptResponse: event.promptResponse,
    evidence: messages === null ? null : turnEvidence(messages, since),
    previous: previous === null ? null : { turnId: previous.turnId, endedAt: previous.endedAt },
    lastUserTurnAt: before.state.lastUserTurnAt ?? null,
  });
  const message = lastMessageOf(event.promptResponse);
  const close = closeInstructionFor(familyOfList(before.todos.todos));
  const outcome = {
    turnId: turn.turnId,
    stopReason: turn.stopReason,
    injected: event.stopHookActive,
    ...(usage !== null ? { usage } : {}),
    ...(model !== undefined ? { model } : {}),
  };
  const why =
    turn.stopReason === "aborted"
      ? " after the turn was cancelled (Esc, or the CLI cut its model call)"
      : "";
  const runtime = (project: HookProject | null) => runtimeOf(options, close, project);
  // The outcome is recorded in the decision's own transaction: one write per AfterAgent.
  const lines = await endStop(
    runtime,
    scope,
    options.project?.() ?? null,
    {
      outcome,
      signals: { awaitingUser: options.waitOnQuestions !== false && asksTheUser(message) },
      deliver: (nudge) => {
        response.stdout = geminiBlockDecision(nudgeReason(nudge.text));
      },
    },
    why,
  );
  response.stderr.push(...lines);
  return response;
}
