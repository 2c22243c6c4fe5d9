import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, CLI, launchChromium, ROOT, startUi } from "./support.js";

/**
 * The last verification on the dashboard, in a real browser (chromium driven
 * by playwright-core) against the built CLI: a runtime with `verify` finishes
 * a list whose check fails, and the overview marks the scope "done, check
 * fails"; its page shows the command, the exit code, the duration and the
 * output's tail. Once the check passes, both follow without a reload.
 */

interface Built {
  ContinuationRuntime: typeof import("../../../src/runtime/runtime.js").ContinuationRuntime;
  createFileStore: typeof import("../../../src/store/file/index.js").createFileStore;
  resolveScope: typeof import("../../../src/core/scope/scope.js").resolveScope;
  makeRepo: typeof import("../../../src/verify/test-support/repo.js").makeRepo;
}

describe("the last verification on the dashboard", () => {
  let dir = "";
  let repo = "";
  let ui: { child: ChildProcess; url: string };
  let browser: Browser;
  let built: Built;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
    built = {
      ...(await import(join(ROOT, "dist/runtime/runtime.js"))),
      ...(await import(join(ROOT, "dist/store/file/index.js"))),
      ...(await import(join(ROOT, "dist/core/scope/scope.js"))),
      ...(await import(join(ROOT, "dist/verify/test-support/repo.js"))),
    } as Built;
    dir = await mkdtemp(join(tmpdir(), "tc-e2e-ui-verify-"));
    repo = built.makeRepo(10, "tc-e2e-ui-verify-repo-");
    ui = await startUi(dir);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    ui?.child.kill("SIGTERM");
    if (dir !== "") await rm(dir, { recursive: true, force: true });
    if (repo !== "") await rm(repo, { recursive: true, force: true });
  });

  it("marks a done list whose check fails, shows the check, and follows the fix", async () => {
    const scope = built.resolveScope({
      kind: "session",
      host: "e2e",
      sessionId: "false-finisher",
    })!;
    const store = built.createFileStore({ root: dir });
    const runtime = new built.ContinuationRuntime({
      store,
      verify: {
        settings: {
          command: 'test -e DONE || { echo "expected DONE to exist"; exit 3; }',
          timeoutMs: 10_000,
          when: "finished",
        },
        cwd: repo,
        cacheDir: join(dir, "cache"),
      },
    });
    let turn = 0;
    const stop = () => {
      turn += 1;
      return runtime.runIdle(scope, {
        trigger: "stop-hook",
        deliver: () => undefined,
        outcome: { turnId: `t${turn}`, stopReason: "stop" },
      });
    };
    try {
      await runtime.turnStarted(scope, { real: true });
      await runtime.setTodos(scope, [
        { content: "Write DONE", status: "completed" },
        { content: "Say so", status: "completed" },
      ]);
      expect((await stop()).action).toBe("inject");

      const page = await browser.newPage({ viewport: { width: 1180, height: 800 } });
      await page.goto(ui.url);
      await page.waitForSelector("body[data-live='1']");
      const row = page.locator("tr", {
        has: page.getByRole("link", { name: "e2e session false-finisher", exact: true }),
      });
      const badge = row.locator(".badge-check-fails");
      await expect.poll(() => badge.textContent(), { timeout: 10_000 }).toBe("done, check fails");

      await row.getByRole("link", { name: "e2e session false-finisher", exact: true }).click();
      await page.waitForSelector("body[data-live='1']");
      const section = page.getByRole("region", { name: "Last verification" });
      await expect
        .poll(() => section.textContent())
        .toContain("The list is done but the check fails");
      const text = (await section.textContent()) ?? "";
      expect(text).toContain("test -e DONE");
      expect(text).toContain("failed (exit 3)");
      expect(text).toContain("expected DONE to exist");
      expect(text).toMatch(/Took\s*\d/);

      // The agent does the work: the next stop verifies, and the page follows live.
      await writeFile(join(repo, "DONE"), "yes\n");
      expect((await stop()).action).toBe("skip");
      await expect
        .poll(() => section.locator(".verify-outcome").textContent(), { timeout: 10_000 })
        .toContain("passed (exit 0)");
      expect(await section.textContent()).not.toContain("The list is done but the check fails");
      await page.goto(ui.url);
      await page.waitForSelector("body[data-live='1']");
      await expect.poll(() => row.count()).toBe(1);
      expect(await row.locator(".badge-check-fails").count()).toBe(0);
      await page.close();
    } finally {
      await store.close();
    }
  });
});
