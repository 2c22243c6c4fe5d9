import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { closeInstructionFor } from "../../../src/hosts/claude-code/todos.js";
import {
  type AnthropicServer,
  type MessagesBody,
  type Responder,
  type ScriptedReply,
  startAnthropicServer,
} from "../support/anthropic-server.js";
import {
  claudeOfflineEnv,
  seedPluginBlocklist,
  type ToolGeneration,
} from "../support/claude-env.js";
import { ensureHost, hostBin, REPO_ROOT } from "../support/host-cache.js";
import { closeTrapEmpty, startTrap, type Trap } from "../support/trap.js";

// The tests import these from the harness, as before they moved to support/.
export type { ToolGeneration } from "../support/claude-env.js";
export { onlySessionLog, readSession } from "../support/claude-session.js";
export { waitFor } from "../support/wait-for.js";

/** The Claude Code release these suites are pinned to. */
export const CLAUDE_CODE_VERSION = "2.1.332";

/** The built package under test (`npm run test:e2e` builds it first). */
export const DIST = process.env.TODO_CONTINUATION_DIST ?? join(REPO_ROOT, "dist");

/** The oldest release the integration supports (it lacks the StopFailure event). */
export const CLAUDE_CODE_OLDEST = "2.1.75";

export function claudeBin(version: string = CLAUDE_CODE_VERSION): string {
  return hostBin(ensureHost("@anthropic-ai/claude-code", version), "claude");
}

export interface Project {
  root: string;
  dir: string;
  home: string;
  /** The hook command our install wrote. */
  hookCommand: string;
  /** What the install printed. */
  report: string;
  /** The Claude Code release the project runs (and was installed for). */
  version: string;
  cleanup(): void;
}

/**
 * Whether the package CLI already dispatches `hook claude-code`; until it
 * does, the integration's own entry script is installed instead.
 */
function cliHasHook(): boolean {
  try {
    const out = execFileSync(
      process.execPath,
      [join(DIST, "cli", "main.js"), "hook", "claude-code", "--help"],
      {
        encoding: "utf8",
        timeout: 60_000,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    return out.includes("hook claude-code");
  } catch {
    return false;
  }
}

/**
 * A temp project and HOME with our hooks installed by our own install
 * command, which finds the Claude Code release on PATH and writes for it.
 */
export function createProject(
  options: {
    preset?: string;
    version?: string;
    settings?: string;
    config?: unknown;
    /**
     * Also install ours for the user (`install claude-code --user`), beside the project's: from
     * this copy of the package, or from the copy whose CLI this names (a global install's).
     */
    alsoUser?: boolean | string;
  } = {},
): Project {
  const version = options.version ?? CLAUDE_CODE_VERSION;
  const root = mkdtempSync(join(tmpdir(), "tc-claude-"));
  const dir = join(root, "project");
  const home = join(root, "home");
  mkdirSync(dir);
  mkdirSync(home);
  execFileSync("git", ["init", "--quiet", dir], { timeout: 60_000 });
  seedPluginBlocklist(join(home, ".claude"));
  if (options.settings !== undefined) {
    mkdirSync(join(dir, ".claude"));
    writeFileSync(join(dir, ".claude", "settings.json"), options.settings);
  }
  // The project's own config, there before the install (which sizes the Stop hook's timeout to it).
  if (options.config !== undefined) {
    writeFileSync(join(dir, "todo-continuation.config.json"), JSON.stringify(options.config));
  }
  const bin = join(DIST, "hosts", "claude-code", "bin.js");
  const viaCli = cliHasHook();
  const args = viaCli
    ? [join(DIST, "cli", "main.js"), "install", "claude-code", "--project", "--project-dir", dir]
    : [bin, "install", "claude-code", "--project", "--project-dir", dir, "--entry", bin];
  if (options.preset !== undefined) args.push("--preset", options.preset);
  const install = (argv: string[]) =>
    execFileSync(process.execPath, argv, {
      encoding: "utf8",
      timeout: 60_000,
      // The install's ledger goes to the run's own HOME, never the real one.
      env: {
        ...process.env,
        HOME: home,
        CLAUDE_CONFIG_DIR: join(home, ".claude"),
        PATH: `${dirname(claudeBin(version))}:${process.env.PATH ?? ""}`,
      },
    });
  const report = install(args);
  if (options.alsoUser !== undefined && options.alsoUser !== false) {
    const user = args.map((a) => (a === "--project" ? "--user" : a));
    if (typeof options.alsoUser === "string") user[0] = options.alsoUser;
    install(user);
  }
  const hookCommand = /^Hook command: (.*)$/m.exec(report)?.[1];
  if (hookCommand === undefined) throw new Error(`install printed no hook command:\n${report}`);
  return {
    root,
    dir,
    home,
    hookCommand,
    report,
    version,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Process groups of the Claude processes this test started (each leads its own). */
const groups = new Set<number>();

/** Ends a Claude process and everything it started. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Ends every Claude process this test started, and anything they left running. */
export function killRunning(): void {
  for (const pid of groups) killGroup(pid);
  groups.clear();
}

export interface RunOptions {
  prompt: string;
  tools: ToolGeneration;
  /** Extra command-line arguments (e.g. `--resume <id>`). */
  args?: string[];
  /** Streaming input: the process reads user messages and control requests from stdin. */
  streamInput?: boolean;
  env?: Record<string, string>;
  timeoutMs?: number;
}

export interface ClaudeRun {
  child: ChildProcess;
  /** Sends one stream-json input line (streaming input only). */
  send(message: unknown): void;
  /** Sends a user message (streaming input only). */
  say(text: string): void;
  /** Sends the interrupt control request an SDK sends on Esc (streaming input only). */
  interrupt(): void;
  /** Closes stdin: the process finishes its work and exits. */
  end(): void;
  /** Everything the process printed on stdout so far. */
  output(): string;
  /** Resolves when the process exits. */
  done: Promise<RunResult>;
}

export interface RunResult {
  code: number | null;
  events: Record<string, unknown>[];
  stderr: string;
  sessionId: string | null;
}

/** Starts `claude -p` in the project against the scripted model server, offline. */
export function startClaude(
  project: Project,
  server: AnthropicServer,
  trap: Trap,
  options: RunOptions,
): ClaudeRun {
  const args = [
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-mode",
    "bypassPermissions",
  ];
  if (options.streamInput) args.push("--input-format", "stream-json");
  else args.push(options.prompt);
  args.push(...(options.args ?? []));
  const env: Record<string, string> = {
    ...claudeOfflineEnv({
      home: project.home,
      modelUrl: server.url,
      trapUrl: trap.url,
      tools: options.tools,
    }),
    ...options.env,
  };
  // Its own process group, so a teardown also ends the background jobs it started.
  const child = spawn(claudeBin(project.version), args, {
    cwd: project.dir,
    env,
    detached: true,
    stdio: [options.streamInput ? "pipe" : "ignore", "pipe", "pipe"],
  });
  if (child.pid !== undefined) groups.add(child.pid);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString("utf8");
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  const timer = setTimeout(() => {
    if (child.pid !== undefined) killGroup(child.pid);
  }, options.timeoutMs ?? 240_000);
  const send = (message: unknown) => child.stdin?.write(`${JSON.stringify(message)}\n`);
  let requests = 0;
  const done = new Promise<RunResult>((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      const events = stdout
        .split("\n")
        .filter((l) => l.trim() !== "")
        .flatMap((l) => {
          try {
            return [JSON.parse(l) as Record<string, unknown>];
          } catch {
            return [];
          }
        });
      const init = events.find((e) => e.type === "system" && e.subtype === "init");
      const sessionId = typeof init?.session_id === "string" ? init.session_id : null;
      resolve({ code, events, stderr, sessionId });
    });
  });
  if (options.streamInput) {
    send({
      type: "user",
      message: { role: "user", content: options.prompt },
      parent_tool_use_id: null,
      session_id: "",
    });
  }
  return {
    child,
    send,
    say: (text) =>
      send({
        type: "user",
        message: { role: "user", content: text },
        parent_tool_use_id: null,
        session_id: "",
      }),
    interrupt: () => {
      requests++;
      send({
        type: "control_request",
        request_id: `interrupt-${requests}`,
        request: { subtype: "interrupt" },
      });
    },
    end: () => child.stdin?.end(),
    output: () => stdout,
    done,
  };
}

/** Runs `claude -p` to completion. */
export function runClaude(
  project: Project,
  server: AnthropicServer,
  trap: Trap,
  options: RunOptions,
): Promise<RunResult> {
  return startClaude(project, server, trap, options).done;
}

/** Every text of one message, whatever its role and shape. */
function messageTexts(message: { content: unknown } | undefined): string[] {
  if (message === undefined) return [];
  if (typeof message.content === "string") return [message.content];
  if (!Array.isArray(message.content)) return [];
  return (message.content as { type?: string; text?: unknown }[])
    .filter((b) => b?.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string);
}

/** The line every nudge of ours carries, in the session's tool family. */
export function nudgeMark(tools: ToolGeneration): string {
  return closeInstructionFor(tools);
}

/**
 * Whether a request was the model's answer to one of our blocks: its newest
 * message carries the nudge (Claude Code appends the Stop hook's reason).
 */
export function answersNudge(body: MessagesBody, tools: ToolGeneration): boolean {
  const mark = nudgeMark(tools);
  return messageTexts(body.messages.at(-1)).some((t) => t.includes(mark));
}

/** Requests that carried any nudge of ours anywhere in their history. */
export function mentionsNudge(body: MessagesBody, tools: ToolGeneration): boolean {
  const mark = nudgeMark(tools);
  return body.messages.some((m) => messageTexts(m).some((t) => t.includes(mark)));
}

/** The final `result` event of a run. */
export function resultOf(run: RunResult): Record<string, unknown> | undefined {
  return [...run.events].reverse().find((e) => e.type === "result");
}

/** The hook's responses Claude Code reported, for debugging failures. */
export function hookResponses(run: RunResult): string {
  return run.events
    .filter((e) => e.subtype === "hook_response")
    .map((e) => `${String(e.hook_event)}: ${JSON.stringify(e.stdout)} ${JSON.stringify(e.stderr)}`)
    .join("\n");
}

export function readText(path: string): string {
  return readFileSync(path, "utf8");
}

export interface Suite {
  /** Starts the model server for this test with a script of replies or a responder. */
  serve(script: ScriptedReply[] | Responder): Promise<AnthropicServer>;
  /** A fresh project with our hooks installed. */
  project(options?: Parameters<typeof createProject>[0]): Project;
  trap(): Trap;
}

/**
 * Registers the suite's lifecycle: the host installed once, a loopback trap
 * for stray traffic (asserted empty at the end), and a fresh model server and
 * project per test, torn down after it.
 */
export function claudeSuite(): Suite {
  let trap: Trap | null = null;
  let server: AnthropicServer | null = null;
  let project: Project | null = null;
  beforeAll(async () => {
    claudeBin();
    trap = await startTrap();
  });
  afterEach(async () => {
    killRunning();
    await server?.close();
    server = null;
    project?.cleanup();
    project = null;
  });
  afterAll(() => closeTrapEmpty(trap));
  return {
    serve: async (script) => {
      server = await startAnthropicServer({ script });
      return server;
    },
    project: (options) => {
      project = createProject(options);
      return project;
    },
    trap: () => {
      if (trap === null) throw new Error("the suite has not started");
      return trap;
    },
  };
}
