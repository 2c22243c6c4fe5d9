import type { NudgeStyle, TodoList } from "../types.js";
import { renderInlineList } from "./inline-list.js";
import { renderStatusDirective } from "./status-directive.js";
import { renderSystemBlock } from "./system-block.js";
import type { NudgeContext } from "./types.js";

export { estimateTokens } from "./estimate.js";
export { DEFAULT_NUDGE_ITEMS } from "./items.js";
export type { NudgeContext } from "./types.js";

const RENDERERS: Record<NudgeStyle, (list: TodoList, ctx: NudgeContext) => string> = {
  "system-block": renderSystemBlock,
  "inline-list": renderInlineList,
  "status-directive": renderStatusDirective,
};

export const NUDGE_STYLES = Object.keys(RENDERERS) as NudgeStyle[];

/**
 * The continuation prompt, as the text of a user-role message: nudges never
 * touch the system prompt. Pure; an unknown style throws naming the valid ones.
 */
export function renderNudge(style: NudgeStyle, list: TodoList, ctx: NudgeContext): string {
  if (!Object.hasOwn(RENDERERS, style)) {
    throw new Error(
      `renderNudge: unknown nudge style ${JSON.stringify(style)}; valid styles: ${NUDGE_STYLES.join(", ")}`,
    );
  }
  return RENDERERS[style](list, ctx);
}
export { renderVerificationNudge, verificationSection } from "./verification.js";
