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

function wrap(id: string, body: string[]): string {
  return [`${OPEN} ${id}`, ...body, `${CLOSE} ${id}`].join("\n");
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
export function installHooksBlock(text: string, sourcePath: string, command: string): HooksEdit {
  const without = removeBlock(text, HOOKS_ID);
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
    timeout: spec.timeout,
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
  const block = wrap(HOOKS_ID, body);
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

/** Removes our hooks block; `changed` is false when there was none. */
export function uninstallHooksBlock(text: string): { text: string; changed: boolean } {
  const next = removeBlock(text, HOOKS_ID);
  return { text: next, changed: next !== text };
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
): { text: string; changed: boolean } {
  const id = trustId(sourcePath);
  const without = removeBlock(userText, id);
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
  const block = body.length === 0 ? null : wrap(id, body);
  if (blockText(userText, id) === block) return { text: userText, changed: false };
  const next = block === null ? without : appendBlock(without, block);
  readToml(next, `${userPath} with the trust entries added`);
  return { text: next, changed: next !== userText };
}

/** Removes the trust entries written for `sourcePath`. */
export function uninstallTrustBlock(
  userText: string,
  sourcePath: string,
): { text: string; changed: boolean } {
  const next = removeBlock(userText, trustId(sourcePath));
  return { text: next, changed: next !== userText };
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
