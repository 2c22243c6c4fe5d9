import { describe, expect, it } from "vitest";
import {
  isCancelled,
  isCliPrompt,
  isOurNudge,
  isRealUserPrompt,
  lastMessageOf,
  nudgeReason,
  stopReasonOf,
  turnIdOf,
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

  it("gives a turn that wrote nothing new the same id, and any growth a new one", () => {
    expect(turnIdOf("Pausing.", 2)).toBe(turnIdOf("Pausing.", 2));
    expect(turnIdOf("Pausing.\nMore.", 2)).not.toBe(turnIdOf("Pausing.", 2));
    expect(turnIdOf("Pausing.", 3)).not.toBe(turnIdOf("Pausing.", 2));
  });
});
