import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, CLI, cli, ROOT, run, SCREENSHOTS, startUi } from "./support.js";

/**
 * The dashboard in a real browser (Debian's chromium driven by playwright-core)
 * against the built CLI: `ui` serves the demo's store in one process, the CLI
 * and a runtime change it from others, and the page must follow.
 */

interface Built {
  ContinuationRuntime: typeof import("../../../src/runtime/runtime.js").ContinuationRuntime;
  createFileStore: typeof import("../../../src/store/file/index.js").createFileStore;
  resolveScope: typeof import("../../../src/core/scope/scope.js").resolveScope;
}

describe("todo-continuation ui in a real browser", () => {
  let dir = "";
  let ui: { child: ChildProcess; url: string };
  let browser: Browser;
  let built: Built;
  const workerScope = () =>
    built.resolveScope({ kind: "session", host: "e2e", sessionId: "worker" })!;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
    built = {
      ...(await import(join(ROOT, "dist/runtime/runtime.js"))),
      ...(await import(join(ROOT, "dist/store/file/index.js"))),
      ...(await import(join(ROOT, "dist/core/scope/scope.js"))),
    } as Built;
    dir = await mkdtemp(join(tmpdir(), "tc-e2e-ui-"));
    await run(process.execPath, [CLI, "demo", "--dir", dir, "--json"]);
    // One scope the engine would nudge right now: open work after a clean turn end.
    const store = built.createFileStore({ root: dir });
    const runtime = new built.ContinuationRuntime({ store });
    await runtime.turnStarted(workerScope(), { real: true });
    await runtime.setTodos(workerScope(), [
      { content: "Write the parser", status: "in_progress" },
      { content: "Test the parser", status: "pending" },
    ]);
    await runtime.turnEnded(workerScope(), { stopReason: "stop" });
    expect((await runtime.explain(workerScope())).decision.action).toBe("inject");
    await store.close();
    ui = await startUi(dir);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    ui?.child.kill("SIGTERM");
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  async function openOverview(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1180, height: 640 } });
    await page.goto(ui.url);
    // The event stream is open: later changes reach the page.
    await page.waitForSelector("body[data-live='1']");
    return page;
  }

  function row(page: Page, label: string) {
    return page.locator("tr", { has: page.getByRole("link", { name: label, exact: true }) });
  }

  it("lists the demo's scopes on the overview", async () => {
    const page = await openOverview();
    for (const name of ["finisher", "stuck", "interrupted", "restart", "blocked"]) {
      await expect.poll(() => row(page, `demo session ${name}`).count()).toBe(1);
    }
    await expect
      .poll(() => row(page, "demo session blocked").locator(".state").textContent())
      .toBe("parked on blocked items");
    await expect
      .poll(() => row(page, "demo session stuck").locator(".state").textContent())
      .toBe("out of budget");
    if (SCREENSHOTS) {
      await mkdir(SCREENSHOTS, { recursive: true });
      // docs/ui-overview.png comes from dashboard-groups.e2e.test.ts (groups, spend, totals).
      await page.getByRole("link", { name: "demo session restart", exact: true }).click();
      await page.setViewportSize({ width: 900, height: 640 });
      await page.screenshot({ path: join(SCREENSHOTS, "ui-scope.png"), fullPage: true });
    }
    await page.close();
  });

  it("shows a change the CLI makes in another process without a reload", async () => {
    const page = await openOverview();
    const state = row(page, "demo session finisher").locator(".state");
    expect(await state.textContent()).not.toBe("stopped by the user");
    // Browser-side code as strings: this project's type-check has no DOM types.
    await page.evaluate("window.marker = true");
    await cli(dir, "stop", "finisher");
    await expect.poll(() => state.textContent(), { timeout: 5000 }).toBe("stopped by the user");
    // Same document: the change arrived live, not through a navigation.
    expect(await page.evaluate("window.marker")).toBe(true);
    await cli(dir, "resume", "finisher");
    await page.close();
  });

  it("follows many writes to the same list, state and log, and says it is live", async () => {
    const scope = built.resolveScope({ kind: "session", host: "e2e", sessionId: "many" })!;
    const store = built.createFileStore({ root: dir });
    const runtime = new built.ContinuationRuntime({ store });
    try {
      await runtime.setTodos(scope, [{ content: "Step start", status: "pending" }]);
      const overview = await openOverview();
      const state = row(overview, "e2e session many").locator(".state");
      await expect.poll(() => state.count(), { timeout: 5000 }).toBe(1);
      const page = await browser.newPage();
      await page.goto(ui.url.replace("/?", `/scope?key=${encodeURIComponent(scope.key)}&`));
      await page.waitForSelector("body[data-live='1']");
      const live = page.locator("#live");
      // The store replaces each document by rename: every write, not only the first, must show.
      for (let i = 0; i < 30; i++) {
        await runtime.setTodos(scope, [
          { content: `Step ${i} of the long run`, status: "in_progress" },
          { content: "Check it", status: "pending" },
        ]);
        await expect
          .poll(() => live.textContent(), { timeout: 5000 })
          .toContain(`Step ${i} of the long run`);
        const stopped = i % 2 === 0;
        await store.transact(scope, (s) => ({
          state: { ...s.state, stopped },
          result: null,
        }));
        await expect
          .poll(async () => (await state.textContent()) === "stopped by the user", {
            timeout: 5000,
          })
          .toBe(stopped);
        const tokens = 700_000 + i;
        await store.transact(scope, () => ({
          log: [
            {
              at: Date.now(),
              action: "skip",
              reason: "stagnation",
              episodeId: null,
              autoTurns: 0,
              tokens,
              stagnation: 0,
              actionable: 1,
              blocked: 0,
              nudgeChars: null,
              nudgeTokens: null,
              trigger: "idle",
            },
          ],
          result: null,
        }));
        await expect.poll(() => live.textContent(), { timeout: 5000 }).toContain(String(tokens));
      }
      // Folder events, not rescans: the badge says so.
      expect(await overview.locator("#live-status").textContent()).toBe("live");
      expect(await page.evaluate("document.body.dataset.follow")).toBe("watching");
      await page.close();
      await overview.close();
    } finally {
      await store.close();
    }
  }, 120_000);

  it("stops a scope from its page, and the next idle skips with continuation-stopped", async () => {
    const page = await openOverview();
    await page.getByRole("link", { name: "e2e session worker", exact: true }).click();
    await page.waitForSelector("body[data-live='1']");
    expect(await page.locator("#live").textContent()).toContain("Would nudge at the next idle.");
    await page.getByText("Stop…").click();
    await page.getByRole("button", { name: "Confirm: stop nudging" }).click();
    await page.getByText("Stopped: no nudges until it is resumed.").waitFor();

    const store = built.createFileStore({ root: dir });
    const runtime = new built.ContinuationRuntime({ store });
    const delivered: unknown[] = [];
    const idle = await runtime.runIdle(workerScope(), { deliver: (n) => void delivered.push(n) });
    await store.close();
    expect(idle).toEqual({ action: "skip", reason: "continuation-stopped" });
    expect(delivered).toEqual([]);
    // The skip this other process logged reaches the page as well.
    await expect
      .poll(() => page.locator("#live").textContent(), { timeout: 5000 })
      .toContain("continuation-stopped");
    await page.close();
  });

  it("refuses an invalid edit with the parser's message and leaves the list unchanged", async () => {
    const before = await cli(dir, "show", workerScope().key, "--json");
    const page = await browser.newPage();
    await page.goto(ui.url.replace("/?", `/scope?key=${encodeURIComponent(workerScope().key)}&`));
    await page.getByText("Edit the list…").click();
    await page.getByLabel(/The list as markdown/).fill("- [x] Write the parser\n- [q] nonsense\n");
    await page.getByRole("button", { name: "Confirm: save the edit" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(
      /The edit was refused, line 2: .+Nothing was changed/,
    );
    expect(await alert.textContent()).toContain("2 | - [q] nonsense");
    // The draft is kept for another try.
    expect(await page.getByLabel(/The list as markdown/).inputValue()).toContain("- [q] nonsense");
    const after = await cli(dir, "show", workerScope().key, "--json");
    expect(JSON.parse(after).todos).toEqual(JSON.parse(before).todos);
    await page.close();
  });

  it("refuses requests without the token, from other origins, and mutations without it", async () => {
    const base = new URL(ui.url);
    const token = base.searchParams.get("token")!;
    const bare = `${base.origin}/`;
    expect((await fetch(bare)).status).toBe(401);
    expect((await fetch(`${base.origin}/metrics`)).status).toBe(401);
    expect((await fetch(`${bare}?token=wrong${token.slice(5)}`)).status).toBe(401);
    const crossOrigin = await fetch(ui.url, { headers: { origin: "http://evil.example" } });
    expect(crossOrigin.status).toBe(403);
    const key = encodeURIComponent(workerScope().key);
    const post = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${base.origin}/scope/resume?key=${key}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body,
        redirect: "manual",
      });
    expect((await post("confirm=yes")).status).toBe(401);
    expect(
      (await post(`confirm=yes&token=${token}`, { origin: "http://evil.example" })).status,
    ).toBe(403);
    const show = JSON.parse(await cli(dir, "show", workerScope().key, "--json"));
    expect(show.state.stopped).toBe(true);
    // The same request with the token from this origin goes through.
    expect((await post(`confirm=yes&token=${token}`)).status).toBe(303);
    expect(JSON.parse(await cli(dir, "show", workerScope().key, "--json")).state.stopped).toBe(
      false,
    );
    const metrics = await (await fetch(`${base.origin}/metrics?token=${token}`)).text();
    expect(metrics).toMatch(
      /todo_continuation_skips_total\{host="e2e",reason="continuation-stopped"\} 1/,
    );
    expect(metrics).toMatch(/todo_continuation_scopes\{state="parked"\} 1/);
  });

  it("passes an automated accessibility check (axe-core) with no serious violations", async () => {
    const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
    // The page's policy allows only its own scripts; the checker is injected past it.
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    const scopeUrl = ui.url.replace("/?", `/scope?key=${encodeURIComponent(workerScope().key)}&`);
    for (const url of [ui.url, scopeUrl]) {
      await page.goto(url);
      await page.addScriptTag({ path: axePath });
      const violations = (await page.evaluate(
        `axe.run().then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`,
      )) as { id: string; impact: string | null; nodes: number }[];
      const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      expect(serious, `${url}: ${JSON.stringify(violations)}`).toEqual([]);
    }
    await context.close();
  });
});
