import type { DialectName } from "../types.js";

/**
 * How the model closes an item in each dialect: one sentence a nudge can
 * carry on its own line. Kept apart from the tools so that the runtime (and a
 * short-lived hook process) can render nudges without loading the schemas.
 */
export const CLOSE_INSTRUCTIONS: Readonly<Record<DialectName, string>> = {
  typeclaw:
    'When an item is done and verified, send todo_write with the whole list and that item\'s status set to "completed"; call todo_clear once everything is finished.',
  parley:
    'Close each item with todo_update(id, "done") as you finish, or todo_update(id, "blocked", reason) if it cannot proceed.',
  pi: 'Close each task with todo_write({ops: [{op: "done", task}]}) as you finish; drop a task that no longer applies with op "drop".',
};

/** The dialect's close sentence for nudges (typeclaw's for an unknown name). */
export function closeInstruction(dialect: DialectName): string {
  return Object.hasOwn(CLOSE_INSTRUCTIONS, dialect)
    ? CLOSE_INSTRUCTIONS[dialect]
    : CLOSE_INSTRUCTIONS.typeclaw;
}
