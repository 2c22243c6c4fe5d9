import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveScope } from "../../core/scope/scope.js";
import type { Scope } from "../../core/types.js";
import { ContinuationRuntime } from "../../runtime/runtime.js";
import { createFileStore } from "../../store/file/index.js";
import { runCli } from "../test-support/run-cli.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function storeWith(projectDir?: string): Promise<{ dir: string; scope: Scope }> {
  const dir = await mkdtemp(join(tmpdir(), "tc-cli-show-project-"));
  dirs.push(dir);
  const scope = resolveScope({ kind: "session", host: "test", sessionId: "projx" }) as Scope;
  const store = createFileStore({ root: dir });
  const runtime = new ContinuationRuntime({ store, ...(projectDir ? { projectDir } : {}) });
  await runtime.setTodos(scope, [{ content: "a", status: "pending" }]);
  await store.close();
  return { dir, scope };
}

describe("show: the project folder", () => {
  it("prints the folder the host recorded", async () => {
    const { dir, scope } = await storeWith("/home/u/app");
    const run = await runCli(["--dir", dir, "show", scope.key]);
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toContain("project: /home/u/app");
  });

  it("prints no project line when none is known", async () => {
    const { dir, scope } = await storeWith();
    const run = await runCli(["--dir", dir, "show", scope.key]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("project:");
  });
});
