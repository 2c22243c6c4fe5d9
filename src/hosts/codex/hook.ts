import { parseArgs } from "node:util";
import type { PresetName, Store } from "../../core/types.js";
import { STORE_ROOT_ENV } from "../../store/root.js";
import { readTranscriptTail } from "../claude-code/transcript.js";
import { type HookIo, openHookStore, readHookInput } from "../hook-process.js";
import { type CodexHookResponse, failOpen, handleCodexHookEvent, needsStore } from "./handler.js";
import { parseCodexHookInput } from "./payload.js";
import { codexProjectDir, codexStoreRoot } from "./store-location.js";

/**
 * The hook process: one Codex hook event on stdin, Codex's answer on stdout.
 * It loads only what a hook needs (the engine, the file store; PostgreSQL only
 * when asked for) and never fails closed: any error of its own allows the
 * stop, is explained in one stderr line, and exits 0.
 */

/** Enough of the rollout's end to hold its latest token count. */
const ROLLOUT_TAIL_BYTES = 1024 * 1024;

export const CODEX_HOOK_USAGE = `Usage: todo-continuation hook codex [options] < event.json

Reads one Codex CLI hook event as JSON on stdin and answers as Codex expects:
a Stop that should continue prints {"decision":"block","reason":...}.
Always exits 0; errors allow the stop and are explained on stderr.

Options:
  --preset <name>          default, typeclaw, parley, omo or pi (default: default)
  --dir <path>             store folder (default: $TODO_CONTINUATION_DIR, else
                           <project>/.codex/todo-continuation)
  --database-url <url>     use PostgreSQL (default: $TODO_CONTINUATION_DATABASE_URL when set)
  --schema <name>          PostgreSQL schema (default: todo_continuation)
  --nudge-after-questions  nudge even when the agent's last message asks a question
`;

/** Where the hook reads and writes (every hook process shares it); the CLI's io fits. */
export type CodexHookIo = HookIo;

export interface CodexHookArgs {
  preset: string | undefined;
  dir: string | undefined;
  databaseUrl: string | undefined;
  schema: string | undefined;
  nudgeAfterQuestions: boolean;
  help: boolean;
}

/** Reads the hook's options; `argv` may start with the host name (`codex`). */
export function parseCodexHookArgs(argv: readonly string[]): CodexHookArgs {
  const args = argv[0] === "codex" ? argv.slice(1) : [...argv];
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      preset: { type: "string" },
      dir: { type: "string" },
      "database-url": { type: "string" },
      schema: { type: "string" },
      "nudge-after-questions": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (positionals.length > 0) {
    throw new Error(`hook codex: unexpected argument ${JSON.stringify(positionals[0])}`);
  }
  if (values.dir !== undefined && values["database-url"] !== undefined) {
    throw new Error(
      "hook codex: --dir and --database-url name two different stores; pass only one",
    );
  }
  return {
    preset: values.preset,
    dir: values.dir,
    databaseUrl: values["database-url"],
    schema: values.schema,
    nudgeAfterQuestions: values["nudge-after-questions"] === true,
    help: values.help === true,
  };
}

function write(io: CodexHookIo, response: CodexHookResponse): void {
  if (response.stdout !== "") io.stdout.write(`${response.stdout}\n`);
  for (const line of response.stderr) io.stderr.write(`${line}\n`);
}

/** `todo-continuation hook codex`: resolves to the exit code, which is always 0. */
export async function runCodexHook(argv: readonly string[], io: CodexHookIo): Promise<number> {
  let args: CodexHookArgs;
  try {
    args = parseCodexHookArgs(argv);
  } catch (error) {
    write(io, failOpen(error));
    return 0;
  }
  if (args.help) {
    io.stdout.write(CODEX_HOOK_USAGE);
    return 0;
  }
  let store: Store | null = null;
  let response: CodexHookResponse;
  try {
    const event = parseCodexHookInput(await readHookInput(io));
    if (!needsStore(event)) return 0;
    const cwd = event.cwd ?? io.cwd;
    // Only the default per-project folder ignores itself; a named one is the user's.
    const defaulted = args.dir === undefined && !io.env[STORE_ROOT_ENV]?.trim();
    store = await openHookStore({
      dir: args.dir,
      databaseUrl: args.databaseUrl,
      schema: args.schema,
      env: io.env,
      root: codexStoreRoot({ dir: args.dir, env: io.env, cwd }),
      ...(defaulted ? { project: codexProjectDir(cwd) } : {}),
    });
    response = await handleCodexHookEvent(event, {
      store,
      ...(args.preset !== undefined ? { preset: args.preset as PresetName } : {}),
      waitOnQuestions: !args.nudgeAfterQuestions,
      readRollout: (path) => readTranscriptTail(path, ROLLOUT_TAIL_BYTES),
    });
  } catch (error) {
    response = failOpen(error);
  } finally {
    await store?.close().catch(() => undefined);
  }
  write(io, response);
  return 0;
}
