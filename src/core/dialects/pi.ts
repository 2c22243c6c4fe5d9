import { z } from "zod";
import type { TodoList, TodoTool } from "../types.js";
import { formatIssues } from "./issues.js";
import { type PhaseGroup, phaseTree } from "./phases.js";
import { applyPiOps, PiWriteInput } from "./pi-ops.js";
import { formatPiSummary } from "./pi-summary.js";
import { defineTool, type Handled, refuse } from "./tool.js";

/**
 * The batch envelope. Ops are checked one by one afterwards, so that one bad
 * op fails alone (seed 004's partial apply); only a bad envelope refuses all.
 */
const Envelope = z.strictObject({ ops: z.array(z.unknown()).min(1) });

/** `{ ops: [...] }` and nothing else: the envelope's shape, checked without running the schema. */
function plainOps(input: unknown): unknown[] | null {
  if (typeof input !== "object" || input === null) return null;
  const proto = Object.getPrototypeOf(input);
  if (proto !== Object.prototype && proto !== null) return null;
  const keys = Object.keys(input);
  const ops = (input as { ops?: unknown }).ops;
  if (keys.length !== 1 || keys[0] !== "ops" || !Array.isArray(ops) || ops.length === 0)
    return null;
  return ops;
}

/** The phase tree for hosts and UIs: its own objects, so nothing in it aliases the list. */
function detailPhases(list: TodoList): PhaseGroup[] {
  return phaseTree(list).map((group) => ({
    name: group.name,
    tasks: group.tasks.map((task) =>
      task.notes === undefined ? { ...task } : { ...task, notes: [...task.notes] },
    ),
  }));
}

function write(list: TodoList, input: unknown): Handled {
  let ops = plainOps(input);
  if (ops === null) {
    const envelope = Envelope.safeParse(input, { reportInput: true });
    if (!envelope.success) {
      const message = formatIssues("todo_write", envelope.error.issues, PiWriteInput);
      return refuse(list, message, { errors: [message] });
    }
    ops = envelope.data.ops;
  }
  const batch = applyPiOps(list, ops);
  const details = {
    phases: detailPhases(batch.list),
    completedTasks: batch.completedTasks,
    errors: batch.errors,
  };
  return {
    list: batch.list,
    result: {
      text: formatPiSummary(batch.list, batch.errors),
      isError: batch.errors.length > 0,
      details,
    },
  };
}

/** oh-my-pi's tool (seed 004): ordered ops over phases and tasks, with partial apply. */
export function piTools(): TodoTool[] {
  return [
    defineTool({
      name: "todo_write",
      description:
        "Update the todo list with ordered operations over phases and tasks; tasks and phases " +
        "are named by their exact text. init {list:[{phase, items}]} replaces everything; " +
        "start {task} makes it the one task in progress; done / drop / rm take {task}, {phase} " +
        "or neither (every task) and complete, abandon or remove; append {phase, items} adds " +
        "pending tasks and creates a missing phase; note {task, text} attaches a note. A bad op " +
        "is reported while the others still apply. Afterwards exactly one task is in progress.",
      schema: PiWriteInput,
      readOnly: false,
      handle: write,
    }),
  ];
}
