import { describe, expect, it } from "vitest";
import { isRealUserPrompt } from "./prompt-source.js";

describe("isRealUserPrompt", () => {
  it("trusts the documented sources for people", () => {
    expect(isRealUserPrompt("continue", "user")).toBe(true);
    expect(isRealUserPrompt("continue", "sdk")).toBe(true);
  });

  it("treats injected and unknown sources as not real", () => {
    for (const source of [
      "system",
      "loop_wakeup",
      "schedule_wakeup",
      "poll_event",
      "something-new",
    ]) {
      expect(isRealUserPrompt("continue", source)).toBe(false);
    }
  });

  it("recognizes prompts the host writes itself when no source is sent", () => {
    expect(isRealUserPrompt("<task-notification>\n<task-id>x</task-id>", null)).toBe(false);
    expect(isRealUserPrompt("  <teammate-message from=a>hi", null)).toBe(false);
    expect(isRealUserPrompt("please fix <task-notification> parsing", null)).toBe(true);
    expect(isRealUserPrompt("do the work", null)).toBe(true);
  });
});
