import { afterEach, describe, expect, it } from "vitest";
import { resolveScope } from "../core/scope/scope.js";
import { ContinuationRuntime } from "../runtime/runtime.js";
import { MemoryStore } from "../store/memory/memory-store.js";
import { type Dashboard, startDashboard } from "./server.js";

const scopes = [
  resolveScope({ kind: "session", host: "pi", sessionId: "a" })!,
  resolveScope({ kind: "session", host: "pi", sessionId: "b" })!,
  resolveScope({ kind: "session", host: "codex", sessionId: "c" })!,
];

let dashboard: Dashboard | null = null;
afterEach(async () => {
  await dashboard?.close();
  dashboard = null;
});

async function start() {
  const store = new MemoryStore();
  const runtime = new ContinuationRuntime({ store });
  for (const scope of scopes) {
    await runtime.setTodos(scope, [{ content: "work", status: "pending" }]);
  }
  dashboard = await startDashboard({ runtime, storeDescription: "memory" });
  const d = dashboard;
  const post = (path: string, fields: [string, string][], headers: Record<string, string> = {}) =>
    fetch(new URL(path, d.url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams([["token", d.token], ...fields]).toString(),
      redirect: "manual",
    });
  const stopped = async () => {
    const out: string[] = [];
    for (const s of scopes) if ((await store.read(s)).state.stopped) out.push(s.key);
    return out;
  };
  return { runtime, post, stopped, d };
}

function confirmCode(page: string): string {
  const match = /name="confirm" value="([^"]+)"/.exec(page);
  if (match === null) throw new Error(`no confirmation code in ${page.slice(0, 400)}`);
  return match[1]!;
}

describe("stop-all and bulk resume", () => {
  it("asks first, then stops exactly the host's scopes with the code, once", async () => {
    const { post, stopped } = await start();
    const ask = await post("/bulk/stop", [["host", "pi"]]);
    expect(ask.status).toBe(200);
    const page = await ask.text();
    expect(page).toContain("Stop 2 scopes?");
    expect(await stopped()).toEqual([]);
    const code = confirmCode(page);
    const done = await post("/bulk/stop", [["confirm", code]]);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toContain("done=stop&count=2");
    expect(await stopped()).toEqual([scopes[0]!.key, scopes[1]!.key]);
    // The code is spent.
    expect((await post("/bulk/stop", [["confirm", code]])).status).toBe(409);
  });

  it("refuses a made-up code, a code for the other action, an unknown host, and other origins", async () => {
    const { post, stopped } = await start();
    expect((await post("/bulk/stop", [["confirm", "guessed"]])).status).toBe(409);
    const code = confirmCode(await (await post("/bulk/stop", [])).text());
    expect((await post("/bulk/resume", [["confirm", code]])).status).toBe(409);
    expect((await post("/bulk/stop", [["host", "nope"]])).status).toBe(400);
    const cross = await post("/bulk/stop", [["confirm", code]], { origin: "http://evil.example" });
    expect(cross.status).toBe(403);
    expect(await stopped()).toEqual([]);
  });

  it("stops everything, then resumes the selected, then all stopped", async () => {
    const { post, stopped, d } = await start();
    const all = confirmCode(await (await post("/bulk/stop", [])).text());
    await post("/bulk/stop", [["confirm", all]]);
    expect(await stopped()).toHaveLength(3);
    const overview = await (await fetch(d.url)).text();
    expect(overview).toMatch(/type="checkbox" name="key" value="[^"]+" form="bulk-resume"/);
    const ask = await (await post("/bulk/resume", [["key", scopes[2]!.key]])).text();
    expect(ask).toContain("Resume 1 scope?");
    await post("/bulk/resume", [["confirm", confirmCode(ask)]]);
    expect(await stopped()).toEqual([scopes[0]!.key, scopes[1]!.key]);
    const rest = await (await post("/bulk/resume", [["all", "1"]])).text();
    expect(rest).toContain("Resume 2 scopes?");
    await post("/bulk/resume", [["confirm", confirmCode(rest)]]);
    expect(await stopped()).toEqual([]);
    expect((await post("/bulk/resume", [])).status).toBe(400);
  });
});
