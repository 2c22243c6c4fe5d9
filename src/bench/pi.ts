import { piTools } from "../core/dialects/pi.js";
import type { Todo, TodoList } from "../core/types.js";

/** A pi-dialect list of `count` tasks in phases of ten: a third done, one in progress. */
export function piBenchList(count: number): TodoList {
  const todos: Todo[] = [];
  const phases: string[] = [];
  for (let i = 0; i < count; i++) {
    const phase = `Phase ${Math.floor(i / 10) + 1}`;
    if (phases[phases.length - 1] !== phase) phases.push(phase);
    const status =
      i < count / 3 ? "completed" : i === Math.ceil(count / 3) ? "in_progress" : "pending";
    todos.push({ content: piTaskName(i), status, phase });
  }
  return { todos, phases, nextId: 1 };
}

function piTaskName(i: number): string {
  return `Task ${i + 1}: update module ${i % 17} and its tests`;
}

/**
 * Per-call microseconds of one pi `todo_write` call that closes the active
 * task and starts the next (`done` + `start`), the call a working agent makes
 * most. Each call gets the list and the input freshly parsed from JSON
 * (untimed), as a store read and a model's tool call give them.
 */
export function benchPiToolCall(count: number, iterations: number): number[] {
  const [tool] = piTools();
  if (tool === undefined) throw new Error("benchPiToolCall: the pi dialect has no tool");
  const stored = JSON.stringify(piBenchList(count));
  const active = Math.ceil(count / 3);
  const input = JSON.stringify({
    ops: [
      { op: "done", task: piTaskName(active) },
      { op: "start", task: piTaskName(active + 1) },
    ],
  });
  const times: number[] = [];
  const warmup = Math.max(200, Math.ceil(iterations / 5));
  for (let i = -warmup; i < iterations; i++) {
    const list = JSON.parse(stored) as TodoList;
    const args: unknown = JSON.parse(input);
    const start = process.hrtime.bigint();
    const { result } = tool.handler(list, args);
    const micros = Number(process.hrtime.bigint() - start) / 1000;
    if (result.isError) throw new Error(`benchPiToolCall: the call failed: ${result.text}`);
    if (i >= 0) times.push(micros);
  }
  return times;
}
