import { resolve, sep } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import { scopedOrigin } from "../../core/scope/test-support/arbitraries.js";
import type { Scope } from "../../core/types.js";
import { containedPath, scopePaths, UnsafePathError } from "./paths.js";

const TODO = resolve("/srv/data/todo");

describe("containedPath", () => {
  it.each(["..", "../x", "../sessions/x", "a/../../x", "/etc/passwd", "", ".", "a/.."])(
    "refuses %j",
    (relativePath) => {
      expect(() => containedPath(TODO, relativePath)).toThrow(/resolves outside/);
    },
  );

  it("accepts paths strictly inside", () => {
    expect(containedPath(TODO, "cron/sx.json")).toBe(`${TODO}${sep}cron${sep}sx.json`);
    expect(containedPath(TODO, "..x.json")).toBe(`${TODO}${sep}..x.json`);
  });
});

describe("scopePaths", () => {
  it("lays out a scope's four files and the folders they need", () => {
    const scope = resolveScope({ kind: "cron", jobId: "nightly" })!;
    expect(scopePaths(TODO, scope)).toEqual({
      todos: resolve(TODO, "cron/snightly.json"),
      state: resolve(TODO, ".state/cron/snightly.json"),
      log: resolve(TODO, ".state/cron/snightly.log.jsonl"),
      lock: resolve(TODO, ".state/cron/snightly.lock"),
      stop: resolve(TODO, ".state/cron/snightly.stop"),
      dirs: [resolve(TODO, "cron"), resolve(TODO, ".state"), resolve(TODO, ".state/cron")],
    });
  });

  it.each<[string, Scope]>([
    ["a traversal key", { key: "../sessions/x", kind: "session" }],
    ["a traversal inside a kind", { key: "session/../../x", kind: "session" }],
    ["an absolute key", { key: "/tmp/x", kind: "tui" }],
    ["a mismatched kind", { key: "cron/sx", kind: "session" }],
  ])("throws a clear error for %s", (_, scope) => {
    expect(() => scopePaths(TODO, scope)).toThrow(/invalid scope/);
  });

  it("keeps every path of every resolvable scope inside the todo folder", () => {
    fc.assert(
      fc.property(scopedOrigin, (origin) => {
        const paths = scopePaths(TODO, resolveScope(origin)!);
        for (const path of [paths.todos, paths.state, paths.log, paths.lock, ...paths.dirs]) {
          expect(path.startsWith(TODO + sep)).toBe(true);
        }
      }),
    );
  });
});

describe("containedPath joins as resolve does", () => {
  it("gives resolve's answer for every path it accepts and refuses every one outside", () => {
    const base = TODO;
    const part = fc.oneof(fc.constantFrom("", ".", "..", "a", "b.json", "\\", "/"), fc.string());
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), (parts) => {
        const rel = parts.join("/");
        const full = resolve(base, rel);
        const inside = full.startsWith(`${base}${sep}`);
        if (inside) expect(containedPath(base, rel)).toBe(full);
        else expect(() => containedPath(base, rel)).toThrow(UnsafePathError);
      }),
    );
  });
});
