import { onTurnOutcome } from "../../core/engine/transitions.js";
import type {
  HostSignals,
  ScopeSnapshot,
  SkipReason,
  TokenMode,
  TurnOutcome,
} from "../../core/types.js";
import type { ContinuationRuntime } from "../../runtime/index.js";

export type Preview = { action: "inject"; text: string } | { action: "skip"; reason: SkipReason };

/**
 * The snapshot with a turn's outcome recorded, as `runtime.turnEnded` records
 * it. Pure; a malformed outcome throws (callers then stop previewing).
 */
export function withOutcome(
  snapshot: ScopeSnapshot,
  outcome: TurnOutcome,
  tokenMode?: TokenMode,
): ScopeSnapshot {
  return { ...snapshot, state: onTurnOutcome(snapshot.state, outcome, tokenMode) };
}

/**
 * What `runtime.runIdle` would decide on this snapshot, synchronously. pi
 * needs the answer before it may await anything (see `PiContinuation`); the
 * runtime still makes and persists the real decision, and the caller
 * reconciles the two before the model sees a word.
 */
export function previewIdle(
  runtime: ContinuationRuntime,
  snapshot: ScopeSnapshot,
  signals: HostSignals,
  now: number,
): Preview {
  const { decision, nudge } = runtime.preview(snapshot, signals, now);
  if (decision.action === "skip") return { action: "skip", reason: decision.reason };
  return { action: "inject", text: nudge?.text ?? "" };
}
