import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import type { Scope, ScopeSnapshot, Store } from "../core/types.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { createFileStore } from "../store/file/index.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { type Dashboard, startDashboard } from "./server.js";

const worker = resolveScope({ kind: "session", host: "pi", sessionId: "w1" })!;
const broken = resolveScope({ kind: "cron", jobId: "broken" })!;
const damaged = resolveScope({ kind: "cron", jobId: "damaged" })!;

/**
 * A memory store whose `broken` scope cannot be read at all, and whose
 * `damaged` scope reads but reports an unreadable state document with the
 * copies kept of it, as the file store does for a corrupt file.
 */
class StoreWithBrokenScope extends MemoryStore {
  async problems(scope: Scope) {
    if (scope.key !== damaged.key) return [];
    return [
      {
        document: "state" as const,
        location: "/store/todo/.state/cron/sdamaged.json",
        problem: "checksum does not match",
        preserved: ["/store/todo/.state/cron/sdamaged.json.corrupt-1"],
      },
    ];
  }

  override async read(scope: Scope): Promise<ScopeSnapshot> {
    if (scope.key === broken.key) {
      throw Object.assign(new Error("state document is not JSON"), {
        preservedCopy: "/store/todo/.state/cron/sbroken.json.corrupt",
      });
    }
    return super.read(scope);
  }
}

let dashboard: Dashboard | null = null;
afterEach(async () => {
  await dashboard?.close();
  dashboard = null;
});

async function start(): Promise<{
  dashboard: Dashboard;
  runtime: ContinuationRuntime;
  store: Store;
}> {
  const store = new StoreWithBrokenScope();
  const runtime = new ContinuationRuntime({ store });
  await runtime.turnStarted(worker, { real: true });
  await runtime.setTodos(worker, [
    { content: "Write the parser", status: "in_progress" },
    { content: "Ship", status: "pending" },
  ]);
  await runtime.turnEnded(worker, { stopReason: "stop" });
  await store.transact(damaged, () => ({
    todos: { todos: [], phases: [], nextId: 1 },
    result: null,
  }));
  await store.transact(broken, () => ({
    log: [],
    todos: { todos: [], phases: [], nextId: 1 },
    result: null,
  }));
  dashboard = await startDashboard({ runtime, storeDescription: "memory" });
  return { dashboard, runtime, store };
}

function withToken(d: Dashboard, path: string): string {
  const url = new URL(path, d.url);
  url.searchParams.set("token", d.token);
  return url.toString();
}

function post(d: Dashboard, path: string, form: Record<string, string>, token = d.token) {
  return fetch(new URL(path, d.url), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...form, token }).toString(),
    redirect: "manual",
  });
}

function rawGet(port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the dashboard server", () => {
  it("refuses requests without the token, from other sites, and for another Host", async () => {
    const { dashboard: d } = await start();
    expect((await fetch(new URL("/", d.url))).status).toBe(401);
    expect((await fetch(new URL("/?token=nope", d.url))).status).toBe(401);
    expect(
      (await fetch(withToken(d, "/"), { headers: { origin: "http://evil.test" } })).status,
    ).toBe(403);
    expect(
      (await fetch(withToken(d, "/"), { headers: { "sec-fetch-site": "cross-site" } })).status,
    ).toBe(403);
    expect(await rawGet(d.port, `/?token=${d.token}`, { host: `evil.test:${d.port}` })).toBe(403);
    // A forwarded port (ssh -L 9000:127.0.0.1:<port>) arrives with the port of its other end.
    expect(await rawGet(d.port, `/?token=${d.token}`, { host: "localhost:9000" })).toBe(200);
    expect(await rawGet(d.port, `/?token=${d.token}`, { host: "[::1]:9000" })).toBe(200);
    const page = await fetch(d.url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(
      (await fetch(new URL("/metrics", d.url), { headers: { authorization: `Bearer ${d.token}` } }))
        .status,
    ).toBe(200);
  });

  it("lists every scope, showing an unreadable one with its preserved copy", async () => {
    const { dashboard: d } = await start();
    const page = await (await fetch(d.url)).text();
    expect(page).toContain("pi session w1");
    expect(page).toContain("state-unreadable");
    expect(page).toContain("state document is not JSON");
    expect(page).toContain("/store/todo/.state/cron/sbroken.json.corrupt");
    const api = (await (await fetch(withToken(d, "/api/scopes"))).json()) as {
      scopes: { key: string; state: string }[];
    };
    expect(page).toContain(
      "the state at /store/todo/.state/cron/sdamaged.json: checksum does not match",
    );
    expect(page).toContain("/store/todo/.state/cron/sdamaged.json.corrupt-1");
    expect(api.scopes.map((s) => [s.key, s.state]).sort()).toEqual([
      [broken.key, "unreadable"],
      [damaged.key, "unreadable"],
      [worker.key, "nudging"],
    ]);
    const scopePage = await fetch(withToken(d, `/scope?key=${encodeURIComponent(broken.key)}`));
    expect(scopePage.status).toBe(200);
    expect(await scopePage.text()).toContain("This scope could not be read");
  });

  it("runs a confirmed stop through the runtime, and refuses an unconfirmed one", async () => {
    const { dashboard: d, store } = await start();
    const path = `/scope/stop?key=${encodeURIComponent(worker.key)}`;
    expect((await post(d, path, {})).status).toBe(400);
    expect((await store.read(worker)).state.stopped).toBe(false);
    expect((await post(d, path, { confirm: "yes" }, "wrong")).status).toBe(401);
    expect((await store.read(worker)).state.stopped).toBe(false);
    const done = await post(d, path, { confirm: "yes" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toContain("done=stopped");
    expect((await store.read(worker)).state.stopped).toBe(true);
    expect(d.source.row(worker.key)?.state).toBe("stopped");
  });

  it("raises the open episode's budget from the scope page, as resume --add does", async () => {
    const { dashboard: d, store, runtime } = await start();
    const path = `/scope/raise?key=${encodeURIComponent(worker.key)}`;
    // No episode yet: nothing to raise, and nothing is written.
    const none = await post(d, path, { confirm: "yes", add: "nudges=3" });
    expect(none.status).toBe(409);
    expect(await none.text()).toContain("no episode is open");
    await runtime.runIdle(worker, { deliver: () => undefined });
    const bad = await post(d, path, { confirm: "yes", add: "nudges=ten" });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("--add nudges=ten: &quot;ten&quot; is not a whole number");
    expect((await store.read(worker)).state.episode?.raised).toBeUndefined();
    const done = await post(d, path, { confirm: "yes", add: "nudges=3,tokens=10k" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toContain("done=raised");
    expect((await store.read(worker)).state.episode?.raised).toMatchObject({
      nudges: 3,
      tokens: 10_000,
    });
    const log = await store.readLog(worker);
    expect(log.at(-1)).toMatchObject({ action: "raised", note: "+3 nudges, +10,000 tokens" });
  });

  it("refuses an invalid edit with the parser's message and keeps the list", async () => {
    const { dashboard: d, store } = await start();
    const before = await store.read(worker);
    const path = `/scope/edit?key=${encodeURIComponent(worker.key)}`;
    const refused = await post(d, path, {
      confirm: "yes",
      revision: String(before.todosRevision),
      markdown: "- [x] Write the parser\n- [?] what\n",
    });
    expect(refused.status).toBe(422);
    const text = await refused.text();
    expect(text).toMatch(/The edit was refused, line 2: /);
    expect(text).toContain("- [?] what");
    expect(await store.read(worker)).toEqual(before);
    const stale = await post(d, path, {
      confirm: "yes",
      revision: String(before.todosRevision - 1),
      markdown: "- [x] Write the parser\n",
    });
    expect(stale.status).toBe(409);
    const saved = await post(d, path, {
      confirm: "yes",
      revision: String(before.todosRevision),
      markdown: "- [x] Write the parser\n- [ ] Ship\n",
    });
    expect(saved.status).toBe(303);
    const after = await store.read(worker);
    expect(after.todos.todos.map((t) => t.status)).toEqual(["completed", "pending"]);
    expect(after.state.reminders.at(-1)?.kind).toBe("user-edit");
  });

  it("announces changes over Server-Sent Events and counts new decisions in /metrics", async () => {
    const { dashboard: d, runtime } = await start();
    const events = await fetch(withToken(d, `/events?key=${encodeURIComponent(worker.key)}`));
    expect(events.headers.get("content-type")).toContain("text/event-stream");
    const reader = events.body!.getReader();
    const received = (async () => {
      let text = "";
      while (!text.includes("event: change")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      return text;
    })();
    await runtime.runIdle(worker, { deliver: () => {} });
    await d.source.refresh([worker.key]);
    expect(await received).toContain(JSON.stringify([worker.key]));
    await reader.cancel();
    const metrics = await (await fetch(withToken(d, "/metrics"))).text();
    expect(metrics).toContain('todo_continuation_nudges_total{host="pi"} 1');
    expect(metrics).toContain('todo_continuation_active_episodes{host="pi"} 1');
    expect(metrics).toContain('todo_continuation_scopes{state="unreadable"} 2');
    expect(metrics).toMatch(/todo_continuation_store_errors_total [1-9]/);
  });
});

describe("the dashboard's picture of the store", () => {
  it("drops a scope another process deleted", async () => {
    const { dashboard: d, store } = await start();
    expect(d.source.row(worker.key)).toBeDefined();
    await store.deleteScope(worker);
    await d.source.refresh([worker.key]);
    expect(d.source.row(worker.key)).toBeUndefined();
    expect((await fetch(withToken(d, `/scope?key=${encodeURIComponent(worker.key)}`))).status).toBe(
      404,
    );
  });
});

describe("a corrupt file on the real file store", () => {
  it("shows its scope as unreadable, naming the file, and the rest of the page works", async () => {
    const root = await mkdtemp(join(tmpdir(), "tc-ui-corrupt-"));
    try {
      const store = createFileStore({ root });
      const runtime = new ContinuationRuntime({ store });
      const tui = resolveScope({ kind: "tui" })!;
      await runtime.setTodos(tui, [{ content: "a", status: "pending" }]);
      await runtime.setTodos(worker, [{ content: "b", status: "pending" }]);
      await runtime.stop(tui);
      const stateFile = join(store.todoDir, ".state", "tui.json");
      await writeFile(stateFile, "{not json");
      dashboard = await startDashboard({ runtime, storeDescription: root });
      expect(dashboard.source.row(tui.key)?.state).toBe("unreadable");
      expect(dashboard.source.row(worker.key)?.state).not.toBe("unreadable");
      const page = await (await fetch(dashboard.url)).text();
      expect(page).toContain(`the state at ${stateFile}`);
      const scopePage = await fetch(withToken(dashboard, "/scope?key=tui"));
      expect(scopePage.status).toBe(200);
      expect(await scopePage.text()).toContain("This scope could not be read");
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
