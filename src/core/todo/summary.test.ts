import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TODO_STATUSES, type Todo, type TodoList } from "../types.js";
import { fingerprintIncomplete, summarize } from "./summary.js";

const todoArb: fc.Arbitrary<Todo> = fc
  .record({
    content: fc.string({ minLength: 1 }).filter((s) => s.trim() !== ""),
    status: fc.constantFrom(...TODO_STATUSES),
    id: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
  })
  .map(({ id, ...rest }) => ({
    ...rest,
    ...(id === undefined ? {} : { id }),
    ...(rest.status === "blocked" ? { blockedReason: "waiting" } : {}),
  }));

/** Adds whitespace that canonicalization must ignore: runs of spaces, tabs, edges. */
function rewhitespace(text: string): string {
  return `  ${text.replace(/ /g, " \t ")}\n`;
}

function shuffle<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

describe("fingerprintIncomplete", () => {
  it("is stable under reorder and whitespace-only edits", () => {
    fc.assert(
      fc.property(fc.array(todoArb, { maxLength: 20 }), fc.integer(), (todos, seed) => {
        const edited = shuffle(todos, seed).map((t) => ({
          ...t,
          content: rewhitespace(t.content),
        }));
        expect(fingerprintIncomplete(edited)).toBe(fingerprintIncomplete(todos));
      }),
      { numRuns: 500 },
    );
  });

  it("ignores finished items and moves with any change of text or status", () => {
    const base: Todo[] = [
      { content: "write the parser", status: "pending" },
      { content: "ship it", status: "completed" },
    ];
    const fp = fingerprintIncomplete(base);
    expect(fingerprintIncomplete([base[0] as Todo])).toBe(fp);
    expect(fingerprintIncomplete([{ ...(base[0] as Todo), status: "in_progress" }])).not.toBe(fp);
    expect(fingerprintIncomplete([{ ...(base[0] as Todo), content: "write the lexer" }])).not.toBe(
      fp,
    );
    expect(fingerprintIncomplete([...base, { content: "more", status: "pending" }])).not.toBe(fp);
  });

  it("does not confuse a text that looks like a separator", () => {
    const a: Todo[] = [{ content: 'a","pending"],[null,"b', status: "pending" }];
    const b: Todo[] = [
      { content: "a", status: "pending" },
      { content: "b", status: "pending" },
    ];
    expect(fingerprintIncomplete(a)).not.toBe(fingerprintIncomplete(b));
  });
});

describe("summarize", () => {
  it("counts every status; only pending and in_progress are actionable", () => {
    const list: TodoList = {
      phases: [],
      nextId: 1,
      todos: [
        { content: "a", status: "pending" },
        { content: "b", status: "in_progress" },
        { content: "c", status: "blocked", blockedReason: "needs a key" },
        { content: "d", status: "completed" },
        { content: "e", status: "cancelled" },
      ],
    };
    const s = summarize(list);
    expect(s).toMatchObject({
      total: 5,
      actionable: 2,
      blocked: 1,
      completed: 1,
      cancelled: 1,
      incomplete: 3,
    });
    expect(s.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });
});
