import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { resolveScope } from "../../../src/core/scope/scope.js";
import { createFileStore } from "../../../src/store/file/file-store.js";
import { hookServerEnv } from "../support/hook-server-setup.js";
import { ensureHost, hostBin } from "../support/host-cache.js";
import { type ScriptedReply, textReply, toolCallReply } from "../support/openai-server.js";

/** The real Copilot CLI, offline, against the scripted server. */
export const COPILOT_VERSION = "1.0.102";
/** The oldest release the suites run: the doctor's minimum (`MIN_COPILOT_VERSION`). */
export const COPILOT_OLDEST = "1.0.11";
/** The last release of those (1.0.40 to 1.0.48) that run a repository's hooks in prompt mode only when asked. */
export const COPILOT_PROMPT_GATED = "1.0.48";

export function copilotBin(version: string = COPILOT_VERSION): string {
  return hostBin(ensureHost("@github/copilot", version), "copilot");
}

/** Copilot's environment for a run under `root` (its home folders), the model at `baseURL`. */
export function copilotEnv(root: string, baseURL: string, storeDir: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    ...hookServerEnv(),
    HOME: join(root, "home"),
    COPILOT_HOME: join(root, "copilot-home"),
    COPILOT_OFFLINE: "true",
    COPILOT_PROVIDER_BASE_URL: baseURL,
    COPILOT_PROVIDER_API_KEY: "test-key",
    COPILOT_MODEL: "scripted-model",
    COPILOT_AUTO_UPDATE: "false",
    // Trusts the project folder, which is what loads its .github/hooks in prompt mode.
    COPILOT_ALLOW_ALL: "true",
    TODO_CONTINUATION_DIR: storeDir,
  };
}

/** The model's reply that runs Copilot's `sql` tool on the session's database. */
export const sql = (query: string) => toolCallReply("sql", { description: "Track todos", query });

/** A lazy stopper's turns: two open items, worked off over two nudges; the third stop finds them done. */
export const workedOffInTwoNudges = (): ScriptedReply[] => [
  sql(
    "INSERT INTO todos (id, title, status) VALUES ('write-parser', 'Writing the parser', 'in_progress'), ('add-tests', 'Adding tests', 'pending')",
  ),
  textReply("Stopping here for now."),
  sql("UPDATE todos SET status = 'done' WHERE id = 'write-parser'"),
  textReply("The parser is done."),
  sql("UPDATE todos SET status = 'done'"),
  textReply("Everything is done."),
];

export type CopilotRun = { code: number | null; signal: NodeJS.Signals | null; output: string };

/**
 * Runs `copilot -p` to the end without blocking this process (the model server lives here).
 * It gets its own process group, signalled as a terminal would: the npm loader runs the
 * native binary as a child, which a signal to the loader alone would leave running.
 */
export function runCopilotWith(
  bin: string,
  args: { prompt: string; cwd: string; env: NodeJS.ProcessEnv; extra?: string[] },
  onStart: (signal: (name: NodeJS.Signals) => void) => void = () => {},
): Promise<CopilotRun> {
  return new Promise((resolve) => {
    const child = spawn(bin, ["-p", args.prompt, "--allow-all-tools", ...(args.extra ?? [])], {
      cwd: args.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: args.env,
      detached: true,
    });
    const signal = (name: NodeJS.Signals) => {
      if (child.pid !== undefined) process.kill(-child.pid, name);
    };
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => signal("SIGTERM"), 240_000);
    child.on("exit", (code, signalName) => {
      clearTimeout(timer);
      resolve({ code, signal: signalName, output });
    });
    onStart(signal);
  });
}

/**
 * The decisions of the latest session of Copilot's home under `root` that the store at `storeDir`
 * holds any of, as `skip:<reason>` or `inject`.
 */
export async function decisionsOfLastSession(root: string, storeDir: string): Promise<string[]> {
  const sessions = execFileSync("ls", [join(root, "copilot-home", "session-state")], {
    encoding: "utf8",
  })
    .split("\n")
    .filter((s) => /^[0-9a-f-]{36}$/.test(s));
  const store = createFileStore({ root: storeDir });
  try {
    const logs = await Promise.all(
      sessions.map((sessionId) =>
        store.readLog(resolveScope({ kind: "session", host: "copilot", sessionId })!),
      ),
    );
    const last =
      logs
        .filter((l) => l.length > 0)
        .sort((a, b) => a[0]!.at - b[0]!.at)
        .at(-1) ?? [];
    return last.map((e) => (e.action === "skip" ? `skip:${e.reason}` : e.action));
  } finally {
    await store.close();
  }
}
