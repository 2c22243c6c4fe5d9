import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { hookDatabaseUrl, hookFailure, readHookInput } from "./hook-process.js";
import { HOOK_RUNNERS, loadHookRunner } from "./hooks.js";

describe("hook process plumbing", () => {
  it("reads all of stdin and refuses more than the limit", async () => {
    const input = () => Readable.from([Buffer.from('{"a":'), Buffer.from("1}")]);
    await expect(readHookInput(input())).resolves.toBe('{"a":1}');
    await expect(readHookInput(input(), 6)).rejects.toThrow(/hook input exceeds 6 bytes/);
  });

  it("uses a database only when one is named, and never two stores at once", () => {
    const env = { TODO_CONTINUATION_DATABASE_URL: "postgres://from-env/db" };
    expect(hookDatabaseUrl({ env: {}, root: "/r" })).toBeNull();
    expect(hookDatabaseUrl({ env, root: "/r" })).toBe("postgres://from-env/db");
    expect(hookDatabaseUrl({ env, root: "/r", dir: "/d" })).toBeNull();
    expect(hookDatabaseUrl({ env, root: "/r", databaseUrl: "postgres://flag/db" })).toBe(
      "postgres://flag/db",
    );
    expect(() =>
      hookDatabaseUrl({ env, root: "/r", dir: "/d", databaseUrl: "postgres://x" }),
    ).toThrow(/two different stores/);
    expect(() => hookDatabaseUrl({ env: {}, root: "/r", dir: " " })).toThrow(/--dir/);
    expect(() => hookDatabaseUrl({ env: {}, root: "/r", databaseUrl: "" })).toThrow(
      /--database-url/,
    );
  });

  it("says what failed and what the host does next, on stderr only", () => {
    expect(hookFailure(new Error("disk full"), "allowing the stop")).toEqual({
      stdout: "",
      stderr: ["todo-continuation: hook failed, allowing the stop: disk full"],
    });
  });

  it("loads a host's hook by name, and nothing for an unknown name", async () => {
    expect(Object.keys(HOOK_RUNNERS)).toContain("claude-code");
    expect(typeof (await loadHookRunner("claude-code"))).toBe("function");
    expect(await loadHookRunner("opencode")).toBeNull();
    expect(await loadHookRunner("toString")).toBeNull();
    expect(await loadHookRunner(undefined)).toBeNull();
  });
});
