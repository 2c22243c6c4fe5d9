import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isCancelled,
  isCliPrompt,
  isOurNudge,
  isRealUserPrompt,
  judgeTurn,
  lastMessageOf,
  nudgeReason,
  stopReasonOf,
  type TurnFacts,
} from "./turn.js";

describe("Gemini turn facts", () => {
  it("knows our nudge when it comes back through BeforeAgent", () => {
    const reason = nudgeReason("Open todos remain.");
    expect(isOurNudge(reason)).toBe(true);
    expect(isRealUserPrompt(reason)).toBe(false);
    expect(isRealUserPrompt("Open todos remain.")).toBe(true);
  });

  it("knows the CLI's own prompts", () => {
    expect(
      isCliPrompt("[System: You successfully executed a tool but returned an empty response.]"),
    ).toBe(true);
    expect(isCliPrompt("System: Potential loop detected. Details: ...")).toBe(true);
    expect(isRealUserPrompt("Please fix the System: prompt parsing")).toBe(true);
  });

  it("reads an empty response as the user's cancel", () => {
    expect(isCancelled("[no response text]")).toBe(true);
    expect(stopReasonOf("[no response text]")).toBe("aborted");
    expect(stopReasonOf("Done.")).toBe("stop");
    expect(lastMessageOf("[no response text]")).toBeNull();
  });

  const facts = (over: Partial<TurnFacts>): TurnFacts => ({
    prompt: "Build it.",
    promptResponse: "I stop here.",
    evidence: null,
    previous: null,
    lastUserTurnAt: 1_000,
    ...over,
  });

  it("trusts the session file over the response text", () => {
    // A reply recorded since our last decision is a new turn, whatever the text says.
    expect(judgeTurn(facts({ evidence: { kind: "reply", replyId: "g7" } }))).toEqual({
      turnId: "gemini-reply-g7",
      stopReason: "stop",
    });
    // A request with no reply is a cut-off call, even when the text grew (partial text).
    expect(
      judgeTurn(
        facts({
          promptResponse: "I stop here.\nPart",
          evidence: { kind: "cut-off", requestId: "u9" },
        }),
      ).stopReason,
    ).toBe("aborted");
    // Nothing recorded: the same turn again, which never nudges and is no abort.
    expect(judgeTurn(facts({ evidence: { kind: "no-call", lastReplyId: "g7" } }))).toEqual({
      turnId: "gemini-reply-g7",
      stopReason: "unknown",
    });
  });

  it("without a session file, reads repeated text with no prompt since as a cancel", () => {
    const first = judgeTurn(facts({}));
    expect(first.stopReason).toBe("stop");
    const previous = { turnId: first.turnId, endedAt: 2_000 };
    expect(judgeTurn(facts({ previous })).stopReason).toBe("aborted");
    // The user spoke in between: the same words are a new answer.
    expect(judgeTurn(facts({ previous, lastUserTurnAt: 3_000 })).stopReason).toBe("stop");
    // New text is a new turn.
    expect(judgeTurn(facts({ previous, promptResponse: "I stop here.\nMore." })).stopReason).toBe(
      "stop",
    );
    expect(judgeTurn(facts({ promptResponse: "[no response text]" })).stopReason).toBe("aborted");
  });

  it("without a session file, any response seen again with no prompt since is a cancel", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (response, prompt) => {
        const once = judgeTurn(facts({ prompt, promptResponse: response }));
        const again = judgeTurn(
          facts({
            prompt,
            promptResponse: response,
            previous: { turnId: once.turnId, endedAt: 2_000 },
          }),
        );
        expect(again.turnId).toBe(once.turnId);
        expect(again.stopReason).toBe("aborted");
        // And any other response is not the same turn.
        const other = judgeTurn(facts({ prompt, promptResponse: `${response}x` }));
        expect(other.turnId).not.toBe(once.turnId);
      }),
    );
  });
});
