import { parse } from "smol-toml";
import { type CodexHookEventName, type CommandHook, codexHookHash, codexHookKey } from "./trust.js";

/**
 * Our part of a Codex config.toml, kept as marked blocks of text appended to
 * the file: everything outside them (the user's comments, order, spacing) is
 * never rewritten, and uninstall cuts out exactly the blocks. A parser is
 * used only to read: to count the groups already there (which fixes our hooks'
 * trust keys) and to check that the result is still valid TOML before
 * anything is written.
 */

/** Seconds Codex waits for one hook call; ours take well under one. */
export const CODEX_HOOK_TIMEOUT_SECONDS = 30;

/** Codex caps an Interrupt hook at 3 seconds (and hashes the capped value): ask for no more. */
export const CODEX_INTERRUPT_TIMEOUT_SECONDS = 3;

/** The hooks this integration installs. SubagentStop is left out: a subagent is never ours to block. */
export const CODEX_HOOK_SPECS: readonly {
  event: CodexHookEventName;
  matcher?: string;
  timeout: number;
}[] = [
  { event: "UserPromptSubmit", timeout: CODEX_HOOK_TIMEOUT_SECONDS },
  { event: "PostToolUse", matcher: "^update_plan$", timeout: CODEX_HOOK_TIMEOUT_SECONDS },
  { event: "Stop", timeout: CODEX_HOOK_TIMEOUT_SECONDS },
  { event: "Interrupt", timeout: CODEX_INTERRUPT_TIMEOUT_SECONDS },
];

export class CodexConfigError extends Error {
  override name = "CodexConfigError";
}

const OPEN = "# >>> todo-continuation";
const CLOSE = "# <<< todo-continuation";
const HOOKS_ID = "hooks";

function trustId(sourcePath: string): string {
  return `trust ${sourcePath}`;
}

/** The config as data; a file that does not parse is an error naming it. */
export function readToml(text: string, where: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n", 1)[0] : String(error);
    throw new CodexConfigError(
      `${where} is not valid TOML (${reason}); fix it first, nothing was changed`,
    );
  }
}

function lines(text: string): string[] {
  return text.split("\n");
}

interface Found {
  start: number;
  end: number;
}

function findBlock(text: string, id: string): Found | null {
  const all = lines(text);
  const start = all.indexOf(`${OPEN} ${id}`);
  if (start < 0) return null;
  const end = all.indexOf(`${CLOSE} ${id}`, start);
  if (end < 0) return null;
  return { start, end };
}

/** The text of block `id`, markers included, or null. */
export function blockText(text: string, id: string): string | null {
  const found = findBlock(text, id);
  return found === null
    ? null
    : lines(text)
        .slice(found.start, found.end + 1)
        .join("\n");
}

/** The text without block `id` (and the blank line set before it). */
export function removeBlock(text: string, id: string): string {
  const found = findBlock(text, id);
  if (found === null) return text;
  const all = lines(text);
  const from = found.start > 0 && all[found.start - 1] === "" ? found.start - 1 : found.start;
  all.splice(from, found.end + 1 - from);
  return all.join("\n");
}

/** The text with `block` appended after one blank line. */
function appendBlock(text: string, block: string): string {
  if (text === "") return `${block}\n`;
  const base = text.endsWith("\n") ? text : `${text}\n`;
  return `${base}\n${block}\n`;
}

function wrap(id: string, body: string[], found?: FoundBefore): string {
  const facts = found === undefined ? [] : [`${FOUND_PREFIX}${found}`];
  return [`${OPEN} ${id}`, ...facts, ...body, `${CLOSE} ${id}`].join("\n");
}

/**
 * What a block was appended to, recorded in the block's first comment line so
 * uninstall can give back the exact bytes: a final newline the install added is
 * taken out again, a file the install created is removed (with its folder when
 * the install made that too), and an empty file stays an empty file.
 */
export type FoundBefore =
  | "no file, no folder"
  | "no file"
  | "an empty file"
  | "a file without a final newline"
  | "a file ending in a newline";

const FOUND_PREFIX = "# before install: ";
const FOUND_VALUES: readonly FoundBefore[] = [
  "no file, no folder",
  "no file",
  "an empty file",
  "a file without a final newline",
  "a file ending in a newline",
];

/** Whether the file and its folder existed before the install touched them. */
export interface FileBefore {
  exists: boolean;
  folderExists: boolean;
}

/** What `text` (in a file that `before` describes) looked like. */
function foundFor(text: string, before: FileBefore): FoundBefore {
  if (!before.exists && text === "") return before.folderExists ? "no file" : "no file, no folder";
  if (text === "") return "an empty file";
  return text.endsWith("\n") ? "a file ending in a newline" : "a file without a final newline";
}

/** The facts block `id` recorded; null for a block written before they were recorded. */
function foundIn(text: string, id: string): FoundBefore | null {
  const found = findBlock(text, id);
  if (found === null) return null;
  const line = lines(text)[found.start + 1] ?? "";
  if (!line.startsWith(FOUND_PREFIX)) return null;
  const value = line.slice(FOUND_PREFIX.length) as FoundBefore;
  return FOUND_VALUES.includes(value) ? value : null;
}

/** The result of cutting a block out. */
export interface Cut {
  text: string;
  changed: boolean;
  /**
   * What the block recorded of the file before it: `undefined` when there was
   * no block, null when the block predates these records.
   */
  found?: FoundBefore | null;
}

/**
 * The exact inverse of `appendBlock`: the block, the blank line set before
 * it, and, when the install added the file's final newline and nothing was
 * written after the block since, that newline too.
 */
function cutBlock(text: string, id: string): Cut {
  const found = findBlock(text, id);
  if (found === null) return { text, changed: false };
  const before = foundIn(text, id);
  let next = removeBlock(text, id);
  if (before === "a file without a final newline" && endsWithBlock(text, found)) {
    next = next.slice(0, -1);
  }
  return { text: next, changed: next !== text, found: before };
}

/** True when nothing but the block's own final newline follows it. */
function endsWithBlock(text: string, found: Found): boolean {
  const all = lines(text);
  return all.length === found.end + 2 && all[found.end + 1] === "";
}

/**
 * What a block written again records: what its earlier copy recorded (the file
 * as the first install found it), else the file as it is without the block.
 * A block from before these records, in a file it alone filled, is taken as
 * having created the file (uninstall always removed such a file).
 */
function foundAgain(cut: Cut, before: FileBefore): FoundBefore {
  if (cut.found !== undefined && cut.found !== null) return cut.found;
  if (cut.found === null && cut.text === "") return "no file";
  return foundFor(cut.text, cut.found === undefined ? before : { ...before, exists: true });
}

/**
 * Whether a file left empty by uninstall goes away: when the install created
 * it, or when its block predates the records (as uninstall always did).
 */
export function removeWhenEmpty(found: FoundBefore | null | undefined): boolean {
  return found === null || found === "no file" || found === "no file, no folder";
}

function quote(value: string): string {
  // A JSON string is a valid TOML basic string.
  return JSON.stringify(value);
}

function groupCount(doc: Record<string, unknown>, event: string): number {
  const hooks = doc.hooks;
  if (typeof hooks !== "object" || hooks === null) return 0;
  const groups = (hooks as Record<string, unknown>)[event];
  return Array.isArray(groups) ? groups.length : 0;
}

function planEnabled(doc: Record<string, unknown>): boolean | "unset" | "other" {
  const tools = doc.tools as Record<string, unknown> | undefined;
  if (tools === undefined) return "unset";
  if (typeof tools !== "object" || tools === null) return "other";
  const plan = tools.update_plan as Record<string, unknown> | undefined;
  if (plan === undefined) return "unset";
  if (typeof plan !== "object" || plan === null) return "other";
  return plan.enabled === true;
}

/** One installed hook's trust entry. */
export interface TrustEntry {
  key: string;
  hash: string;
  event: CodexHookEventName;
}

export interface HooksEdit {
  /** The file's new text (the same text when nothing changed). */
  text: string;
  changed: boolean;
  /** The trust entries our hooks need, under this file's path. */
  trust: TrustEntry[];
  /** What was done, one line each. */
  changes: string[];
}

/**
 * Adds (or refreshes) our hooks and the `update_plan` switch in the config
 * at `sourcePath`, whose current text is `text`. Idempotent: the same command
 * gives the same text.
 */
export function installHooksBlock(
  text: string,
  sourcePath: string,
  command: string,
  before: FileBefore = { exists: text !== "", folderExists: true },
  /** The Stop hook's timeout in seconds: longer when a project check runs in it. */
  stopTimeoutSeconds: number = CODEX_HOOK_TIMEOUT_SECONDS,
): HooksEdit {
  const cut = cutBlock(text, HOOKS_ID);
  const without = cut.text;
  const found = foundAgain(cut, before);
  const doc = readToml(without, sourcePath);
  const body: string[] = [
    "# Keeps the agent working through its update_plan list; managed by",
    "# `todo-continuation install codex`, removed by `todo-continuation uninstall codex`.",
  ];
  const plan = planEnabled(doc);
  if (plan === false || plan === "other") {
    throw new CodexConfigError(
      `${sourcePath} sets tools.update_plan without enabled = true; the plan tool is what this ` +
        "integration reads, so set enabled = true there (or remove the setting) and install again; nothing was changed",
    );
  }
  if (plan === "unset") body.push("[tools.update_plan]", "enabled = true", "");
  const hooks: CommandHook[] = CODEX_HOOK_SPECS.map((spec) => ({
    event: spec.event,
    command,
    timeout: spec.event === "Stop" ? stopTimeoutSeconds : spec.timeout,
    ...(spec.matcher !== undefined ? { matcher: spec.matcher } : {}),
  }));
  for (const hook of hooks) {
    body.push(`[[hooks.${hook.event}]]`);
    if (hook.matcher !== undefined) body.push(`matcher = ${quote(hook.matcher)}`);
    body.push(
      `[[hooks.${hook.event}.hooks]]`,
      'type = "command"',
      `command = ${quote(command)}`,
      `timeout = ${hook.timeout}`,
      "",
    );
  }
  body.pop();
  const block = wrap(HOOKS_ID, body, found);
  const current = findBlock(text, HOOKS_ID);
  // Our groups come after those written before our block: that fixes their keys.
  const trustFor = (before: Record<string, unknown>): TrustEntry[] =>
    hooks.map((hook) => ({
      key: codexHookKey(sourcePath, hook.event, groupCount(before, hook.event)),
      hash: codexHookHash(hook),
      event: hook.event,
    }));
  if (current !== null && blockText(text, HOOKS_ID) === block) {
    const before = readToml(lines(text).slice(0, current.start).join("\n"), sourcePath);
    return { text, changed: false, trust: trustFor(before), changes: [] };
  }
  const next = appendBlock(without, block);
  readToml(next, `${sourcePath} with the hooks added`);
  const changes = [
    current === null
      ? `added hooks ${CODEX_HOOK_SPECS.map((s) => s.event).join(", ")}`
      : "updated the hooks",
  ];
  if (plan === "unset") changes.push("tools.update_plan.enabled = true");
  return { text: next, changed: true, trust: trustFor(doc), changes };
}

/**
 * Removes our hooks block, giving back the text as it was before the install
 * (see `Cut.found` for what the file was); `changed` is false when there was none.
 */
export function uninstallHooksBlock(text: string): Cut {
  return cutBlock(text, HOOKS_ID);
}

/**
 * Writes the trust entries for the hooks in `sourcePath` into the user's
 * config (only the user's config may hold trust). Idempotent.
 */
export function installTrustBlock(
  userText: string,
  userPath: string,
  sourcePath: string,
  entries: readonly TrustEntry[],
  before: FileBefore = { exists: userText !== "", folderExists: true },
): { text: string; changed: boolean } {
  const id = trustId(sourcePath);
  const cut = cutBlock(userText, id);
  const without = cut.text;
  // An entry already there (Codex writes one when a hook is trusted in its review) is kept.
  const existing = trustedHashes(readToml(without, userPath));
  const body: string[] = [];
  for (const entry of entries) {
    const there = existing.get(entry.key);
    if (there === entry.hash) continue;
    if (there !== undefined) {
      throw new CodexConfigError(
        `${userPath} already trusts ${entry.key} with another hash; delete its [hooks.state] entry ` +
          "and install again; nothing was changed",
      );
    }
    body.push(`[hooks.state.${quote(entry.key)}]`, `trusted_hash = ${quote(entry.hash)}`);
  }
  const block = body.length === 0 ? null : wrap(id, body, foundAgain(cut, before));
  if (blockText(userText, id) === block) return { text: userText, changed: false };
  const next = block === null ? without : appendBlock(without, block);
  readToml(next, `${userPath} with the trust entries added`);
  return { text: next, changed: next !== userText };
}

/** Removes the trust entries written for `sourcePath`, giving back the text as it was. */
export function uninstallTrustBlock(userText: string, sourcePath: string): Cut {
  return cutBlock(userText, trustId(sourcePath));
}

/** Whether the user's config marks `project` trusted (Codex loads a project's config only then). */
export function projectTrusted(userDoc: Record<string, unknown>, project: string): boolean {
  const projects = userDoc.projects;
  if (typeof projects !== "object" || projects === null) return false;
  const entry = (projects as Record<string, unknown>)[project];
  return (
    typeof entry === "object" &&
    entry !== null &&
    (entry as Record<string, unknown>).trust_level === "trusted"
  );
}

/** The trusted hashes the user's config holds, by hook key. */
export function trustedHashes(userDoc: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  const hooks = userDoc.hooks;
  if (typeof hooks !== "object" || hooks === null) return out;
  const state = (hooks as Record<string, unknown>).state;
  if (typeof state !== "object" || state === null) return out;
  for (const [key, value] of Object.entries(state as Record<string, unknown>)) {
    const hash = (value as Record<string, unknown> | null)?.trusted_hash;
    if (typeof hash === "string") out.set(key, hash);
  }
  return out;
}

/** The timeout (seconds) of the Stop hook in our block, or null without one. */
export function installedStopTimeout(text: string): number | null {
  const block = blockText(text, HOOKS_ID);
  if (block === null) return null;
  const match = /^\[\[hooks\.Stop\.hooks\]\]\n(?:.*\n)*?timeout = (\d+)$/m.exec(block);
  return match === null ? null : Number(match[1]);
}

/** The command our hooks block runs, or null when the text has none. */
export function installedCommand(text: string): string | null {
  const block = blockText(text, HOOKS_ID);
  if (block === null) return null;
  const match = /^command = (".*")$/m.exec(block);
  if (match === null) return null;
  try {
    return JSON.parse(match[1] as string) as string;
  } catch {
    return null;
  }
}
