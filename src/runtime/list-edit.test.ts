import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../core/dialects/markdown/index.js";
import { parseScopeKey } from "../core/scope/scope.js";
import type { TodoList } from "../core/types.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { CLEAR_REMINDER } from "./edit-reminder.js";
import { applyListEdit, clearList } from "./list-edit.js";

const scope = parseScopeKey("tui")!;
const list: TodoList = {
  todos: [
    { content: "Write docs", status: "pending", id: "1" },
    { content: "Ship", status: "completed", id: "2" },
  ],
  phases: [],
  nextId: 3,
};

const rendered = renderMarkdown(list);

async function seeded() {
  const store = new MemoryStore();
  await store.transact(scope, () => ({ todos: list, result: null }));
  return { store, base: await store.read(scope) };
}

describe("applyListEdit", () => {
  it("saves a valid edit and queues the reminder in the same write", async () => {
    const { store, base } = await seeded();
    const outcome = await applyListEdit(
      store,
      scope,
      base,
      rendered.replace("[ ] Write", "[x] Write"),
      5,
    );
    expect(outcome).toMatchObject({ kind: "saved", revision: 2 });
    const after = await store.read(scope);
    expect(after.todos.todos.map((t) => t.status)).toEqual(["completed", "completed"]);
    expect(after.todos.nextId).toBe(3);
    const reminder = after.state.reminders.at(-1);
    expect(reminder).toMatchObject({ kind: "user-edit", at: 5 });
    expect(reminder?.text).toContain('"Write docs" is now completed');
  });

  it("refuses text the parser rejects with its line and message, and writes nothing", async () => {
    const { store, base } = await seeded();
    const outcome = await applyListEdit(store, scope, base, "- [x] ok\n- [q] broken\n", 5);
    expect(outcome).toMatchObject({ kind: "invalid", line: 2, lineText: "- [q] broken" });
    expect(outcome.kind === "invalid" && outcome.message.length > 0).toBe(true);
    expect(await store.read(scope)).toEqual(base);
  });

  it("refuses an edit of a revision that is no longer current", async () => {
    const { store, base } = await seeded();
    await store.transact(scope, () => ({ todos: { ...list, todos: [] }, result: null }));
    const outcome = await applyListEdit(store, scope, base, "- [ ] Something else\n", 5);
    expect(outcome).toEqual({ kind: "conflict", revision: 2 });
    expect((await store.read(scope)).todos.todos).toEqual([]);
  });

  it("refuses an edit that removes every item, and reports an unchanged one", async () => {
    const { store, base } = await seeded();
    expect(await applyListEdit(store, scope, base, "", 5)).toEqual({ kind: "empties" });
    expect(await applyListEdit(store, scope, base, rendered, 5)).toEqual({ kind: "unchanged" });
    expect(await store.read(scope)).toEqual(base);
  });
});

describe("clearList", () => {
  it("empties the list, keeps ids unused and tells the agent", async () => {
    const { store } = await seeded();
    expect(await clearList(store, scope, 9)).toBe(2);
    const after = await store.read(scope);
    expect(after.todos).toEqual({ todos: [], phases: [], nextId: 3 });
    expect(after.state.reminders.at(-1)).toEqual({
      kind: "user-edit",
      text: CLEAR_REMINDER,
      at: 9,
    });
    expect(await clearList(store, scope, 10)).toBe(0);
  });
});
