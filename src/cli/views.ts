import type { ScopeLimits } from "../config/scope-limits.js";
import { explainSkip } from "../core/explain/reasons.js";
import type {
  Allowance,
  ContinuationState,
  Decision,
  DecisionLogEntry,
  Episode,
  Limits,
  Scope,
  ScopeSnapshot,
  SkipReason,
  StoreProblem,
  TodoList,
  TodoSummary,
} from "../core/types.js";
import { unreadableMark } from "./format/problems.js";
import { stateWords } from "./format/state.js";

/**
 * The data each command prints. `--json` prints these objects as they are;
 * the text output is rendered from the same objects, so both always agree.
 */

export interface Counts {
  total: number;
  actionable: number;
  blocked: number;
  completed: number;
  cancelled: number;
}

export interface ScopeRow {
  key: string;
  kind: Scope["kind"];
  label: string;
  counts: Counts;
  stopped: boolean;
  userAbortBlocked: boolean;
  restartKickArmed: boolean;
  episode: ContinuationState["episode"];
  lastDecision: DecisionLogEntry | null;
  /** The state in a few words, as the text table shows it. */
  status: string;
  /** Stored documents that cannot be read in full, and copies kept of earlier ones. */
  problems: StoreProblem[];
  /** Why the scope could not be read at all (a refused path, a failed read), else null. */
  error: string | null;
  /** The config file its limits came from (see `ScopeLimits`); null: --preset or the defaults. */
  limitsFile: string | null;
  /** Why its project's config file cannot be used (its hook nudges nothing then); null when it can. */
  configProblem: string | null;
}

export function countsOf(summary: TodoSummary): Counts {
  return {
    total: summary.total,
    actionable: summary.actionable,
    blocked: summary.blocked,
    completed: summary.completed,
    cancelled: summary.cancelled,
  };
}

export function scopeRow(
  scope: Scope,
  label: string,
  snapshot: ScopeSnapshot,
  summary: TodoSummary,
  last: DecisionLogEntry | null,
  judged: ScopeLimits,
  problems: StoreProblem[] = [],
): ScopeRow {
  const { state } = snapshot;
  const { limits } = judged;
  const mark = unreadableMark(problems);
  // A budget counted against limits that are not the project's would mislead: none is shown.
  const words =
    judged.problem === null ? stateWords(state, limits, last) : "project config invalid, no nudges";
  return {
    key: scope.key,
    kind: scope.kind,
    label,
    counts: countsOf(summary),
    stopped: state.stopped,
    userAbortBlocked: state.userAbortBlocked,
    restartKickArmed: state.restartKickArmed,
    episode: state.episode,
    lastDecision: last,
    status: mark === null ? words : `${mark}: ${words}`,
    problems,
    error: null,
    limitsFile: judged.file,
    configProblem: judged.problem,
  };
}

/** The row of a scope the store could not read: the rest of the listing still shows. */
export function failedRow(scope: Scope, label: string, error: Error): ScopeRow {
  return {
    key: scope.key,
    kind: scope.kind,
    label,
    counts: { total: 0, actionable: 0, blocked: 0, completed: 0, cancelled: 0 },
    stopped: false,
    userAbortBlocked: false,
    restartKickArmed: false,
    episode: null,
    lastDecision: null,
    status: "UNREADABLE: cannot be read",
    problems: [],
    error: error.message,
    limitsFile: null,
    configProblem: null,
  };
}

export interface ShowView {
  key: string;
  kind: Scope["kind"];
  label: string;
  preset: string;
  /** The config file the limits came from; null: --preset or the defaults. */
  limitsFile: string | null;
  /** Why the project's config file cannot be used; null when it can. */
  configProblem: string | null;
  counts: Counts;
  todos: TodoList;
  todosRevision: number;
  state: ContinuationState;
  limits: Limits;
  lastDecision: DecisionLogEntry | null;
  problems: StoreProblem[];
}

export interface WhyView {
  key: string;
  label: string;
  preset: string;
  /** The config file the limits came from (the project's, found from `projectDir`); null: --preset or the defaults. */
  limitsFile: string | null;
  /** The project folder the scope recorded; null when none. */
  projectDir: string | null;
  /** Why the project's config file cannot be used (the hook nudges nothing then); null when it can. */
  configProblem: string | null;
  /** What the engine would do now. */
  action: "inject" | "skip";
  reason: SkipReason | null;
  /** The reason in a sentence, or what the nudge would be. */
  explanation: string;
  counts: Counts;
  nudge: {
    text: string;
    chars: number;
    tokens: number;
    episodeId: string;
    autoTurn: number;
  } | null;
  /** Host facts the CLI cannot see, assumed absent for this dry run. */
  assumed: string[];
  /** The open episode's money and the user's raise; null without an episode. */
  episode: {
    id: string;
    costUsd: number;
    unpricedTurns: number;
    model: string | null;
    raised: Allowance | null;
  } | null;
  recent: DecisionLogEntry[];
  problems: StoreProblem[];
}

/** Signals only a host knows; a dry run from the command line takes them as absent. */
export const UNKNOWN_SIGNALS = [
  "agent not excluded",
  "no session recovery running",
  "no background work",
  "no question pending for the user",
  "no host goal loop active",
];

function episodeMoney(e: Episode | null): WhyView["episode"] {
  if (e === null) return null;
  return {
    id: e.id,
    costUsd: e.costUsd ?? 0,
    unpricedTurns: e.unpricedTurns ?? 0,
    model: e.model ?? null,
    raised: e.raised ?? null,
  };
}

export function whyView(input: {
  scope: Scope;
  label: string;
  /** The limits the scope was judged by, and where they came from. */
  judged: ScopeLimits;
  decision: Decision;
  summary: TodoSummary;
  nudge: WhyView["nudge"];
  now: number;
  recent: DecisionLogEntry[];
  problems: StoreProblem[];
}): WhyView {
  const { decision, summary, judged, now } = input;
  const { limits, problem } = judged;
  let explanation =
    decision.action === "skip"
      ? explainSkip(decision.reason, { state: decision.state, summary, limits, now })
      : `Actionable items remain and every check passes: the engine would send nudge ${decision.episode.autoTurns} of episode ${decision.episode.id}.`;
  if (problem !== null) explanation += ` The file: ${problem}.`;
  return {
    key: input.scope.key,
    label: input.label,
    preset: judged.preset,
    limitsFile: judged.file,
    projectDir: judged.projectDir,
    configProblem: problem,
    action: decision.action,
    reason: decision.action === "skip" ? decision.reason : null,
    explanation,
    counts: countsOf(summary),
    nudge: input.nudge,
    assumed: UNKNOWN_SIGNALS,
    episode: episodeMoney(decision.state.episode),
    recent: input.recent,
    problems: input.problems,
  };
}
