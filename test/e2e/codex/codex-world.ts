import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveScope } from "../../../src/core/scope/scope.js";
import type { DecisionLogEntry, Scope, ScopeSnapshot } from "../../../src/core/types.js";
import { createFileStore } from "../../../src/store/file/index.js";
import { hookServerEnv } from "../support/hook-server-setup.js";
import { ensureHost, hostBin, REPO_ROOT } from "../support/host-cache.js";
import {
  callReply,
  type ResponsesScript,
  type ResponsesServer,
  startResponsesServer,
  textReply,
} from "../support/responses-server.js";
import { startTrap } from "../support/trap.js";
import { type AppServer, openAppServer } from "./app-server.js";

/** The Codex CLI release these suites are pinned to. */
export const CODEX_VERSION = "0.171.0";

/** The built package under test (`npm run test:e2e` builds it first). */
export const DIST = process.env.TODO_CONTINUATION_DIST ?? join(REPO_ROOT, "dist");

/** The model's `update_plan` call: step 1, step 2, ... with these statuses. */
export const plan = (...statuses: string[]) =>
  callReply("update_plan", {
    plan: statuses.map((status, i) => ({ step: `step ${i + 1}`, status })),
  });

/** A model that stops early twice with steps open and finishes the plan after the nudges. */
export const STOPS_EARLY_TWICE = [
  plan("in_progress", "pending"),
  textReply("I'll stop here for now."),
  plan("completed", "in_progress"),
  textReply("Step 1 is done."),
  plan("completed", "completed"),
  textReply("All done."),
];

export function codexBin(): string {
  return hostBin(ensureHost("@openai/codex", CODEX_VERSION), "codex");
}

/** What one `codex exec --json` run did. */
export interface ExecRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The JSONL events Codex printed. */
  events: Record<string, unknown>[];
  stderr: string;
  /** The session (thread) id from `thread.started`. */
  sessionId: string | null;
}

export interface CodexWorld {
  server: ResponsesServer;
  project: string;
  codexHome: string;
  userConfig: string;
  env: Record<string, string>;
  /** Outbound connections Codex tried through the proxy trap (first request line each): should stay empty. */
  outbound: readonly string[];
  /** Runs our CLI (`node dist/cli/main.js ...`) in the project. */
  cli(...args: string[]): string;
  /** Starts `codex exec --json` in the project; never with a bypass flag. */
  start(prompt: string, extra?: string[]): { child: ChildProcess; done: Promise<ExecRun> };
  exec(prompt: string, extra?: string[]): Promise<ExecRun>;
  snapshot(sessionId: string): Promise<ScopeSnapshot>;
  log(sessionId: string): Promise<DecisionLogEntry[]>;
  /** `codex app-server`'s `hooks/list` for the project: what Codex itself thinks of our hooks. */
  hooksList(): Promise<{ key: string; eventName: string; trustStatus: string; command: string }[]>;
  /** `codex app-server` in the project, as the Codex UI drives it. */
  appServer(): Promise<AppServer>;
  close(): Promise<void>;
}

const children = new Set<ChildProcess>();

export function codexScope(sessionId: string): Scope {
  return resolveScope({ kind: "session", host: "codex", sessionId }) as Scope;
}

/**
 * A temp user (HOME, CODEX_HOME with a model provider on the scripted server)
 * and a git project with our hooks installed by our own `install codex
 * --project`, the project trusted the way a user trusts it.
 */
export async function codexWorld(
  script: ResponsesScript,
  options: {
    preset?: string;
    /** The project's todo-continuation.config.json, written before the install. */
    config?: unknown;
    /** Runs `todo-continuation trust` in the project after the install. */
    trustConfig?: boolean;
    /** More `[features]` flags in the user config (e.g. `multi_agent_v2`). */
    features?: Record<string, boolean>;
  } = {},
): Promise<CodexWorld> {
  const bin = codexBin();
  const server = await startResponsesServer(script);
  const trap = await startTrap();
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tc-codex-e2e-")));
  const home = join(root, "home");
  const codexHome = join(home, ".codex");
  const project = join(root, "project");
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(project, { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: project });
  if (options.config !== undefined) {
    writeFileSync(join(project, "todo-continuation.config.json"), JSON.stringify(options.config));
  }
  const userConfig = join(codexHome, "config.toml");
  appendFileSync(
    userConfig,
    [
      'model = "scripted"',
      'model_provider = "scripted"',
      "",
      "[model_providers.scripted]",
      'name = "scripted"',
      `base_url = "${server.baseURL}"`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_API_KEY"',
      "request_max_retries = 0",
      "stream_max_retries = 0",
      "",
      // What phones home in 0.169.0 (update check, analytics, plugin and app catalogues): off.
      "check_for_update_on_startup = false",
      "[analytics]",
      "enabled = false",
      "[feedback]",
      "enabled = false",
      "[features]",
      ...["plugins", "apps", "remote_plugin", "plugin_sharing", "skill_search", "tool_suggest"].map(
        (feature) => `${feature} = false`,
      ),
      ...Object.entries(options.features ?? {}).map(([feature, on]) => `${feature} = ${on}`),
      "",
    ].join("\n"),
  );
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...hookServerEnv(),
    HOME: home,
    CODEX_HOME: codexHome,
    SCRIPTED_API_KEY: "not-a-real-key",
    NO_COLOR: "1",
    // Anything but the model server goes to the trap, which records it and hangs up.
    HTTPS_PROXY: trap.url,
    HTTP_PROXY: trap.url,
    ALL_PROXY: trap.url,
    NO_PROXY: "127.0.0.1,localhost",
  };
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, [join(DIST, "cli", "main.js"), ...args], {
      cwd: project,
      env,
      encoding: "utf8",
    });
  cli("install", "codex", "--project", ...(options.preset ? ["--preset", options.preset] : []));
  if (options.trustConfig === true) cli("trust");
  // What the user does once per project (Codex asks on first start in its UI).
  appendFileSync(userConfig, `\n[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n`);

  const start = (prompt: string, extra: string[] = []) => {
    // Its own process group: the npm wrapper does not pass SIGKILL on to the native binary.
    const child = spawn(bin, ["exec", "--json", "--skip-git-repo-check", ...extra, prompt], {
      cwd: project,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString("utf8");
    });
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
    });
    const timer = setTimeout(() => killGroup(child), 120_000);
    const done = new Promise<ExecRun>((resolve) => {
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        children.delete(child);
        const events = stdout
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        const started = events.find((e) => e.type === "thread.started");
        const sessionId = typeof started?.thread_id === "string" ? started.thread_id : null;
        resolve({ code, signal, events, stderr, sessionId });
      });
    });
    return { child, done };
  };

  const store = () => createFileStore({ root: join(project, ".codex", "todo-continuation") });
  const withStore = async <T>(fn: (s: ReturnType<typeof store>) => Promise<T>) => {
    const s = store();
    try {
      return await fn(s);
    } finally {
      await s.close();
    }
  };

  return {
    server,
    project,
    codexHome,
    userConfig,
    env,
    outbound: trap.connections,
    cli,
    start,
    exec: (prompt, extra) => start(prompt, extra).done,
    snapshot: (id) => withStore((s) => s.read(codexScope(id))),
    log: (id) => withStore((s) => s.readLog(codexScope(id))),
    hooksList: () => hooksList(bin, project, env),
    appServer: () => openAppServer(bin, project, env, (child) => children.add(child)),
    close: async () => {
      await server.close();
      await trap.close();
      rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
}

async function hooksList(
  bin: string,
  project: string,
  env: Record<string, string>,
): Promise<{ key: string; eventName: string; trustStatus: string; command: string }[]> {
  const child = spawn(bin, ["app-server"], {
    cwd: project,
    env,
    stdio: ["pipe", "pipe", "ignore"],
  });
  children.add(child);
  const send = (message: unknown) => child.stdin?.write(`${JSON.stringify(message)}\n`);
  let buffer = "";
  const answer = new Promise<unknown>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("hooks/list: no answer in 60 s")), 60_000);
    child.stdout?.on("data", (d: Buffer) => {
      buffer += d.toString("utf8");
      for (const line of buffer.split("\n")) {
        if (!line.startsWith("{")) continue;
        const message = JSON.parse(line) as { id?: number; result?: unknown };
        if (message.id === 2) {
          clearTimeout(timer);
          resolve(message.result);
        }
      }
    });
  });
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { clientInfo: { name: "e2e", version: "1" } },
  });
  send({ jsonrpc: "2.0", method: "initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "hooks/list", params: { cwds: [project] } });
  try {
    const result = (await answer) as {
      data: { hooks: { key: string; eventName: string; trustStatus: string; command: string }[] }[];
    };
    return result.data.flatMap((entry) => entry.hooks);
  } finally {
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    child.stdin?.end();
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    killGroup(child);
    children.delete(child);
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Kills every Codex process a test left running. */
export function killCodex(): void {
  for (const child of children) killGroup(child);
  children.clear();
}

/** The todo list as `[content, status]` pairs. */
export function listOf(snapshot: ScopeSnapshot): [string, string][] {
  return snapshot.todos.todos.map((t) => [t.content, t.status]);
}

/** Reads a file's bytes (for idempotence checks). */
export function bytes(path: string): string {
  return readFileSync(path, "utf8");
}
