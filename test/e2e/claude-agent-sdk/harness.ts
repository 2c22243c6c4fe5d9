import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll } from "vitest";
import {
  type AnthropicServer,
  type Responder,
  type ScriptedReply,
  startAnthropicServer,
} from "../support/anthropic-server.js";
import { claudeOfflineEnv, seedPluginBlocklist } from "../support/claude-env.js";
import { ensureHost } from "../support/host-cache.js";
import { closeTrapEmpty, startTrap, type Trap } from "../support/trap.js";

// The tests import these from the harness: the store is where the Claude Code hooks keep it.
export { onlySessionLog, readSession } from "../support/claude-session.js";

/** The Claude Agent SDK release these suites are pinned to (it bundles Claude Code 2.1.332). */
export const AGENT_SDK_VERSION = "0.3.332";
/**
 * The oldest release the TodoWrite cases run on: it bundles Claude Code 2.1.75, the oldest the
 * Claude Code hooks support (each 0.2 and 0.3 release runs the Claude Code 2.1 of its number).
 */
export const AGENT_SDK_OLDEST = "0.2.75";

/** What these tests use of a message the SDK yields. */
export type SdkMessage = Record<string, unknown> & { type: string };

/** The slice of the SDK's `query()` these tests call (typed here: the SDK is not a dependency). */
export type QueryFn = (params: {
  prompt: string | AsyncIterable<unknown>;
  options?: Record<string, unknown>;
}) => AsyncIterable<SdkMessage> & { interrupt(): Promise<unknown> };

/** A user message as the SDK's streaming input takes it. */
export function userMessage(content: string): unknown {
  return {
    type: "user",
    message: { role: "user", content },
    parent_tool_use_id: null,
    session_id: "",
  };
}

const loaded = new Map<string, QueryFn>();

/** The real SDK's `query` of `version`, imported from the host cache by absolute path. */
export async function sdkQuery(version: string = AGENT_SDK_VERSION): Promise<QueryFn> {
  const known = loaded.get(version);
  if (known !== undefined) return known;
  const dir = ensureHost("@anthropic-ai/claude-agent-sdk", version);
  const entry = join(dir, "node_modules", "@anthropic-ai", "claude-agent-sdk", "sdk.mjs");
  const module = (await import(pathToFileURL(entry).href)) as { query: QueryFn };
  loaded.set(version, module.query);
  return module.query;
}

export interface Project {
  dir: string;
  home: string;
  cleanup(): void;
}

export function createProject(): Project {
  const root = mkdtempSync(join(tmpdir(), "tc-agent-sdk-"));
  const dir = join(root, "project");
  const home = join(root, "home");
  mkdirSync(dir);
  mkdirSync(join(home, ".claude"), { recursive: true });
  // The oldest release tested (Claude Code 2.1.75 inside) would fetch it from GitHub.
  seedPluginBlocklist(join(home, ".claude"));
  execFileSync("git", ["init", "--quiet", dir], { timeout: 60_000 });
  return { dir, home, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * The environment of the Claude Code process the SDK starts: offline, a
 * temp HOME, the scripted model server, TodoWrite as the todo tool (or the
 * Task tools), and every other outbound request into the trap.
 */
export function sdkEnv(
  project: Project,
  server: AnthropicServer,
  trap: Trap,
  tools: "todo-write" | "tasks" = "todo-write",
): Record<string, string> {
  return {
    ...claudeOfflineEnv({ home: project.home, modelUrl: server.url, trapUrl: trap.url, tools }),
    CLAUDE_CONFIG_DIR: join(project.home, ".claude"),
  };
}

/** Runs one `query()` to its end, collecting every message (or what came before an abort). */
export async function collect(
  run: AsyncIterable<SdkMessage>,
): Promise<{ messages: SdkMessage[]; error: unknown }> {
  const messages: SdkMessage[] = [];
  try {
    for await (const message of run) messages.push(message);
    return { messages, error: null };
  } catch (error) {
    return { messages, error };
  }
}

export function sessionIdOf(messages: readonly SdkMessage[]): string {
  const init = messages.find((m) => m.type === "system" && m.subtype === "init");
  if (typeof init?.session_id !== "string") throw new Error("the run reported no session id");
  return init.session_id;
}

export function resultOf(messages: readonly SdkMessage[]): SdkMessage | undefined {
  return [...messages].reverse().find((m) => m.type === "result");
}

export interface Suite {
  serve(script: ScriptedReply[] | Responder): Promise<AnthropicServer>;
  project(): Project;
  trap(): Trap;
}

/** A trap for stray traffic (asserted empty at the end), a fresh server and project per test. */
export function sdkSuite(): Suite {
  let trap: Trap | null = null;
  let server: AnthropicServer | null = null;
  let project: Project | null = null;
  beforeAll(async () => {
    await sdkQuery();
    trap = await startTrap();
  });
  afterEach(async () => {
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
    project: () => {
      project = createProject();
      return project;
    },
    trap: () => {
      if (trap === null) throw new Error("the suite has not started");
      return trap;
    },
  };
}

/**
 * Runs one `query()` in the project to its end, as a program on the SDK would:
 * permissions bypassed (the model is scripted), no settings files read.
 */
export async function runSdk(
  project: Project,
  env: Record<string, string>,
  prompt: string,
  options: Record<string, unknown> = {},
  version: string = AGENT_SDK_VERSION,
): Promise<{ messages: SdkMessage[]; error: unknown }> {
  const query = await sdkQuery(version);
  return collect(
    query({
      prompt,
      options: {
        cwd: project.dir,
        env,
        permissionMode: "bypassPermissions",
        allowDangerouslySkipPermissions: true,
        settingSources: [],
        ...options,
      },
    }),
  );
}
