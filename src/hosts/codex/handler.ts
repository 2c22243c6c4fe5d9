import type { Limits, PresetName, Scope, Store } from "../../core/types.js";
import type { ContinuationRuntime } from "../../runtime/runtime.js";
import { asksTheUser } from "../claude-code/outcome.js";
import { spendSince } from "../claude-code/spend.js";
import type { HookProject } from "../hook-kit/project.js";
import { blockDecision, sessionScopeOf } from "../hook-kit/reply.js";
import { allowInvalidConfig, decideStop, hookRuntime } from "../hook-kit/stop.js";
import { hostGoal } from "./goal.js";
import { isOwnNudge } from "./own-nudge.js";
import {
  type CodexHookEvent,
  CodexHookInputError,
  type KnownCodexHookEvent,
  parseCodexHookInput,
} from "./payload.js";
import { CLOSE_INSTRUCTION, todosFromUpdatePlan, UPDATE_PLAN } from "./plan.js";
import { decodeOutcomeId, encodeOutcomeId, latestModel, latestTotals } from "./rollout.js";

/** The host name in scope keys: `session/codex.<session id>`. */
export const CODEX_HOST = "codex";

export interface CodexHookOptions {
  store: Store;
  /** The session's project folder, recorded in the scope's state. */
  projectDir?: string;
  preset?: PresetName;
  limits?: Partial<Limits>;
  now?: () => number;
  /** A closing question in the final message waits for the user (default true). */
  waitOnQuestions?: boolean;
  /** Reads the rollout's lines (for token spend); injectable for tests. Default: none read. */
  readRollout?: (path: string) => Promise<string[]>;
  /**
   * The rollout's newest line holding a goal status (`thread_goal_updated`),
   * anywhere in the file; injectable for tests. Default: none read, so no
   * host goal is seen.
   */
  readGoalLine?: (path: string) => Promise<string | null>;
  /**
   * The project's config (see `loadHookProject`), asked for only at a Stop or
   * an Interrupt. Its preset and limits apply below `preset`/`limits` (a hook
   * flag wins); its `verify` runs at a finished stop.
   */
  project?: () => HookProject;
}

/** What the hook process prints and exits with. */
export interface CodexHookResponse {
  /** Written to stdout as is: empty (allow) or the block decision as JSON. */
  stdout: string;
  /** Lines for stderr: what was decided, or why nothing was. */
  stderr: string[];
  /** Always 0: a failing hook must never hold a session hostage. */
  exitCode: 0;
}

/** The JSON a Codex Stop hook prints to continue the turn with `reason` as the next prompt. */
export const codexBlockDecision = blockDecision;

const sessionScope = (sessionId: string): Scope =>
  sessionScopeOf(CODEX_HOST, sessionId, CodexHookInputError);

function runtimeFor(
  options: CodexHookOptions,
  project: HookProject | null = null,
): ContinuationRuntime {
  return hookRuntime(options, project, { closeInstruction: CLOSE_INSTRUCTION });
}

/** The project's config for a deciding event; null when none was given or it does not validate. */
function usableProject(options: CodexHookOptions): HookProject | null {
  const project = options.project?.() ?? null;
  return project?.problem == null ? project : null;
}

/** True when an event needs the store: subagents and events we do not act on never open it. */
export function needsStore(event: CodexHookEvent): event is KnownCodexHookEvent {
  if (event.kind === "other") return false;
  if (event.agentId !== null) return false;
  return event.kind !== "PostToolUse" || event.toolName === UPDATE_PLAN;
}

/**
 * Handles one parsed hook event. Errors propagate; the hook entry turns them
 * into an allowed stop.
 */
export async function handleCodexHookEvent(
  event: CodexHookEvent,
  options: CodexHookOptions,
): Promise<CodexHookResponse> {
  const response: CodexHookResponse = { stdout: "", stderr: [], exitCode: 0 };
  // A subagent's hooks carry its parent's session id: its list and its stops are its own.
  if (!needsStore(event)) return response;
  const scope = sessionScope(event.sessionId);
  const runtime = runtimeFor(options);
  switch (event.kind) {
    case "UserPromptSubmit":
      // Only our own nudge continues the episode. A prompt typed or steered into a running
      // turn keeps that turn's id, yet it is the user redirecting the agent.
      await runtime.turnStarted(scope, { real: !isOwnNudge(event.prompt) });
      return response;
    case "PostToolUse":
      // Validated before the write: a malformed plan never replaces the stored list.
      await runtime.setTodos(scope, todosFromUpdatePlan(event.toolInput));
      return response;
    case "Interrupt": {
      const snap = await options.store.read(scope);
      if (snap.todosRevision === 0 && snap.todos.todos.length === 0) return response;
      await runtimeFor(options, usableProject(options)).turnEnded(scope, {
        turnId: encodeOutcomeId(event.turnId, await spentTotals(event, snap, options)),
        stopReason: "aborted",
      });
      response.stderr.push("todo-continuation: turn interrupted; no nudge until the next prompt");
      return response;
    }
    case "Stop":
      return stop(event, scope, runtime, options, response);
  }
}

type StopEvent = Extract<KnownCodexHookEvent, { kind: "Stop" }>;
type Snapshot = Awaited<ReturnType<Store["read"]>>;

const ZERO = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };

/** The totals the previous outcome saw, for when the rollout shows none. */
function fallbackTotals(snap: Snapshot) {
  return decodeOutcomeId(snap.state.lastOutcome?.turnId).totals ?? ZERO;
}

/** The end of the session's rollout, or null when it is not read. */
async function rolloutTail(event: KnownCodexHookEvent, options: CodexHookOptions) {
  if (options.readRollout === undefined || event.transcriptPath === null) return null;
  return options.readRollout(event.transcriptPath);
}

/** The rollout's running totals now, or the previous outcome's when none can be read. */
async function spentTotals(event: KnownCodexHookEvent, snap: Snapshot, options: CodexHookOptions) {
  const tail = await rolloutTail(event, options);
  return (tail === null ? null : latestTotals(tail)) ?? fallbackTotals(snap);
}

/** Why a host goal owns this stop (for the log line), or null when none is active. */
async function activeHostGoal(
  event: StopEvent,
  tail: readonly string[],
  options: CodexHookOptions,
): Promise<string | null> {
  if (options.readGoalLine === undefined || event.transcriptPath === null) return null;
  const goal = hostGoal(await options.readGoalLine(event.transcriptPath), tail, event.turnId);
  if (!goal.active) return null;
  return goal.goalTurn ? "this turn was started by the goal" : "the thread's goal is active";
}

/** The turn's model from the rollout, for pricing; nothing when the tail does not say. */
function modelOf(tail: readonly string[] | null): { model?: string } {
  const model = tail === null ? undefined : latestModel(tail);
  return model === undefined ? {} : { model };
}

async function stop(
  event: StopEvent,
  scope: Scope,
  given: ContinuationRuntime,
  options: CodexHookOptions,
  response: CodexHookResponse,
): Promise<CodexHookResponse> {
  let runtime = given;
  const before = await options.store.read(scope);
  // A session that never wrote a plan has nothing to decide: write nothing.
  if (before.todosRevision === 0 && before.todos.todos.length === 0) return response;
  const tail = await rolloutTail(event, options);
  const totals =
    tail === null ? fallbackTotals(before) : (latestTotals(tail) ?? fallbackTotals(before));
  const previous = decodeOutcomeId(before.state.lastOutcome?.turnId).totals;
  const outcome = {
    turnId: encodeOutcomeId(event.turnId, totals),
    stopReason: "stop" as const,
    usage: spendSince(totals, previous),
    injected: event.stopHookActive,
    ...modelOf(tail),
  };
  const project = options.project?.() ?? null;
  if (project?.problem != null) {
    response.stderr.push(await allowInvalidConfig(runtime, scope, outcome, project.problem));
    return response;
  }
  if (project !== null) runtime = runtimeFor(options, project);
  const goal = await activeHostGoal(event, tail ?? [], options);
  if (goal !== null) {
    // Codex's goal loop continues the session itself: a block would stack a second loop on it.
    await runtime.turnEnded(scope, outcome);
    await runtime.recordSkip(scope, "host-goal-active", "stop-hook");
    response.stderr.push(`todo-continuation: stop allowed (host-goal-active: ${goal})`);
    return response;
  }
  // The outcome is recorded in the decision's own transaction: one write per Stop.
  const lines = await decideStop(runtime, scope, project, {
    outcome,
    signals: {
      // Plan mode may not edit: telling it to carry on with the work would be wrong.
      agentExcluded: event.permissionMode === "plan",
      awaitingUser: options.waitOnQuestions !== false && asksTheUser(event.lastAssistantMessage),
    },
    deliver: (nudge) => {
      response.stdout = codexBlockDecision(nudge.text);
    },
  });
  response.stderr.push(...lines);
  return response;
}

/** The answer to a hook whose own handling failed: the stop is allowed, the reason told. */
export function failOpen(reason: unknown): CodexHookResponse {
  const message = reason instanceof Error ? reason.message : String(reason);
  return {
    stdout: "",
    stderr: [`todo-continuation: hook failed, allowing the stop: ${message}`],
    exitCode: 0,
  };
}

/**
 * The whole hook on stdin's text: parses, handles, and never fails closed.
 * Any error (bad input, an unreadable store) allows the stop and is explained
 * on stderr, so a broken integration can only cost a nudge, never trap a session.
 */
export async function runCodexHookText(
  input: string,
  options: CodexHookOptions,
): Promise<CodexHookResponse> {
  try {
    return await handleCodexHookEvent(parseCodexHookInput(input), options);
  } catch (error) {
    return failOpen(error);
  }
}
