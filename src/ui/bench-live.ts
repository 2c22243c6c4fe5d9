import { spawn } from "node:child_process";
import { copyFile, mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { emptyState } from "../core/engine/state.js";
import { resolveScope } from "../core/scope/scope.js";
import type { DecisionLogEntry, Scope } from "../core/types.js";
import { createFileStore, type FileStore } from "../store/file/index.js";
import { scopePaths } from "../store/file/paths.js";

function entry(at: number): DecisionLogEntry {
  return {
    at,
    action: "inject",
    reason: null,
    episodeId: "ep-1",
    autoTurns: 2,
    tokens: 1_200,
    stagnation: 0,
    actionable: 4,
    blocked: 0,
    nudgeChars: 400,
    nudgeTokens: 100,
    trigger: "idle",
  };
}

export function benchScope(i: number): Scope {
  return resolveScope({ kind: "session", host: "claude-code", sessionId: `s-${i}` })!;
}

/**
 * A file store of `count` scopes, each with a list of 8 items, a state with an
 * open episode and a log of two decisions. One scope is written through the
 * store; the others get copies of its files (no file names its scope inside),
 * which is much faster than `count` transactions and stores the same bytes.
 */
export async function seedFileStore(root: string, count: number): Promise<FileStore> {
  const store = createFileStore({ root });
  const first = benchScope(0);
  const now = Date.now();
  await store.transact(first, () => ({
    todos: {
      todos: Array.from({ length: 8 }, (_, n) => ({
        content: `Task ${n}: carry the change through the module and its tests`,
        status: n < 3 ? ("completed" as const) : ("pending" as const),
        id: String(n + 1),
      })),
      phases: [],
      nextId: 9,
    },
    state: {
      ...emptyState(),
      episode: {
        id: "ep-1",
        startedAt: now - 60_000,
        autoTurns: 2,
        tokens: 1_200,
        stagnation: 0,
        lastFingerprint: null,
        minIncomplete: null,
        maxCompleted: null,
        lastCountedTurnId: null,
        failures: 0,
        lastInjectionAt: null,
        lastFailureAt: null,
      },
    },
    log: [entry(now - 2_000), entry(now - 1_000)],
    result: null,
  }));
  const from = scopePaths(store.todoDir, first);
  const made = new Set<string>();
  for (let i = 1; i < count; i++) {
    const to = scopePaths(store.todoDir, benchScope(i));
    for (const [a, b] of [
      [from.todos, to.todos],
      [from.state, to.state],
      [from.log, to.log],
    ] as const) {
      const dir = dirname(b);
      if (!made.has(dir)) {
        await mkdir(dir, { recursive: true });
        made.add(dir);
      }
      await copyFile(a, b);
    }
  }
  return store;
}

interface Running {
  url: URL;
  token: string;
  pid: number;
  stop(): Promise<void>;
}

/** The peak resident memory of a process in MB (Linux's VmHWM), or null where it cannot be read. */
export async function peakRssMb(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
    return match === null ? null : Number(match[1]) / 1024;
  } catch {
    return null;
  }
}

/** Starts the built CLI's `ui` on `root`; resolves once it prints its URL. */
export function startUiProcess(cli: string, root: string): Promise<Running> {
  const child = spawn(process.execPath, [cli, "--dir", root, "ui", "--json"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":\s*"([^"]+)"/.exec(out);
      if (match === null) return;
      const url = new URL(match[1]!);
      resolve({
        url,
        token: url.searchParams.get("token")!,
        pid: child.pid!,
        async stop() {
          child.kill("SIGINT");
          await exited;
        },
      });
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once("exit", (code) => reject(new Error(`ui exited with ${code}: ${err}`)));
  });
}

/** Reads a Server-Sent Event stream; `next(test)` waits for a change event whose data passes. */
async function openEvents(url: URL, token: string, key: string) {
  const events = new URL("/events", url);
  events.searchParams.set("token", token);
  events.searchParams.set("key", key);
  const response = await fetch(events);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = decoder.decode((await reader.read()).value);
  return {
    async nextChange(): Promise<void> {
      for (;;) {
        const at = text.indexOf("event: change");
        if (at >= 0) {
          const end = text.indexOf("\n\n", at);
          if (end >= 0) {
            text = text.slice(end + 2);
            return;
          }
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("the event stream ended");
        text += decoder.decode(value);
      }
    },
    close: () => reader.cancel(),
  };
}

async function stateOf(url: URL, token: string, key: string): Promise<string> {
  const api = new URL("/api/scope", url);
  api.searchParams.set("token", token);
  api.searchParams.set("key", key);
  const data = (await (await fetch(api)).json()) as { row: { state: string } };
  return data.row.state;
}

export interface DashboardProcessResult {
  scopes: number;
  /** Process start to the first complete overview (every scope in `/api/scopes`). */
  readyMs: number;
  /** A stop or resume written by another writer, to the page's event and its state showing it. */
  stopVisibleMs: number[];
  /** `GET /`, the overview (grouped, with spend columns and totals), once the store is read. */
  overviewMs: number[];
  /** The dashboard process's peak resident memory after all of it, in MB (null: unknown). */
  peakRssMb: number | null;
}

/**
 * The built CLI's `ui` on a file store of `scopes` scopes, as a user runs it:
 * how long until the overview is complete, then how long stops and resumes
 * written by another writer take to reach the page's event stream and state.
 */
export async function benchDashboardProcess(
  cli: string,
  root: string,
  scopes: number,
  stops: number,
): Promise<DashboardProcessResult> {
  const store = await seedFileStore(root, scopes);
  const started = performance.now();
  const ui = await startUiProcess(cli, root);
  const stopVisibleMs: number[] = [];
  const overviewMs: number[] = [];
  let readyMs: number;
  let peak: number | null = null;
  try {
    const api = new URL("/api/scopes", ui.url);
    api.searchParams.set("token", ui.token);
    const listed = ((await (await fetch(api)).json()) as { scopes: unknown[] }).scopes.length;
    readyMs = performance.now() - started;
    if (listed !== scopes) throw new Error(`the overview listed ${listed} of ${scopes} scopes`);
    // The overview as a browser asks for it; the first request is not counted (it warms up).
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      const page = await (await fetch(ui.url)).text();
      if (i > 0) overviewMs.push(performance.now() - t0);
      if (!page.includes("Totals per day and host")) throw new Error("the overview has no totals");
    }
    for (let i = 0; i < stops; i++) {
      const scope = benchScope((i * 997) % scopes);
      const stopped = i % 2 === 0;
      const events = await openEvents(ui.url, ui.token, scope.key);
      const t0 = performance.now();
      await store.transact(scope, (s) => ({ state: { ...s.state, stopped }, result: null }));
      for (;;) {
        await events.nextChange();
        if (((await stateOf(ui.url, ui.token, scope.key)) === "stopped") === stopped) break;
      }
      stopVisibleMs.push(performance.now() - t0);
      await events.close();
    }
    peak = await peakRssMb(ui.pid);
  } finally {
    await ui.stop();
    await store.close();
  }
  return { scopes, readyMs, stopVisibleMs, overviewMs, peakRssMb: peak };
}

export interface StallResult {
  /** The same measure with nothing running, for a sense of the machine's own noise, in ms. */
  idleMaxMs: number;
  /** The longest the event loop was held while serving pages as scopes changed, in ms. */
  servingMaxMs: number;
  /** The same while every scope was read again (a full reload), in ms. */
  reloadingMaxMs: number;
}

/**
 * The dashboard over a file store of the seeded scopes, in a worker thread of
 * its own whose event loop is watched with `monitorEventLoopDelay` (so the
 * requests this thread makes and reads are not counted as the dashboard's):
 * first with nothing running, then while pages are fetched and another
 * process changes scopes, then while a full reload runs under requests.
 */
export async function benchStall(root: string, scopes: number): Promise<StallResult> {
  const worker = new Worker(new URL("./bench-stall-worker.js", import.meta.url), {
    workerData: { root },
  });
  const replies: ((value: StallReply) => void)[] = [];
  worker.on("message", (reply: StallReply) => replies.shift()?.(reply));
  const failed = new Promise<never>((_, reject) => worker.once("error", reject));
  const ask = (command: string): Promise<StallReply> => {
    const answer = new Promise<StallReply>((resolve) => replies.push(resolve));
    worker.postMessage(command);
    return Promise.race([answer, failed]);
  };
  try {
    const { url, token } = (await ask("start")) as { url: string; token: string };
    const page = (path: string) =>
      fetch(new URL(`${path}${path.includes("?") ? "&" : "?"}token=${token}`, url))
        .then((r) => r.text())
        .then(() => undefined);
    await ask("measure");
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idleMaxMs = ((await ask("measured")) as { maxMs: number }).maxMs;

    await ask("measure");
    // Another process writes (as agents do), so its file writes are not this loop's stalls.
    const writer = writeInChild(root, scopes, 20);
    let done = false;
    void writer.finally(() => {
      done = true;
    });
    while (!done) await Promise.all([page("/"), page("/?fragment=1&sort=state"), page("/metrics")]);
    await writer;
    // Let the watch's reports of the last writes be read.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const servingMaxMs = ((await ask("measured")) as { maxMs: number }).maxMs;

    await ask("measure");
    const reload = ask("reload");
    let reloaded = false;
    void reload.finally(() => {
      reloaded = true;
    });
    while (!reloaded) await Promise.all([page("/?fragment=1"), page("/api/scopes?state=stopped")]);
    await reload;
    const reloadingMaxMs = ((await ask("measured")) as { maxMs: number }).maxMs;
    return { idleMaxMs, servingMaxMs, reloadingMaxMs };
  } finally {
    await ask("close").catch(() => undefined);
    await worker.terminate();
  }
}

type StallReply = Record<string, unknown>;

/** Stops and resumes `writes` scopes from a child process, 50 ms apart. */
function writeInChild(root: string, scopes: number, writes: number): Promise<void> {
  const storeModule = new URL("../store/file/index.js", import.meta.url).href;
  const scopeModule = new URL("../core/scope/scope.js", import.meta.url).href;
  const script = `
    const { createFileStore } = await import(${JSON.stringify(storeModule)});
    const { resolveScope } = await import(${JSON.stringify(scopeModule)});
    const store = createFileStore({ root: ${JSON.stringify(root)} });
    for (let i = 0; i < ${writes}; i++) {
      const scope = resolveScope({ kind: "session", host: "claude-code", sessionId: "s-" + ((i * 613) % ${scopes}) });
      await store.transact(scope, (s) => ({ state: { ...s.state, stopped: !s.state.stopped }, result: null }));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await store.close();
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`the writer exited with ${code}`)),
    );
  });
}
