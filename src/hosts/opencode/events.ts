import type { OpenCodeEvent, OpenCodeModelRef } from "./client.js";

/**
 * OpenCode bus events, narrowed to what the plugin acts on. Reading is
 * defensive: an event without the fields we need is ignored (null), never
 * guessed at.
 */
export type SessionEvent =
  | { kind: "idle"; sessionId: string }
  | { kind: "busy"; sessionId: string }
  | { kind: "error"; sessionId: string; error: unknown }
  | {
      kind: "user-message";
      sessionId: string;
      messageId: string;
      createdAt: number | undefined;
      agent: string | undefined;
    }
  | {
      kind: "assistant-message";
      sessionId: string;
      messageId: string;
      parentId: string | undefined;
      agent: string | undefined;
      model: OpenCodeModelRef | undefined;
      /** Set once the message is complete; earlier updates carry no outcome. */
      completed: boolean;
      finish: unknown;
      error: unknown;
      tokens: unknown;
      /** A compaction summary, not work. */
      summary: boolean;
    }
  | {
      kind: "part";
      sessionId: string;
      messageId: string;
      type: string;
      text: string | undefined;
      synthetic: boolean;
      metadata: Record<string, unknown> | undefined;
    }
  | { kind: "todos"; sessionId: string; todos: unknown }
  /** The question tool asks the user (`asked`) or the user answered or dismissed it. */
  | { kind: "question"; sessionId: string; requestId: string; pending: boolean }
  | { kind: "compacted"; sessionId: string }
  | { kind: "deleted"; sessionId: string }
  | { kind: "session-info"; sessionId: string; parentId: string | null };

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function modelOf(info: Record<string, unknown>): OpenCodeModelRef | undefined {
  const providerID = text(info.providerID);
  const modelID = text(info.modelID);
  if (providerID && modelID) return { providerID, modelID };
  const nested = record(info.model);
  const p = text(nested?.providerID);
  const m = text(nested?.modelID);
  return p && m ? { providerID: p, modelID: m } : undefined;
}

function readMessage(info: Record<string, unknown>): SessionEvent | null {
  const sessionId = text(info.sessionID);
  const messageId = text(info.id);
  if (!sessionId || !messageId) return null;
  const time = record(info.time);
  if (info.role === "user") {
    return {
      kind: "user-message",
      sessionId,
      messageId,
      createdAt: typeof time?.created === "number" ? time.created : undefined,
      agent: text(info.agent),
    };
  }
  if (info.role !== "assistant") return null;
  return {
    kind: "assistant-message",
    sessionId,
    messageId,
    parentId: text(info.parentID),
    agent: text(info.agent) ?? text(info.mode),
    model: modelOf(info),
    completed: typeof time?.completed === "number",
    finish: info.finish,
    error: info.error,
    tokens: info.tokens,
    summary: info.summary === true,
  };
}

/** The event as the plugin sees it, or null when it is not one it acts on. */
export function readEvent(event: OpenCodeEvent | undefined): SessionEvent | null {
  if (!event || typeof event.type !== "string") return null;
  const props = record(event.properties);
  if (!props) return null;
  const sessionId = text(props.sessionID);
  switch (event.type) {
    case "session.status": {
      const status = record(props.status)?.type;
      if (!sessionId) return null;
      if (status === "idle") return { kind: "idle", sessionId };
      if (status === "busy" || status === "retry") return { kind: "busy", sessionId };
      return null;
    }
    case "session.idle":
      return sessionId ? { kind: "idle", sessionId } : null;
    case "session.error":
      return sessionId ? { kind: "error", sessionId, error: props.error } : null;
    case "session.compacted":
      return sessionId ? { kind: "compacted", sessionId } : null;
    case "session.created":
    case "session.updated":
    case "session.deleted": {
      const info = record(props.info);
      const id = sessionId ?? text(info?.id);
      if (!id) return null;
      if (event.type === "session.deleted") return { kind: "deleted", sessionId: id };
      return { kind: "session-info", sessionId: id, parentId: text(info?.parentID) ?? null };
    }
    case "question.asked": {
      const id = text(props.id);
      return sessionId && id ? { kind: "question", sessionId, requestId: id, pending: true } : null;
    }
    case "question.replied":
    case "question.rejected": {
      const id = text(props.requestID);
      return sessionId && id
        ? { kind: "question", sessionId, requestId: id, pending: false }
        : null;
    }
    case "todo.updated":
      return sessionId ? { kind: "todos", sessionId, todos: props.todos } : null;
    case "message.updated": {
      const info = record(props.info);
      return info ? readMessage(info) : null;
    }
    case "message.part.updated": {
      const part = record(props.part);
      const partSession = text(part?.sessionID) ?? sessionId;
      const messageId = text(part?.messageID);
      if (!part || !partSession || !messageId) return null;
      return {
        kind: "part",
        sessionId: partSession,
        messageId,
        type: typeof part.type === "string" ? part.type : "",
        text: typeof part.text === "string" ? part.text : undefined,
        synthetic: part.synthetic === true,
        metadata: record(part.metadata),
      };
    }
    default:
      return null;
  }
}
