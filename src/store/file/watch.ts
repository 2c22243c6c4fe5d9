import { type FSWatcher, mkdirSync, watch } from "node:fs";
import { sep } from "node:path";
import { parseScopeKey } from "../../core/scope/scope.js";
import { STATE_FOLDER } from "./paths.js";

/** Which scopes changed: their keys, or "all" when a change could not be placed. */
export type ScopeChanges = string[] | "all";

/** Files the store writes only on the way to another (locks, temporaries): no change to show. */
const TRANSIENT = /\.(lock|tmp)$/;

/** The documents of one scope: `<key>.json`, `.state/<key>.json`, `.log.jsonl`, `.json.corrupt`. */
const DOCUMENT = /^(.*?)(\.json\.corrupt|\.log\.jsonl\.corrupt|\.log\.jsonl|\.json)$/;

/**
 * The scope a changed file belongs to, "transient" for files that change no
 * document, or null when the name does not place it (the caller reloads all).
 */
export function scopeKeyOfFile(relative: string): string | "transient" | null {
  let name = relative.split(sep).join("/");
  if (TRANSIENT.test(name)) return "transient";
  if (name === STATE_FOLDER) return null;
  if (name.startsWith(`${STATE_FOLDER}/`)) name = name.slice(STATE_FOLDER.length + 1);
  const match = DOCUMENT.exec(name);
  if (match === null) return null;
  const scope = parseScopeKey(match[1] ?? "");
  return scope === null ? null : scope.key;
}

/**
 * Watches a file store's todo folder (recursively) and reports changed scopes
 * in batches, at most every `settleMs`: a transaction touches several files.
 */
export function watchFileStore(
  todoDir: string,
  onChange: (changes: ScopeChanges) => void,
  settleMs = 50,
): { close(): void } {
  mkdirSync(todoDir, { recursive: true });
  let pending: Set<string> | "all" | null = null;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    const batch = pending;
    pending = null;
    if (batch !== null) onChange(batch === "all" ? "all" : [...batch]);
  };
  const watcher: FSWatcher = watch(todoDir, { recursive: true }, (_event, filename) => {
    const key = filename === null ? null : scopeKeyOfFile(filename.toString());
    if (key === "transient") return;
    if (key === null) pending = "all";
    else if (pending === null) pending = new Set([key]);
    else if (pending !== "all") pending.add(key);
    timer ??= setTimeout(flush, settleMs);
  });
  // A watcher error (the folder removed) must not crash the process; the page keeps its last view.
  watcher.on("error", () => {});
  return {
    close() {
      if (timer !== null) clearTimeout(timer);
      watcher.close();
    },
  };
}
