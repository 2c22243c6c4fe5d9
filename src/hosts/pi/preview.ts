import { decide } from "../../core/engine/decide.js";
import { onTurnOutcome } from "../../core/engine/transitions.js";
import { renderNudge } from "../../core/nudge/index.js";
import { summarize } from "../../core/todo/summary.js";
import type { HostSignals, ScopeSnapshot, SkipReason, TurnOutcome } from "../../core/types.js";
import type { ContinuationRuntime } from "../../runtime/index.js";

export type Preview = { action: "inject"; text: string } | { action: "skip"; reason: SkipReason };

/**
 * The snapshot with a turn's outcome recorded, as `runtime.turnEnded` records
 * it. Pure; a malformed outcome throws (callers then stop previewing).
 */
export function withOutcome(snapshot: ScopeSnapshot, outcome: TurnOutcome): ScopeSnapshot {
  return { ...snapshot, state: onTurnOutcome(snapshot.state, outcome) };
}

/**
 * What `runtime.runIdle` would decide on this snapshot, computed
 * synchronously from the same pure engine and nudge renderer. pi needs the
 * answer before it may await anything (see `PiContinuation`); the runtime
 * still makes and persists the real decision, and the caller reconciles the
 * two before the model sees a word.
 */
export function previewIdle(
  runtime: ContinuationRuntime,
  snapshot: ScopeSnapshot,
  signals: HostSignals,
  now: number,
): Preview {
  const decision = decide({
    state: snapshot.state,
    summary: summarize(snapshot.todos),
    signals,
    limits: runtime.limits,
    now,
  });
  if (decision.action === "skip") return { action: "skip", reason: decision.reason };
  const text = renderNudge(runtime.nudgeStyle, snapshot.todos, {
    closeInstruction: runtime.closeInstruction,
    episode: decision.episode,
    limits: runtime.limits,
  });
  return { action: "inject", text };
}
