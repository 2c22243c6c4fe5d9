import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emptyState, nudgeDigest, parseContinuationState } from "../core/engine/state.js";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope, Store } from "../core/types.js";
import { createFileStore } from "../store/file/file-store.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { ContinuationRuntime, type Nudge } from "./runtime.js";

const scope = resolveScope({ kind: "session", host: "copilot", sessionId: "s1" }) as Scope;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A session with open items whose agent stopped: the next idle nudges. */
async function nudged(rememberNudges: boolean, store: Store = new MemoryStore()) {
  const runtime = new ContinuationRuntime({ store, rememberNudges });
  await runtime.turnStarted(scope, { real: true });
  await runtime.setTodos(scope, [{ content: "Write the parser", status: "pending" }]);
  const delivered: Nudge[] = [];
  let atDelivery: string | null | undefined;
  const result = await runtime.runIdle(scope, {
    trigger: "stop-hook",
    outcome: { stopReason: "stop" },
    deliver: async (nudge) => {
      delivered.push(nudge);
      // What is stored when the nudge goes out: the digest came with the decision's write.
      atDelivery = (await store.read(scope)).state.nudgeDigest;
    },
  });
  expect(result.action).toBe("inject");
  return { runtime, store, text: delivered[0]?.text as string, atDelivery };
}

describe("nudgeDigest in the state (hosts that hand a block's reason back as a prompt)", () => {
  it("is written with the decision that sends the nudge, before it is delivered", async () => {
    const { store, text, atDelivery } = await nudged(true);
    expect(atDelivery).toBe(nudgeDigest(text));
    expect((await store.read(scope)).state.nudgeDigest).toBe(nudgeDigest(text));
  });

  it("is cleared by a real user turn, and kept by one that is not", async () => {
    const { runtime, store, text } = await nudged(true);
    await runtime.turnStarted(scope, { real: false });
    expect((await store.read(scope)).state.nudgeDigest).toBe(nudgeDigest(text));
    await runtime.turnStarted(scope, { real: true });
    expect("nudgeDigest" in (await store.read(scope)).state).toBe(false);
  });

  it("is not kept for a host that does not ask for it", async () => {
    const { store } = await nudged(false);
    expect("nudgeDigest" in (await store.read(scope)).state).toBe(false);
  });

  it("survives the file store's write and read", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-nudge-digest-"));
    dirs.push(dir);
    const { text } = await nudged(true, createFileStore({ root: dir }));
    const reread = await createFileStore({ root: dir }).read(scope);
    expect(reread.state.nudgeDigest).toBe(nudgeDigest(text));
    expect(reread.state.untrusted).toBe(false);
  });

  it("reads a value of the wrong shape as a state not to be trusted (no nudge until the user speaks)", () => {
    const read = (nudgeDigest: unknown) =>
      parseContinuationState({ ...JSON.parse(JSON.stringify(emptyState())), nudgeDigest });
    expect(read("zz").untrusted).toBe(true);
    expect(read(7).untrusted).toBe(true);
    expect(read(nudgeDigest("x"))).toMatchObject({
      untrusted: false,
      nudgeDigest: nudgeDigest("x"),
    });
    expect(read(null).untrusted).toBe(false);
    expect("nudgeDigest" in read(undefined)).toBe(false);
  });
});
