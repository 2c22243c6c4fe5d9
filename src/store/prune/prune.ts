import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RetentionState } from "../../core/notify/stale.js";
import type { Scope, Store } from "../../core/types.js";
import { replaceFileDurably } from "../file/atomic.js";
import type { FileStore } from "../file/file-store.js";
import type { PostgresStore } from "../postgres/postgres-store.js";
import type { ScopeRows } from "../postgres/prune.js";
import { scanScopes } from "../scan.js";
import { pruneFileScope } from "./file.js";
import { judgeScope, type PruneCriteria } from "./judge.js";

export interface PruneCandidate {
  scope: Scope;
  state: RetentionState;
  lastActivityAt: number;
}

export interface PrunePlan {
  candidates: PruneCandidate[];
  /** Old enough, but in the middle of an episode: never pruned. */
  openEpisodes: Scope[];
  /** Could not be read: never pruned. */
  unreadable: Scope[];
}

/** Every scope `prune` would touch, from one scan of the store; nothing is written. */
export async function planPrune(store: Store, criteria: PruneCriteria): Promise<PrunePlan> {
  const plan: PrunePlan = { candidates: [], openEpisodes: [], unreadable: [] };
  for await (const batch of scanScopes(store, { logTail: 1 })) {
    for (const scan of batch) {
      if (!scan.ok || scan.problems.some((p) => p.problem !== null)) {
        plan.unreadable.push(scan.scope);
        continue;
      }
      if (!scan.exists) continue;
      const judged = judgeScope(scan.snapshot, scan.log.at(-1) ?? null, criteria);
      if (judged.prune) {
        plan.candidates.push({
          scope: scan.scope,
          state: judged.state,
          lastActivityAt: judged.lastActivityAt,
        });
      } else if (judged.why === "open-episode") {
        plan.openEpisodes.push(scan.scope);
      }
    }
  }
  return plan;
}

export type PruneAction = { archive: string } | { delete: true };

export interface PruneResult {
  scope: Scope;
  outcome: "archived" | "deleted" | "locked" | "kept" | "missing" | "failed";
  error?: string;
}

/** Whether `store` is the file store (its folder holds more than scopes: see `prune`). */
export function isFileStore(store: Store): store is FileStore {
  return typeof (store as Partial<FileStore>).todoDir === "string";
}

function isPostgresStore(store: Store): store is PostgresStore {
  return typeof (store as Partial<PostgresStore>).pruneScope === "function";
}

/** The archive file of one PostgreSQL scope. */
export function rowsArchivePath(dir: string, schema: string, key: string): string {
  return join(dir, "postgres", encodeURIComponent(schema), `${encodeURIComponent(key)}.json`);
}

/**
 * Archives or deletes each planned scope, one at a time, each re-judged
 * under its lock (file store) or row lock (PostgreSQL): a scope that became
 * active since the plan, or whose lock is held, is left as it is.
 */
export async function applyPrune(
  store: Store,
  plan: PrunePlan,
  action: PruneAction,
  criteria: PruneCriteria,
): Promise<PruneResult[]> {
  const results: PruneResult[] = [];
  const stillDue = (
    snapshot: Parameters<typeof judgeScope>[0],
    last: Parameters<typeof judgeScope>[1],
  ) => judgeScope(snapshot, last, criteria).prune;
  const done = "archive" in action ? "archived" : "deleted";
  for (const { scope } of plan.candidates) {
    try {
      if (isFileStore(store)) {
        const outcome = await pruneFileScope(store, scope, action, stillDue);
        results.push({ scope, outcome: outcome === "pruned" ? done : outcome });
      } else if (isPostgresStore(store)) {
        const outcome = await store.pruneScope(scope, async ({ snapshot, last, rows }) => {
          if (!stillDue(snapshot, last)) return false;
          if ("archive" in action) {
            // Written and synced before the delete commits: an archive is never lost.
            const file = rowsArchivePath(action.archive, store.schema, scope.key);
            mkdirSync(join(file, ".."), { recursive: true });
            const doc = {
              format: "todo-continuation-archive",
              version: 1,
              schema: store.schema,
              ...rows,
            };
            replaceFileDurably(file, Buffer.from(`${JSON.stringify(doc, null, 2)}\n`), 0o600);
          }
          return true;
        });
        results.push({ scope, outcome: outcome === "pruned" ? done : outcome });
      } else if ("delete" in action) {
        await store.deleteScope(scope);
        results.push({ scope, outcome: "deleted" });
      } else {
        results.push({
          scope,
          outcome: "failed",
          error: "this store cannot archive; use --delete",
        });
      }
    } catch (error) {
      results.push({
        scope,
        outcome: "failed",
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return results;
}

/** Reads back PostgreSQL archives written by `applyPrune` (for `prune --restore`). */
export function readRowsArchives(dir: string): (ScopeRows & { schema: string; file: string })[] {
  const root = join(dir, "postgres");
  const out: (ScopeRows & { schema: string; file: string })[] = [];
  let schemas: string[];
  try {
    schemas = readdirSync(root);
  } catch {
    return out;
  }
  for (const schema of schemas) {
    for (const name of readdirSync(join(root, schema))) {
      if (!name.endsWith(".json")) continue;
      const file = join(root, schema, name);
      const doc = JSON.parse(readFileSync(file, "utf8")) as ScopeRows & {
        format?: string;
        schema: string;
      };
      if (doc.format !== "todo-continuation-archive") {
        throw new Error(`${file} is not a todo-continuation archive`);
      }
      out.push({ ...doc, file });
    }
  }
  return out;
}
