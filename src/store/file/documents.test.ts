import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import { resolveScope } from "../../core/scope/scope.js";
import { parseTodo } from "../../core/todo/parse.js";
import {
  checkState,
  checkTodoList,
  parseDocumentText,
  readState,
  readTodoList,
  serializeState,
  serializeTodoList,
} from "./documents.js";
import { createFileStore } from "./file-store.js";
import { scopePaths } from "./paths.js";

/** Documents that are almost right: the known fields with values of any type. */
const wrongTypes = fc.record(
  {
    version: fc.anything(),
    revision: fc.oneof(fc.anything(), fc.double(), fc.bigInt().map(String)),
    todos: fc.oneof(
      fc.anything(),
      fc.array(
        fc.record(
          {
            content: fc.oneof(fc.string(), fc.anything()),
            status: fc.oneof(fc.constantFrom("pending", "blocked", "done"), fc.anything()),
            id: fc.anything(),
            notes: fc.oneof(fc.array(fc.string()), fc.anything()),
            blockedReason: fc.anything(),
          },
          { requiredKeys: [] },
        ),
      ),
    ),
    phases: fc.anything(),
    nextId: fc.oneof(fc.double(), fc.integer(), fc.anything()),
    episode: fc.anything(),
    lastOutcome: fc.anything(),
    reminders: fc.anything(),
    lastUserTurnAt: fc.oneof(fc.double(), fc.anything()),
  },
  { requiredKeys: [] },
);

const hugeNumbers = fc
  .constantFrom(
    "9007199254740991",
    "9007199254740990",
    "1e309",
    "-1e309",
    "123456789012345678901234567890",
    "9007199254740993",
    "-0",
    "1e-400",
  )
  .map(
    (n) =>
      `{"revision":${n},"nextId":${n},"todos":[{"content":"x","status":"pending","id":${n}}],"episode":{"autoTurns":${n}}}`,
  );

const deepNesting = fc
  .integer({ min: 1, max: 200_000 })
  .map(
    (depth) =>
      `{"todos":${"[".repeat(depth)}${"]".repeat(depth)},"episode":${'{"a":'.repeat(Math.min(depth, 5000))}1${"}".repeat(Math.min(depth, 5000))}}`,
  );

const anyFileContent: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)),
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v))),
  wrongTypes.map((v) => Buffer.from(JSON.stringify(v) ?? "")),
  hugeNumbers.map((s) => Buffer.from(s)),
  deepNesting.map((s) => Buffer.from(s)),
  fc.string().map((s) => Buffer.from(s)),
);

describe("reading documents", () => {
  it("never throws on any content and always yields trusted values", () => {
    fc.assert(
      fc.property(anyFileContent, (bytes) => {
        const raw = parseDocumentText(bytes);
        expect(Number.isSafeInteger(raw.revision) && raw.revision >= 0).toBe(true);
        const list = readTodoList(raw);
        for (const todo of list.todos) expect(parseTodo(todo)).toEqual(todo);
        expect(Number.isSafeInteger(list.nextId) && list.nextId >= 1).toBe(true);
        const { state } = readState(raw);
        expect(() => checkState(state)).not.toThrow();
      }),
      { numRuns: 500 },
    );
  });

  it("round-trips what it writes", () => {
    const list = {
      todos: [{ content: "a", status: "pending" as const, id: "3" }],
      phases: ["p"],
      nextId: 4,
    };
    expect(readTodoList(parseDocumentText(Buffer.from(serializeTodoList(list, 7))))).toEqual(list);
    expect(parseDocumentText(Buffer.from(serializeTodoList(list, 7))).revision).toBe(7);
    const state = { ...emptyState(), stopped: true };
    expect(readState(parseDocumentText(Buffer.from(serializeState(state, 2))))).toEqual({
      state,
      damaged: false,
      journal: null,
    });
  });
});

describe("checking what a transaction returns", () => {
  it("names the entry or field at fault", () => {
    expect(() => checkTodoList({ todos: "x" })).toThrow(/not a list/);
    expect(() =>
      checkTodoList({ todos: [{ content: "a", status: "later" }], phases: [], nextId: 1 }),
    ).toThrow(/todos\[0\]/);
    expect(() => checkTodoList({ todos: [], phases: [1], nextId: 1 })).toThrow(/phases/);
    expect(() => checkTodoList({ todos: [], phases: [], nextId: 0 })).toThrow(/nextId/);
    expect(() => checkState({ ...emptyState(), stopped: "yes" })).toThrow(/state\.stopped/);
    expect(() =>
      checkState({ ...emptyState(), reminders: [{ kind: "nope", text: "", at: 1 }] }),
    ).toThrow(/state\.reminders/);
    expect(() => checkState([])).toThrow(/not an object/);
  });
});

describe("the file store on fuzzed files", () => {
  const root = mkdtempSync(join(tmpdir(), "tc-fuzz-"));
  const store = createFileStore({ root });
  const scope = resolveScope({ kind: "session", host: "pi", sessionId: "fuzz" })!;
  const paths = scopePaths(store.todoDir, scope);
  mkdirSync(join(store.todoDir, ".state", "session"), { recursive: true });
  mkdirSync(join(store.todoDir, "session"), { recursive: true });

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it("reads, lists, logs and writes over any file content without throwing", async () => {
    await fc.assert(
      fc.asyncProperty(
        anyFileContent,
        anyFileContent,
        anyFileContent,
        async (todos, state, log) => {
          writeFileSync(paths.todos, todos);
          writeFileSync(paths.state, state);
          writeFileSync(paths.log, log);
          const snapshot = await store.read(scope);
          expect(snapshot.todosRevision).toBeGreaterThanOrEqual(0);
          await store.readLog(scope);
          expect(await store.listScopes()).toEqual([scope]);
          const write = store.transact(scope, (s) => ({
            todos: s.todos,
            state: s.state,
            result: s.todosRevision + 1,
          }));
          if (Math.max(snapshot.todosRevision, snapshot.stateRevision) >= Number.MAX_SAFE_INTEGER) {
            await expect(write).rejects.toThrow(/cannot be increased/);
          } else {
            expect((await store.read(scope)).todosRevision).toBe(await write);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
