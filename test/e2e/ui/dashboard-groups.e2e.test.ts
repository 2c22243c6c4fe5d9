import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, CLI, cli, launchChromium, ROOT, run, SCREENSHOTS, startUi } from "./support.js";

/**
 * The dashboard for many agents in a real browser (Debian's chromium driven by
 * playwright-core) against the built CLI: sessions grouped by what they need,
 * the title counting those that need someone (live), the cost columns, and
 * stop-all with its confirmation step.
 */

type Dist = typeof import("../../../src/runtime/runtime.js") &
  typeof import("../../../src/store/file/index.js") &
  typeof import("../../../src/core/scope/scope.js") &
  typeof import("../../../src/core/engine/state.js");

describe("the dashboard for many agents in a real browser", () => {
  let dir = "";
  let ui: { child: ChildProcess; url: string };
  let browser: Browser;
  let dist: Dist;
  const session = (host: string, id: string) =>
    dist.resolveScope({ kind: "session", host, sessionId: id })!;

  /** An open episode as cost tracking records it (tokens, nudges, cost, model). */
  async function withEpisode(
    host: string,
    id: string,
    episode: { costUsd?: number; unpricedTurns?: number; model?: string },
    stopped = true,
  ) {
    const store = dist.createFileStore({ root: dir });
    const now = Date.now();
    await store.transact(session(host, id), () => ({
      todos: {
        todos: [{ content: `Work of ${id}`, status: "pending" as const, id: "1" }],
        phases: [],
        nextId: 2,
      },
      state: {
        ...dist.emptyState(),
        stopped,
        episode: {
          id: `ep-${id}`,
          startedAt: now - 10 * 60_000,
          autoTurns: 2,
          tokens: 40_000,
          stagnation: 0,
          lastFingerprint: null,
          minIncomplete: null,
          maxCompleted: null,
          lastCountedTurnId: null,
          failures: 0,
          lastInjectionAt: now - 60_000,
          lastFailureAt: null,
          ...episode,
        },
      },
      result: null,
    }));
    await store.close();
  }

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
    dist = {
      ...(await import(join(ROOT, "dist/runtime/runtime.js"))),
      ...(await import(join(ROOT, "dist/store/file/index.js"))),
      ...(await import(join(ROOT, "dist/core/scope/scope.js"))),
      ...(await import(join(ROOT, "dist/core/engine/state.js"))),
    } as Dist;
    dir = await mkdtemp(join(tmpdir(), "tc-e2e-ui-groups-"));
    // The demo: a parked scope (only blocked items), one out of budget, finished and idle ones.
    await run(process.execPath, [CLI, "demo", "--dir", dir, "--json"]);
    const store = dist.createFileStore({ root: dir });
    const runtime = new dist.ContinuationRuntime({ store });
    // Working: open work after a clean turn end, the engine would nudge.
    const worker = session("e2e", "worker");
    await runtime.turnStarted(worker, { real: true });
    await runtime.setTodos(worker, [{ content: "Write the parser", status: "in_progress" }]);
    await runtime.turnEnded(worker, { stopReason: "stop" });
    const asking = session("e2e", "asking");
    // The host reports a pending question: the decision logs awaiting-user.
    await runtime.turnStarted(asking, { real: true });
    await runtime.setTodos(asking, [{ content: "Pick a database", status: "pending" }]);
    await runtime.turnEnded(asking, { stopReason: "stop" });
    expect(
      await runtime.runIdle(asking, { deliver: () => {}, signals: { awaitingUser: true } }),
    ).toEqual({ action: "skip", reason: "awaiting-user" });
    // Out of budget: a token limit of 1,000, one nudge, then a turn that spends more.
    const spent = session("e2e", "spent");
    const tight = new dist.ContinuationRuntime({ store, limits: { maxTokens: 1_000 } });
    await tight.turnStarted(spent, { real: true });
    await tight.setTodos(spent, [{ content: "Refactor the store", status: "pending" }]);
    await tight.turnEnded(spent, { stopReason: "stop" });
    expect((await tight.runIdle(spent, { deliver: () => {} })).action).toBe("inject");
    await tight.turnEnded(spent, {
      stopReason: "stop",
      injected: true,
      usage: { input: 2_000, output: 500, total: 2_500 },
    });
    expect(await tight.runIdle(spent, { deliver: () => {} })).toEqual({
      action: "skip",
      reason: "max-tokens",
    });
    await store.close();
    // The cost columns: priced, partly priced, unpriced, and (written before costs were kept) not
    // tracked at all. The demo's turns name no model: their cost is unknown, never free.
    // Kept going (not stopped): the one whose nearest limit is projected.
    await withEpisode("pricey", "priced", { costUsd: 1.5, model: "claude-sonnet-4" }, false);
    await withEpisode("pricey", "partial", {
      costUsd: 0.4,
      unpricedTurns: 1,
      model: "gpt-5-codex",
    });
    await withEpisode("pricey", "unpriced", { unpricedTurns: 2, model: "local-llm" });
    await withEpisode("pricey", "untracked", {}, false);
    ui = await startUi(dir);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    ui?.child.kill("SIGTERM");
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  async function openOverview(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1500, height: 900 } });
    await page.goto(ui.url);
    await page.waitForSelector("body[data-live='1']");
    return page;
  }

  const row = (page: Page, label: string) =>
    page.locator("tr", { has: page.getByRole("link", { name: label, exact: true }) });

  it("groups the sessions by what they need, needing you first", async () => {
    const page = await openOverview();
    const groupOf = (label: string) => row(page, label).getAttribute("data-group");
    expect(await groupOf("demo session blocked")).toBe("needs-you");
    expect(await groupOf("e2e session asking")).toBe("needs-you");
    expect(await groupOf("e2e session worker")).toBe("working");
    expect(await groupOf("e2e session spent")).toBe("out-of-budget");
    // The demo's stuck session made no progress: its episode ended, as a stop does.
    expect(await groupOf("demo session stuck")).toBe("stopped");
    expect(await groupOf("pricey session partial")).toBe("stopped");
    expect(await groupOf("pricey session priced")).toBe("working");
    // Headings in the order of what needs someone most.
    const heads = await page.locator("tr.group-head").allTextContents();
    expect(heads[0]).toBe("needs you");
    expect(heads.indexOf("working")).toBeLessThan(heads.indexOf("stopped"));
    // The group links filter.
    await page.locator("nav.groups a[data-group='needs-you']").click();
    await expect.poll(() => page.locator("tbody tr[data-key]").count(), { timeout: 5000 }).toBe(2);
    if (SCREENSHOTS) {
      await page.goto(ui.url);
      await page.waitForSelector("body[data-live='1']");
      await mkdir(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOTS, "ui-overview.png"), fullPage: true });
    }
    await page.close();
  });

  it("counts those that need you in the title, and follows a change live", async () => {
    const page = await openOverview();
    expect(await page.title()).toBe("(2) Scopes · todo-continuation");
    await page.evaluate("window.marker = true");
    // Another process leaves a session with only blocked items: it needs someone now.
    const store = dist.createFileStore({ root: dir });
    const runtime = new dist.ContinuationRuntime({ store });
    await runtime.setTodos(session("e2e", "waiting"), [
      { content: "Deploy", status: "blocked", blockedReason: "needs the production key" },
    ]);
    await store.close();
    await expect.poll(() => page.title(), { timeout: 5000 }).toBe("(3) Scopes · todo-continuation");
    expect(await page.evaluate("window.marker")).toBe(true);
    await page.close();
  });

  it("shows each episode's cost, model and burn rate, and — where nothing is known", async () => {
    const page = await openOverview();
    const cost = (label: string) => row(page, label).locator("td.cost").textContent();
    expect(await cost("pricey session priced")).toBe("$1.50");
    expect(await cost("pricey session partial")).toBe("≥ $0.40");
    expect(await cost("pricey session unpriced")).toBe("unknown");
    expect(await cost("demo session finisher")).toBe("unknown");
    expect(await cost("pricey session untracked")).toBe("—");
    expect(await row(page, "pricey session priced").locator(".model").textContent()).toBe(
      "claude-sonnet-4",
    );
    // 40,000 tokens over the last 10 minutes of a 15-minute window: 4,000 a minute.
    const burn = await row(page, "pricey session priced").locator("td.burn").textContent();
    // (a little less as the test runs on: the window's start moves before the episode's).
    expect(burn).toMatch(/^[34],\d\d\d tok\/min\$\d+\.\d\d\/h$/);
    const perMinute = Number(burn!.split(" ")[0]!.replace(",", ""));
    expect(perMinute).toBeGreaterThan(3_000);
    expect(perMinute).toBeLessThanOrEqual(4_000);
    expect(await row(page, "pricey session unpriced").locator("td.burn").textContent()).toMatch(
      /tok\/min—\/h$/,
    );
    expect(await row(page, "pricey session priced").locator("td.eta").textContent()).toMatch(
      /^(nudges|tokens|wall clock|cost) (in .+|reached)$/,
    );
    // A stopped session heads for no limit.
    expect(await row(page, "pricey session partial").locator("td.eta").textContent()).toBe("—");
    expect(await row(page, "pricey session priced").locator("td.last-event").textContent()).toMatch(
      /ago$/,
    );
    await page.close();
  });

  it("stops every scope of a host only after the confirmation", async () => {
    const page = await openOverview();
    const stopped = async (id: string) =>
      JSON.parse(await cli(dir, "show", session("e2e", id).key, "--json")).state.stopped;
    expect(await stopped("worker")).toBe(false);
    await page.getByText("Stop all…", { exact: true }).first().click();
    await page.getByLabel("Which").selectOption("e2e");
    await page.getByRole("button", { name: "Stop all…" }).click();
    await page.getByRole("heading", { name: /^Stop \d+ scopes\?$/ }).waitFor();
    expect(await page.locator(".confirm-list").textContent()).toContain("e2e session worker");
    // Asked, not done.
    expect(await stopped("worker")).toBe(false);
    await page.getByRole("button", { name: /^Confirm: stop \d+ scopes$/ }).click();
    await page.getByText(/^Stopped \d+ scopes\.$/).waitFor();
    expect(await stopped("worker")).toBe(true);
    expect(await stopped("asking")).toBe(true);
    // Another host was left alone.
    expect(
      JSON.parse(await cli(dir, "show", session("demo", "finisher").key, "--json")).state.stopped,
    ).toBe(false);
    await expect
      .poll(() => row(page, "e2e session worker").getAttribute("data-group"))
      .toBe("stopped");

    // Bulk resume of the selected rows, with the same confirmation step.
    await row(page, "e2e session worker").getByRole("checkbox").check();
    await page.getByRole("button", { name: "Resume selected…" }).click();
    await page.getByRole("button", { name: "Confirm: resume 1 scope" }).click();
    await page.getByText("Resumed 1 scope.").waitFor();
    expect(await stopped("worker")).toBe(false);
    expect(await stopped("asking")).toBe(true);
    await page.close();
  });
});
