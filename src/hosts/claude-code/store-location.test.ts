import { describe, expect, it } from "vitest";
import { hookStoreRoot, projectDir } from "./store-location.js";

describe("hookStoreRoot", () => {
  it("defaults to a folder inside the project Claude Code names", () => {
    expect(hookStoreRoot({ env: { CLAUDE_PROJECT_DIR: "/p" }, cwd: "/p/sub" })).toBe(
      "/p/.claude/todo-continuation",
    );
    expect(hookStoreRoot({ env: {}, cwd: "/w" })).toBe("/w/.claude/todo-continuation");
  });

  it("lets --dir, then TODO_CONTINUATION_DIR, move it", () => {
    const env = { CLAUDE_PROJECT_DIR: "/p", TODO_CONTINUATION_DIR: "state" };
    expect(hookStoreRoot({ env, cwd: "/w" })).toBe("/w/state");
    expect(hookStoreRoot({ dir: "/d", env, cwd: "/w" })).toBe("/d");
    expect(hookStoreRoot({ dir: " ", env: { TODO_CONTINUATION_DIR: "" }, cwd: "/w" })).toBe(
      "/w/.claude/todo-continuation",
    );
  });

  it("ignores a relative project variable", () => {
    expect(projectDir({ CLAUDE_PROJECT_DIR: "rel" }, "/w")).toBe("/w");
  });
});
