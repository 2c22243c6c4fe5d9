import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseTodoList } from "../../todo/parse.js";
import type { TodoList } from "../../types.js";
import { validList } from "../test-support/arbitraries.js";
import { parseMarkdown } from "./parse.js";
import { renderMarkdown } from "./render.js";

function roundTrip(list: TodoList): TodoList {
  const parsed = parseMarkdown(renderMarkdown(list));
  if (!parsed.ok) throw new Error(`line ${parsed.line}: ${parsed.message}`);
  return parsed.list;
}

describe("renderMarkdown", () => {
  it("writes phases as headings, items as checkboxes and notes as quotes", () => {
    const list: TodoList = {
      phases: ["Build", "Ship"],
      nextId: 1,
      todos: [
        { content: "Set up the repo", status: "completed", phase: "Build" },
        {
          content: "Write the parser",
          status: "in_progress",
          phase: "Build",
          notes: ["tokenizer done", "error lines next"],
        },
        { content: "Tests", status: "pending", phase: "Build" },
        { content: "Old idea", status: "cancelled", phase: "Build" },
        {
          content: "Deploy",
          status: "blocked",
          phase: "Ship",
          blockedReason: "waiting on credentials",
        },
      ],
    };
    expect(renderMarkdown(list)).toBe(
      [
        "## Build",
        "- [x] Set up the repo",
        "- [/] Write the parser",
        "  > tokenizer done",
        "  > error lines next",
        "- [ ] Tests",
        "- [-] Old idea",
        "",
        "## Ship",
        "- [!] Deploy (blocked: waiting on credentials)",
        "",
      ].join("\n"),
    );
  });

  it("keeps id, priority and activeForm in a trailing comment", () => {
    const list: TodoList = {
      phases: [],
      nextId: 8,
      todos: [
        {
          content: "Release notes",
          status: "pending",
          id: "7",
          priority: "high",
          activeForm: "Writing release notes",
        },
      ],
    };
    expect(renderMarkdown(list)).toBe(
      [
        "<!-- no phase -->",
        '- [ ] Release notes <!-- id=7 priority=high activeForm="Writing release notes" -->',
        "",
      ].join("\n"),
    );
  });

  it("writes the id counter only when it runs ahead of the ids in use", () => {
    const list: TodoList = { phases: [], nextId: 12, todos: [] };
    expect(renderMarkdown(list)).toBe("<!-- nextId=12 -->\n");
    expect(renderMarkdown({ ...list, nextId: 1 })).toBe("");
  });

  it("gives empty phases a heading of their own, in phase order", () => {
    const list: TodoList = {
      phases: ["Plan", "Build", "Ship"],
      nextId: 1,
      todos: [{ content: "Code", status: "pending", phase: "Build" }],
    };
    expect(renderMarkdown(list)).toBe("## Plan\n\n## Build\n- [ ] Code\n\n## Ship\n");
  });

  it("quotes text the line syntax could not carry back", () => {
    const list: TodoList = {
      phases: [" padded "],
      nextId: 1,
      todos: [
        { content: "two\nlines", status: "pending", phase: " padded ", notes: ["  trailing  "] },
        {
          content: '"quoted"',
          status: "blocked",
          phase: " padded ",
          blockedReason: "a (blocked: b",
        },
      ],
    };
    const text = renderMarkdown(list);
    expect(text).toContain('## " padded "');
    expect(text).toContain('- [ ] "two\\nlines"');
    expect(text).toContain('  > "  trailing  "');
    expect(text).toContain('- [!] "\\"quoted\\"" <!-- blockedReason="a (blocked: b" -->');
    expect(roundTrip(list)).toEqual(list);
  });

  it("names a phase the list does not declare on the item itself", () => {
    const list: TodoList = {
      phases: [],
      nextId: 1,
      todos: [{ content: "Stray", status: "pending", phase: "Later" }],
    };
    expect(renderMarkdown(list)).toBe("- [ ] Stray <!-- phase=Later -->\n");
    expect(roundTrip(list)).toEqual(list);
  });

  it("keeps interleaved phases in todo order by repeating headings", () => {
    const list: TodoList = {
      phases: ["B", "A"],
      nextId: 1,
      todos: [
        { content: "a1", status: "pending", phase: "A" },
        { content: "loose", status: "pending" },
        { content: "b1", status: "pending", phase: "B" },
        { content: "a2", status: "pending", phase: "A" },
      ],
    };
    expect(renderMarkdown(list)).toBe(
      [
        "## B",
        "",
        "## A",
        "- [ ] a1",
        "",
        "<!-- no phase -->",
        "- [ ] loose",
        "",
        "## B",
        "- [ ] b1",
        "",
        "## A",
        "- [ ] a2",
        "",
      ].join("\n"),
    );
    expect(roundTrip(list)).toEqual(list);
  });

  it("round-trips the empty list", () => {
    expect(roundTrip({ todos: [], phases: [], nextId: 1 })).toEqual({
      todos: [],
      phases: [],
      nextId: 1,
    });
  });

  it("parse(render(x)) equals x for any valid list", () => {
    fc.assert(
      fc.property(validList, (list) => {
        expect(parseTodoList(list)).toEqual(list); // the generator only makes valid lists
        expect(roundTrip(list)).toStrictEqual(list);
      }),
      { numRuns: 1000 },
    );
  });

  it("renders a list the same way after a round trip", () => {
    fc.assert(
      fc.property(validList, (list) => {
        const text = renderMarkdown(list);
        expect(renderMarkdown(roundTrip(list))).toBe(text);
      }),
    );
  });
});
