import { decodeComponent, describeScope } from "../core/scope/index.js";
import type { Scope } from "../core/types.js";
import type { ScopeCandidate } from "./scope-match.js";

/**
 * The names a person may call a scope by besides its key: its label, and the
 * identifier that tells it apart (session id, cron job id, chat id). A hashed
 * component has no readable value, so it adds no name.
 */
export function scopeNames(scope: Scope): string[] {
  const names = [describeScope(scope)];
  const slash = scope.key.indexOf("/");
  if (slash < 0) return names;
  const parts = scope.key.slice(slash + 1).split(".");
  // session: host, sessionId; cron: jobId; channel: adapter, workspace, chat, thread.
  const distinctive = scope.kind === "session" ? [1] : scope.kind === "cron" ? [0] : [2, 3];
  for (const index of distinctive) {
    const decoded = decodeComponent(parts[index] ?? "");
    if (decoded?.form === "string" && decoded.value !== "") names.push(decoded.value);
  }
  return names;
}

export function scopeCandidate(scope: Scope): ScopeCandidate<Scope> {
  return { value: scope, key: scope.key, names: scopeNames(scope) };
}
