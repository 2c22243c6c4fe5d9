import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseTodoList } from "../../todo/parse.js";
import type { TodoList } from "../../types.js";
import { trickyText } from "../test-support/arbitraries.js";
import { type MarkdownParse, parseMarkdown } from "./parse.js";

function listOf(text: string): TodoList {
  const parsed = parseMarkdown(text);
  if (!parsed.ok) throw new Error(`line ${parsed.line}: ${parsed.message}`);
  return parsed.list;
}

function errorOf(text: string): { line: number; message: string } {
  const parsed = parseMarkdown(text);
  if (parsed.ok) throw new Error("expected a parse error");
  return { line: parsed.line, message: parsed.message };
}

describe("parseMarkdown", () => {
  it("reads headings, every checkbox mark and notes", () => {
    const list = listOf(
      [
        "## Build",
        "- [x] Set up",
        "- [X] Lint",
        "- [/] Parser",
        "  > tokenizer done",
        "> second note",
        "- [ ] Tests",
        "## Ship",
        "- [-] Old plan",
        "- [~] Older plan",
        "- [>] Release",
        "- [!] Deploy (blocked: no credentials)",
      ].join("\n"),
    );
    expect(list).toEqual({
      phases: ["Build", "Ship"],
      nextId: 1,
      todos: [
        { content: "Set up", status: "completed", phase: "Build" },
        { content: "Lint", status: "completed", phase: "Build" },
        {
          content: "Parser",
          status: "in_progress",
          phase: "Build",
          notes: ["tokenizer done", "second note"],
        },
        { content: "Tests", status: "pending", phase: "Build" },
        { content: "Old plan", status: "cancelled", phase: "Ship" },
        { content: "Older plan", status: "cancelled", phase: "Ship" },
        { content: "Release", status: "in_progress", phase: "Ship" },
        { content: "Deploy", status: "blocked", phase: "Ship", blockedReason: "no credentials" },
      ],
    });
  });

  it("puts tasks written before any heading into a Todos phase", () => {
    expect(listOf("- [ ] one\n- [x] two\n## Later\n- [ ] three")).toEqual({
      phases: ["Todos", "Later"],
      nextId: 1,
      todos: [
        { content: "one", status: "pending", phase: "Todos" },
        { content: "two", status: "completed", phase: "Todos" },
        { content: "three", status: "pending", phase: "Later" },
      ],
    });
  });

  it("reads tasks after a no-phase line as having no phase", () => {
    expect(
      listOf("<!-- no phase -->\n- [ ] loose\n## A\n- [ ] a\n<!-- no phase -->\n- [ ] b"),
    ).toEqual({
      phases: ["A"],
      nextId: 1,
      todos: [
        { content: "loose", status: "pending" },
        { content: "a", status: "pending", phase: "A" },
        { content: "b", status: "pending" },
      ],
    });
  });

  it("continues a phase when its heading repeats", () => {
    expect(listOf("## A\n- [ ] a1\n## B\n## A\n- [ ] a2").todos.map((t) => t.phase)).toEqual([
      "A",
      "A",
    ]);
  });

  it("reads item comments, the id counter and Windows line ends", () => {
    const list = listOf(
      '<!-- nextId=9 -->\r\n## P\r\n- [ ] Docs <!-- id=4 priority=low activeForm="Writing docs" -->\r\n',
    );
    expect(list).toEqual({
      phases: ["P"],
      nextId: 9,
      todos: [
        {
          content: "Docs",
          status: "pending",
          phase: "P",
          id: "4",
          priority: "low",
          activeForm: "Writing docs",
        },
      ],
    });
  });

  it("never hands out an id in use, even when the counter was lowered by hand", () => {
    expect(listOf("<!-- nextId=2 -->\n- [ ] a <!-- id=7 -->").nextId).toBe(8);
  });

  it("ignores blank lines and free comments", () => {
    expect(listOf("\n<!-- my own remark -->\n\n## A\n\n- [ ] a\n\n")).toEqual({
      phases: ["A"],
      nextId: 1,
      todos: [{ content: "a", status: "pending", phase: "A" }],
    });
  });

  it("reads quoted text back exactly and leaves unquotable quotes as typed", () => {
    expect(listOf('## "a\\nb"\n- [ ] " spaced "\n  > "x\\ty"').todos[0]).toEqual({
      content: " spaced ",
      status: "pending",
      phase: "a\nb",
      notes: ["x\ty"],
    });
    expect(listOf('- [ ] "Ship it" he said').todos[0]?.content).toBe('"Ship it" he said');
  });

  it("takes the last (blocked: ...) as the reason", () => {
    expect(listOf("- [!] Ask (blocked: legal) (blocked: on leave)").todos[0]).toMatchObject({
      content: "Ask (blocked: legal)",
      blockedReason: "on leave",
    });
  });

  it.each([
    ["- [!] Deploy", 1, "a blocked item needs a reason"],
    ["- [!] Deploy (blocked:  )", 1, "must not be empty"],
    ["## A\n- [?] odd", 2, 'unknown checkbox mark "?"'],
    ["- [] empty", 1, "an item needs a checkbox with one mark"],
    ["- plain bullet", 1, "an item needs a checkbox"],
    ["- [ ]", 1, "an item needs some text"],
    ["- [ ] <!-- id=3 -->", 1, "an item needs some text"],
    ["# Title", 1, 'phases are "## " headings'],
    ["### Deep", 1, 'phases are "## " headings'],
    ["##", 1, "a phase heading needs a name"],
    ["> orphan note", 1, "a note"],
    ["## A\n- [ ] a\n## B\n> note", 4, "must follow an item"],
    ["just words", 1, 'expected a "## Phase" heading'],
    ["- [ ] a <!-- size=3 -->", 1, 'unknown field "size"'],
    ["- [ ] a <!-- id=1 id=2 -->", 1, 'field "id" appears twice'],
    ["- [ ] a <!-- id= -->", 1, "cannot read the item comment"],
    ['- [ ] a <!-- id="\\q" -->', 1, "not a valid JSON string"],
    [
      "- [ ] a <!-- priority=urgent -->",
      1,
      'priority must be one of high, medium, low (got "urgent")',
    ],
    ["<!-- nextId=0 -->", 1, "nextId must be a whole number of at least 1"],
    ["\n\n- [ ] ok\n  - [*] bad", 4, 'unknown checkbox mark "*"'],
  ])("reports %j at line %i", (text, line, message) => {
    const error = errorOf(text);
    expect(error.line).toBe(line);
    expect(error.message).toContain(message);
  });

  it("never throws, and whatever it accepts is a valid stored list", () => {
    const lineArb = fc.oneof(
      trickyText,
      fc.constantFrom("## A", "- [ ] x", "- [!] y (blocked: z)", "  > n", "<!-- no phase -->"),
    );
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 8 }), (lines) => {
        const text = lines.join("\n");
        let parsed: MarkdownParse | undefined;
        expect(() => {
          parsed = parseMarkdown(text);
        }).not.toThrow();
        if (parsed?.ok) expect(parseTodoList(parsed.list)).toStrictEqual(parsed.list);
        else expect(parsed?.line).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a value that is not text", () => {
    expect(parseMarkdown(42 as unknown as string)).toEqual({
      ok: false,
      line: 1,
      message: "expected markdown text",
    });
  });
});
