import { describe, expect, it } from "vitest";
import { readEvent } from "./events.js";

describe("readEvent", () => {
  it("reads both idle signals and busy states", () => {
    expect(readEvent({ type: "session.idle", properties: { sessionID: "s" } })).toEqual({
      kind: "idle",
      sessionId: "s",
    });
    const status = (type: string) =>
      readEvent({ type: "session.status", properties: { sessionID: "s", status: { type } } });
    expect(status("idle")).toEqual({ kind: "idle", sessionId: "s" });
    expect(status("busy")).toEqual({ kind: "busy", sessionId: "s" });
    expect(status("retry")).toEqual({ kind: "busy", sessionId: "s" });
    expect(status("weird")).toBeNull();
  });

  it("reads an assistant message's outcome only from its completed update", () => {
    const info = {
      id: "m2",
      sessionID: "s",
      role: "assistant",
      parentID: "m1",
      mode: "build",
      providerID: "p",
      modelID: "m",
      finish: "stop",
      tokens: { input: 1 },
      time: { created: 1 },
    };
    const pending = readEvent({ type: "message.updated", properties: { info } });
    expect(pending).toMatchObject({
      kind: "assistant-message",
      completed: false,
      agent: "build",
      parentId: "m1",
    });
    const done = readEvent({
      type: "message.updated",
      properties: { info: { ...info, time: { created: 1, completed: 2 } } },
    });
    expect(done).toMatchObject({
      completed: true,
      finish: "stop",
      model: { providerID: "p", modelID: "m" },
    });
  });

  it("reads user messages, parts, todos, errors and session lifecycle", () => {
    expect(
      readEvent({
        type: "message.updated",
        properties: {
          info: { id: "m1", sessionID: "s", role: "user", agent: "plan", time: { created: 5 } },
        },
      }),
    ).toEqual({
      kind: "user-message",
      sessionId: "s",
      messageId: "m1",
      createdAt: 5,
      agent: "plan",
    });
    expect(
      readEvent({
        type: "message.part.updated",
        properties: {
          part: {
            sessionID: "s",
            messageID: "m1",
            type: "text",
            text: "hi",
            synthetic: true,
            metadata: { k: 1 },
          },
        },
      }),
    ).toEqual({
      kind: "part",
      sessionId: "s",
      messageId: "m1",
      type: "text",
      text: "hi",
      synthetic: true,
      metadata: { k: 1 },
    });
    expect(readEvent({ type: "todo.updated", properties: { sessionID: "s", todos: [] } })).toEqual({
      kind: "todos",
      sessionId: "s",
      todos: [],
    });
    expect(
      readEvent({ type: "session.error", properties: { sessionID: "s", error: { name: "X" } } }),
    ).toEqual({
      kind: "error",
      sessionId: "s",
      error: { name: "X" },
    });
    expect(
      readEvent({ type: "session.created", properties: { info: { id: "c", parentID: "p" } } }),
    ).toEqual({
      kind: "session-info",
      sessionId: "c",
      parentId: "p",
    });
    expect(readEvent({ type: "session.deleted", properties: { info: { id: "c" } } })).toEqual({
      kind: "deleted",
      sessionId: "c",
    });
    expect(readEvent({ type: "session.compacted", properties: { sessionID: "s" } })).toEqual({
      kind: "compacted",
      sessionId: "s",
    });
  });

  it("returns null for events without what it needs", () => {
    expect(readEvent(undefined)).toBeNull();
    expect(readEvent({ type: "session.error", properties: { error: { name: "X" } } })).toBeNull();
    expect(
      readEvent({ type: "message.updated", properties: { info: { role: "user" } } }),
    ).toBeNull();
    expect(
      readEvent({
        type: "message.updated",
        properties: { info: { id: "m", sessionID: "s", role: "system" } },
      }),
    ).toBeNull();
    expect(
      readEvent({ type: "message.part.updated", properties: { part: { sessionID: "s" } } }),
    ).toBeNull();
    expect(readEvent({ type: "file.edited", properties: { file: "x" } })).toBeNull();
    expect(readEvent({ type: "session.idle", properties: "s" })).toBeNull();
  });
});
