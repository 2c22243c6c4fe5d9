import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import type { Store } from "../../core/types.js";
import type { FileStore } from "../file/file-store.js";
import type { PostgresStore } from "../postgres/postgres-store.js";
import { moveFile } from "./file.js";
import { readRowsArchives } from "./prune.js";

export interface RestoreResult {
  /** A scope key (PostgreSQL) or a file path relative to the store root. */
  item: string;
  restored: boolean;
  /** Why not: it exists again in the store. */
  why?: string;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

/**
 * Puts an archive made by `prune --archive` back: files move back to the
 * same place under the store root, rows go back into their tables. Nothing
 * that exists again in the store is overwritten.
 */
export async function restoreArchive(store: Store, dir: string): Promise<RestoreResult[]> {
  if (!existsSync(dir)) throw new Error(`${dir} does not exist`);
  const results: RestoreResult[] = [];
  if (typeof (store as Partial<FileStore>).todoDir === "string") {
    const root = (store as FileStore).root;
    for (const file of filesUnder(dir)) {
      const rel = relative(dir, file);
      if (rel.startsWith(`postgres/`)) continue;
      const target = join(root, rel);
      if (existsSync(target)) {
        results.push({ item: rel, restored: false, why: "exists in the store" });
        continue;
      }
      moveFile(file, target);
      results.push({ item: rel, restored: true });
    }
    return results;
  }
  const pg = store as Partial<PostgresStore>;
  if (typeof pg.restoreScope !== "function") throw new Error("this store cannot restore archives");
  for (const archive of readRowsArchives(dir)) {
    if (archive.schema !== pg.schema) continue;
    const restored = await pg.restoreScope({ scope: archive.scope, log: archive.log });
    results.push({
      item: String(archive.scope.key),
      restored,
      ...(restored ? {} : { why: "exists in the store" }),
    });
  }
  return results;
}
