import type { ScopeLimits } from "../config/scope-limits.js";
import { episodeLimits } from "../core/engine/allowance.js";
import { judgeStagnation } from "../core/engine/stagnation.js";
import { REASON_TITLES } from "../core/explain/reasons.js";
import { decodeComponent } from "../core/scope/component.js";
import type {
  Decision,
  DecisionLogEntry,
  Episode,
  Limits,
  Scope,
  ScopeSnapshot,
  SkipReason,
  StoreProblem,
  TodoSummary,
} from "../core/types.js";
import { BURN_WINDOW_MS } from "./burn.js";
import { GROUP_WORDS, type Grouping, type GroupName, groupOf } from "./groups.js";
import { type VerificationView, verificationView } from "./verification.js";

/**
 * What the dashboard shows of each scope, computed once per change and shared
 * by the pages, the JSON API and the metrics. Pure: the caller reads the store.
 */

/** The one word the overview sorts and filters by. */
export type ScopeStateName =
  | "nudging"
  | "parked"
  | "stopped"
  | "out-of-budget"
  | "idle"
  | "unreadable";

export const STATE_WORDS: Record<ScopeStateName, string> = {
  nudging: "nudging",
  parked: "parked on blocked items",
  stopped: "stopped by the user",
  "out-of-budget": "out of budget",
  idle: "idle",
  unreadable: "unreadable",
};

export const STATE_NAMES = Object.keys(STATE_WORDS) as ScopeStateName[];

/** One budget of the open episode: how much is used of how much. */
export interface BudgetBar {
  name: "nudges" | "tokens" | "wall clock" | "stagnation";
  used: number;
  /** null when the preset sets no limit. */
  limit: number | null;
  /** used / limit clamped to 0..1, 0 without a limit. */
  fraction: number;
}

/** A scope the store could not read (in full): shown as such, never hidden, never fatal. */
export interface ScopeProblem {
  message: string;
  /** Where the store kept unusable versions of the scope's documents. */
  preservedCopies: string[];
  /** True when a document cannot be read now; false when only copies of earlier ones remain. */
  unreadable: boolean;
}

/** The store's report as one problem for the page, or null when all is well. */
export function problemFromReport(report: readonly StoreProblem[]): ScopeProblem | null {
  if (report.length === 0) return null;
  const now = report.filter((p) => p.problem !== null);
  const message =
    now.length > 0
      ? now.map((p) => `the ${p.document} at ${p.location}: ${p.problem}`).join("; ")
      : "earlier unreadable versions of its documents were kept";
  return {
    message,
    preservedCopies: report.flatMap((p) => p.preserved),
    unreadable: now.length > 0,
  };
}

export interface ScopeCounts {
  open: number;
  blocked: number;
  done: number;
  cancelled: number;
  total: number;
}

export interface LastDecisionView {
  at: number;
  action: DecisionLogEntry["action"];
  reason: SkipReason | null;
  /** The decision in words: "nudged (nudge 2)", "skipped: only blocked items remain". */
  words: string;
}

export interface OverviewRow {
  key: string;
  kind: Scope["kind"];
  host: string;
  label: string;
  counts: ScopeCounts;
  state: ScopeStateName;
  stateWords: string;
  budgets: BudgetBar[];
  /** The open continuation episode, or null. */
  episodeId: string | null;
  last: LastDecisionView | null;
  problem: ScopeProblem | null;
  /** The project's check as last run for this scope; null: never; absent: unknown (unreadable). */
  verify?: VerificationView | null;
  /** What the scope needs from the person watching (see groups.ts). */
  group: GroupName;
  groupWhy: string;
  /** The project folder its sessions work in: as its host recorded it, else the store's project; else null. */
  project: string | null;
  /** The open episode's model as the host reported it; null when not reported. */
  model: string | null;
  /** The newest thing that happened: a decision, a turn, a user turn, a check, a nudge. */
  lastEventAt: number | null;
  /** The open episode and its decisions from the log (oldest first), for burn rates at render time. */
  spend: { episode: SpendEpisode; entries: RatePoint[] } | null;
  /** The limits its budgets and its nearest limit are judged by (with the episode's raise); null when unreadable. */
  limits: Limits | null;
  /**
   * Where those limits came from: the project's config file (found from the
   * folder the scope recorded), or the dashboard's preset; null when unknown.
   */
  limitsFrom: LimitsFrom | null;
  /** Lower-cased text the filter box searches. */
  search: string;
}

/** The open episode's cost in words: "$0.42", "≥ $0.42" (some turns unpriced), "unknown", "—". */
export function costWords(
  episode: Pick<Episode, "costUsd" | "unpricedTurns"> | null | undefined,
): string {
  if (episode == null || episode.costUsd === undefined) {
    return (episode?.unpricedTurns ?? 0) > 0 ? "unknown" : "—";
  }
  const unpriced = (episode.unpricedTurns ?? 0) > 0;
  if (unpriced && episode.costUsd <= 0) return "unknown";
  return `${unpriced ? "≥ " : ""}${formatUsd(episode.costUsd)}`;
}

export function formatUsd(usd: number): string {
  return `$${usd >= 100 ? usd.toFixed(0) : usd >= 0.01 || usd === 0 ? usd.toFixed(2) : usd.toPrecision(2)}`;
}

/** The newest time anything happened to a scope, from its state and its newest decision. */
export function lastEventAt(
  state: ScopeSnapshot["state"],
  last: DecisionLogEntry | null,
): number | null {
  const check = state.verify?.last;
  let newest: number | null = null;
  for (const t of [
    last?.at,
    state.lastOutcome?.endedAt,
    state.lastUserTurnAt,
    state.episode?.lastInjectionAt,
    state.episode?.startedAt,
    check == null ? null : check.startedAt + check.durationMs,
  ]) {
    if (typeof t === "number" && Number.isFinite(t) && (newest === null || t > newest)) newest = t;
  }
  return newest;
}

/** Decisions of the open episode a row keeps for its burn rate. */
const RATE_ENTRIES = 64;

/** What the spend columns need of the open episode (a row keeps no more of it). */
export type SpendEpisode = Pick<Episode, "id" | "startedAt" | "autoTurns" | "tokens"> &
  Pick<Episode, "costUsd" | "unpricedTurns">;

export function spendEpisode(e: Episode): SpendEpisode {
  const out: SpendEpisode = {
    id: e.id,
    startedAt: e.startedAt,
    autoTurns: e.autoTurns,
    tokens: e.tokens,
  };
  if (e.costUsd !== undefined) out.costUsd = e.costUsd;
  if (e.unpricedTurns !== undefined) out.unpricedTurns = e.unpricedTurns;
  return out;
}

/** What the burn rate needs of a decision: when, and the episode's running totals then. */
export type RatePoint = Pick<
  DecisionLogEntry,
  "at" | "tokens" | "autoTurns" | "episodeId" | "action"
>;

/**
 * The decisions of the episode the burn rate can still use: those in the window from `now` on
 * (the window only moves forward) and the newest before it, its starting point. Kept as small
 * points, so 10,000 rows hold a few numbers each, not their logs.
 */
export function ratePoints(
  log: readonly DecisionLogEntry[],
  episodeId: string,
  now: number,
): RatePoint[] {
  const from = now - BURN_WINDOW_MS;
  const mine = log.filter((e) => e.episodeId === episodeId && e.action !== "delivery-failed");
  let first = mine.findIndex((e) => e.at > from);
  if (first < 0) first = mine.length;
  return mine
    .slice(Math.max(0, first - 1))
    .slice(-RATE_ENTRIES)
    .map(({ at, tokens, autoTurns, action }) => ({ at, tokens, autoTurns, episodeId, action }));
}

/** Budgets at or above this limit mean "no limit" (presets use a huge number). */
const UNLIMITED_AT = Number.MAX_SAFE_INTEGER / 2;

const OUT_OF_BUDGET: ReadonlySet<SkipReason> = new Set<SkipReason>([
  "max-auto-turns",
  "max-tokens",
  "max-wall-clock",
  "max-cost",
  "stagnation",
  "cooldown",
  "too-many-incomplete",
]);

/** The host a scope belongs to: the agent program for sessions, else the kind of origin. */
export function scopeHost(scope: Scope): string {
  if (scope.kind === "session" || scope.kind === "channel") {
    const first = scope.key.slice(scope.key.indexOf("/") + 1).split(".")[0] ?? "";
    const decoded = decodeComponent(first);
    const name = decoded?.form === "string" ? decoded.value : first;
    return scope.kind === "channel" ? `channel:${name}` : name;
  }
  return scope.kind;
}

export function lastDecisionWords(entry: DecisionLogEntry): string {
  switch (entry.action) {
    case "inject":
      return entry.advise === true
        ? `would nudge (advise mode, nudge ${entry.autoTurns})`
        : `nudged (nudge ${entry.autoTurns})`;
    case "raised":
      return `limits raised by the user${entry.note ? `: ${entry.note}` : ""}`;
    case "delivery-failed":
      return `nudge not delivered${entry.note ? `: ${entry.note}` : ""}`;
    case "skip":
      return entry.reason === null
        ? "skipped"
        : `skipped: ${REASON_TITLES[entry.reason] ?? entry.reason}`;
  }
}

function bar(name: BudgetBar["name"], used: number, limit: number): BudgetBar {
  if (!(limit > 0) || limit >= UNLIMITED_AT) return { name, used, limit: null, fraction: 0 };
  return { name, used, limit, fraction: Math.min(1, Math.max(0, used / limit)) };
}

/** The open episode's budgets; all zero when no episode is open. */
export function budgetBars(
  snapshot: ScopeSnapshot,
  summary: TodoSummary,
  limits: Limits,
  now: number,
): BudgetBar[] {
  const e = snapshot.state.episode;
  const stagnation = e === null ? 0 : judgeStagnation(e, summary, limits).count;
  return [
    bar("nudges", e?.autoTurns ?? 0, limits.maxAutoTurns),
    bar("tokens", e?.tokens ?? 0, limits.maxTokens),
    bar("wall clock", e === null ? 0 : Math.max(0, now - e.startedAt), limits.maxWallClockMs),
    bar("stagnation", stagnation, limits.stagnationLimit),
  ];
}

/**
 * The state in one word: what the engine would do at the next idle, judged by
 * the same decision the hosts make (a dry run), so the page never disagrees
 * with `why`.
 */
export function stateOf(
  snapshot: ScopeSnapshot,
  summary: TodoSummary,
  decision: Decision,
): ScopeStateName {
  if (snapshot.state.stopped) return "stopped";
  if (decision.action === "inject") return "nudging";
  // Stores that check their documents skip with this reason until the user's next turn.
  if ((decision.reason as string) === "state-unreadable") return "unreadable";
  if (summary.actionable === 0 && summary.blocked > 0) return "parked";
  if (decision.reason === "continuation-stopped") return "stopped";
  if (OUT_OF_BUDGET.has(decision.reason)) return "out-of-budget";
  // Between two nudges of an open episode the last turn is already answered.
  if (decision.reason === "turn-not-safe" && snapshot.state.episode !== null) return "nudging";
  return "idle";
}

export function countsOf(summary: TodoSummary): ScopeCounts {
  return {
    open: summary.actionable,
    blocked: summary.blocked,
    done: summary.completed,
    cancelled: summary.cancelled,
    total: summary.total,
  };
}

function searchText(parts: (string | null | undefined)[]): string {
  return parts
    .filter((p) => p)
    .join(" ")
    .toLowerCase();
}

/** Where a row's limits came from (a `ScopeLimits`, shared by every scope of its project). */
export type LimitsFrom = Pick<ScopeLimits, "preset" | "file" | "problem">;

export function overviewRow(input: {
  scope: Scope;
  label: string;
  snapshot: ScopeSnapshot;
  summary: TodoSummary;
  decision: Decision;
  last: DecisionLogEntry | null;
  limits: Limits;
  /** Where `limits` came from (see `ScopeJudge`); absent: not said. */
  limitsFrom?: LimitsFrom;
  now: number;
  /** What the store reported wrong with the scope's documents, if anything. */
  problem?: ScopeProblem | null;
  /** The log's newest entries (oldest first), for the burn rate; `last` alone when absent. */
  log?: readonly DecisionLogEntry[];
  project?: string | null;
}): OverviewRow {
  const { scope, label, snapshot, summary, decision, last, limits, now } = input;
  const problem = input.problem ?? null;
  const state = problem?.unreadable ? "unreadable" : stateOf(snapshot, summary, decision);
  const host = scopeHost(scope);
  const episode = snapshot.state.episode;
  // What the user added with `resume --add` counts, as the engine counts it (same object without).
  const held = episodeLimits(limits, episode);
  const grouping: Grouping = groupOf({
    state,
    reason: decision.action === "skip" ? decision.reason : null,
    summary,
    stored: snapshot.state,
    last,
  });
  const log = input.log ?? (last === null ? [] : [last]);
  // What the host recorded wins over what the store's location suggests.
  const project = snapshot.state.projectDir ?? input.project ?? null;
  return {
    key: scope.key,
    kind: scope.kind,
    host,
    label,
    counts: countsOf(summary),
    state,
    stateWords: STATE_WORDS[state],
    budgets: budgetBars(snapshot, summary, held, now),
    episodeId: snapshot.state.episode?.id ?? null,
    last:
      last === null
        ? null
        : { at: last.at, action: last.action, reason: last.reason, words: lastDecisionWords(last) },
    problem,
    verify: verificationView(snapshot.state, summary),
    group: grouping.group,
    groupWhy: grouping.why,
    project,
    model: episode?.model ?? null,
    lastEventAt: lastEventAt(snapshot.state, last),
    spend:
      episode === null
        ? null
        : { episode: spendEpisode(episode), entries: ratePoints(log, episode.id, now) },
    limits: held,
    limitsFrom: input.limitsFrom ?? null,
    search: searchText([
      scope.key,
      label,
      host,
      STATE_WORDS[state],
      GROUP_WORDS[grouping.group],
      episode?.model,
      project,
      problem?.message,
    ]),
  };
}

/** A scope whose documents could not be read. */
export function unreadableRow(
  scope: Scope,
  label: string,
  problem: ScopeProblem,
  project: string | null = null,
): OverviewRow {
  const host = scopeHost(scope);
  return {
    key: scope.key,
    kind: scope.kind,
    host,
    label,
    counts: { open: 0, blocked: 0, done: 0, cancelled: 0, total: 0 },
    state: "unreadable",
    stateWords: STATE_WORDS.unreadable,
    budgets: [],
    episodeId: null,
    last: null,
    problem,
    group: "needs-you",
    groupWhy: "the store cannot read it",
    project,
    model: null,
    lastEventAt: null,
    spend: null,
    limits: null,
    limitsFrom: null,
    search: searchText([scope.key, label, host, "unreadable", "needs you", problem.message]),
  };
}

/** What a store's error says about a scope, with the preserved copy when the error names one. */
export function problemOf(error: unknown): ScopeProblem {
  const message = error instanceof Error ? error.message : String(error);
  const record = (typeof error === "object" && error !== null ? error : {}) as Record<
    string,
    unknown
  >;
  const copies = [record.preservedCopy, record.preservedAs, record.asidePath].filter(
    (v): v is string => typeof v === "string" && v !== "",
  );
  return { message, preservedCopies: copies, unreadable: true };
}
