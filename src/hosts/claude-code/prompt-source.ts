/**
 * Whether a UserPromptSubmit is a person speaking. Only a real user turn may
 * end an episode and lift the abort block, so a prompt Claude Code injects on
 * its own (a finished background task, a scheduled wakeup, a teammate's
 * message) must not count: if it did, a background task finishing after the
 * user pressed Esc would clear that Esc, and every wakeup would refill the
 * budget. When unsure, the prompt is not real: that keeps the budget counting.
 * A compaction (`/compact`, or the summary Claude Code writes after one) is
 * never a real user turn either: budgets and an Esc block survive it.
 */

/** `source` values Claude Code documents for prompts a person wrote. */
const HUMAN_SOURCES = new Set(["user", "sdk"]);

/**
 * Opening tags of prompts Claude Code writes itself. Versions that do not send
 * `source` yet still deliver these as prompts.
 */
const MACHINE_PREFIXES = [
  "<task-notification>",
  "<teammate-message",
  "<channel",
  "<scheduled-task",
  "<system-reminder>",
];

/** `/compact` asks Claude Code to summarize the session: a compaction, never a new request. */
const COMPACT_COMMAND = /^\/compact(\s|$)/;

export function isRealUserPrompt(prompt: string, source: string | null): boolean {
  const start = prompt.trimStart();
  if (COMPACT_COMMAND.test(start)) return false;
  if (source !== null) return HUMAN_SOURCES.has(source);
  return !MACHINE_PREFIXES.some((prefix) => start.startsWith(prefix));
}
