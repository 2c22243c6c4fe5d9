/**
 * Runs the real `pi` CLI (pinned version, installed into the host cache)
 * against the scripted OpenAI-compatible server, with the extension loaded
 * from its TypeScript source. Each world has its own HOME, pi agent folder
 * and store folder, all under one temp folder removed by `close()`.
 */
import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Scope } from "../../../src/core/types.js";
import { createFileStore, type FileStore } from "../../../src/store/file/file-store.js";
import { ensureHost, hostBin, REPO_ROOT } from "../support/host-cache.js";
import { type OpenAiServer, startOpenAiServer } from "../support/openai-server.js";

export const PI_PACKAGE = "@mariozechner/pi-coding-agent";
export const PI_VERSION = "0.73.1";
/** pi 1.x as the suites run it beside 0.73.1: its newest release, on the Node 22 it needs. */
export const PI_1X = {
  pkg: "@earendil-works/pi-coding-agent",
  version: "1.6.0",
  node: "22.23.3",
} as const;
export const MODEL = "scripted";
export const EXTENSION = join(REPO_ROOT, "src", "hosts", "pi", "index.ts");

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface PiWorld {
  server: OpenAiServer;
  storeDir: string;
  /** pi's working folder: the project. */
  workDir: string;
  /** pi's user folder (`PI_CODING_AGENT_DIR`). */
  agentDir: string;
  /** The environment pi runs with (before per-run additions). */
  env: Record<string, string>;
  /** `pi -p <prompt>` to completion. */
  print(prompt: string, env?: Record<string, string>): Promise<RunResult>;
  /** `pi --mode rpc`, for aborts and multi-prompt sessions. */
  rpc(env?: Record<string, string>): PiRpc;
  /** The file store the extension wrote (a second reader, as the CLI would be). */
  store(): FileStore;
  /** The one scope the run created. */
  onlyScope(): Promise<Scope>;
  close(): Promise<void>;
}

export interface PiRpc {
  send(command: Record<string, unknown>): void;
  /** Resolves with the first event matching `predicate` not yet consumed. */
  next(
    predicate: (event: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  stderr(): string;
  close(): Promise<void>;
}

export function installPi(): string {
  return hostBin(ensureHost(PI_PACKAGE, PI_VERSION), "pi");
}

export interface PiWorldOptions {
  /**
   * "flag" (default): `--no-extensions -e <source>`. "settings": no flags;
   * pi loads whatever its settings files list (what `install pi` writes).
   */
  extension?: "flag" | "settings";
  /** Folders put in front of PATH (a newer Node for pi 1.x). */
  pathPrefix?: string[];
  /** More arguments for every run (`--approve` trusts the project on pi 1.x). */
  args?: string[];
}

export async function createPiWorld(bin: string, options: PiWorldOptions = {}): Promise<PiWorld> {
  const root = mkdtempSync(join(tmpdir(), "tc-pi-e2e-"));
  const home = join(root, "home");
  const agentDir = join(root, "agent");
  const storeDir = join(root, "store");
  const workDir = join(root, "work");
  for (const dir of [home, agentDir, storeDir, workDir]) mkdirSync(dir, { recursive: true });
  const server = await startOpenAiServer({ models: [MODEL] });
  writeFileSync(
    join(agentDir, "models.json"),
    JSON.stringify({
      providers: {
        scripted: {
          baseUrl: server.baseURL,
          api: "openai-completions",
          apiKey: "x",
          models: [{ id: MODEL }],
        },
      },
    }),
  );
  // Only what pi needs: nothing inherited (no subagent mark from an outer pi).
  const baseEnv = {
    PATH: [...(options.pathPrefix ?? []), process.env.PATH ?? ""].join(":"),
    HOME: home,
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: "1",
    PI_SKIP_VERSION_CHECK: "1",
    PI_TELEMETRY: "0",
    TODO_CONTINUATION_DIR: storeDir,
  };
  const args = [
    ...(options.extension === "settings" ? [] : ["--no-extensions", "-e", EXTENSION]),
    ...(options.args ?? []),
    "--provider",
    "scripted",
    "--model",
    MODEL,
    "--no-session",
  ];
  const children = new Set<ChildProcessWithoutNullStreams>();
  const stores: FileStore[] = [];

  const openStore = () => {
    const store = createFileStore({ root: storeDir });
    stores.push(store);
    return store;
  };

  return {
    server,
    storeDir,
    workDir,
    agentDir,
    env: baseEnv,
    print(prompt, env = {}) {
      return new Promise((resolve) => {
        const child = execFile(
          bin,
          ["-p", ...args, prompt],
          { cwd: workDir, env: { ...baseEnv, ...env }, timeout: 120_000 },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
            resolve({ code, stdout, stderr });
          },
        );
        // pi appends piped stdin to the prompt and waits for its end.
        child.stdin?.end();
      });
    },
    rpc(env = {}) {
      const child = spawn(bin, ["--mode", "rpc", ...args], {
        cwd: workDir,
        env: { ...baseEnv, ...env },
      });
      children.add(child);
      const events: Record<string, unknown>[] = [];
      const waiters = new Set<() => void>();
      let consumed = 0;
      let buffer = "";
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.stdout.on("data", (c: Buffer) => {
        buffer += c.toString();
        for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
          const line = buffer.slice(0, nl).replace(/\r$/, "");
          buffer = buffer.slice(nl + 1);
          if (line.trim() === "") continue;
          try {
            events.push(JSON.parse(line) as Record<string, unknown>);
          } catch {
            // Not protocol output; ignored.
          }
        }
        for (const waiter of [...waiters]) waiter();
      });
      return {
        send(command) {
          child.stdin.write(`${JSON.stringify(command)}\n`);
        },
        next(predicate, timeoutMs = 60_000) {
          return new Promise((resolve, reject) => {
            const check = () => {
              for (let i = consumed; i < events.length; i++) {
                if (predicate(events[i]!)) {
                  consumed = i + 1;
                  cleanup();
                  resolve(events[i]!);
                  return;
                }
              }
            };
            const timer = setTimeout(() => {
              cleanup();
              reject(
                new Error(
                  `no matching pi event; seen: ${events.map((e) => e.type).join(", ")}\n${stderr}`,
                ),
              );
            }, timeoutMs);
            const cleanup = () => {
              clearTimeout(timer);
              waiters.delete(check);
            };
            waiters.add(check);
            check();
          });
        },
        stderr: () => stderr,
        async close() {
          if (child.exitCode === null) {
            const exited = new Promise((r) => child.once("exit", r));
            child.stdin.end();
            child.kill("SIGTERM");
            await exited;
          }
          children.delete(child);
        },
      };
    },
    store: openStore,
    async onlyScope() {
      const scopes = await openStore().listScopes();
      if (scopes.length !== 1)
        throw new Error(`expected one scope, found ${JSON.stringify(scopes)}`);
      return scopes[0]!;
    },
    async close() {
      for (const child of children) {
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      for (const store of stores) await store.close();
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Text of the last user-role message (pi sends custom messages as user messages). */
export { lastUserMessage, messageText } from "../support/openai-server.js";

/** `pi --version`, to check the pinned host really is the one running. */
export function piVersion(bin: string, pathPrefix: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      ["--version"],
      { env: { PATH: [...pathPrefix, process.env.PATH ?? ""].join(":"), PI_OFFLINE: "1" } },
      (error, stdout, stderr) => (error ? reject(error) : resolve(`${stdout}${stderr}`.trim())),
    );
  });
}
