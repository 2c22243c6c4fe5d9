import { describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import { emptyList } from "../../core/todo/model.js";
import type { DecisionLogEntry } from "../../core/types.js";
import { prepareWrite, readRow, runCallback } from "./snapshot.js";

const row = (todos: string, state: string) => ({
  key: "tui",
  todos,
  todos_revision: "7",
  state,
  state_revision: "3",
  version: "42",
});

const entry = (at: number) => ({ at }) as unknown as DecisionLogEntry;

describe("readRow", () => {
  it("reads a missing row as empty documents at revision 0 with no write token", () => {
    expect(readRow(undefined)).toEqual({
      snapshot: { todos: emptyList(), todosRevision: 0, state: emptyState(), stateRevision: 0 },
      version: null,
    });
  });

  it("reads unparseable or foreign documents as empty (the state as untrusted), keeping revisions and token", () => {
    const { snapshot, version } = readRow(row("{not json", "[1,2]"));
    expect(snapshot).toEqual({
      todos: emptyList(),
      todosRevision: 7,
      state: { ...emptyState(), untrusted: true },
      stateRevision: 3,
    });
    expect(version).toBe("42");
  });
});

describe("runCallback", () => {
  it("refuses a result that is not an object, or a promise", () => {
    const snap = readRow(undefined).snapshot;
    expect(() => runCallback(() => 5 as never, snap)).toThrow(/must return/);
    expect(() => runCallback((async () => ({ result: 1 })) as never, snap)).toThrow(/synchronous/);
    expect(runCallback(() => ({ result: 1 }), snap)).toEqual({ result: 1 });
  });
});

describe("prepareWrite", () => {
  it("is null when nothing is to be written", () => {
    expect(prepareWrite({ result: 1 }, 10)).toBeNull();
    expect(prepareWrite({ log: [], result: 1 }, 10)).toBeNull();
  });

  it("serializes each document given, and keeps only the newest logLimit entries", () => {
    const write = prepareWrite(
      { state: emptyState(), log: [entry(1), entry(2), entry(3)], result: 0 },
      2,
    );
    expect(write).toEqual({
      todos: null,
      state: JSON.stringify(emptyState()),
      log: JSON.stringify([entry(2), entry(3)]),
      logCount: 2,
    });
  });

  it("names the field of a malformed result", () => {
    expect(() => prepareWrite({ todos: [] as never, result: 0 }, 5)).toThrow(/result\.todos/);
    expect(() => prepareWrite({ state: { version: 2 } as never, result: 0 }, 5)).toThrow(
      /result\.state/,
    );
    expect(() => prepareWrite({ log: [5] as never, result: 0 }, 5)).toThrow(/result\.log/);
  });
});
