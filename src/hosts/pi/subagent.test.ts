import { describe, expect, it } from "vitest";
import { isSubagent, markParent, PARENT_ENV, SUBAGENT_ENV } from "./subagent.js";

describe("subagent detection", () => {
  it("is a top-level session without a mark", () => {
    expect(isSubagent({}, 42)).toBe(false);
    expect(isSubagent({ [PARENT_ENV]: "" }, 42)).toBe(false);
  });

  it("is a subagent when another process marked the environment", () => {
    const env: Record<string, string | undefined> = {};
    markParent(env, "session/spi.sabc", 41);
    expect(env[PARENT_ENV]).toBe("41:session/spi.sabc");
    expect(isSubagent(env, 42)).toBe(true);
    // The process that set the mark is not its own subagent.
    expect(isSubagent(env, 41)).toBe(false);
  });

  it("lets the explicit variable win either way", () => {
    expect(isSubagent({ [SUBAGENT_ENV]: "1" }, 42)).toBe(true);
    expect(isSubagent({ [SUBAGENT_ENV]: "true" }, 42)).toBe(true);
    expect(isSubagent({ [SUBAGENT_ENV]: "0", [PARENT_ENV]: "41:x" }, 42)).toBe(false);
    expect(isSubagent({ [SUBAGENT_ENV]: "FALSE", [PARENT_ENV]: "41:x" }, 42)).toBe(false);
  });
});
