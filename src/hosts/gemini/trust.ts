import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { GEMINI_HOOK_NAME } from "./command.js";

/**
 * Gemini CLI's two kinds of trust, as plain JSON values. Pure.
 *
 * - Folder trust (`~/.gemini/trustedFolders.json`, `{path: TRUST_FOLDER |
 *   TRUST_PARENT | DO_NOT_TRUST}`): project settings, hooks included, load
 *   only in a trusted folder, and headless runs in an untrusted one exit.
 *   That is the user's decision, so we only read it and say what to do.
 * - Hook trust (`~/.gemini/trusted_hooks.json`, `{projectRoot: ["name:command"]}`):
 *   a project hook not listed there is announced with a warning (and then
 *   listed). Our installer lists its own hooks, and uninstall unlists them.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The key Gemini CLI gives a command hook in trusted_hooks.json. */
export function hookTrustKey(command: string): string {
  return `${GEMINI_HOOK_NAME}:${command}`;
}

export interface TrustChange {
  value: Json;
  changed: boolean;
}

/** Lists exactly our current hook keys for the project (dropping our stale ones). */
export function trustOurHooks(
  raw: unknown,
  project: string,
  commands: readonly string[],
): TrustChange {
  const value: Json = isObject(raw) ? structuredClone(raw) : {};
  const before = Array.isArray(value[project]) ? (value[project] as unknown[]) : [];
  const wanted = [...new Set(commands.map(hookTrustKey))];
  const others = before.filter(
    (k) => !(typeof k === "string" && k.startsWith(`${GEMINI_HOOK_NAME}:`)),
  );
  const next = [...others, ...wanted];
  const changed = JSON.stringify(next) !== JSON.stringify(before);
  if (changed) value[project] = next;
  return { value: changed ? value : isObject(raw) ? raw : {}, changed };
}

/** Removes our hook keys for the project, and the project's entry if that empties it. */
export function untrustOurHooks(raw: unknown, project: string): TrustChange {
  if (!isObject(raw) || !Array.isArray(raw[project]))
    return { value: isObject(raw) ? raw : {}, changed: false };
  const before = raw[project] as unknown[];
  const next = before.filter(
    (k) => !(typeof k === "string" && k.startsWith(`${GEMINI_HOOK_NAME}:`)),
  );
  if (next.length === before.length) return { value: raw, changed: false };
  const value = structuredClone(raw);
  if (next.length === 0) delete value[project];
  else value[project] = next;
  return { value, changed: true };
}

function contains(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

export type FolderTrust = "trusted" | "untrusted" | "unknown";

/**
 * The folder's trust by trustedFolders.json: the most specific rule covering
 * it wins (TRUST_PARENT covers the folder's parent). No rule: unknown, which
 * Gemini CLI treats as untrusted once it asks.
 */
export function folderTrustOf(rules: unknown, folder: string): FolderTrust {
  if (!isObject(rules)) return "unknown";
  let best: { length: number; trust: FolderTrust } | null = null;
  for (const [path, level] of Object.entries(rules)) {
    if (typeof level !== "string") continue;
    const base = level === "TRUST_PARENT" ? dirname(resolve(path)) : resolve(path);
    if (!contains(base, resolve(folder))) continue;
    const trust: FolderTrust = level === "DO_NOT_TRUST" ? "untrusted" : "trusted";
    if (best === null || base.length > best.length) best = { length: base.length, trust };
  }
  return best?.trust ?? "unknown";
}
