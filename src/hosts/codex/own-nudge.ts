import { CLOSE_INSTRUCTION } from "./plan.js";

/**
 * Tells our own nudge from everything else a `UserPromptSubmit` may carry.
 * Codex hands a Stop hook's reason back to the model as
 * `<hook_prompt hook_run_id="…">reason</hook_prompt>`; a nudge of ours always
 * carries the close instruction. Anything else (a prompt typed while a nudged
 * turn runs, a steer, another hook's text) is the user's, whatever its turn id.
 */

const WRAPPED = /^\s*<hook_prompt\b[^>]*>([\s\S]*)<\/hook_prompt>\s*$/;

const ENTITIES: Record<string, string> = {
  "&quot;": '"',
  "&apos;": "'",
  "&#39;": "'",
  "&lt;": "<",
  "&gt;": ">",
  "&amp;": "&",
};

function unescapeXml(text: string): string {
  return text.replace(/&(?:quot|apos|#39|lt|gt|amp);/g, (entity) => ENTITIES[entity] ?? entity);
}

/** True only for a hook prompt holding one of our nudges. */
export function isOwnNudge(prompt: string): boolean {
  const inner = WRAPPED.exec(prompt)?.[1];
  if (inner === undefined) return false;
  return inner.includes(CLOSE_INSTRUCTION) || unescapeXml(inner).includes(CLOSE_INSTRUCTION);
}
