import type { Episode, Limits } from "../types.js";

export interface NudgeContext {
  /** How the agent closes an item in its tool dialect, e.g. `todo_update(id, "done")`. */
  closeInstruction: string;
  /** The episode this nudge belongs to (after the decision), or null. */
  episode: Episode | null;
  limits: Limits;
  /** Most items listed before "and K more" (default `DEFAULT_NUDGE_ITEMS`). */
  maxItems?: number;
}
