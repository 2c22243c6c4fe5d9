import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { createFileStore } from "../../store/file/index.js";
import { createPostgresStore } from "../../store/postgres/index.js";
import {
  dropSchema,
  randomSchema,
  TEST_DATABASE_URL,
} from "../../store/postgres/test-support/database.js";
import { seedFileStore } from "../../ui/bench-live.js";
import { CLI, cleanEnv, runCli } from "../test-support/run-cli.js";
import { seed, TUI } from "../test-support/seed.js";

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGTERM");
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** Starts the built `ui` and resolves with the URL it prints. */
function startUi(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [CLI, ...args, "ui", "--json"], { env: cleanEnv() });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":\s*"([^"]+)"/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("exit", (code) => reject(new Error(`ui exited with ${code}: ${err}`)));
  });
}

/** Reads Server-Sent Events until one names `key`. */
async function changeFor(url: string, key: string, act: () => Promise<unknown>): Promise<string> {
  const events = new URL("/events", url);
  events.searchParams.set("token", new URL(url).searchParams.get("token")!);
  const response = await fetch(events);
  const reader = response.body!.getReader();
  // The stream is open once its first bytes ("retry: ...") arrive.
  let text = new TextDecoder().decode((await reader.read()).value);
  await act();
  while (!text.includes(JSON.stringify(key).slice(1, -1))) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  return text;
}

describe("ui", () => {
  it("follows a change another process makes on the file store", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tc-cli-ui-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const store = createFileStore({ root: dir });
    await seed(store);
    await store.close();
    const url = await startUi(["--dir", dir]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{22}$/);
    const events = await changeFor(url, TUI.key, () => runCli(["--dir", dir, "stop", "tui"]));
    expect(events).toContain("event: change");
    const page = await (await fetch(url)).text();
    expect(page).toContain(`<tr data-key="${TUI.key}" data-state="stopped" data-group="stopped">`);
  });

  it("follows a change another process makes on PostgreSQL", async () => {
    const schema = randomSchema("tc_ui");
    cleanups.push(() => dropSchema(schema));
    const store = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
    await seed(store);
    await store.close();
    const pg = ["--database-url", TEST_DATABASE_URL, "--schema", schema];
    const url = await startUi(pg);
    const events = await changeFor(url, TUI.key, () => runCli([...pg, "stop", "tui"]));
    expect(events).toContain("event: change");
    const page = await (await fetch(url)).text();
    expect(page).toContain(`<tr data-key="${TUI.key}" data-state="stopped" data-group="stopped">`);
  });

  it("refuses a port that is not one", async () => {
    const run = await runCli(["ui", "--port", "99999"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--port: expected a port number");
  });
});

describe("ui on a large store", () => {
  it("stops within a second when interrupted while it reads the store", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tc-cli-ui-big-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await (await seedFileStore(dir, 4_000)).close();
    const child = spawn(process.execPath, [CLI, "--dir", dir, "ui", "--json"], { env: cleanEnv() });
    children.push(child);
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    await new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk: Buffer) => {
        err += chunk.toString();
        if (err.includes("Reading the store")) resolve();
      });
    });
    // Well into reading 4,000 scopes.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sent = performance.now();
    child.kill("SIGINT");
    const code = await exited;
    const tookMs = performance.now() - sent;
    // Interrupted before the page was ready: it never printed its URL.
    expect(out).not.toContain('"url"');
    expect(code).toBe(0);
    expect(tookMs).toBeLessThan(1000);
  }, 60_000);
});
