import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConfigError, type ProjectConfig, validateConfig } from "./validate.js";

export const CONFIG_FILE = "todo-continuation.config.json";
export const PACKAGE_KEY = "todo-continuation";

/** A project config found on disk, validated. */
export interface LoadedConfig {
  /** The file it came from (the config file, or package.json). */
  path: string;
  kind: "file" | "package.json";
  /** The exact bytes read, for the trust store's hash. */
  content: string;
  config: ProjectConfig;
}

function readJson(path: string): { text: string; value: unknown } {
  const text = readFileSync(path, "utf8");
  try {
    return { text, value: JSON.parse(text) };
  } catch (error) {
    throw new ConfigError(
      path,
      "(document)",
      `is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The config in one folder, if any: the dedicated file, else package.json's key. */
function configIn(folder: string): LoadedConfig | null {
  const file = join(folder, CONFIG_FILE);
  const pkg = join(folder, "package.json");
  let fromPackage: { text: string; value: unknown } | null = null;
  if (existsSync(pkg)) {
    try {
      fromPackage = readJson(pkg);
    } catch {
      // A broken package.json is not ours to judge unless it is our only config.
      fromPackage = null;
    }
  }
  const inPackage =
    fromPackage !== null &&
    typeof fromPackage.value === "object" &&
    fromPackage.value !== null &&
    Object.hasOwn(fromPackage.value, PACKAGE_KEY);
  if (existsSync(file)) {
    if (inPackage) {
      throw new ConfigError(
        file,
        "(document)",
        `and the "${PACKAGE_KEY}" key of ${pkg} both configure this project; keep one`,
      );
    }
    const { text, value } = readJson(file);
    return { path: file, kind: "file", content: text, config: validateConfig(value, file) };
  }
  if (inPackage && fromPackage !== null) {
    const value = (fromPackage.value as Record<string, unknown>)[PACKAGE_KEY];
    return {
      path: pkg,
      kind: "package.json",
      content: fromPackage.text,
      config: validateConfig(value, `${pkg} ("${PACKAGE_KEY}")`),
    };
  }
  return null;
}

/**
 * The project config for a working folder: the nearest folder, walking up
 * from `cwd`, that holds `todo-continuation.config.json` or a package.json
 * with a "todo-continuation" key. The walk stops at the repository root (the
 * first folder holding `.git`), else at `home`, else at the filesystem root.
 * The nearest config wins whole; configs further up are not merged in.
 * Throws a `ConfigError` naming the file and field when the config found is
 * invalid; returns null when there is none.
 */
export function findProjectConfig(cwd: string, home?: string): LoadedConfig | null {
  let folder = resolve(cwd);
  const stop = home === undefined ? null : resolve(home);
  for (;;) {
    const found = configIn(folder);
    if (found !== null) return found;
    if (existsSync(join(folder, ".git")) || folder === stop) return null;
    const parent = dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
}
