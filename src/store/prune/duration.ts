import { RETENTION_STATES, type RetentionState } from "../../core/notify/stale.js";

const UNITS: Record<string, number> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/**
 * `30d`, `12h`, `90m`, `45s`, `2w` (a whole number and one unit) to
 * milliseconds. Anything else throws an error naming the value and the
 * option; a bare number is refused (minutes or days? it does not guess).
 */
export function parseDuration(text: string, option = "--older-than"): number {
  const match = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  const unit = match === null ? undefined : UNITS[match[2] as string];
  if (match === null || unit === undefined) {
    throw new RangeError(
      `${option} ${JSON.stringify(text)} is not a duration: use a whole number and a unit (s, m, h, d, w), e.g. 30d, 12h, 90m`,
    );
  }
  return Number(match[1]) * unit;
}

/** `idle,done` to states; an unknown or empty one throws, naming it and the valid ones. */
export function parseStates(text: string, option = "--state"): RetentionState[] {
  const parts = text.split(",").map((p) => p.trim());
  const out: RetentionState[] = [];
  for (const part of parts) {
    if (!(RETENTION_STATES as readonly string[]).includes(part)) {
      throw new RangeError(
        `${option} ${JSON.stringify(part)} is not a state; use one or more of ${RETENTION_STATES.join(", ")}, separated by commas`,
      );
    }
    if (!out.includes(part as RetentionState)) out.push(part as RetentionState);
  }
  return out;
}
