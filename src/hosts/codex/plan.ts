import type { Todo, TodoStatus } from "../../core/types.js";

/**
 * Codex's `update_plan` tool: `{plan: [{step, status}], explanation?}` with
 * status `pending`, `in_progress` or `completed`, the whole plan on every
 * call (no ids). The plan is the session's todo list.
 */

/** The tool whose calls carry the plan. */
export const UPDATE_PLAN = "update_plan";

const STATUSES: ReadonlySet<string> = new Set(["pending", "in_progress", "completed"]);

export class PlanInputError extends Error {
  override name = "PlanInputError";
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

/**
 * The todo list an `update_plan` call sets. Throws a PlanInputError naming
 * the bad entry, so a malformed call never replaces the stored list.
 */
export function todosFromUpdatePlan(input: unknown): Todo[] {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new PlanInputError(`update_plan input must be an object, got ${describe(input)}`);
  }
  const plan = (input as Record<string, unknown>).plan;
  if (!Array.isArray(plan)) {
    throw new PlanInputError(`update_plan input: plan must be an array, got ${describe(plan)}`);
  }
  return plan.map((entry, i): Todo => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw new PlanInputError(`update_plan plan[${i}] must be an object, got ${describe(entry)}`);
    }
    const { step, status } = entry as Record<string, unknown>;
    if (typeof step !== "string" || step.trim() === "") {
      throw new PlanInputError(
        `update_plan plan[${i}].step must be a non-empty string, got ${describe(step)}`,
      );
    }
    if (typeof status !== "string" || !STATUSES.has(status)) {
      throw new PlanInputError(
        `update_plan plan[${i}].status must be pending, in_progress or completed, got ${JSON.stringify(status)}`,
      );
    }
    return { content: step.trim(), status: status as TodoStatus };
  });
}

/** How the nudge tells the model to close an item, in Codex's own words. */
export const CLOSE_INSTRUCTION =
  'When a step is done and verified, call update_plan with the whole plan and that step\'s status set to "completed".';
