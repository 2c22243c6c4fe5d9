import { describe, expect, it } from "vitest";
import {
  asksTheUser,
  hasBackgroundWork,
  stopReasonOfFailure,
  stopReasonOfStop,
  stopSignals,
} from "./outcome.js";

describe("stopReasonOfStop", () => {
  const facts = {
    lastAssistantMessage: "All set for now.",
    interrupted: false,
    transcriptStopReason: null,
  };

  it("reads a plain final message as a normal stop", () => {
    expect(stopReasonOfStop(facts)).toBe("stop");
  });

  it("lets an interrupt win over everything", () => {
    expect(stopReasonOfStop({ ...facts, interrupted: true })).toBe("aborted");
  });

  it("reads API errors in the final message as unsafe", () => {
    expect(stopReasonOfStop({ ...facts, lastAssistantMessage: "API Error: 500 boom" })).toBe(
      "transient_error",
    );
    expect(
      stopReasonOfStop({ ...facts, lastAssistantMessage: "API Error: 401 invalid x-api-key" }),
    ).toBe("error");
    expect(
      stopReasonOfStop({
        ...facts,
        lastAssistantMessage: "API Error: prompt is too long: 300000 tokens",
      }),
    ).toBe("context_overflow");
  });

  it("falls back to the transcript, and to unknown without it", () => {
    expect(
      stopReasonOfStop({ ...facts, lastAssistantMessage: null, transcriptStopReason: "end_turn" }),
    ).toBe("stop");
    expect(
      stopReasonOfStop({
        ...facts,
        lastAssistantMessage: null,
        transcriptStopReason: "max_tokens",
      }),
    ).toBe("length");
    expect(
      stopReasonOfStop({ ...facts, lastAssistantMessage: null, transcriptStopReason: "tool_use" }),
    ).toBe("unknown");
    expect(stopReasonOfStop({ ...facts, lastAssistantMessage: null })).toBe("unknown");
  });
});

describe("stopReasonOfFailure", () => {
  it("is never a safe reason", () => {
    expect(stopReasonOfFailure("server_error", null, "API Error: 500")).toBe("transient_error");
    expect(stopReasonOfFailure("authentication_failed", null, null)).toBe("error");
    expect(stopReasonOfFailure("invalid_request", "prompt is too long", null)).toBe(
      "context_overflow",
    );
    expect(stopReasonOfFailure(null, null, null)).toBe("error");
  });
});

describe("stop signals", () => {
  const input = {
    permissionMode: "default",
    backgroundTasks: [],
    sessionCrons: [],
    lastAssistantMessage: "Done.",
  };

  it("is all clear for a plain stop", () => {
    expect(stopSignals(input)).toEqual({
      agentExcluded: false,
      backgroundWork: false,
      awaitingUser: false,
    });
  });

  it("excludes plan mode, waits for background work and scheduled wakeups", () => {
    expect(stopSignals({ ...input, permissionMode: "plan" }).agentExcluded).toBe(true);
    expect(
      stopSignals({ ...input, backgroundTasks: [{ id: "a", status: "running" }] }).backgroundWork,
    ).toBe(true);
    expect(stopSignals({ ...input, sessionCrons: [{ id: "c" }] }).backgroundWork).toBe(true);
  });

  it("ignores background entries that already finished, but not unreadable ones", () => {
    expect(hasBackgroundWork([{ status: "completed" }, { status: "Failed" }])).toBe(false);
    expect(hasBackgroundWork([{ status: "pending" }])).toBe(true);
    expect(hasBackgroundWork(["?"])).toBe(true);
  });

  it("hears a closing question to the user", () => {
    expect(asksTheUser("I did A.\n\nShould I go on with B?")).toBe(true);
    expect(asksTheUser("Which one do you want? **")).toBe(false);
    expect(asksTheUser("Which one do you **prefer?**")).toBe(true);
    expect(asksTheUser("Why did it fail? Because of X.")).toBe(false);
    expect(asksTheUser(null)).toBe(false);
  });
});
