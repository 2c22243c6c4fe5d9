import { appendFileSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  GOAL_EVENT_MARKER,
  goalStatusOf,
  hostGoal,
  isGoalTurn,
  type LineMemo,
  lastLineWith,
} from "./goal.js";
import { goalLine, taskStarted } from "./test-support/rollout-lines.js";

const dir = mkdtempSync(join(tmpdir(), "tc-codex-goal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("host goal from the rollout", () => {
  it("reads the goal status line and nothing else", () => {
    expect(goalLine("active")).toContain(GOAL_EVENT_MARKER);
    expect(goalStatusOf(goalLine("paused"))).toBe("paused");
    expect(goalStatusOf(taskStarted("a", "goal"))).toBeNull();
    expect(goalStatusOf("{not json")).toBeNull();
  });

  it("tells a goal turn from a user's turn by the turn being stopped", () => {
    const tail = [taskStarted("u-1", null), taskStarted("g-1", "goal")];
    expect(isGoalTurn(tail, "g-1")).toBe(true);
    expect(isGoalTurn(tail, "u-1")).toBe(false);
    expect(isGoalTurn(tail, "unknown")).toBe(false);
    expect(isGoalTurn(tail, null)).toBe(false);
  });

  it("is active for an active goal or a goal turn, and not for any other status", () => {
    for (const status of ["paused", "blocked", "usageLimited", "budgetLimited", "complete"]) {
      expect(hostGoal(goalLine(status), [taskStarted("u", null)], "u").active).toBe(false);
      // A goal turn is the loop itself, whatever the newest status line says.
      expect(hostGoal(goalLine(status), [taskStarted("g", "goal")], "g").active).toBe(true);
    }
    expect(hostGoal(goalLine("active"), [], "u")).toEqual({
      active: true,
      status: "active",
      goalTurn: false,
    });
    expect(hostGoal(null, [], "u").active).toBe(false);
  });
});

describe("lastLineWith", () => {
  it("finds the newest matching line in a rollout of several megabytes, across chunk edges", async () => {
    const filler = JSON.stringify({ type: "response_item", payload: { text: "x".repeat(900) } });
    const lines: string[] = [];
    for (let i = 0; i < 6000; i++) {
      if (i === 10) lines.push(goalLine("active"));
      if (i === 3000) lines.push(goalLine("paused"));
      lines.push(filler);
    }
    const path = join(dir, "big.jsonl");
    writeFileSync(path, `${lines.join("\n")}\n`);
    expect(goalStatusOf((await lastLineWith(path, GOAL_EVENT_MARKER)) ?? "")).toBe("paused");
  });

  it("returns null for a missing file or one without the marker", async () => {
    expect(await lastLineWith(join(dir, "missing.jsonl"), GOAL_EVENT_MARKER)).toBeNull();
    const path = join(dir, "none.jsonl");
    writeFileSync(path, `${taskStarted("a", null)}\n`);
    expect(await lastLineWith(path, GOAL_EVENT_MARKER)).toBeNull();
  });

  it("agrees with a plain search of the whole text for any placement", async () => {
    const path = join(dir, "prop.jsonl");
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constant("A"), fc.constant("B"), fc.string({ maxLength: 5000 })), {
          maxLength: 400,
        }),
        async (parts) => {
          const text = parts
            .map((p) => (p === "A" ? goalLine("active") : p === "B" ? goalLine("complete") : p))
            .map((p) => p.replaceAll("\n", " "))
            .join("\n");
          writeFileSync(path, text);
          const expected =
            text
              .split("\n")
              .filter((l) => l.includes(GOAL_EVENT_MARKER))
              .at(-1) ?? null;
          expect(await lastLineWith(path, GOAL_EVENT_MARKER)).toBe(expected);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("lastLineWith, remembering what it scanned", () => {
  /** An in-memory memo store that counts what was read through it. */
  function memoStore() {
    const memos = new Map<string, LineMemo>();
    return {
      memos,
      read: (path: string) => memos.get(path) ?? null,
      write: (path: string, memo: LineMemo) => void memos.set(path, { ...memo }),
    };
  }
  const newest = (text: string) =>
    text
      .split("\n")
      .filter((l) => l.includes(GOAL_EVENT_MARKER))
      .at(-1) ?? null;

  it("agrees with a plain search after every append, partial lines included", async () => {
    const path = join(dir, "growing.jsonl");
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.constant("A"),
            fc.constant("B"),
            fc.constant("\n"),
            fc.string({ maxLength: 3000 }),
          ),
          { minLength: 1, maxLength: 60 },
        ),
        async (pieces) => {
          const store = memoStore();
          let text = "";
          writeFileSync(path, "");
          for (const piece of pieces) {
            // A goal line, a newline, or text without one: lines grow across appends.
            text +=
              piece === "A"
                ? `${goalLine("active")}\n`
                : piece === "B"
                  ? `${goalLine("complete")}\n`
                  : piece === "\n"
                    ? "\n"
                    : piece.replaceAll("\n", " ");
            writeFileSync(path, text);
            expect(await lastLineWith(path, GOAL_EVENT_MARKER, store, 0)).toBe(newest(text));
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it("reads only what was written since, and scans again a file replaced or a memo that lies", async () => {
    const path = join(dir, "long.jsonl");
    const filler = `${JSON.stringify({ type: "response_item", payload: { text: "x".repeat(1000) } })}\n`;
    writeFileSync(path, `${goalLine("active")}\n${filler.repeat(5000)}`);
    const store = memoStore();
    expect(goalStatusOf((await lastLineWith(path, GOAL_EVENT_MARKER, store, 0)) ?? "")).toBe(
      "active",
    );
    const first = store.memos.get(path) as LineMemo;
    expect(first.scanned).toBe(statSync(path).size);
    appendFileSync(path, filler.repeat(10));
    expect(goalStatusOf((await lastLineWith(path, GOAL_EVENT_MARKER, store, 0)) ?? "")).toBe(
      "active",
    );
    expect((store.memos.get(path) as LineMemo).scanned).toBe(statSync(path).size);
    appendFileSync(path, `${goalLine("complete")}\n`);
    expect(goalStatusOf((await lastLineWith(path, GOAL_EVENT_MARKER, store, 0)) ?? "")).toBe(
      "complete",
    );
    // A memo whose line is not where it says is not taken: the file is scanned whole.
    store.memos.set(path, { ...(store.memos.get(path) as LineMemo), line: goalLine("active") });
    expect(goalStatusOf((await lastLineWith(path, GOAL_EVENT_MARKER, store, 0)) ?? "")).toBe(
      "complete",
    );
    // Nor a memo of another file of the same name (a rollout replaced).
    const other = join(dir, "other.jsonl");
    writeFileSync(other, `${filler.repeat(3)}${goalLine("paused")}\n`);
    renameSync(other, path);
    expect(goalStatusOf((await lastLineWith(path, GOAL_EVENT_MARKER, store, 0)) ?? "")).toBe(
      "paused",
    );
    // Nor one of a longer file (a rollout cut short).
    writeFileSync(path, filler);
    expect(await lastLineWith(path, GOAL_EVENT_MARKER, store, 0)).toBeNull();
  });
});
