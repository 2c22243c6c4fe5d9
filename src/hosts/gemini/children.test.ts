import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileChildRuns } from "./children.js";

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function runs() {
  const root = mkdtempSync(join(tmpdir(), "gem-children-"));
  roots.push(root);
  return fileChildRuns(root);
}

describe("fileChildRuns", () => {
  it("counts parallel identical children, per session, and clears a session's leftovers", async () => {
    const c = runs();
    const input = { agent_name: "generalist", prompt: "x" };
    await Promise.all([c.open("a", input), c.open("a", input)]);
    await c.open("b", { agent_name: "other" });
    await c.close("a", input);
    expect(await c.running("a")).toBe(true);
    await c.close("a", input);
    expect(await c.running("a")).toBe(false);
    expect(await c.running("b")).toBe(true);
    await c.clear("b");
    expect(await c.running("b")).toBe(false);
    // Closing what was never opened is harmless.
    await c.close("c", input);
    expect(await c.running("c")).toBe(false);
  });
});
