import { onTurnOutcome } from "../../core/engine/transitions.js";
import type {
  HostSignals,
  ScopeSnapshot,
  SkipReason,
  TokenMode,
  TurnOutcome,
} from "../../core/types.js";
import type { ContinuationRuntime } from "../../runtime/index.js";

/**
 * `check`: `runIdle` will run the project's check at this stop, so its
 * decision may differ from the preview's (a skip may become a verification
 * nudge, a nudge gains the check's failure).
 */
export type Preview =
  | { action: "inject"; text: string; check: boolean }
  | { action: "skip"; reason: SkipReason; check: boolean };

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
  const { decision, nudge, due } = runtime.preview(snapshot, signals, now);
  const check = due === "finished" || due === "with-nudge";
  if (decision.action === "skip") return { action: "skip", reason: decision.reason, check };
  return { action: "inject", text: nudge?.text ?? "", check };
}
