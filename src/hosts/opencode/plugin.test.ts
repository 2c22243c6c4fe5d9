import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as entry from "./index.js";
import { createOpenCodePlugin } from "./plugin.js";
import { FakeOpenCode, turnEvents } from "./test-support/fake-client.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tc-opencode-"));
  dirs.push(dir);
  return dir;
}

describe("the OpenCode plugin module", () => {
  it("exports nothing but plugin functions, as OpenCode requires", () => {
    const values = Object.values(entry);
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) expect(typeof value).toBe("function");
  });

  it("nudges through the client and keeps its data in the store folder it was given", async () => {
    const fake = new FakeOpenCode();
    const storeDir = tempDir();
    fake.todos.set("s1", [{ content: "finish", status: "pending", priority: "high" }]);
    const hooks = await entry.TodoContinuation(
      { client: fake.client(), directory: storeDir },
      { storeDir, debounceMs: 0 },
    );
    for (const event of turnEvents("s1").events) await hooks.event({ event });
    for (let i = 0; i < 200 && fake.prompts.length === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(fake.prompts).toHaveLength(1);
    expect(readdirSync(join(storeDir, "todo")).some((name) => name.startsWith("session"))).toBe(
      true,
    );
    await hooks.dispose();
  });

  it("merges install-time defaults under the options OpenCode passes", async () => {
    const fake = new FakeOpenCode();
    const storeDir = tempDir();
    // Defaults pick the omo preset (status-directive nudges, 2 s countdown); options drop the countdown.
    const plugin = createOpenCodePlugin({
      preset: "omo",
      storeDir,
      toast: false,
      countdownMs: 60_000,
    });
    const hooks = await plugin(
      { client: fake.client(), directory: storeDir },
      { countdownMs: 0, debounceMs: 0 },
    );
    fake.todos.set("s1", [{ content: "finish", status: "pending", priority: "high" }]);
    for (const event of turnEvents("s1").events) await hooks.event({ event });
    for (let i = 0; i < 200 && fake.prompts.length === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(fake.prompts[0]?.parts[0]?.text).toContain("[Status: 0/1 completed, 1 remaining]");
    await hooks.dispose();
  });

  it("refuses bad options and a missing client with errors that say what is wrong", async () => {
    const fake = new FakeOpenCode();
    await expect(
      entry.TodoContinuation({ client: fake.client(), directory: "/x" }, { countdownMs: "2s" }),
    ).rejects.toThrow(/option "countdownMs" must be a whole number/);
    await expect(
      entry.TodoContinuation({ client: fake.client(), directory: "/x" }, "omo"),
    ).rejects.toThrow(/plugin options must be an object/);
    await expect(entry.TodoContinuation({ directory: "/x" } as never)).rejects.toThrow(
      /no OpenCode client/,
    );
  });
});
