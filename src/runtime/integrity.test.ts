import {
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope } from "../core/types.js";
import { createFileStore, type FileStore } from "../store/file/file-store.js";
import { type ScopePaths, scopePaths } from "../store/file/paths.js";
import { ContinuationRuntime, type Nudge } from "./runtime.js";

/**
 * State integrity through the runtime on a real file store: a state document
 * that cannot be trusted never yields a nudge before the user's next real
 * turn, a stop survives the loss of the state document, and a transaction
 * that fails half way applies nothing.
 */

const scope = resolveScope({ kind: "session", host: "test", sessionId: "integrity" }) as Scope;
const MAX_AUTO_TURNS = 2;

let dir: string;
let store: FileStore;
let runtime: ContinuationRuntime;
let paths: ScopePaths;
let delivered: Nudge[];
let turn = 0;

function open(): void {
  store = createFileStore({ root: dir });
  runtime = new ContinuationRuntime({ store, limits: { maxAutoTurns: MAX_AUTO_TURNS } });
  paths = scopePaths(store.todoDir, scope);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tc-integrity-"));
  delivered = [];
  open();
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const idle = () => runtime.runIdle(scope, { deliver: (n) => void delivered.push(n) });

/** The model answers: each answer moves the list on, so no stagnation stops the run first. */
async function answer(): Promise<void> {
  turn++;
  const done = Array.from({ length: turn }, (_, i) => ({
    content: `step ${i + 1}`,
    status: "completed" as const,
  }));
  await runtime.setTodos(scope, [
    ...done,
    { content: `step ${turn + 1}`, status: "pending" },
    { content: "and this", status: "pending" },
  ]);
  await runtime.turnEnded(scope, { turnId: `turn-${turn}`, stopReason: "stop" });
}

/** A user turn, then nudges until the budget says no. */
async function exhaust(): Promise<void> {
  await runtime.turnStarted(scope, { real: true });
  await answer();
  for (let i = 0; i < MAX_AUTO_TURNS; i++) {
    expect(await idle()).toMatchObject({ action: "inject" });
    await answer();
  }
  expect(await idle()).toEqual({ action: "skip", reason: "max-auto-turns" });
}

function editState(edit: (doc: Record<string, unknown>) => void): void {
  const doc = JSON.parse(readFileSync(paths.state, "utf8"));
  edit(doc);
  writeFileSync(paths.state, JSON.stringify(doc, null, 2));
}

describe("a corrupt budget never gives a fresh budget", () => {
  const edits: [string, (doc: Record<string, unknown>) => void][] = [
    ["autoTurns -1", (d) => Object.assign(d.episode as object, { autoTurns: -1 })],
    ['autoTurns "NaN"', (d) => Object.assign(d.episode as object, { autoTurns: "NaN" })],
    ["autoTurns null", (d) => Object.assign(d.episode as object, { autoTurns: null })],
    ["autoTurns 2.5", (d) => Object.assign(d.episode as object, { autoTurns: 2.5 })],
    ["autoTurns 0 (in range)", (d) => Object.assign(d.episode as object, { autoTurns: 0 })],
    ["negative tokens", (d) => Object.assign(d.episode as object, { tokens: -5 })],
    ["no episode id", (d) => delete (d.episode as Record<string, unknown>).id],
    ["no episode at all", (d) => Object.assign(d, { episode: null })],
  ];
  for (const [label, edit] of edits) {
    it(`${label}: skips as state-unreadable until the user's next real turn`, async () => {
      await exhaust();
      editState(edit);
      await answer();
      expect(await idle()).toEqual({ action: "skip", reason: "state-unreadable" });
      await answer();
      expect(await idle()).toEqual({ action: "skip", reason: "state-unreadable" });
      expect(delivered).toHaveLength(MAX_AUTO_TURNS);
      const log = await store.readLog(scope);
      expect(log.at(-1)).toMatchObject({ action: "skip", reason: "state-unreadable" });
      // The user speaks: a fresh episode may nudge again.
      await runtime.turnStarted(scope, { real: true });
      await answer();
      expect(await idle()).toMatchObject({ action: "inject" });
    });
  }

  it("a state document replaced by garbage mid-episode skips until the next real turn", async () => {
    await runtime.turnStarted(scope, { real: true });
    await answer();
    expect((await idle()).action).toBe("inject");
    writeFileSync(paths.state, "{ not json");
    await answer();
    expect(await idle()).toEqual({ action: "skip", reason: "state-unreadable" });
    expect(delivered).toHaveLength(1);
  });

  it("property: no corruption of any byte or field of the state injects before a real turn", async () => {
    await exhaust();
    const pristine = readFileSync(paths.state);
    const doc = JSON.parse(pristine.toString("utf8")) as Record<string, unknown>;
    const fieldPaths = leafPaths(doc);
    const byteFlip = fc
      .tuple(fc.nat({ max: pristine.length - 1 }), fc.integer({ min: 1, max: 255 }))
      .map(([at, xor]) => {
        const bytes = Buffer.from(pristine);
        bytes[at] = (bytes[at] ?? 0) ^ xor;
        return bytes;
      });
    const fieldEdit = fc
      .tuple(fc.constantFrom(...fieldPaths), fc.option(fc.jsonValue(), { nil: undefined }))
      .map(([path, value]) => {
        const copy = structuredClone(doc);
        setAt(copy, path, value);
        return Buffer.from(JSON.stringify(copy, null, 2));
      });
    await fc.assert(
      fc.asyncProperty(fc.oneof(byteFlip, fieldEdit), async (corrupted) => {
        writeFileSync(paths.state, corrupted);
        await answer();
        const result = await idle();
        expect(result.action).toBe("skip");
        expect(delivered).toHaveLength(MAX_AUTO_TURNS);
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});

/** Every path to a leaf value of a JSON object, plus every object key. */
function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== "object" || value === null) return [prefix];
  const out: string[][] = prefix.length > 0 ? [prefix] : [];
  for (const [key, inner] of Object.entries(value)) out.push(...leafPaths(inner, [...prefix, key]));
  return out;
}

/** Sets (or, for undefined, deletes) the value at a path. */
function setAt(doc: Record<string, unknown>, path: string[], value: unknown): void {
  let target = doc as Record<string, unknown>;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
  const last = path.at(-1)!;
  if (value === undefined) delete target[last];
  else target[last] = value;
}

describe("a stop survives the loss of the state document", () => {
  for (const [label, lose] of [
    ["deleted", () => unlinkSync(paths.state)],
    ["corrupted", () => writeFileSync(paths.state, "\u0000garbage")],
    ["edited to say not stopped", () => editState((d) => Object.assign(d, { stopped: false }))],
  ] as const) {
    it(`${label}: no nudge, even after the user's next real turn, until resume`, async () => {
      await runtime.turnStarted(scope, { real: true });
      await answer();
      await runtime.stop(scope);
      lose();
      expect((await store.read(scope)).state.stopped).toBe(true);
      await runtime.turnStarted(scope, { real: true });
      await answer();
      expect(await idle()).toEqual({ action: "skip", reason: "continuation-stopped" });
      await runtime.resume(scope);
      expect(lstatSync(paths.stop, { throwIfNoEntry: false })).toBeUndefined();
      await answer();
      expect((await idle()).action).toBe("inject");
    });
  }
});

describe("a transaction is all or nothing", () => {
  it("a failing log append leaves the state uncharged, and a retry applies it once", async () => {
    await runtime.turnStarted(scope, { real: true });
    await answer();
    const before = await store.read(scope);
    writeFileSync(join(dir, "elsewhere.jsonl"), "");
    symlinkSync(join(dir, "elsewhere.jsonl"), paths.log);
    await expect(idle()).rejects.toThrow();
    expect(delivered).toHaveLength(0);
    const after = await store.read(scope);
    expect(after.state).toEqual(before.state);
    expect(after.stateRevision).toBe(before.stateRevision);
    expect(readFileSync(join(dir, "elsewhere.jsonl"), "utf8")).toBe("");
    unlinkSync(paths.log);
    expect((await idle()).action).toBe("inject");
    const charged = await store.read(scope);
    expect(charged.state.episode?.autoTurns).toBe(1);
    expect((await store.readLog(scope)).map((e) => e.action)).toEqual(["inject"]);
  });

  it("a stop whose state write fails leaves no stop marker behind", async () => {
    await runtime.turnStarted(scope, { real: true });
    await answer();
    // A folder at the state's temporary name makes the write fail before commit.
    rmSync(paths.state);
    symlinkSync(join(dir, "missing-target"), paths.state);
    await expect(runtime.stop(scope)).rejects.toThrow();
    expect(lstatSync(paths.stop, { throwIfNoEntry: false })).toBeUndefined();
  });
});
