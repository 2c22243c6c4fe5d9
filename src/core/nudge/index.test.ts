import { describe, expect, it } from "vitest";
import { PRESETS } from "../engine/presets.js";
import { episode, LIMITS, listOf } from "../engine/test-support/fixtures.js";
import type { NudgeStyle, Todo, TodoList } from "../types.js";
import { estimateTokens } from "./estimate.js";
import { DEFAULT_NUDGE_ITEMS, NUDGE_STYLES, renderNudge } from "./index.js";
import type { NudgeContext } from "./types.js";

const CLOSE = 'Close each item with todo_update(id, "done") as you finish it.';
const ctx: NudgeContext = {
  closeInstruction: CLOSE,
  episode: episode({ autoTurns: 2 }),
  limits: LIMITS,
};

function list(todos: Todo[], phases: string[] = []): TodoList {
  return { todos, phases, nextId: todos.length + 1 };
}

const MIXED = list([
  { id: "7", content: "Ship the release notes", status: "completed" },
  {
    id: "8",
    content: "Wait for the security review",
    status: "blocked",
    blockedReason: "review booked for Friday",
  },
  { id: "9", content: "Update the changelog", status: "pending" },
  { id: "10", content: "Fix the flaky upload test", status: "in_progress" },
  { id: "11", content: "Old idea", status: "cancelled" },
]);

describe("renderNudge", () => {
  it.each(NUDGE_STYLES)("%s: names the next actionable item and how to close items", (style) => {
    const text = renderNudge(style, MIXED, ctx);
    expect(text).toContain("Fix the flaky upload test");
    expect(text).toContain(CLOSE);
    expect(text).not.toContain("Ship the release notes");
    expect(text).not.toContain("Old idea");
  });

  it.each(NUDGE_STYLES)("%s: tells the agent where it stands in its budget", (style) => {
    expect(renderNudge(style, MIXED, ctx)).toContain("Automatic nudge 2 of 5.");
  });

  it.each(NUDGE_STYLES)("%s: says nothing of a budget that has no limit", (style) => {
    const text = renderNudge(style, MIXED, { ...ctx, limits: PRESETS.omo.limits });
    expect(text).not.toMatch(/Automatic nudge/);
  });

  it.each(NUDGE_STYLES)("%s: leaves out an empty close instruction", (style) => {
    const text = renderNudge(style, MIXED, { ...ctx, closeInstruction: "  " });
    expect(text).not.toMatch(/^- ?$|[ \t]$|^$/m);
  });

  it("rejects an unknown style, listing the valid ones", () => {
    expect(() => renderNudge("shout" as NudgeStyle, MIXED, ctx)).toThrow(
      'renderNudge: unknown nudge style "shout"; valid styles: system-block, inline-list, status-directive',
    );
  });
});

describe("system-block", () => {
  const text = renderNudge("system-block", MIXED, ctx);

  it("is a delimited notice that says no person wrote it", () => {
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^\[SYSTEM NOTICE .*no person wrote this message\]$/);
    expect(lines.at(-1)).toBe("[END OF SYSTEM NOTICE]");
  });

  it("asks for skeptical verification before anything is called done", () => {
    expect(text).toMatch(/suspicion/);
    expect(text).toMatch(/only mark an item completed once you have seen it work/);
  });

  it("counts open and blocked items", () => {
    expect(text).toContain("still has 2 open items (plus 1 blocked)");
  });
});

describe("inline-list", () => {
  const text = renderNudge("inline-list", MIXED, ctx);

  it("carries the live list with ids, actionable items first, blocked reasons shown", () => {
    const lines = text.split("\n");
    expect(lines[1]).toBe("  [10] Fix the flaky upload test (in progress)");
    expect(lines[2]).toBe("  [9] Update the changelog");
    expect(lines[3]).toBe("  [8] Wait for the security review (blocked: review booked for Friday)");
  });

  it("uses a bullet for items without an id", () => {
    const out = renderNudge(
      "inline-list",
      list([{ content: "No id here", status: "pending" }]),
      ctx,
    );
    expect(out).toContain("  - No id here");
  });

  it("caps a long list and says how many are left out", () => {
    const long = listOf(...Array(25).fill("pending"), "blocked", "blocked");
    const out = renderNudge("inline-list", long, ctx);
    const shown = out.split("\n").filter((l) => /^ {2}\[\d+\]/.test(l));
    expect(shown).toHaveLength(DEFAULT_NUDGE_ITEMS);
    expect(out).toContain("…and 17 more (15 actionable, 2 blocked).");
  });

  it("honours a custom cap", () => {
    const out = renderNudge("inline-list", listOf("pending", "pending", "pending"), {
      ...ctx,
      maxItems: 1,
    });
    expect(out).toContain("  [1] item 1");
    expect(out).not.toContain("[2]");
    expect(out).toContain("…and 2 more (2 actionable).");
  });

  it("keeps model-written text on one bounded line", () => {
    const messy = list([{ content: `first line\n\nsecond ${"x".repeat(400)}`, status: "pending" }]);
    const line = renderNudge("inline-list", messy, ctx).split("\n")[1] ?? "";
    expect(line.startsWith("  - first line second x")).toBe(true);
    expect(line.length).toBeLessThan(200);
    expect(line.endsWith("…")).toBe(true);
  });

  it("follows the list's phase order", () => {
    const phased = list(
      [
        { content: "Write docs", status: "pending", phase: "Polish" },
        { content: "Write parser", status: "pending", phase: "Build" },
      ],
      ["Build", "Polish"],
    );
    const out = renderNudge("inline-list", phased, ctx).split("\n");
    expect(out[1]).toBe("  - Write parser (phase: Build)");
    expect(out[2]).toBe("  - Write docs (phase: Polish)");
  });
});

describe("status-directive", () => {
  const text = renderNudge("status-directive", MIXED, ctx);

  it("carries the status line: completed of all items, incomplete remaining", () => {
    expect(text).toContain("[Status: 1/5 completed, 3 remaining]");
  });

  it("tells the agent to go on without asking, and lists the remaining tasks", () => {
    expect(text).toMatch(/without waiting for approval/);
    expect(text).toContain("- [in_progress] Fix the flaky upload test #10");
    expect(text).toContain("- [pending] Update the changelog #9");
    expect(text).toContain("- Wait for the security review (blocked: review booked for Friday) #8");
  });
});

describe("estimateTokens", () => {
  it("counts about four characters per token, rounded up", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
  });

  it("keeps the default nudge for a 50-item list small", () => {
    const text = renderNudge("inline-list", listOf(...Array(50).fill("pending")), ctx);
    expect(estimateTokens(text)).toBeLessThan(200);
  });
});
