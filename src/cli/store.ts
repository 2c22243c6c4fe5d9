import type { Store } from "../core/types.js";
import { createFileStore } from "../store/file/index.js";
import { describeTarget } from "../store/postgres/options.js";
import { resolveStoreRoot } from "../store/root.js";
import type { GlobalOptions } from "./global-options.js";
import { storeTarget } from "./global-options.js";

/** The folder the file store uses under these options (flag, else env, else the default). */
export function fileRoot(global: GlobalOptions): string {
  return resolveStoreRoot(global.dir);
}

/** Opens the store the options name: the file store, or PostgreSQL with --database-url. */
export async function openStore(
  global: GlobalOptions,
  env: Record<string, string | undefined>,
): Promise<Store> {
  const target = storeTarget(global, env);
  if (target.kind === "postgres") {
    // Loaded only when asked for: the driver costs every other command start-up time.
    const { createPostgresStore } = await import("../store/postgres/index.js");
    return createPostgresStore({
      connectionString: target.connectionString,
      ...(global.schema !== undefined ? { schema: global.schema } : {}),
    });
  }
  return createFileStore({ root: fileRoot(global) });
}

/** Where the store is, in words, for messages: never includes a password. */
export function storeDescription(
  global: GlobalOptions,
  env: Record<string, string | undefined>,
): string {
  const target = storeTarget(global, env);
  if (target.kind === "file") return fileRoot(global);
  const t = describeTarget(target.connectionString, null);
  return `PostgreSQL ${t.host}:${t.port}/${t.database}`;
}
