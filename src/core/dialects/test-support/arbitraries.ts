import fc from "fast-check";
import type { Todo, TodoList, TodoStatus } from "../../types.js";
import { minNextId } from "../ids.js";

/** Pieces that collide with the markdown syntax or with JSON quoting. */
const TRICKY_UNITS = [
  " ",
  "  ",
  "\t",
  "\n",
  "\r",
  "\r\n",
  "\u2028",
  "\u0000",
  '"',
  "\\",
  "\\u003c",
  "<!--",
  "-->",
  "<!-- id=1 -->",
  "<",
  ">",
  "> ",
  "(blocked:",
  "(blocked: x)",
  ")",
  "[",
  "]",
  "[x]",
  "- [ ] ",
  "#",
  "## ",
  "=",
  "id=",
  "nextId=3",
  "no phase",
  "Todos",
  "a",
  "Build",
  "é",
  "😀",
  "\uD83D",
  "\uDE00",
];

const unit = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY_UNITS) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 2 }) },
);

/** Any string, biased towards the ones that break line formats. */
export const trickyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.array(unit, { maxLength: 6 }).map((parts) => parts.join("")) },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom("Write the parser", "Run tests", "Ship it") },
);

export const nonBlankText = trickyText.filter((s) => s.trim() !== "");

export const statusArb: fc.Arbitrary<TodoStatus> = fc.constantFrom(
  "pending",
  "in_progress",
  "completed",
  "cancelled",
  "blocked",
);

function todoArb(phaseNames: readonly string[]): fc.Arbitrary<Todo> {
  const phase =
    phaseNames.length > 0
      ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...phaseNames) }, trickyText)
      : trickyText;
  return fc
    .record(
      {
        content: nonBlankText,
        status: statusArb,
        id: fc.oneof(trickyText, fc.nat({ max: 50 }).map(String)),
        priority: fc.constantFrom("high", "medium", "low"),
        phase,
        notes: fc.array(trickyText, { minLength: 1, maxLength: 3 }),
        blockedReason: trickyText,
        activeForm: trickyText,
      },
      { requiredKeys: ["content", "status"] },
    )
    .map((record): Todo => {
      // Spread: fast-check builds records without a prototype; stored lists have one.
      const todo = { ...record } as Todo;
      if (todo.status === "blocked" && (todo.blockedReason ?? "").trim() === "") {
        todo.blockedReason = `waiting ${todo.blockedReason ?? ""}`;
      }
      return todo;
    });
}

/**
 * Any list the store's parser accepts unchanged: unique phases (empty ones,
 * undeclared ones and none at all included), todos in any order, any counter
 * at or above the ids in use.
 */
export const validList: fc.Arbitrary<TodoList> = fc
  .uniqueArray(fc.oneof(trickyText, fc.constantFrom("Build", "Ship", "Todos", "")), {
    maxLength: 4,
  })
  .chain((phases) =>
    fc.record({
      phases: fc.constant(phases),
      todos: fc.array(todoArb(phases), { maxLength: 8 }),
      extra: fc.oneof(fc.constant(0), fc.nat({ max: 5 })),
    }),
  )
  .map(({ phases, todos, extra }) => ({ todos, phases, nextId: minNextId(todos) + extra }));

/** Lists without phases, as the typeclaw and parley tools keep them. */
export const flatList: fc.Arbitrary<TodoList> = validList.map((list) => ({
  ...list,
  phases: [],
  todos: list.todos.map(({ phase: _phase, ...todo }) => todo),
}));

/** A deep freeze, so a handler that mutates its input list throws in tests. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
