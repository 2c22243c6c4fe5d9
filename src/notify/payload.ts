import type { Notification, NotifyEvent } from "../core/notify/events.js";

/**
 * What a command reads on stdin and a webhook receives as its body; described
 * by `schema/notify-payload.schema.json` (a test holds the two together).
 */
export interface NotifyPayload {
  /** The payload format's version. */
  version: 1;
  event: NotifyEvent;
  scope: { key: string; label: string };
  /** The agent program (`claude-code`, `opencode`, ...), or the scope's kind. */
  host: string;
  /** The session's project folder, when the host knows it. */
  projectDir: string | null;
  episodeId: string | null;
  /** The decision's skip reason (`max-auto-turns`, `verified`, ...), or `verify-nudge`. */
  reason: string;
  limit: Notification["limit"];
  counts: Notification["counts"];
  episode: Notification["episode"];
  verification: Notification["verification"];
  /** When the decision was made, ISO 8601. */
  time: string;
  package: { name: "todo-continuation"; version: string };
  /** Set only by `todo-continuation notify test`. */
  test?: true;
}

/** Where the event happened: what the engine does not know and the host does. */
export interface NotifyContext {
  scope: { key: string; label: string };
  host: string;
  projectDir: string | null;
  version: string;
}

export function buildPayload(notification: Notification, context: NotifyContext): NotifyPayload {
  return {
    version: 1,
    event: notification.event,
    scope: context.scope,
    host: context.host,
    projectDir: context.projectDir,
    episodeId: notification.episodeId,
    reason: notification.reason,
    limit: notification.limit,
    counts: notification.counts,
    episode: notification.episode,
    verification: notification.verification,
    time: new Date(notification.at).toISOString(),
    package: { name: "todo-continuation", version: context.version },
  };
}

/** The variables a notify command gets besides the payload on stdin. */
export function payloadEnv(payload: NotifyPayload): Record<string, string> {
  return {
    TODO_CONTINUATION_EVENT: payload.event,
    TODO_CONTINUATION_REASON: payload.reason,
    TODO_CONTINUATION_SCOPE: payload.scope.key,
    TODO_CONTINUATION_SCOPE_LABEL: payload.scope.label,
    TODO_CONTINUATION_HOST: payload.host,
    TODO_CONTINUATION_PROJECT_DIR: payload.projectDir ?? "",
    TODO_CONTINUATION_EPISODE: payload.episodeId ?? "",
  };
}

/** A made-up notification for `notify test`: realistic, and marked as a test. */
export function samplePayload(
  event: NotifyEvent,
  context: NotifyContext,
  now: number,
): NotifyPayload {
  const reasons: Record<NotifyEvent, string> = {
    stopped: "stagnation",
    "needs-input": "only-blocked-todos",
    "out-of-budget": "max-auto-turns",
    "verify-failed": "verify-nudge",
    done: "verified",
  };
  const payload = buildPayload(
    {
      event,
      reason: reasons[event],
      limit:
        event === "out-of-budget"
          ? { reason: "max-auto-turns", name: "maxAutoTurns", max: 40, used: 40 }
          : null,
      episodeId: "ep-sample",
      counts: {
        open: 2,
        blocked: event === "needs-input" ? 1 : 0,
        completed: 3,
        cancelled: 0,
        total: 6,
      },
      episode: { autoTurns: 40, tokens: 120_000, startedAt: now - 600_000 },
      verification:
        event === "verify-failed"
          ? {
              command: "npm test",
              status: "failed",
              exitCode: 1,
              signal: null,
              outputTail: "FAIL src/sample.test.ts (a sample, not a real run)",
            }
          : null,
      at: now,
    },
    context,
  );
  return { ...payload, test: true };
}
