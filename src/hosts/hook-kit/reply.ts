import { resolveScope } from "../../core/scope/scope.js";
import type { Scope } from "../../core/types.js";
import type { IdleResult } from "../../runtime/runtime.js";

/**
 * The parts of a hook's answer every Claude-compatible host shares: the block
 * decision a stop hook prints to keep the agent going, the scope a session's
 * list lives under, and the stderr line that says what a stop decided.
 */

/** The JSON a stop hook prints to continue the turn with `reason` as the next prompt. */
export function blockDecision(reason: string): string {
  return JSON.stringify({ decision: "block", reason });
}

/** The scope of a host's session; throws the host's input error for an id that names none. */
export function sessionScopeOf(
  host: string,
  sessionId: string,
  Failure: new (message: string) => Error,
): Scope {
  const scope = resolveScope({ kind: "session", host, sessionId });
  if (scope === null) throw new Failure(`no scope for session_id ${JSON.stringify(sessionId)}`);
  return scope;
}

/** The hook's stderr line for a Stop's decision; advise mode says what it would have done. */
export function describeIdle(result: IdleResult): string {
  if (result.action === "skip") return `stop allowed (${result.reason})`;
  const nudge = `nudge ${result.nudge.autoTurn} of episode ${result.nudge.episodeId}`;
  if (result.advised === true) return `stop allowed (advise mode: would nudge, ${nudge})`;
  const delivered = result.delivered ? "" : " but could not be delivered";
  return `stop blocked with ${nudge}${delivered}`;
}
