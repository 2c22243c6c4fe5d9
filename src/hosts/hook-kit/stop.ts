import type { Limits, PresetName, Scope, Store } from "../../core/types.js";
import { ContinuationRuntime, type RunIdleOptions, type TurnEnd } from "../../runtime/runtime.js";
import {
  cappedNudges,
  type HookProject,
  mergedSettings,
  noticeAfter,
  prepareVerifyCache,
} from "./project.js";
import { describeIdle } from "./reply.js";

/**
 * The half of a stop hook every host shares, so that a host's handler keeps only what its
 * protocol says about the turn: the runtime a hook decides with (the hook command's flags over
 * the project's config), and the two ways a stop ends once the turn is known, each with the
 * lines it tells stderr.
 */

/** What a hook's runtime takes from its host's options. */
export interface HookRuntimeOptions {
  store: Store;
  /** The hook command's `--preset`: wins over the config file's, and is kept in the state. */
  preset?: PresetName | undefined;
  limits?: Partial<Limits> | undefined;
  now?: (() => number) | undefined;
  projectDir?: string | undefined;
}

/** What differs between hosts in a runtime: how the nudge says to close an item, a host's cap. */
export interface HookRuntimeHost {
  closeInstruction?: string | undefined;
  /** The host ends a turn itself after this many blocked stops: our budget ends it first. */
  maxNudges?: number | null | undefined;
  /** The host hands a block's reason back as the next user prompt: each nudge's digest is kept. */
  echoesNudges?: boolean | undefined;
}

/** The runtime one hook event decides with; `project` null: the hook's own settings alone. */
export function hookRuntime(
  options: HookRuntimeOptions,
  project: HookProject | null,
  host: HookRuntimeHost = {},
): ContinuationRuntime {
  return new ContinuationRuntime({
    store: options.store,
    ...cappedNudges(mergedSettings(options, project), host.maxNudges ?? null),
    ...(project?.verify !== undefined ? { verify: project.verify } : {}),
    ...(project?.notify !== undefined ? { notify: project.notify } : {}),
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(options.projectDir !== undefined ? { projectDir: options.projectDir } : {}),
    ...(options.preset !== undefined ? { presetOption: options.preset } : {}),
    ...(host.closeInstruction !== undefined ? { closeInstruction: host.closeInstruction } : {}),
    ...(host.echoesNudges === true ? { rememberNudges: true } : {}),
  });
}

/**
 * A stop under a config file that does not validate: the limits the user wrote are unknown, so
 * the turn is recorded and nothing is nudged. The line says why. `runtime` must be one made
 * without the project (its settings are the ones that failed).
 */
export async function allowInvalidConfig(
  runtime: ContinuationRuntime,
  scope: Scope,
  outcome: TurnEnd,
  problem: string,
): Promise<string> {
  await runtime.turnEnded(scope, outcome);
  await runtime.recordSkip(scope, "config-invalid", "stop-hook", problem);
  return `todo-continuation: stop allowed (config-invalid): ${problem}`;
}

/**
 * A stop's end once its turn is known: under a config that does not validate, the turn (and a
 * list the host read at the stop, `idle.todos`) recorded and nothing nudged; else the decision.
 * `runtimeFor(project)` is the host's runtime (`project` null: the hook's own settings alone).
 */
export async function endStop(
  runtimeFor: (project: HookProject | null) => ContinuationRuntime,
  scope: Scope,
  project: HookProject | null,
  idle: Omit<RunIdleOptions, "trigger"> & { outcome: TurnEnd },
  detail = "",
): Promise<string[]> {
  if (project?.problem == null)
    return decideStop(runtimeFor(project), scope, project, idle, detail);
  const runtime = runtimeFor(null);
  if (idle.todos !== undefined) await runtime.setTodos(scope, idle.todos);
  return [await allowInvalidConfig(runtime, scope, idle.outcome, project.problem)];
}

/**
 * A stop's decision (`runIdle`, the check's cache folder made first) and the lines that say what
 * it decided: the decision, with `detail` after it, then the untrusted-`verify` notice when the
 * list is finished.
 */
export async function decideStop(
  runtime: ContinuationRuntime,
  scope: Scope,
  project: HookProject | null,
  idle: Omit<RunIdleOptions, "trigger">,
  detail = "",
): Promise<string[]> {
  if (project?.verify !== undefined) await prepareVerifyCache(project.verify);
  const result = await runtime.runIdle(scope, { trigger: "stop-hook", ...idle });
  const notice = noticeAfter(project, result);
  return [
    `todo-continuation: ${describeIdle(result)}${detail}`,
    ...(notice === null ? [] : [notice]),
  ];
}
