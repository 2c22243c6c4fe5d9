import { spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DecisionLogEntry, Todo } from "../../../src/core/types.js";
import { geminiScope } from "../../../src/hosts/gemini/handler.js";
import { NUDGE_MARKER } from "../../../src/hosts/gemini/turn.js";
import { createFileStore } from "../../../src/store/file/index.js";
import type { GeminiCall, GeminiServer } from "../support/gemini-server.js";
import { hookServerEnv } from "../support/hook-server-setup.js";
import { ensureHost, hostBin, REPO_ROOT } from "../support/host-cache.js";

/** The pinned Gemini CLI: the version these tests were written against. */
export const GEMINI_CLI_VERSION = "0.61.0";
/**
 * The oldest release supported (the doctor's minimum): on 0.38 a subagent's write_todos reached
 * the parent's list.
 */
export const GEMINI_CLI_OLDEST = "0.39.0";

export function geminiBin(version: string = GEMINI_CLI_VERSION): string {
  return hostBin(ensureHost("@google/gemini-cli", version), "gemini");
}

export const CLI = join(REPO_ROOT, "dist", "cli", "main.js");

export interface GeminiProject {
  home: string;
  dir: string;
  /** Where our hook keeps the lists (the install's default). */
  storeDir: string;
  childRoot: string;
  /** The Gemini CLI release that runs in it. */
  version: string;
  cleanup(): void;
}

export interface ProjectOptions {
  /** The Gemini CLI release to run (default: the pinned one). */
  version?: string;
  model?: string;
  taskTracker?: boolean;
  /** Settings written before our install, kept by it. */
  extra?: Record<string, unknown>;
}

/**
 * A temp project and a temp home, with Gemini CLI set to a scripted model
 * (API-key auth; the base URL comes from the environment) and the folder
 * trusted the way a user does it from the trust dialog (trustedFolders.json).
 * Our hooks are not there yet: `install` puts them in.
 */
export function makeProject(options: ProjectOptions = {}): GeminiProject {
  const home = mkdtempSync(join(tmpdir(), "gem-home-"));
  const dir = mkdtempSync(join(tmpdir(), "gem-proj-"));
  const childRoot = mkdtempSync(join(tmpdir(), "gem-children-"));
  mkdirSync(join(dir, ".gemini"), { recursive: true });
  mkdirSync(join(home, ".gemini"), { recursive: true });
  const settings = {
    model: { name: options.model ?? "gemini-2.5-flash" },
    security: { auth: { selectedType: "gemini-api-key" } },
    ...(options.taskTracker === true ? { experimental: { taskTracker: true } } : {}),
    ...options.extra,
  };
  writeFileSync(join(dir, ".gemini", "settings.json"), `${JSON.stringify(settings, null, 2)}\n`);
  writeFileSync(
    join(home, ".gemini", "trustedFolders.json"),
    JSON.stringify({ [dir]: "TRUST_FOLDER" }, null, 2),
  );
  return {
    home,
    dir,
    storeDir: join(dir, ".gemini", "todo-continuation"),
    childRoot,
    version: options.version ?? GEMINI_CLI_VERSION,
    cleanup() {
      for (const d of [home, dir, childRoot]) rmSync(d, { recursive: true, force: true });
    },
  };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; input?: string; timeoutMs?: number },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 180_000);
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

function baseEnv(project: GeminiProject): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...hookServerEnv(),
    HOME: project.home,
    TODO_CONTINUATION_GEMINI_CHILDREN: project.childRoot,
  };
}

/** Our own CLI, as a user runs it. */
export function ourCli(
  project: GeminiProject,
  args: string[],
  input?: string,
  /** Another copy of the package's CLI (a global install's). */
  cli: string = CLI,
): Promise<Run> {
  return run(process.execPath, [cli, ...args], {
    cwd: project.dir,
    env: baseEnv(project),
    ...(input !== undefined ? { input } : {}),
  });
}

/**
 * One headless Gemini CLI run. `--approval-mode yolo` is how a headless run
 * gets write_todos at all (in the default mode it is withheld); nothing here
 * skips folder or hook trust.
 */
export function runGemini(
  project: GeminiProject,
  server: GeminiServer,
  prompt: string,
  extraArgs: string[] = [],
): Promise<Run> {
  return run(
    geminiBin(project.version),
    ["-p", prompt, "-o", "stream-json", "--approval-mode", "yolo", ...extraArgs],
    {
      cwd: project.dir,
      env: { ...baseEnv(project), GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_API_KEY: "test-key" },
    },
  );
}

export function sessionIdOf(stdout: string): string {
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    const event = JSON.parse(line) as { type?: string; session_id?: string };
    if (event.type === "init" && typeof event.session_id === "string") return event.session_id;
  }
  throw new Error(`no init event in Gemini CLI output:\n${stdout.slice(0, 2000)}`);
}

export async function storedState(
  project: GeminiProject,
  sessionId: string,
): Promise<{ todos: Todo[]; log: DecisionLogEntry[] }> {
  const store = createFileStore({ root: project.storeDir });
  try {
    const scope = geminiScope(sessionId);
    const snap = await store.read(scope);
    return { todos: snap.todos.todos, log: await store.readLog(scope) };
  } finally {
    await store.close();
  }
}

/** Whether a model call answers one of our nudges. */
export const isNudge = (call: GeminiCall): boolean => call.lastUserText.includes(NUDGE_MARKER);

/** How many of our nudges reached the model in a list of calls. */
export const nudgeCount = (calls: GeminiCall[]): number => calls.filter(isNudge).length;

/**
 * The session file Gemini CLI recorded a session in (what hooks get as
 * `transcript_path`): `~/.gemini/tmp/<project>/chats/*.jsonl`, found by the id.
 */
export function sessionFileOf(project: GeminiProject, sessionId: string): string {
  const root = join(project.home, ".gemini", "tmp");
  const found = readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".jsonl") || name.endsWith(".json"))
    .map((name) => join(root, name))
    .find((path) => statSync(path).isFile() && readFileSync(path, "utf8").includes(sessionId));
  if (found === undefined) throw new Error(`no session file for ${sessionId} under ${root}`);
  return found;
}

export function readText(path: string): string {
  return readFileSync(path, "utf8");
}

/** Model turns in the conversation so far (what the model has already said). */
export const modelTurns = (call: GeminiCall): number =>
  (call.body.contents ?? []).filter((c) => c.role === "model").length;

/**
 * Runs the hook command our install wrote into the project's settings, the
 * way Gemini CLI runs it (through the shell, with its hook environment), on
 * a payload of Gemini CLI's shape: for what a headless run cannot show.
 */
export function runInstalledHook(
  project: GeminiProject,
  payload: Record<string, unknown>,
): Promise<Run> {
  const settings = JSON.parse(readText(join(project.dir, ".gemini", "settings.json"))) as {
    hooks: Record<string, { hooks: { name?: string; command: string }[] }[]>;
  };
  const event = String(payload.hook_event_name);
  const command = settings.hooks[event]
    ?.flatMap((g) => g.hooks)
    .find((h) => h.name === "todo-continuation")?.command;
  if (command === undefined) throw new Error(`no ${event} hook of ours in the settings`);
  return run("/bin/sh", ["-c", command], {
    cwd: project.dir,
    env: {
      ...baseEnv(project),
      GEMINI_PROJECT_DIR: project.dir,
      GEMINI_CWD: project.dir,
      GEMINI_SESSION_ID: String(payload.session_id),
    },
    input: JSON.stringify({ cwd: project.dir, timestamp: new Date().toISOString(), ...payload }),
  });
}
