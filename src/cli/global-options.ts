import type { OptionSpec } from "./command.js";
import { UsageError } from "./errors.js";

/** Options every command accepts, before or after the command name. */
export const GLOBAL_OPTIONS = {
  dir: {
    type: "string",
    valueName: "path",
    description: "Store folder (default: $TODO_CONTINUATION_DIR, else the default store folder).",
  },
  "database-url": {
    type: "string",
    valueName: "url",
    description:
      "Use PostgreSQL instead of files (default: $TODO_CONTINUATION_DATABASE_URL when set).",
  },
  schema: {
    type: "string",
    valueName: "name",
    description: "PostgreSQL schema holding the tables (default: todo_continuation).",
  },
  preset: {
    type: "string",
    valueName: "name",
    description: "Limits to judge by: default, typeclaw, parley, omo or pi (default: default).",
  },
  json: { type: "boolean", description: "Print data as JSON." },
  help: { type: "boolean", short: "h", description: "Show help." },
  version: { type: "boolean", short: "v", description: "Print the version." },
} as const satisfies Record<string, OptionSpec>;

export interface GlobalOptions {
  dir: string | undefined;
  databaseUrl: string | undefined;
  schema: string | undefined;
  preset: string | undefined;
  json: boolean;
  help: boolean;
  version: boolean;
}

export const DIR_ENV = "TODO_CONTINUATION_DIR";
export const DATABASE_URL_ENV = "TODO_CONTINUATION_DATABASE_URL";

export type StoreTarget =
  | { kind: "file"; dir: string | undefined; source: "--dir" | "default" }
  | {
      kind: "postgres";
      connectionString: string;
      source: "--database-url" | typeof DATABASE_URL_ENV;
    };

/**
 * Which store the options name. Flags beat the environment; naming both a
 * folder and a database on the command line is a usage error rather than a
 * silent choice. `dir: undefined` leaves the default (and TODO_CONTINUATION_DIR)
 * to the file store's own root resolution.
 */
export function storeTarget(
  global: Pick<GlobalOptions, "dir" | "databaseUrl">,
  env: Record<string, string | undefined>,
): StoreTarget {
  if (global.dir !== undefined && global.databaseUrl !== undefined) {
    throw new UsageError("--dir and --database-url name two different stores; pass only one");
  }
  if (global.dir !== undefined) {
    if (global.dir.trim() === "")
      throw new UsageError("--dir: expected a folder path, got an empty string");
    return { kind: "file", dir: global.dir, source: "--dir" };
  }
  if (global.databaseUrl !== undefined) {
    if (global.databaseUrl.trim() === "") {
      throw new UsageError("--database-url: expected a postgres:// URL, got an empty string");
    }
    return { kind: "postgres", connectionString: global.databaseUrl, source: "--database-url" };
  }
  const fromEnv = env[DATABASE_URL_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    return { kind: "postgres", connectionString: fromEnv, source: DATABASE_URL_ENV };
  }
  return { kind: "file", dir: undefined, source: "default" };
}
