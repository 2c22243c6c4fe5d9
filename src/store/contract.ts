import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyState } from "../core/engine/state.js";
import { resolveScope } from "../core/scope/scope.js";
import { emptyList } from "../core/todo/model.js";
import type { ContinuationState, DecisionLogEntry, Scope, Store, TodoList } from "../core/types.js";

/**
 * The behaviour every `Store` promises, as a vitest suite. Each store's test
 * file calls `runStoreContract` with a factory that opens a fresh, empty store
 * and a cleanup that removes whatever it created.
 */

export interface StoreUnderTest {
  store: Store;
  cleanup(): Promise<void>;
}

const TUI = resolveScope({ kind: "tui" })!;
const CHANNEL = resolveScope({
  kind: "channel",
  adapter: "slack",
  workspace: "T1",
  chat: "C1",
  thread: null,
})!;
const CRON = resolveScope({ kind: "cron", jobId: "nightly" })!;
const CRON_PREFIXED = resolveScope({ kind: "cron", jobId: "nightly-2" })!;
const SESSION = resolveScope({ kind: "session", host: "claude-code", sessionId: "s-1" })!;

function list(...contents: string[]): TodoList {
  return {
    todos: contents.map((content) => ({ content, status: "pending" })),
    phases: [],
    nextId: 1,
  };
}

function richList(): TodoList {
  return {
    todos: [
      { content: "Plan", status: "completed", id: "1", priority: "high", phase: "Design" },
      { content: "Build", status: "in_progress", id: "2", notes: ["started", "half way"] },
      { content: "Ship", status: "blocked", id: "3", blockedReason: "waiting for review" },
      { content: "Run tests", status: "pending", activeForm: "Running tests" },
      { content: "Drop", status: "cancelled" },
    ],
    phases: ["Design", "Build"],
    nextId: 4,
  };
}

function richState(): ContinuationState {
  return {
    ...emptyState(),
    episode: {
      id: "ep-1",
      startedAt: 1_700_000_000_000,
      autoTurns: 2,
      tokens: 1234,
      stagnation: 1,
      lastFingerprint: "abc",
      minIncomplete: 3,
      maxCompleted: 1,
      lastCountedTurnId: "turn-7",
      failures: 0,
      lastInjectionAt: 1_700_000_000_500,
      lastFailureAt: null,
      answeredTurnId: "turn-7",
      errorRetries: 1,
    },
    lastOutcome: {
      turnId: "turn-7",
      stopReason: "stop",
      endedAt: 1_700_000_000_400,
      usage: { input: 10, output: 20, cacheRead: 300, cacheWrite: 5, total: 335 },
      injected: true,
      restartCaused: false,
    },
    restartKickArmed: true,
    stopped: false,
    userAbortBlocked: true,
    reminders: [{ kind: "user-edit", text: "the list changed", at: 1_700_000_000_100 }],
    lastUserTurnAt: 1_699_999_999_000,
    userTurnFingerprint: "def",
    parked: "retries-exhausted",
  };
}

function logEntry(at: number): DecisionLogEntry {
  return {
    at,
    action: at % 2 === 0 ? "inject" : "skip",
    reason: at % 2 === 0 ? null : "stagnation",
    episodeId: "ep-1",
    autoTurns: at,
    tokens: 10 * at,
    stagnation: 0,
    actionable: 2,
    blocked: 0,
    nudgeChars: at % 2 === 0 ? 120 : null,
    nudgeTokens: at % 2 === 0 ? 30 : null,
    trigger: "idle",
  };
}

/** Reads the counter kept in the first todo's content ("count N"). */
function counter(todos: TodoList): number {
  const match = /^count (\d+)$/.exec(todos.todos[0]?.content ?? "");
  return match ? Number(match[1]) : 0;
}

const BAD_SCOPES: [string, unknown][] = [
  ["a traversal key", { key: "../sessions/x", kind: "session" }],
  ["an absolute key", { key: "/etc/passwd", kind: "tui" }],
  ["an empty key", { key: "", kind: "tui" }],
  ["a key climbing out of its kind", { key: "cron/../../x", kind: "cron" }],
  ["a kind that does not match the key", { key: "tui", kind: "cron" }],
  ["a key that is not a string", { key: 42, kind: "tui" }],
];

export function runStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>): void {
  describe(`${name}: the Store contract`, () => {
    let subject: StoreUnderTest;
    let store: Store;

    beforeEach(async () => {
      subject = await makeStore();
      store = subject.store;
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    it("reads an unknown scope as an empty list and state at revision 0", async () => {
      const snapshot = await store.read(CHANNEL);
      expect(snapshot).toEqual({
        todos: emptyList(),
        todosRevision: 0,
        state: emptyState(),
        stateRevision: 0,
      });
    });

    it("round-trips every field of a list and a state", async () => {
      await store.transact(SESSION, () => ({ todos: richList(), state: richState(), result: 0 }));
      const snapshot = await store.read(SESSION);
      expect(snapshot.todos).toEqual(richList());
      expect(snapshot.state).toEqual(richState());
    });

    it("moves each document's revision by exactly one per write of it", async () => {
      await store.transact(TUI, () => ({ todos: list("a"), result: null }));
      await store.transact(TUI, () => ({ todos: list("b"), result: null }));
      let snapshot = await store.read(TUI);
      expect([snapshot.todosRevision, snapshot.stateRevision]).toEqual([2, 0]);
      await store.transact(TUI, () => ({
        state: { ...emptyState(), stopped: true },
        result: null,
      }));
      snapshot = await store.read(TUI);
      expect([snapshot.todosRevision, snapshot.stateRevision]).toEqual([2, 1]);
      await store.transact(TUI, (s) => ({ todos: s.todos, state: s.state, result: null }));
      snapshot = await store.read(TUI);
      expect([snapshot.todosRevision, snapshot.stateRevision]).toEqual([3, 2]);
    });

    it("hands the callback the current snapshot and returns its result", async () => {
      await store.transact(CRON, () => ({ todos: list("x"), state: richState(), result: null }));
      const expected = await store.read(CRON);
      const seen = await store.transact(CRON, (snapshot) => ({ result: snapshot }));
      expect(seen).toEqual(expected);
    });

    it("leaves omitted documents and their revisions untouched", async () => {
      await store.transact(CRON, () => ({ todos: richList(), state: richState(), result: null }));
      await store.transact(CRON, () => ({ state: emptyState(), result: null }));
      let snapshot = await store.read(CRON);
      expect(snapshot.todos).toEqual(richList());
      expect(snapshot.todosRevision).toBe(1);
      await store.transact(CRON, () => ({ todos: list("only the list"), result: null }));
      snapshot = await store.read(CRON);
      expect(snapshot.state).toEqual(emptyState());
      expect(snapshot.stateRevision).toBe(2);
    });

    it("writes nothing when the callback returns no document", async () => {
      const result = await store.transact(TUI, () => ({ result: "read only" }));
      expect(result).toBe("read only");
      expect(await store.listScopes()).toEqual([]);
      expect((await store.read(TUI)).todosRevision).toBe(0);
    });

    it("writes nothing when the callback throws, and rejects with its error", async () => {
      await store.transact(TUI, () => ({ todos: list("keep me"), result: null }));
      await expect(
        store.transact(TUI, () => {
          throw new Error("refused by the callback");
        }),
      ).rejects.toThrow("refused by the callback");
      const snapshot = await store.read(TUI);
      expect(snapshot.todos).toEqual(list("keep me"));
      expect(snapshot.todosRevision).toBe(1);
    });

    it("never lets a caller change stored data by reference", async () => {
      const written = list("original");
      await store.transact(TUI, () => ({ todos: written, result: null }));
      written.todos[0]!.content = "mutated after write";
      const first = await store.read(TUI);
      first.todos.todos[0]!.content = "mutated after read";
      await store.transact(TUI, (snapshot) => {
        snapshot.todos.todos.push({ content: "mutated in callback", status: "pending" });
        return { result: null };
      });
      expect((await store.read(TUI)).todos).toEqual(list("original"));
    });

    it("keeps scopes apart, including keys that prefix one another", async () => {
      await store.transact(CRON, () => ({ todos: list("nightly"), result: null }));
      await store.transact(CRON_PREFIXED, () => ({ todos: list("nightly-2"), result: null }));
      expect((await store.read(CRON)).todos).toEqual(list("nightly"));
      expect((await store.read(CRON_PREFIXED)).todos).toEqual(list("nightly-2"));
      expect((await store.read(TUI)).todosRevision).toBe(0);
    });

    it("keeps the log newest last, honours the limit argument and an unknown scope has none", async () => {
      await store.transact(TUI, () => ({ log: [logEntry(1), logEntry(2)], result: null }));
      await store.transact(TUI, () => ({ log: [logEntry(3)], result: null }));
      expect(await store.readLog(TUI)).toEqual([logEntry(1), logEntry(2), logEntry(3)]);
      expect(await store.readLog(TUI, 2)).toEqual([logEntry(2), logEntry(3)]);
      expect(await store.readLog(TUI, 0)).toEqual([]);
      expect(await store.readLog(CRON)).toEqual([]);
    });

    it("bounds the log to the newest 200 entries by default", async () => {
      for (let batch = 0; batch < 26; batch++) {
        const entries = Array.from({ length: 10 }, (_, i) => logEntry(batch * 10 + i + 1));
        await store.transact(CHANNEL, () => ({ log: entries, result: null }));
      }
      const log = await store.readLog(CHANNEL);
      expect(log).toHaveLength(200);
      expect(log[0]).toEqual(logEntry(61));
      expect(log[199]).toEqual(logEntry(260));
      expect(await store.readLog(CHANNEL, 1000)).toHaveLength(200);
    });

    it("keeps a decision's state and its log together: a log it cannot store commits neither", async () => {
      await store.transact(TUI, () => ({ state: richState(), log: [logEntry(1)], result: null }));
      for (const bad of ["not a list", [42], [logEntry(2), null]]) {
        await expect(
          store.transact(TUI, () => ({
            state: { ...emptyState(), stopped: true },
            log: bad as unknown as DecisionLogEntry[],
            result: null,
          })),
        ).rejects.toThrow(/log/);
        const snapshot = await store.read(TUI);
        expect(snapshot.state).toEqual(richState());
        expect(snapshot.stateRevision).toBe(1);
        expect(await store.readLog(TUI)).toEqual([logEntry(1)]);
      }
    });

    it("a log-only transaction leaves both documents untouched", async () => {
      await store.transact(TUI, () => ({ todos: list("a"), state: richState(), result: null }));
      await store.transact(TUI, () => ({ log: [logEntry(1)], result: null }));
      const snapshot = await store.read(TUI);
      expect([snapshot.todosRevision, snapshot.stateRevision]).toEqual([1, 1]);
      expect(snapshot.todos).toEqual(list("a"));
    });

    it("lists every scope that has a list, a state or a log, and only those", async () => {
      await store.transact(TUI, () => ({ todos: list("a"), result: null }));
      await store.transact(CHANNEL, () => ({ state: richState(), result: null }));
      await store.transact(CRON, () => ({ log: [logEntry(1)], result: null }));
      await store.transact(SESSION, () => ({ result: null }));
      const keys = (await store.listScopes()).map((s) => s.key).sort();
      expect(keys).toEqual([TUI, CHANNEL, CRON].map((s) => s.key).sort());
      const scopes = await store.listScopes();
      for (const scope of scopes) {
        expect([TUI, CHANNEL, CRON]).toContainEqual(scope);
      }
    });

    it("deletes a scope's list, state and log and nothing else", async () => {
      for (const scope of [CRON, CRON_PREFIXED]) {
        await store.transact(scope, () => ({
          todos: list("a"),
          state: richState(),
          log: [logEntry(1)],
          result: null,
        }));
      }
      await store.deleteScope(CRON);
      expect(await store.read(CRON)).toEqual({
        todos: emptyList(),
        todosRevision: 0,
        state: emptyState(),
        stateRevision: 0,
      });
      expect(await store.readLog(CRON)).toEqual([]);
      expect((await store.listScopes()).map((s) => s.key)).toEqual([CRON_PREFIXED.key]);
      expect((await store.read(CRON_PREFIXED)).todos).toEqual(list("a"));
      await expect(store.deleteScope(SESSION)).resolves.toBeUndefined();
    });

    it("loses no update among concurrent transactions of one process", async () => {
      const increments = 40;
      const results = await Promise.all(
        Array.from({ length: increments }, () =>
          store.transact(CHANNEL, (snapshot) => {
            const next = counter(snapshot.todos) + 1;
            return { todos: list(`count ${next}`), result: next };
          }),
        ),
      );
      const snapshot = await store.read(CHANNEL);
      expect(counter(snapshot.todos)).toBe(increments);
      expect(snapshot.todosRevision).toBe(increments);
      expect([...results].sort((a, b) => a - b)).toEqual(
        Array.from({ length: increments }, (_, i) => i + 1),
      );
    });

    it("runs concurrent transactions on different scopes independently", async () => {
      const scopes = [TUI, CHANNEL, CRON, SESSION];
      await Promise.all(
        scopes.flatMap((scope) =>
          Array.from({ length: 10 }, () =>
            store.transact(scope, (snapshot) => ({
              todos: list(`count ${counter(snapshot.todos) + 1}`),
              result: null,
            })),
          ),
        ),
      );
      for (const scope of scopes) expect(counter((await store.read(scope)).todos)).toBe(10);
    });

    for (const [label, scope] of BAD_SCOPES) {
      it(`refuses ${label} everywhere and writes nothing`, async () => {
        const bad = scope as Scope;
        await expect(store.read(bad)).rejects.toThrow(/scope/);
        await expect(store.transact(bad, () => ({ todos: list("x"), result: 1 }))).rejects.toThrow(
          /scope/,
        );
        await expect(store.readLog(bad)).rejects.toThrow(/scope/);
        await expect(store.deleteScope(bad)).rejects.toThrow(/scope/);
        expect(await store.listScopes()).toEqual([]);
      });
    }

    it("refuses work after close", async () => {
      await store.close();
      await expect(store.read(TUI)).rejects.toThrow(/closed/);
      await expect(store.transact(TUI, () => ({ result: 1 }))).rejects.toThrow(/closed/);
    });
  });
}
