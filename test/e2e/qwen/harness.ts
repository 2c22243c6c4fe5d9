import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { resolveScope } from "../../../src/core/scope/scope.js";
import type { DecisionLogEntry, Scope, ScopeSnapshot } from "../../../src/core/types.js";
import { QWEN_CLOSE_INSTRUCTION } from "../../../src/hosts/qwen/protocol.js";
import { createFileStore } from "../../../src/store/file/index.js";
import { hookServerEnv } from "../support/hook-server-setup.js";
import { ensureHost, hostBin, REPO_ROOT } from "../support/host-cache.js";
import {
  type ChatRequest,
  messageText,
  type OpenAiServer,
  type Script,
  startOpenAiServer,
  textReply,
  toolCallReply,
} from "../support/openai-server.js";
import { closeTrapEmpty, startTrap, type Trap } from "../support/trap.js";

/** The Qwen Code release these suites are pinned to (it needs Node 22 or newer). */
export const QWEN_VERSION = "0.24.4";
/**
 * The oldest release supported (the doctor's minimum): on 0.23.3 and older no stop is nudged or
 * recorded.
 */
export const QWEN_OLDEST = "0.23.4";
const NODE_22 = "22.23.3";

export const DIST = process.env.TODO_CONTINUATION_DIST ?? join(REPO_ROOT, "dist");

export function qwenBin(version: string = QWEN_VERSION): string {
  return hostBin(ensureHost("@qwen-code/qwen-code", version), "qwen");
}

/** The folder holding Node 22's `node`, first on Qwen's PATH (its launcher runs `node`). */
function node22Dir(): string {
  return join(ensureHost("node", NODE_22), "node_modules", ".bin");
}

export type Status = "pending" | "in_progress" | "completed";

/** A `todo_write` call with the whole list, ids 1..n as Qwen's model writes them. */
export const todoWrite = (...items: [string, Status][]) =>
  toolCallReply("todo_write", {
    todos: items.map(([content, status], i) => ({ id: String(i + 1), content, status })),
  });

/** A model that stops early twice with items open and finishes both after the nudges. */
export const stopsEarlyTwice = () => [
  todoWrite(["Parse the config", "in_progress"], ["Write the tests", "pending"]),
  textReply("I have started on the config."),
  todoWrite(["Parse the config", "completed"], ["Write the tests", "in_progress"]),
  textReply("Config parsing is done."),
  todoWrite(["Parse the config", "completed"], ["Write the tests", "completed"]),
  textReply("Both items are done."),
];

export interface Project {
  root: string;
  dir: string;
  home: string;
  report: string;
  /** The Qwen Code release that runs in it. */
  version: string;
  cleanup(): void;
}

/** Runs the package CLI with the project's HOME (the install ledger lands there). */
export function cli(
  project: { home: string },
  args: string[],
  /** Another copy of the package's CLI (a global install's). */
  main: string = join(DIST, "cli", "main.js"),
): string {
  return execFileSync(process.execPath, [main, ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, HOME: project.home, QWEN_HOME: join(project.home, ".qwen") },
  });
}

/**
 * A temp git project and HOME; the user settings turn `todo_write` on (Qwen
 * ships it off) and updates and telemetry off; our hooks go into the
 * project's settings through `install qwen`.
 */
export function createProject(
  options: { preset?: string; config?: unknown; version?: string } = {},
): Project {
  const root = mkdtempSync(join(tmpdir(), "tc-qwen-"));
  const dir = join(root, "project");
  const home = join(root, "home");
  mkdirSync(dir);
  mkdirSync(join(home, ".qwen"), { recursive: true });
  execFileSync("git", ["init", "--quiet", dir], { timeout: 60_000 });
  writeFileSync(
    join(home, ".qwen", "settings.json"),
    JSON.stringify({
      tools: { todoWrite: { enabled: true } },
      general: { enableAutoUpdate: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    }),
  );
  if (options.config !== undefined) {
    writeFileSync(join(dir, "todo-continuation.config.json"), JSON.stringify(options.config));
  }
  const args = ["install", "qwen", "--project-dir", dir];
  if (options.preset !== undefined) args.push("--preset", options.preset);
  const report = cli({ home }, args);
  // Retried: a hook Qwen started just before it was stopped may still write into the folder.
  const cleanup = () => rmSync(root, { recursive: true, force: true, maxRetries: 5 });
  return { root, dir, home, report, version: options.version ?? QWEN_VERSION, cleanup };
}

const groups = new Set<number>();

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  sessionId: string | null;
}

export interface QwenRun {
  child: ChildProcess;
  done: Promise<RunResult>;
}

/** Qwen's whole environment: the project's HOME, the scripted server, every other request trapped. */
export function qwenEnv(
  project: Project,
  server: OpenAiServer,
  trap: Trap,
): Record<string, string> {
  return {
    PATH: `${node22Dir()}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    ...hookServerEnv(),
    HOME: project.home,
    QWEN_HOME: join(project.home, ".qwen"),
    OPENAI_BASE_URL: server.baseURL,
    OPENAI_API_KEY: "sk-test-key",
    OPENAI_MODEL: "scripted",
    HTTP_PROXY: trap.url,
    HTTPS_PROXY: trap.url,
    http_proxy: trap.url,
    https_proxy: trap.url,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
    QWEN_CODE_SUPPRESS_YOLO_WARNING: "1",
  };
}

/** Starts `qwen -p` in the project against the scripted server, with every other request trapped. */
export function startQwen(
  project: Project,
  server: OpenAiServer,
  trap: Trap,
  options: { prompt: string; args?: string[]; env?: Record<string, string>; timeoutMs?: number },
): QwenRun {
  // yolo: headless Qwen offers no shell or write tools otherwise.
  const args = ["-p", options.prompt, "--output-format", "stream-json", "--approval-mode", "yolo"];
  args.push(...(options.args ?? []));
  const env = { ...qwenEnv(project, server, trap), ...options.env };
  const child = spawn(qwenBin(project.version), args, {
    cwd: project.dir,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid !== undefined) groups.add(child.pid);
  const out = { stdout: "", stderr: "" };
  for (const name of ["stdout", "stderr"] as const) {
    child[name]?.on("data", (d: Buffer) => {
      out[name] += d.toString("utf8");
    });
  }
  // A hung run is ended with its whole process group; the test then fails on what it saw.
  const timer = setTimeout(
    () => child.pid !== undefined && killGroup(child.pid),
    options.timeoutMs ?? 180_000,
  );
  const done = new Promise<RunResult>((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      const sessionId = /"session_id":"([^"]+)"/.exec(out.stdout)?.[1] ?? null;
      resolve({ code, ...out, sessionId });
    });
  });
  return { child, done };
}

export function runQwen(
  project: Project,
  server: OpenAiServer,
  trap: Trap,
  options: Parameters<typeof startQwen>[3],
): Promise<RunResult> {
  return startQwen(project, server, trap, options).done;
}

/** The final answer a stream-json run reported. */
export function resultOf(run: RunResult): Record<string, unknown> | undefined {
  return run.stdout
    .split("\n")
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    })
    .reverse()
    .find((e) => e.type === "result");
}

function text(request: ChatRequest, index: number): string {
  return messageText(request.body.messages.at(index));
}

/** Whether a request answers one of our blocks: Qwen sends the reason as the newest user message. */
export function answersNudge(request: ChatRequest): boolean {
  return (
    request.body.messages.at(-1)?.role === "user" &&
    text(request, -1).includes(QWEN_CLOSE_INSTRUCTION)
  );
}

export function mentionsNudge(request: ChatRequest): boolean {
  return request.body.messages.some((_, i) => text(request, i).includes(QWEN_CLOSE_INSTRUCTION));
}

export const STORE = join(".qwen", "todo-continuation");

/**
 * Runs the hook command the install wrote (from the project's settings) as
 * Qwen would: through sh, in the project, with its project variables set.
 */
export function runInstalledHook(
  project: Project,
  stdin: string,
): { status: number | null; stdout: string; stderr: string } {
  const settings = JSON.parse(readFileSync(join(project.dir, ".qwen", "settings.json"), "utf8"));
  const command = settings.hooks.Stop[0].hooks[0].command as string;
  const result = spawnSync("sh", ["-c", command], {
    cwd: project.dir,
    input: stdin,
    encoding: "utf8",
    timeout: 60_000,
    env: {
      ...process.env,
      HOME: project.home,
      QWEN_PROJECT_DIR: project.dir,
      CLAUDE_PROJECT_DIR: project.dir,
    },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Our store in the project, as the hook wrote it. */
export async function readSession(
  project: Project,
  sessionId: string,
): Promise<{ snapshot: ScopeSnapshot; log: DecisionLogEntry[] }> {
  const scope = resolveScope({ kind: "session", host: "qwen", sessionId }) as Scope;
  const store = createFileStore({ root: join(project.dir, STORE) });
  try {
    return { snapshot: await store.read(scope), log: await store.readLog(scope) };
  } finally {
    await store.close();
  }
}

export interface Suite {
  serve(script: Script): Promise<OpenAiServer>;
  project(options?: { preset?: string; config?: unknown }): Project;
  trap(): Trap;
}

/** The host checked once, a trap for stray traffic (empty at the end), a server and project per test. */
/** A suite's trap, scripted server and projects, for Qwen Code `version` (default: the pin). */
export function qwenSuite(version: string = QWEN_VERSION): Suite {
  const live: { trap?: Trap; server?: OpenAiServer; project?: Project } = {};
  beforeAll(async () => {
    qwenBin(version);
    node22Dir();
    live.trap = await startTrap();
  });
  afterEach(async () => {
    for (const pid of groups) killGroup(pid);
    groups.clear();
    await live.server?.close();
    live.project?.cleanup();
    delete live.server;
    delete live.project;
  });
  // Everything went to 127.0.0.1: the trap saw no connection in the whole file.
  afterAll(() => closeTrapEmpty(live.trap));
  return {
    serve: async (script) => {
      const server = await startOpenAiServer({ models: ["scripted"] });
      server.script(script);
      live.server = server;
      return server;
    },
    project: (options) => {
      const project = createProject({ ...options, version });
      live.project = project;
      return project;
    },
    trap: () => {
      if (live.trap === undefined) throw new Error("the suite has not started");
      return live.trap;
    },
  };
}
