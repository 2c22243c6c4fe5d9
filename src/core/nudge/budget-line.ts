import { UNLIMITED } from "../engine/limits.js";
import type { Episode, Limits } from "../types.js";

/**
 * "Automatic nudge 2 of 3." when the turn budget is finite: telling the agent
 * how many nudges remain helps it plan, and it costs a few tokens.
 */
export function budgetLine(episode: Episode | null, limits: Limits): string | null {
  if (episode === null || !(limits.maxAutoTurns < UNLIMITED) || episode.autoTurns < 1) return null;
  return `Automatic nudge ${episode.autoTurns} of ${limits.maxAutoTurns}.`;
}
