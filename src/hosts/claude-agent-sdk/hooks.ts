import { resolve } from "node:path";
import type { Limits, PresetName, Store } from "../../core/types.js";
import { type HookOptions, handleHookEvent } from "../claude-code/handler.js";
import { type HookEvent, parseHookObject } from "../claude-code/payload.js";
import { hookStoreRoot } from "../claude-code/store-location.js";
import { LIST_TOOLS } from "../claude-code/todos.js";
import { hookFailure, openHookStore } from "../hook-kit/process.js";
import { lazyHookProject } from "../hook-kit/project.js";
import { BASE_HOOK_TIMEOUT_MS, projectCheck, stopHookTimeoutMs } from "../hook-kit/timeout.js";

/**
 * The Claude Agent SDK runs Claude Code as a child process and calls hook
 * callbacks in the caller's own process, with the same input objects Claude
 * Code's command hooks read on stdin. So these callbacks hand each input to
 * the Claude Code hook's own handler: the same decisions, the same store
 * layout, the same project config, only without a process per event.
 *
 * The types below are structural: the SDK is not a dependency of this
 * package, and a value of `AgentSdkHooks` is accepted by `query()`'s `hooks`
 * option as it is.
 */

/** The fields of the SDK's hook input this module relies on (every SDK hook input has them). */
export interface AgentSdkHookInput {
  hook_event_name: string;
  session_id: string;
}

/** What a callback answers: nothing (go ahead), or a Stop block whose reason is the nudge. */
export interface AgentSdkHookOutput {
  decision?: "block";
  reason?: string;
}

export type AgentSdkHookCallback = (
  input: AgentSdkHookInput,
  toolUseID: string | undefined,
  options: { signal: AbortSignal },
) => Promise<AgentSdkHookOutput>;

export interface AgentSdkHookMatcher {
  matcher?: string;
  hooks: AgentSdkHookCallback[];
  /** Seconds the SDK waits for the callbacks. */
  timeout?: number;
}

/** The events these hooks listen to, as the SDK names them. */
export const AGENT_SDK_HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PostToolUse",
  "Stop",
  "SubagentStop",
  "StopFailure",
] as const;

export type AgentSdkHookEvent = (typeof AGENT_SDK_HOOK_EVENTS)[number];

/** The value for `query({ options: { hooks } })`. */
export type AgentSdkHooks = { [E in AgentSdkHookEvent]: AgentSdkHookMatcher[] };

export interface AgentSdkHookOptions {
  /**
   * The store to keep lists and state in; the caller opens and closes it.
   * Default: a file store in `<project>/.claude/todo-continuation` (the
   * folder the Claude Code hook uses), opened for each event.
   */
  store?: Store;
  /** The file store's folder (default as above; `$TODO_CONTINUATION_DIR` also names one). */
  dir?: string;
  /**
   * The project folder: where the config file is looked for, the `verify`
   * check runs and the default store lives. Default: the `cwd` of the first
   * event of each session (the `cwd` given to `query()`).
   */
  projectDir?: string;
  /** Wins over the project config's preset. */
  preset?: PresetName;
  /** Win over the project config's limits. */
  limits?: Partial<Limits>;
  /**
   * Environment for the Task tools' folder (`$CLAUDE_CONFIG_DIR`) and the
   * store (`$TODO_CONTINUATION_DIR`, `$TODO_CONTINUATION_DATABASE_URL`): pass
   * what you give `query()` as `env`. Default: `process.env`.
   */
  env?: Record<string, string | undefined>;
  /** Nudge even when the agent's last message asks a question. Default false. */
  nudgeAfterQuestions?: boolean;
  /** Where the lines a hook would print on stderr go. Default: `process.stderr`. */
  log?: (line: string) => void;
  /** Clock, for tests. */
  now?: () => number;
}

const ALLOW = "allowing the stop";

/** Sessions whose project folder is remembered; an older one falls back to its event's `cwd`. */
const MAX_REMEMBERED_SESSIONS = 1000;

/** Whether the Claude Code hook would act on this event at all (it skips subagents and the rest). */
function actsOn(event: HookEvent): event is Exclude<HookEvent, { kind: "other" | "SubagentStop" }> {
  return event.kind !== "other" && event.kind !== "SubagentStop" && event.agentId === null;
}

/**
 * The `hooks` option for the SDK's `query()`: a Stop with open todo items is
 * blocked with the nudge as its reason, as the Claude Code hooks do. A
 * callback never fails closed: its own errors allow the stop and are logged.
 */
export function todoContinuationHooks(options: AgentSdkHookOptions = {}): AgentSdkHooks {
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  /** Each session's project folder, fixed by its first event (a later `cd` must not move the store). */
  const projects = new Map<string, string>();

  const projectOf = (sessionId: string, cwd: string | null): string => {
    if (options.projectDir !== undefined) return resolve(options.projectDir);
    let dir = projects.get(sessionId);
    if (dir === undefined) {
      dir = resolve(cwd ?? process.cwd());
      // A long-lived program runs many sessions: remember the newest ones only.
      if (projects.size >= MAX_REMEMBERED_SESSIONS) {
        const oldest = projects.keys().next().value;
        if (oldest !== undefined) projects.delete(oldest);
      }
      projects.set(sessionId, dir);
    }
    return dir;
  };

  const handle = async (event: HookEvent): Promise<AgentSdkHookOutput> => {
    if (!actsOn(event)) return {};
    const project = projectOf(event.sessionId, event.cwd);
    const cwd = event.cwd ?? project;
    const root = hookStoreRoot({
      dir: options.dir,
      env: { ...env, CLAUDE_PROJECT_DIR: project },
      cwd,
    });
    const store = options.store ?? (await openHookStore({ dir: options.dir, env, root, project }));
    try {
      const hookOptions: HookOptions = {
        store,
        env,
        waitOnQuestions: options.nudgeAfterQuestions !== true,
        project: lazyHookProject({
          cwd,
          projectDir: project,
          storeRoot: root,
          env,
          presetFlag: options.preset,
          host: "claude-agent-sdk",
          // A long-lived program: deliver in the background, no process per event.
          notifyMode: "in-process",
        }),
        ...(options.preset !== undefined ? { preset: options.preset } : {}),
        ...(options.limits !== undefined ? { limits: options.limits } : {}),
        ...(options.now !== undefined ? { now: options.now } : {}),
        projectDir: project,
      };
      const response = await handleHookEvent(event, hookOptions);
      for (const line of response.stderr) log(line);
      return response.stdout === "" ? {} : (JSON.parse(response.stdout) as AgentSdkHookOutput);
    } finally {
      if (options.store === undefined) await store.close().catch(() => undefined);
    }
  };

  const callback: AgentSdkHookCallback = async (input) => {
    try {
      if (typeof input !== "object" || input === null || Array.isArray(input)) {
        throw new Error(
          `hook input must be an object, got ${input === null ? "null" : typeof input}`,
        );
      }
      return await handle(parseHookObject(input as unknown as Record<string, unknown>));
    } catch (error) {
      for (const line of hookFailure(error, ALLOW).stderr) log(line);
      return {};
    }
  };

  const timeout = Math.ceil(BASE_HOOK_TIMEOUT_MS / 1000);
  // The Stop callback may run the project's check: give it the time an install would.
  const check = projectCheck(options.projectDir ?? process.cwd(), env);
  const stopTimeout = Math.ceil(stopHookTimeoutMs(check.timeoutMs) / 1000);
  const one = (extra: Omit<AgentSdkHookMatcher, "hooks"> = {}): AgentSdkHookMatcher[] => [
    { ...extra, hooks: [callback], timeout: extra.timeout ?? timeout },
  ];
  return {
    SessionStart: one({ matcher: "resume" }),
    UserPromptSubmit: one(),
    PostToolUse: one({ matcher: LIST_TOOLS.join("|") }),
    Stop: one({ timeout: stopTimeout }),
    // A subagent's stop is never ours to block; the callback answers nothing for it.
    SubagentStop: one(),
    StopFailure: one(),
  };
}
