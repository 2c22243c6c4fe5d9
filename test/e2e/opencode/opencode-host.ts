/**
 * Runs the real OpenCode program (`opencode serve`), or a fork of it that
 * loads the same plugins (Kilo), offline in a throwaway project, with our
 * plugin installed by our own installer, against the scripted model server.
 * Used by the OpenCode and Kilo end-to-end suites.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveScope } from "../../../src/core/scope/scope.js";
import type { DecisionLogEntry } from "../../../src/core/types.js";
import { installOpenCode } from "../../../src/hosts/opencode/install.js";
import type { OpenCodePluginOptions } from "../../../src/hosts/opencode/options.js";
import { PLUGIN_HOSTS, type PluginHostName } from "../../../src/hosts/opencode/plugin-hosts.js";
import { createFileStore } from "../../../src/store/file/file-store.js";
import { ensureHost, hostBin, REPO_ROOT } from "../support/host-cache.js";
import {
  messageText,
  type OpenAiServer,
  startOpenAiServer,
  textReply,
  toolCallReply,
} from "../support/openai-server.js";

export const OPENCODE_VERSION = "1.18.33";

/** A model that stops early twice with items open and finishes its list after the nudges. */
export function stopsEarlyTwice() {
  const todo = (content: string, status: string) => ({ content, status, priority: "high" });
  const write = (...todos: ReturnType<typeof todo>[]) => toolCallReply("todowrite", { todos });
  return [
    write(todo("write the parser", "in_progress"), todo("add tests", "pending")),
    textReply("Stopping here for now."),
    write(todo("write the parser", "completed"), todo("add tests", "in_progress")),
    textReply("The parser is done."),
    write(todo("write the parser", "completed"), todo("add tests", "completed")),
    textReply("Everything is done."),
  ];
}

/** What differs between OpenCode and its forks, for running one offline. */
export interface PluginHostProgram {
  /** The host name `install` takes, and the program in messages. */
  install: PluginHostName;
  title: string;
  pkg: string;
  version: string;
  bin: string;
  /** The project's config file. */
  configFile: string;
  /** The plugin package the program installs into its config folders, when one is published. */
  pluginPackage: { name: string; version: string } | null;
  /** The header that names the project folder to the server. */
  directoryHeader: string;
  /** Environment that keeps the program offline and quiet. */
  env: Record<string, string>;
}

export const OPENCODE: PluginHostProgram = {
  install: "opencode",
  title: "OpenCode",
  pkg: "opencode-ai",
  version: OPENCODE_VERSION,
  bin: "opencode",
  configFile: "opencode.json",
  pluginPackage: { name: "@opencode-ai/plugin", version: OPENCODE_VERSION },
  directoryHeader: "x-opencode-directory",
  env: {
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
    OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
  },
};

/** The provider and model id the project's config defines for the scripted server. */
export const PROVIDER_ID = "scripted";
export const MODEL_ID = "scripted-model";

/**
 * OpenCode npm-installs `@opencode-ai/plugin` (this exact version) into every
 * config folder it reads (`<project>/.opencode/` and the user's config folder)
 * unless that folder already has a `node_modules/` and a package-lock.json
 * whose root lists every dependency of its package.json. Offline that install
 * retries for over a minute before plugins load. We put the very same
 * packages there from the host cache, installed once per machine.
 */
export function seedPluginDependencies(
  configDir: string,
  plugin: { name: string; version: string },
): string {
  const cache = ensureHost(plugin.name, plugin.version);
  mkdirSync(configDir, { recursive: true });
  cpSync(join(cache, "node_modules"), join(configDir, "node_modules"), { recursive: true });
  const dependencies = { [plugin.name]: plugin.version };
  const hidden = JSON.parse(
    readFileSync(join(cache, "node_modules", ".package-lock.json"), "utf8"),
  ) as {
    packages?: Record<string, unknown>;
  };
  writeFileSync(join(configDir, "package.json"), `${JSON.stringify({ dependencies }, null, 2)}\n`);
  const lock = `${JSON.stringify(
    { lockfileVersion: 3, requires: true, packages: { "": { dependencies }, ...hidden.packages } },
    null,
    2,
  )}\n`;
  writeFileSync(join(configDir, "package-lock.json"), lock);
  return lock;
}

export interface OpenCodeProject {
  host: PluginHostProgram;
  root: string;
  project: string;
  storeDir: string;
  env: NodeJS.ProcessEnv;
  /** The config folders we seeded, with the lock file each got: OpenCode must leave them as they are. */
  seeded: { dir: string; lock: string }[];
  /** Removes every file of the project, its home and its store. */
  cleanup(): void;
}

/** A temp project configured for offline use against `modelBaseURL`, with our plugin installed. */
export async function prepareProject(options: {
  modelBaseURL: string;
  pluginOptions?: OpenCodePluginOptions;
  /** Default: OpenCode. */
  host?: PluginHostProgram;
  /** Also install ours for the user (`install <host> --user`) with these options over the project's. */
  userPluginOptions?: OpenCodePluginOptions;
  /** The package the user's install is from (default: the one under test; a global copy). */
  userPackageRoot?: string;
}): Promise<OpenCodeProject> {
  const host = options.host ?? OPENCODE;
  const root = mkdtempSync(join(tmpdir(), `tc-e2e-${host.install}-`));
  const project = join(root, "project");
  const home = join(root, "home");
  const storeDir = join(root, "store");
  const xdg = {
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
  };
  for (const dir of [project, ...Object.values(xdg)]) mkdirSync(dir, { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: project });
  writeFileSync(
    join(project, host.configFile),
    `${JSON.stringify(
      {
        provider: {
          [PROVIDER_ID]: {
            npm: "@ai-sdk/openai-compatible",
            name: "Scripted",
            options: { baseURL: options.modelBaseURL, apiKey: "test-key" },
            models: { [MODEL_ID]: { name: "Scripted model" } },
          },
        },
        enabled_providers: [PROVIDER_ID],
        model: `${PROVIDER_ID}/${MODEL_ID}`,
        small_model: `${PROVIDER_ID}/${MODEL_ID}`,
        autoupdate: false,
        share: "disabled",
        lsp: false,
        formatter: false,
      },
      null,
      2,
    )}\n`,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    ...xdg,
    ...host.env,
  };
  await installOpenCode({
    host: host.install,
    projectDir: project,
    packageRoot: REPO_ROOT,
    env,
    pluginOptions: { storeDir, ...options.pluginOptions },
    out: () => {},
  });
  if (options.userPluginOptions !== undefined) {
    await installOpenCode({
      host: host.install,
      target: "user",
      projectDir: project,
      packageRoot: options.userPackageRoot ?? REPO_ROOT,
      env,
      pluginOptions: { storeDir, ...options.pluginOptions, ...options.userPluginOptions },
      out: () => {},
    });
  }
  const { pluginPackage } = host;
  const folders = PLUGIN_HOSTS[host.install];
  const seeded =
    pluginPackage === null
      ? []
      : [join(project, folders.projectFolder), join(xdg.XDG_CONFIG_HOME, folders.userFolder)].map(
          (dir) => ({ dir, lock: seedPluginDependencies(dir, pluginPackage) }),
        );
  return {
    host,
    seeded,
    root,
    project,
    storeDir,
    env,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface OpenCodeServer {
  url: string;
  /** Everything the server printed, for failure messages. */
  output(): string;
  request(method: string, path: string, body?: unknown): Promise<Response>;
  createSession(): Promise<string>;
  /** Sends a user prompt without waiting for the turn (204). */
  prompt(sessionId: string, text: string): Promise<void>;
  abort(sessionId: string): Promise<void>;
  deleteSession(sessionId: string): Promise<void>;
  /** `idle`, `busy` or `retry` (a session missing from the status map is idle). */
  status(sessionId: string): Promise<string>;
  /** Bus events (GET /event) received since the server started. */
  events(): BusEvent[];
  stop(): Promise<void>;
}

export interface BusEvent {
  type: string;
  properties?: Record<string, unknown>;
  /** When this process read it off the stream (Date.now()). */
  receivedAt: number;
}

/** Reads OpenCode's server-sent event stream into `sink` until `signal` aborts. */
async function readEventStream(
  url: string,
  headers: Record<string, string>,
  sink: BusEvent[],
  signal: AbortSignal,
) {
  const response = await fetch(`${url}/event`, {
    headers: { accept: "text/event-stream", ...headers },
    signal,
  });
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of block.split("\n")) {
        if (!line.startsWith("data:")) continue;
        try {
          const event = JSON.parse(line.slice(5).trim()) as Omit<BusEvent, "receivedAt">;
          sink.push({ ...event, receivedAt: Date.now() });
        } catch {
          // Not JSON: not an event we look at.
        }
      }
    }
  }
}

/** Starts `<program> serve` in the project and resolves once it listens. */
export async function startOpenCode(project: OpenCodeProject): Promise<OpenCodeServer> {
  const { host } = project;
  const bin = hostBin(ensureHost(host.pkg, host.version), host.bin);
  const child: ChildProcess = spawn(
    bin,
    ["serve", "--port", "0", "--hostname", "127.0.0.1", "--print-logs", "--log-level", "INFO"],
    { cwd: project.project, env: project.env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${host.bin} serve did not start:\n${output}`)),
      120_000,
    );
    const check = () => {
      const match = /server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${host.bin} serve exited (${code}):\n${output}`));
    });
  });
  const directory = { [host.directoryHeader]: project.project };
  const headers = { "content-type": "application/json", ...directory };
  const request = (method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const busEvents: BusEvent[] = [];
  const stopEvents = new AbortController();
  void readEventStream(url, directory, busEvents, stopEvents.signal).catch(() => {});
  const expectOk = async (response: Response, what: string) => {
    if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${await response.text()}`);
    return response;
  };
  return {
    url,
    output: () => output,
    request,
    async createSession() {
      const response = await expectOk(await request("POST", "/session", {}), "POST /session");
      return ((await response.json()) as { id: string }).id;
    },
    async prompt(sessionId, text) {
      await expectOk(
        await request("POST", `/session/${sessionId}/prompt_async`, {
          parts: [{ type: "text", text }],
        }),
        "prompt_async",
      );
    },
    async abort(sessionId) {
      await expectOk(await request("POST", `/session/${sessionId}/abort`), "abort");
    },
    async deleteSession(sessionId) {
      await expectOk(await request("DELETE", `/session/${sessionId}`), "DELETE /session");
    },
    async status(sessionId) {
      const response = await expectOk(
        await request("GET", "/session/status"),
        "GET /session/status",
      );
      const map = (await response.json()) as Record<string, { type?: string }>;
      return map[sessionId]?.type ?? "idle";
    },
    events: () => busEvents,
    async stop() {
      stopEvents.abort();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls `check` until it returns a value other than undefined; rejects with `what` after the timeout. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The plugin's decision log for a session, read from the project's store as the CLI would. */
export async function decisions(
  project: OpenCodeProject,
  sessionId: string,
): Promise<DecisionLogEntry[]> {
  const store = createFileStore({ root: project.storeDir });
  try {
    return await store.readLog(resolveScope({ kind: "session", host: "opencode", sessionId })!);
  } finally {
    await store.close();
  }
}

/** `inject`, or `skip:<reason>`, per decision. */
export const summary = (log: DecisionLogEntry[]) =>
  log.map((e) => (e.action === "skip" ? `skip:${e.reason}` : e.action));

/** The plugin's lines in OpenCode's log, for failure messages. */
export function pluginLog(opencode: OpenCodeServer): string {
  return opencode
    .output()
    .split("\n")
    .filter((line) => line.includes("todo-continuation"))
    .slice(-40)
    .join("\n");
}

/** Waits until the session's decision log ends with `last` (a skip reason or "inject"). */
export async function waitForDecision(
  project: OpenCodeProject,
  opencode: OpenCodeServer,
  sessionId: string,
  last: string,
): Promise<string[]> {
  let seen: string[] = [];
  try {
    return await waitFor(
      `decision ${last}`,
      async () => {
        seen = summary(await decisions(project, sessionId));
        return seen.at(-1) === last ? seen : undefined;
      },
      120_000,
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message}; decisions so far: ${JSON.stringify(seen)}\nplugin log:\n${pluginLog(opencode)}`,
    );
  }
}

/**
 * The scripted model server every OpenCode test starts: OpenCode's request
 * for a session title is answered aside, and an unscripted turn gets a
 * closing line.
 */
export function startTitledModel(): Promise<OpenAiServer> {
  return startOpenAiServer({
    intercept: (request) =>
      messageText(request.body.messages[0]).includes("title generator")
        ? textReply("A title")
        : undefined,
    fallback: textReply("I have nothing more to add."),
  });
}
