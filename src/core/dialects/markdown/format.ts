/** Lines the markdown format gives meaning to, shared by the writer and the reader. */

/** Tasks written before any heading belong to this phase (seed 004). */
export const DEFAULT_PHASE = "Todos";

/** Starts a run of tasks that belong to no phase. */
export const NO_PHASE_LINE = "<!-- no phase -->";

export const NO_PHASE_TEXT = "no phase";

/** Carries the list's id counter when it is ahead of the ids in use. */
export function nextIdLine(nextId: number): string {
  return `<!-- nextId=${nextId} -->`;
}

export const NEXT_ID = /^nextId\s*=\s*(\d+)$/;

export const HEADING = /^\s{0,3}##(?:\s+(.*))?$/;

export const COMMENT_LINE = /^\s*<!--(.*)-->$/;

export const NOTE = /^\s*>/;
