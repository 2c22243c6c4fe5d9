import { describe, expect, it } from "vitest";
import { codexProjectDir, codexStoreRoot } from "./store-location.js";

const has =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path);

describe("Codex store location", () => {
  it("finds the project by its .git above the session's folder, else uses the folder", () => {
    expect(codexProjectDir("/w/repo/src/deep", has("/w/repo/.git"))).toBe("/w/repo");
    expect(codexProjectDir("/w/loose", has())).toBe("/w/loose");
  });

  it("prefers --dir, then $TODO_CONTINUATION_DIR, then <project>/.codex/todo-continuation", () => {
    const exists = has("/w/repo/.git");
    const cwd = "/w/repo/src";
    expect(codexStoreRoot({ dir: "store", env: {}, cwd, exists })).toBe("/w/repo/src/store");
    expect(codexStoreRoot({ env: { TODO_CONTINUATION_DIR: "/s" }, cwd, exists })).toBe("/s");
    expect(codexStoreRoot({ env: { TODO_CONTINUATION_DIR: " " }, cwd, exists })).toBe(
      "/w/repo/.codex/todo-continuation",
    );
  });
});
