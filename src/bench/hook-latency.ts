import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { awaitHookServer, awaitServerQuiet, benchNodeEnv } from "./node-env.js";

/**
 * Wall-clock time of one hook process answering a Stop that blocks (the
 * path a host waits on), the Codex and Gemini CLI hooks against Claude Code's, interleaved so all see the same machine. Milliseconds per call.
 * Each timed process starts once the resident server's work after the last event is over.
 */

const DIST = join(dirname(fileURLToPath(import.meta.url)), "..");

function run(args: string[], input: string, env: NodeJS.ProcessEnv = benchNodeEnv()): number {
  awaitServerQuiet();
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { input, encoding: "utf8", env });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0 || !result.stdout.includes('"block"')) {
    throw new Error(`hook bench: ${args.join(" ")} did not block: ${result.stderr}`);
  }
  return ms;
}

/** A bare `node -e ""` start, timed the same way: what a hook process is measured against. */
function bareNode(): number {
  awaitServerQuiet();
  const start = process.hrtime.bigint();
  spawnSync(process.execPath, ["-e", ""], { input: "", encoding: "utf8", env: benchNodeEnv() });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Copilot CLI sessions as the hook reads them: each a folder under `$COPILOT_HOME/session-state`,
 * an events file, and the `todos` table of its `session.db`, empty until `addTodo` writes one open
 * item (with the `sqlite3` program, as the model's `sql` tool would). One session per call: the
 * hook nudges an episode at most 8 times (Copilot's own cap), so each call is a session's first
 * stop, as the Qwen Code rows are. As in a real session, the user's prompt comes first and the
 * list is written during the turn: the stop stores the new list with its decision (two
 * documents), as a Copilot stop after progress does.
 */
function copilotWorld(
  dir: string,
  sessions: number,
): {
  sessions: { id: string; transcript: string; addTodo: () => void }[];
  env: NodeJS.ProcessEnv;
} {
  const home = join(dir, "copilot-home");
  const made = Array.from({ length: sessions }, (_, i) => {
    const id = `fd351624-7b6a-4467-b286-${i.toString().padStart(12, "0")}`;
    const session = join(home, "session-state", id);
    mkdirSync(session, { recursive: true });
    const transcript = join(session, "events.jsonl");
    writeFileSync(transcript, "");
    const db = join(session, "session.db");
    execFileSync("sqlite3", [
      db,
      "CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT, description TEXT, status TEXT, created_at TEXT, updated_at TEXT);",
    ]);
    const addTodo = () =>
      execFileSync("sqlite3", [db, "INSERT INTO todos VALUES ('a', 'a', '', 'pending', '', '');"]);
    return { id, transcript, addTodo };
  });
  return { sessions: made, env: benchNodeEnv({ COPILOT_HOME: home }) };
}

/** The hosts whose stop the per-host rows time. */
export const LATENCY_HOSTS = ["codex", "gemini", "claudeCode", "qwen", "copilot"] as const;
export type LatencyHost = (typeof LATENCY_HOSTS)[number];

export interface HookLatencyRun {
  /** Milliseconds per stop, per host. */
  stops: Record<LatencyHost, number[]>;
  /** The bare `node -e ""` start timed just before each of those stops, index for index. */
  bare: Record<LatencyHost, number[]>;
}

const perHost = () =>
  Object.fromEntries(LATENCY_HOSTS.map((host) => [host, []])) as unknown as Record<
    LatencyHost,
    number[]
  >;

export function benchHookLatency(calls: number): HookLatencyRun {
  const dir = mkdtempSync(join(tmpdir(), "tc-bench-hooks-"));
  try {
    // The command each installer writes: the package's hook entry with the host's name.
    const main = join(DIST, "hook", "main.cjs");
    // Codex's names the config it is in (`--target`): each of its events makes a claim (claimCopy).
    const codex = [main, "hook", "codex", "--dir", join(dir, "codex"), "--target", "project"];
    const claude = [main, "hook", "claude-code", "--dir", join(dir, "cc")];
    const gemini = [main, "hook", "gemini", "--dir", join(dir, "gemini")];
    const qwen = [main, "hook", "qwen", "--dir", join(dir, "qwen")];
    const copilot = [main, "hook", "copilot", "--dir", join(dir, "copilot")];
    const copilotSessions = copilotWorld(dir, calls);
    const geminiEnv = benchNodeEnv({ TODO_CONTINUATION_GEMINI_CHILDREN: join(dir, "children") });
    const base = { session_id: "bench-1", cwd: dir, transcript_path: join(dir, "none.jsonl") };
    const plan = {
      plan: [
        { step: "a", status: "pending" },
        { step: "b", status: "pending" },
      ],
    };
    const todos = { todos: [{ content: "a", status: "pending", activeForm: "A" }] };
    const codexPlan = {
      ...base,
      turn_id: "t1",
      hook_event_name: "PostToolUse",
      tool_name: "update_plan",
      tool_input: plan,
    };
    const claudeTodos = {
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "TodoWrite",
      tool_input: todos,
      tool_response: {},
    };
    spawnSync(process.execPath, codex, { input: JSON.stringify(codexPlan), env: benchNodeEnv() });
    spawnSync(process.execPath, claude, {
      input: JSON.stringify(claudeTodos),
      env: benchNodeEnv(),
    });
    spawnSync(process.execPath, gemini, {
      env: geminiEnv,
      input: JSON.stringify({
        ...base,
        hook_event_name: "AfterTool",
        tool_name: "write_todos",
        tool_input: { todos: [{ description: "a", status: "pending" }] },
      }),
    });
    if (!awaitHookServer()) throw new Error("hook bench: the resident hook server did not start");
    // stop_hook_active and no budget shortage: every call blocks (unlimited via the parley preset's 25 turns).
    const codexStop = JSON.stringify({
      ...base,
      turn_id: "t1",
      hook_event_name: "Stop",
      last_assistant_message: "Stopping here.",
      stop_hook_active: false,
    });
    const claudeStop = JSON.stringify({
      ...base,
      hook_event_name: "Stop",
      last_assistant_message: "Stopping here.",
      stop_hook_active: false,
    });
    // Gemini's response grows with every continuation; an unchanged one is the same turn, not answered twice.
    const geminiStop = (i: number) =>
      JSON.stringify({
        ...base,
        hook_event_name: "AfterAgent",
        prompt: "Do it.",
        prompt_response: `Stopping here.${" Again.".repeat(i)}`,
        stop_hook_active: i > 0,
      });
    // Qwen Code caps a session's blocked stops lower than the preset: each call is a new session.
    const qwenTodos = (i: number) =>
      JSON.stringify({
        ...base,
        session_id: `bench-qwen-${i}`,
        hook_event_name: "PostToolUse",
        tool_name: "todo_write",
        tool_input: { todos: [{ id: "1", content: "a", status: "pending" }] },
      });
    const qwenStop = (i: number) =>
      JSON.stringify({
        ...base,
        session_id: `bench-qwen-${i}`,
        hook_event_name: "Stop",
        last_assistant_message: "Stopping here.",
        stop_hook_active: false,
      });
    const copilotEvent = (i: number, fields: Record<string, unknown>) =>
      JSON.stringify({
        sessionId: copilotSessions.sessions[i]?.id,
        timestamp: Date.now(),
        cwd: dir,
        ...fields,
      });
    const copilotPrompt = (i: number) => copilotEvent(i, { prompt: "Work through the list." });
    const copilotStop = (i: number) =>
      copilotEvent(i, {
        transcriptPath: copilotSessions.sessions[i]?.transcript,
        stopReason: "end_turn",
        stop_hook_active: false,
      });
    const out: HookLatencyRun = { stops: perHost(), bare: perHost() };
    // Each stop beside a bare start of its own, taken just before it: a slow spell of the
    // machine (a bare start here moved from 24 to 32 ms between runs) slows both alike.
    const timed = (host: LatencyHost, stop: () => number) => {
      out.bare[host].push(bareNode());
      out.stops[host].push(stop());
    };
    for (let i = 0; i < calls; i++) {
      timed("codex", () => run([...codex, "--preset", "parley"], codexStop));
      timed("gemini", () => run([...gemini, "--preset", "parley"], geminiStop(i), geminiEnv));
      timed("claudeCode", () => run([...claude, "--preset", "parley"], claudeStop));
      spawnSync(process.execPath, qwen, { input: qwenTodos(i), env: benchNodeEnv() });
      timed("qwen", () => run([...qwen, "--preset", "parley"], qwenStop(i)));
      spawnSync(
        process.execPath,
        [...copilot, "--preset", "parley", "--event", "userPromptSubmitted"],
        {
          input: copilotPrompt(i),
          env: copilotSessions.env,
        },
      );
      copilotSessions.sessions[i]?.addTodo();
      timed("copilot", () =>
        run(
          [...copilot, "--preset", "parley", "--event", "agentStop"],
          copilotStop(i),
          copilotSessions.env,
        ),
      );
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
