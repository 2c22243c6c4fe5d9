import { statSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import type { ModelMessage } from "ai";
import {
  DEFAULT_VERIFY_TIMEOUT_MS,
  DEFAULT_VERIFY_WHEN,
  validateConfig,
} from "../../config/validate.js";
import type { HostSignals, Reminder, Scope, SkipReason, VerifyWhen } from "../../core/types.js";
import {
  type ContinuationRuntime,
  classifyAiSdkFinishReason,
  classifyHostError,
  type Nudge,
  runWakeLoop,
  usageFromAiSdk,
  type WakeBudget,
  type WakeState,
  type WakeStop,
} from "../../runtime/index.js";
import type { VerifyOptions } from "../../runtime/runtime.js";

/**
 * The project's own check for `runWithTodos`: when the model stops with
 * nothing actionable left, `command` runs in `cwd` (`sh -c`, its own process
 * group, killed after `timeoutMs`); exit 0 ends the loop as verified, a
 * failure is sent back to the model as a nudge with the output's last lines.
 * Results are cached per working tree in `cacheDir`.
 */
export interface AiSdkVerifyOptions {
  /** A shell command; exit 0 means the work is done (e.g. `npm test`). */
  command: string;
  /** The project folder the command runs in (absolute, existing). */
  cwd: string;
  /** Default 120000 (two minutes); 1000 to 3600000. A check that runs out of time never nudges. */
  timeoutMs?: number;
  /** `finished` (default): when nothing actionable is left; `every-stop`: also under every list nudge. */
  when?: VerifyWhen;
  /** Where results and their lock are kept; default the file store's folder, else `<tmp>/todo-continuation`. */
  cacheDir?: string;
}

const VERIFY_OPTION_KEYS = ["command", "cwd", "timeoutMs", "when", "cacheDir"];

/**
 * Validates `runWithTodos`'s `verify` into the runtime's form. Throws an
 * error naming the field, what it accepts and what was given.
 */
export function aiSdkVerify(raw: unknown, store: unknown): VerifyOptions {
  const where = "runWithTodos: verify";
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new Error(`${where} must be an object such as { command: "npm test", cwd }`);
  }
  const options = raw as Record<string, unknown>;
  for (const key of Object.keys(options)) {
    if (!VERIFY_OPTION_KEYS.includes(key)) {
      throw new Error(
        `${where}.${key} is not a known option; known: ${VERIFY_OPTION_KEYS.join(", ")}`,
      );
    }
  }
  const { cwd, cacheDir, command, timeoutMs, when } = options;
  let checked: { command: string; timeoutMs?: number; when?: VerifyWhen };
  try {
    const config = validateConfig(
      {
        verify: {
          command,
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          ...(when !== undefined ? { when } : {}),
        },
      },
      "runWithTodos",
    );
    checked = config.verify as typeof checked;
  } catch (error) {
    throw new Error(error instanceof Error ? error.message : String(error));
  }
  const folder = (name: string, value: unknown, mustExist: boolean): string => {
    if (typeof value !== "string" || !isAbsolute(value)) {
      throw new Error(
        `${where}.${name} must be an absolute path, got ${JSON.stringify(value) ?? "nothing"}`,
      );
    }
    if (mustExist) {
      let isDir = false;
      try {
        isDir = statSync(value).isDirectory();
      } catch {
        isDir = false;
      }
      if (!isDir) throw new Error(`${where}.${name} must be an existing folder, got ${value}`);
    }
    return value;
  };
  const storeRoot = (store as { root?: unknown } | null)?.root;
  return {
    settings: {
      command: checked.command,
      timeoutMs: checked.timeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS,
      when: checked.when ?? DEFAULT_VERIFY_WHEN,
    },
    cwd: folder("cwd", cwd, true),
    cacheDir:
      cacheDir !== undefined
        ? folder("cacheDir", cacheDir, false)
        : typeof storeRoot === "string"
          ? storeRoot
          : join(tmpdir(), "todo-continuation"),
  };
}

/**
 * What one model call must return: `generateText`'s result and an agent's
 * `generate()` result both fit, so the loop wraps either.
 */
export interface GenerateTurnResult {
  finishReason: unknown;
  /** Spend of every step of the call; preferred over `usage` (the last step only). */
  totalUsage?: unknown;
  usage?: unknown;
  /** `modelId` is the model the provider says answered: it prices the turn. */
  response: { messages: ModelMessage[]; modelId?: unknown };
}

export interface RunWithTodosOptions<R extends GenerateTurnResult> {
  runtime: ContinuationRuntime;
  scope: Scope;
  /** The conversation so far, ending with the user's message. Not mutated. */
  messages: ModelMessage[];
  /** One model call over the whole conversation, e.g. `(input) => generateText({ model, tools, ...input })`. */
  generate: (input: { messages: ModelMessage[]; abortSignal?: AbortSignal }) => PromiseLike<R>;
  /** Aborting ends the loop: the turn is recorded as a user abort and nothing more is sent. */
  abortSignal?: AbortSignal;
  /** Re-entries allowed after the first call; default the preset's `maxWakeCycles`. */
  maxWakeCycles?: number;
  /** A budget shared with your runtime's other nudges (reply nudges, subagent results). */
  budget?: WakeBudget;
  signals?: HostSignals | (() => HostSignals | Promise<HostSignals>);
  /**
   * The project's own check (see `AiSdkVerifyOptions`); null turns off a
   * check the runtime was built with. Default: the runtime's own `verify`.
   */
  verify?: AiSdkVerifyOptions | null;
  /**
   * Whether `messages` ends with a real user turn, which resets the episode
   * and lifts an earlier abort block. Default true; pass false when resuming
   * after a restart or from a scheduled job.
   */
  realUserTurn?: boolean;
}

export interface RunWithTodosResult<R extends GenerateTurnResult> {
  /** `idle`: actionable todos remain; `dormant`: nothing actionable is open; `parked` is not used here. */
  state: WakeState;
  /** Re-entries made after the first call. */
  cycles: number;
  /** Why the engine declined to continue, when it did. */
  lastSkip: SkipReason | null;
  /**
   * Why the loop stopped, always set: `aborted`, the engine's skip reason, or
   * `wake-budget` (the allowed re-entries are spent; every shipped preset
   * sets `maxWakeCycles` equal to `maxAutoTurns`), `nothing-actionable`,
   * `parked`, `not-delivered`. With `verify`, a finished list ends as
   * `verified`, `verify-timed-out`, `verify-error` or
   * `verify-unchanged-failure` instead of `nothing-actionable`.
   */
  stoppedBy: WakeStop | "aborted";
  /** True when the abort signal ended the loop. */
  aborted: boolean;
  /** The whole conversation: the input, every response, and each nudge as a user message. */
  messages: ModelMessage[];
  /** Each call's result, in order. */
  results: R[];
  /** The nudges sent, in order. */
  nudges: Nudge[];
}

/** Reminders (failed writes, user edits) as one block the model reads before the nudge. */
export function formatReminders(reminders: readonly Reminder[]): string {
  return reminders.map((r) => `<system-reminder>\n${r.text}\n</system-reminder>`).join("\n");
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || classifyHostError(error) === "aborted";
}

/**
 * The wake loop around an AI SDK call. The SDK's own loop ends as soon as the
 * model answers without a tool call, even with todos open; this runs the call,
 * records how it ended and what it spent, and while the engine says inject,
 * appends the nudge as a user message (the system prompt stays cacheable) and
 * calls again. Budgets, stagnation, an abort and the shared wake budget all
 * end it; every decision lands in the store's log.
 */
export async function runWithTodos<R extends GenerateTurnResult>(
  options: RunWithTodosOptions<R>,
): Promise<RunWithTodosResult<R>> {
  const { runtime, scope, abortSignal } = options;
  const messages: ModelMessage[] = [...options.messages];
  const results: R[] = [];
  const nudges: Nudge[] = [];
  let aborted = false;
  // Validated before anything is recorded: a bad option loses nothing.
  const verify =
    options.verify === undefined
      ? undefined
      : options.verify === null
        ? null
        : aiSdkVerify(options.verify, runtime.store);

  if (options.realUserTurn !== false) await runtime.turnStarted(scope, { real: true });

  const outcome = await runWakeLoop({
    runtime,
    scope,
    ...(options.maxWakeCycles !== undefined ? { maxWakeCycles: options.maxWakeCycles } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
    ...(options.signals ? { signals: options.signals } : {}),
    ...(verify !== undefined ? { verify } : {}),
    runTurn: async ({ nudge }) => {
      if (abortSignal?.aborted) {
        aborted = true;
        return { stopReason: "aborted" };
      }
      const reminders = await runtime.drainReminders(scope);
      const parts = reminders.length > 0 ? [formatReminders(reminders)] : [];
      if (nudge) {
        nudges.push(nudge);
        parts.push(nudge.text);
      }
      if (parts.length > 0) messages.push({ role: "user", content: parts.join("\n\n") });
      let result: R;
      try {
        result = await options.generate({
          messages: [...messages],
          ...(abortSignal ? { abortSignal } : {}),
        });
      } catch (error) {
        if (isAbort(error, abortSignal)) {
          aborted = true;
          return { stopReason: "aborted" };
        }
        // Recorded so the next idle sees an unsafe turn, then surfaced to the caller.
        await runtime.turnEnded(scope, {
          stopReason: classifyHostError(error),
          injected: nudge !== null,
        });
        throw error;
      }
      results.push(result);
      messages.push(...result.response.messages);
      return {
        stopReason: classifyAiSdkFinishReason(result.finishReason),
        usage: usageFromAiSdk(result.totalUsage ?? result.usage),
        ...(typeof result.response.modelId === "string" && result.response.modelId !== ""
          ? { model: result.response.modelId }
          : {}),
      };
    },
  });
  return {
    state: outcome.state,
    cycles: outcome.cycles,
    lastSkip: outcome.lastSkip,
    stoppedBy: aborted ? "aborted" : outcome.stoppedBy,
    aborted,
    messages,
    results,
    nudges,
  };
}
