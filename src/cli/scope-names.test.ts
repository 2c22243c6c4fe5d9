import { describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/index.js";
import type { Origin, Scope } from "../core/types.js";
import { matchScope } from "./scope-match.js";
import { scopeCandidate, scopeNames } from "./scope-names.js";

function scope(origin: Origin): Scope {
  const resolved = resolveScope(origin);
  if (resolved === null) throw new Error("expected a scope");
  return resolved;
}

describe("scopeNames", () => {
  it("names a session by its label and its session id", () => {
    const names = scopeNames(scope({ kind: "session", host: "claude-code", sessionId: "Abc-123" }));
    expect(names).toEqual(["claude-code session Abc-123", "Abc-123"]);
  });

  it("names a cron job by its job id and a channel by its chat and thread", () => {
    expect(scopeNames(scope({ kind: "cron", jobId: "nightly" }))).toContain("nightly");
    const channel = scopeNames(
      scope({ kind: "channel", adapter: "slack", workspace: null, chat: "C42", thread: null }),
    );
    expect(channel).toContain("C42");
    expect(channel).toHaveLength(2);
  });

  it("gives the shared tui scope its label only", () => {
    expect(scopeNames(scope({ kind: "tui" }))).toEqual(["tui (shared)"]);
  });

  it("lets a person find a session by the start of its id", () => {
    const scopes = [
      scope({ kind: "session", host: "claude-code", sessionId: "7f3a9c" }),
      scope({ kind: "session", host: "claude-code", sessionId: "81bb02" }),
    ].map(scopeCandidate);
    const match = matchScope("7f3", scopes);
    expect(match.kind === "found" && match.candidate.names[1]).toBe("7f3a9c");
  });
});
