import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { awaitServerQuiet, benchNodeEnv } from "./node-env.js";

/**
 * The Claude Code hook process against a bare `node -e ""`, both started the
 * same way (spawned with the event piped to stdin, waited for until exit), in
 * alternation so both see the same machine load.
 */

export interface HookBenchResult {
  /** Milliseconds per hook process, start to exit. */
  hook: number[];
  /** Milliseconds per bare `node -e ""`, start to exit. */
  bare: number[];
  /** Milliseconds per hook process with the code cache turned off (a first run's compile). */
  uncached: number[];
  /** Milliseconds per hook process that runs the event itself (no resident server), from the code cache. */
  inProcess: number[];
}

/** The command Claude Code's settings run: the package's hook entry with `hook claude-code`. */
const HOOK_ENTRY = fileURLToPath(new URL("../hook/main.cjs", import.meta.url));

/** Milliseconds from spawn to exit; with `blocks`, fails unless the process printed a block. */
function timeProcess(
  args: string[],
  input: string,
  env: NodeJS.ProcessEnv,
  blocks = false,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(" ")} exited ${code}: ${stderr}`));
      else if (stderr.includes("hook failed")) reject(new Error(stderr.trim()));
      else if (blocks && !stdout.includes('"block"')) {
        reject(new Error(`hook bench: the stop was not blocked: ${stderr.trim()}`));
      } else resolve(ms);
    });
    child.stdin.end(input);
  });
}

/**
 * A project with a session that has open todos and a transcript whose last
 * turn ended cleanly: every Stop blocks, so it runs the whole decision (read,
 * decide, write state and log) as in real use. Each todo write changes the
 * list (a list the agent left as it was when the user spoke is not nudged).
 */
function project(dir: string): {
  env: NodeJS.ProcessEnv;
  alone: NodeJS.ProcessEnv;
  prompt: string;
  write: () => string;
  stop: string;
} {
  mkdirSync(join(dir, ".git"), { recursive: true });
  const transcript = join(dir, "transcript.jsonl");
  writeFileSync(
    transcript,
    `${JSON.stringify({
      type: "assistant",
      message: {
        role: "assistant",
        stop_reason: "end_turn",
        content: [{ type: "text", text: "Done with the parser; tests next." }],
        usage: { input_tokens: 1200, output_tokens: 300 },
      },
    })}\n`,
  );
  const base = { session_id: "bench-session", transcript_path: transcript, cwd: dir };
  const todos = Array.from({ length: 8 }, (_, i) => ({
    content: `Step ${i + 1}: update the module and its tests`,
    status: i < 3 ? "completed" : i === 3 ? "in_progress" : "pending",
    activeForm: `Working on step ${i + 1}`,
  }));
  let writes = 0;
  const write = () => {
    writes += 1;
    const changed = todos.map((t, i) =>
      i === 7 ? { ...t, content: `${t.content} (${writes})` } : t,
    );
    return JSON.stringify({
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "TodoWrite",
      tool_input: { todos: changed },
      tool_response: {},
    });
  };
  const prompt = JSON.stringify({
    ...base,
    hook_event_name: "UserPromptSubmit",
    prompt: "Work through the list.",
  });
  const stop = JSON.stringify({ ...base, hook_event_name: "Stop", stop_hook_active: false });
  const own = { CLAUDE_PROJECT_DIR: dir, HOME: join(dir, "home") };
  const env = benchNodeEnv(own);
  const alone = benchNodeEnv(own, { inProcess: true });
  for (const e of [env, alone]) {
    delete e.TODO_CONTINUATION_DIR;
    delete e.TODO_CONTINUATION_DATABASE_URL;
  }
  return { env, alone, prompt, write, stop };
}

/**
 * Runs `iterations` Stop hooks (each after a fresh prompt and todo write, so
 * every Stop decides on a new turn) and as many bare node starts. Only the
 * Stop processes are timed.
 */
export async function benchHookProcess(options: {
  iterations: number;
  dir: string;
}): Promise<HookBenchResult> {
  const root = mkdtempSync(join(options.dir, "hook-"));
  try {
    const { env, alone, prompt, write, stop } = project(root);
    const hookArgs = [HOOK_ENTRY, "hook", "claude-code"];
    const bareArgs = ["-e", ""];
    const hook: number[] = [];
    const bare: number[] = [];
    const uncached: number[] = [];
    const inProcess: number[] = [];
    const noCache = { ...alone, TODO_CONTINUATION_CODE_CACHE: "0" };
    /** A user prompt, then a todo write that changes the list: the next stop blocks. */
    const promptAndWrite = async (e: NodeJS.ProcessEnv) => {
      await timeProcess(hookArgs, prompt, e);
      await timeProcess(hookArgs, write(), e);
    };
    /** Times `args` given the stop, once the resident server's work after the last event is over. */
    const timed = (args: string[], e: NodeJS.ProcessEnv, blocks: boolean) => {
      awaitServerQuiet();
      return timeProcess(args, stop, e, blocks);
    };
    for (let i = -2; i < options.iterations; i++) {
      await promptAndWrite(env);
      const b = await timed(bareArgs, env, false);
      const h = await timed(hookArgs, env, true);
      await promptAndWrite(noCache);
      const u = await timed(hookArgs, noCache, true);
      await promptAndWrite(alone);
      const p = await timed(hookArgs, alone, true);
      // The first rounds warm the disk cache, write the code cache and start the resident
      // server; they are not reported.
      if (i >= 0) {
        hook.push(h);
        bare.push(b);
        uncached.push(u);
        inProcess.push(p);
      }
    }
    return { hook, bare, uncached, inProcess };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
