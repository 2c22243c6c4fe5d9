import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { emptyState } from "../../core/engine/state.js";
import { resolveScope } from "../../core/scope/scope.js";
import type { DecisionLogEntry, Scope, TodoList } from "../../core/types.js";
import { createFileStore, TODO_FOLDER } from "./file-store.js";
import { scopePaths } from "./paths.js";

/**
 * A file store of many scopes, built fast for benchmarks and tests: one scope
 * is written through the real store, and its files are copied under every
 * other key (the documents do not name their scope, so each copy is exactly
 * what the store would have written).
 */

const TEMPLATE = resolveScope({ kind: "session", host: "claude-code", sessionId: "template" })!;

/** The key of the `index`th fixture scope (sorted order differs from index order). */
export function fixtureScope(index: number): Scope {
  return resolveScope({ kind: "session", host: "claude-code", sessionId: `s-${index}` })!;
}

function templateList(): TodoList {
  const statuses = ["completed", "in_progress", "pending", "pending", "blocked"] as const;
  return {
    todos: statuses.map((status, i) => ({
      content: `Step ${i + 1} of the plan`,
      status,
      id: String(i + 1),
      ...(status === "blocked" ? { blockedReason: "waiting for review" } : {}),
    })),
    phases: [],
    nextId: statuses.length + 1,
  };
}

function entry(at: number): DecisionLogEntry {
  return {
    at,
    action: "skip",
    reason: "stagnation",
    episodeId: "ep-1",
    autoTurns: 3,
    tokens: 1200,
    stagnation: 2,
    actionable: 3,
    blocked: 1,
    nudgeChars: null,
    nudgeTokens: null,
    trigger: "idle",
  };
}

/**
 * Writes `count` scopes (`fixtureScope(0..count-1)`) with a list, a state and
 * a decision log of `logEntries` entries each under `<root>/todo`.
 */
export async function writeScaleFixture(
  root: string,
  count: number,
  logEntries = 20,
): Promise<Scope[]> {
  const store = createFileStore({ root });
  await store.transact(TEMPLATE, () => ({
    todos: templateList(),
    state: { ...emptyState(), lastUserTurnAt: 1_700_000_000_000 },
    result: null,
  }));
  // One decision per transaction, as hosts log them: the state's journal then holds the last
  // decision only, as in a real store (one transaction of all the entries would leave them all).
  for (let i = 0; i < logEntries; i++) {
    await store.transact(TEMPLATE, (s) => ({
      state: s.state,
      log: [entry(1_700_000_000_000 + i)],
      result: null,
    }));
  }
  await store.close();
  const todoDir = join(root, TODO_FOLDER);
  const template = scopePaths(todoDir, TEMPLATE);
  const bytes = {
    todos: readFileSync(template.todos),
    state: readFileSync(template.state),
    log: logEntries > 0 ? readFileSync(template.log) : null,
  };
  for (const file of [template.todos, template.state, template.log]) {
    rmSync(file, { force: true });
  }
  const scopes = Array.from({ length: count }, (_, i) => fixtureScope(i));
  const made = new Set<string>();
  for (const scope of scopes) {
    const paths = scopePaths(todoDir, scope);
    for (const file of [paths.todos, paths.state]) {
      const dir = dirname(file);
      if (!made.has(dir)) mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(paths.todos, bytes.todos);
    writeFileSync(paths.state, bytes.state);
    if (bytes.log !== null) writeFileSync(paths.log, bytes.log);
  }
  return scopes;
}
