import { join } from "node:path";
import { resolveScope } from "../../../src/core/scope/scope.js";
import type { DecisionLogEntry, Scope, ScopeSnapshot } from "../../../src/core/types.js";
import { createFileStore } from "../../../src/store/file/index.js";
import { waitFor } from "./wait-for.js";

/**
 * Our store in a project, where the Claude Code hooks keep it by default (the
 * Claude Agent SDK's hooks reuse them, and the folder).
 */
function projectStore(project: { dir: string }) {
  return createFileStore({ root: join(project.dir, ".claude", "todo-continuation") });
}

/** One Claude Code session's state and decision log, as the hooks wrote them. */
export async function readSession(
  project: { dir: string },
  sessionId: string,
): Promise<{ snapshot: ScopeSnapshot; log: DecisionLogEntry[] }> {
  const scope = resolveScope({ kind: "session", host: "claude-code", sessionId }) as Scope;
  const store = projectStore(project);
  try {
    return { snapshot: await store.read(scope), log: await store.readLog(scope) };
  } finally {
    await store.close();
  }
}

/** The decision log of the one session the project's store holds so far (empty before any). */
export async function onlySessionLog(project: { dir: string }): Promise<DecisionLogEntry[]> {
  const store = projectStore(project);
  try {
    const scopes = await store.listScopes();
    if (scopes.length > 1) throw new Error(`expected one session, found ${scopes.length}`);
    return scopes[0] === undefined ? [] : await store.readLog(scopes[0]);
  } finally {
    await store.close();
  }
}

/** Resolves once the hooks have logged the session's first stop decision (a parent's, with a helper). */
export function firstStopDecided(project: { dir: string }): Promise<true> {
  return waitFor("the parent's first stop decision", async () =>
    (await onlySessionLog(project)).length > 0 ? true : undefined,
  );
}
