import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TODO_STATUSES, type Todo, type TodoList } from "../types.js";
import { canonicalText } from "./model.js";
import { fingerprintIncomplete, fingerprintList, sameSummaryInput, summarize } from "./summary.js";

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

/** Every UTF-16 code unit `\s` matches: canonicalization treats each as a space. */
const SPACES = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c)).filter((ch) =>
  /\s/.test(ch),
);

/** Adds whitespace that canonicalization must ignore: runs of spaces, tabs, edges. */
function rewhitespace(text: string): string {
  return `  ${text.replace(/ /g, " \t ")}\n`;
}

/** Replaces each whitespace run, and pads both ends, with other whitespace of any kind. */
function respace(text: string, seed: number): string {
  let s = seed || 1;
  const pick = () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    let run = "";
    for (let n = 0; n <= s % 3; n++) run += SPACES[(s >> (n * 5)) % SPACES.length];
    return run;
  };
  return `${pick()}${text.replace(/\s+/g, () => pick())}${pick()}`;
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

  it("treats every kind of whitespace as canonicalText does", () => {
    fc.assert(
      fc.property(fc.array(todoArb, { maxLength: 12 }), fc.integer(), (todos, seed) => {
        const canonical = todos.map((t) => ({
          ...t,
          content: canonicalText(t.content),
          ...(t.id === undefined ? {} : { id: canonicalText(t.id) }),
        }));
        const respaced = todos.map((t, i) => ({
          ...t,
          content: respace(t.content, seed + i),
          ...(t.id === undefined ? {} : { id: respace(t.id, seed - i) }),
        }));
        expect(fingerprintIncomplete(respaced)).toBe(fingerprintIncomplete(canonical));
      }),
      { numRuns: 500 },
    );
  });

  it("moves when an incomplete item's text, id or status changes (no collisions in a sample)", () => {
    fc.assert(
      fc.property(
        fc.array(todoArb, { minLength: 1, maxLength: 12 }),
        fc.nat(),
        fc.string({ minLength: 1 }).filter((s) => s.trim() !== ""),
        (todos, at, extra) => {
          const i = at % todos.length;
          const target = todos[i] as Todo;
          fc.pre(target.status !== "completed" && target.status !== "cancelled");
          const reworded = todos.map((t, j) =>
            j === i ? { ...t, content: `${t.content} ${extra}` } : t,
          );
          const renamed = todos.map((t, j) =>
            j === i ? { ...t, id: `${t.id ?? ""}${extra}` } : t,
          );
          const restatused = todos.map(
            (t, j): Todo =>
              j === i ? { ...t, status: t.status === "pending" ? "in_progress" : "pending" } : t,
          );
          const before = fingerprintIncomplete(todos);
          expect(fingerprintIncomplete(reworded)).not.toBe(before);
          if (
            canonicalText(`${target.id ?? ""}${extra}`) !== canonicalText(target.id ?? "") ||
            target.id === undefined
          ) {
            expect(fingerprintIncomplete(renamed)).not.toBe(before);
          }
          expect(fingerprintIncomplete(restatused)).not.toBe(before);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("tells an absent id from an empty one, and duplicates from a single item", () => {
    const item: Todo = { content: "x", status: "pending" };
    expect(fingerprintIncomplete([item])).not.toBe(fingerprintIncomplete([{ ...item, id: "" }]));
    expect(fingerprintIncomplete([item, item])).not.toBe(fingerprintIncomplete([item]));
    expect(fingerprintIncomplete([{ ...item, id: "x" }])).not.toBe(
      fingerprintIncomplete([{ content: "", id: "x", status: "pending" }]),
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
    expect(s.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe("sameSummaryInput", () => {
  const listOf = (todos: Todo[]): TodoList => ({ todos, phases: [], nextId: 1 });

  it("holds only when summarize gives the same answer", () => {
    fc.assert(
      fc.property(
        fc.array(todoArb, { maxLength: 8 }),
        fc.array(todoArb, { maxLength: 8 }),
        (a, b) => {
          const copy = listOf(structuredClone(a));
          expect(sameSummaryInput(listOf(a), copy)).toBe(true);
          if (sameSummaryInput(listOf(a), listOf(b))) {
            expect(summarize(listOf(b))).toEqual(summarize(listOf(a)));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("sees a change of status, text or id, and an added item", () => {
    const base: Todo[] = [{ id: "1", content: "a", status: "pending" }];
    const same = (todos: Todo[]) => sameSummaryInput(listOf(base), listOf(todos));
    expect(same([{ id: "1", content: "a", status: "in_progress" }])).toBe(false);
    expect(same([{ id: "1", content: "a ", status: "pending" }])).toBe(false);
    expect(same([{ id: "2", content: "a", status: "pending" }])).toBe(false);
    expect(same([{ content: "a", status: "pending" }])).toBe(false);
    expect(same([...base, { content: "b", status: "completed" }])).toBe(false);
  });
});

describe("fingerprintList: the whole list, finished items included", () => {
  const done = (content: string, status: Todo["status"] = "completed"): Todo => ({
    content,
    status,
  });

  it("tells finished lists apart, which the incomplete fingerprint cannot", () => {
    const a = [done("write the parser"), done("test it")];
    const b = [done("write the parser"), done("ship it")];
    expect(summarize({ todos: a, phases: [], nextId: 1 }).fingerprint).toBe(
      summarize({ todos: b, phases: [], nextId: 1 }).fingerprint,
    );
    expect(fingerprintList(a)).not.toBe(fingerprintList(b));
    expect(fingerprintList(a)).not.toBe(
      fingerprintList([a[0] as Todo, done("test it", "cancelled")]),
    );
    expect(fingerprintList(a)).not.toBe(fingerprintList([]));
  });

  it("property: a reorder or a whitespace-only edit keeps it", () => {
    fc.assert(
      fc.property(fc.array(todoArb, { maxLength: 8 }), (todos) => {
        const moved = [...todos].reverse().map((t) => ({ ...t, content: rewhitespace(t.content) }));
        return fingerprintList(moved) === fingerprintList(todos);
      }),
    );
  });
});
