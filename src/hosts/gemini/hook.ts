import { parseArgs } from "node:util";
import type { PresetName, Store } from "../../core/types.js";
import { type HookIo, openHookStore, readHookInput } from "../hook-process.js";
import { defaultChildRoot, fileChildRuns } from "./children.js";
import { type GeminiHookResponse, handleGeminiHookEvent, handleStorelessEvent } from "./handler.js";
import { parseGeminiHookInput } from "./payload.js";
import { geminiProjectDir, geminiStoreRoot } from "./store-location.js";

export const GEMINI_HOOK_USAGE = `Usage: todo-continuation hook gemini [options] < event.json

Reads one Gemini CLI hook event (BeforeAgent, BeforeTool, AfterTool, AfterAgent)
as JSON on stdin and answers as Gemini CLI expects: an AfterAgent that should
continue prints {"decision":"block","reason":...}. Always exits 0; errors allow
the stop and are explained on stderr.

Options:
  --preset <name>          default, typeclaw, parley, omo or pi (default: default)
  --dir <path>             store folder (default: $TODO_CONTINUATION_DIR, else
                           $GEMINI_PROJECT_DIR/.gemini/todo-continuation)
  --database-url <url>     use PostgreSQL (default: $TODO_CONTINUATION_DATABASE_URL when set)
  --schema <name>          PostgreSQL schema (default: todo_continuation)
  --nudge-after-questions  nudge even when the agent's last message asks a question
`;

/** Where the hook reads and writes; the CLI passes its own, the light entry the process's. */
/** Where the hook reads and writes (every hook process shares it); the CLI's io fits. */
export type GeminiHookIo = HookIo;

export interface GeminiHookArgs {
  preset: string | undefined;
  dir: string | undefined;
  databaseUrl: string | undefined;
  schema: string | undefined;
  nudgeAfterQuestions: boolean;
  help: boolean;
}

/** Reads the hook's options; `argv` may start with the host name (`gemini`). */
export function parseGeminiHookArgs(argv: readonly string[]): GeminiHookArgs {
  const args = argv[0] === "gemini" ? argv.slice(1) : [...argv];
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
    throw new Error(`hook gemini: unexpected argument ${JSON.stringify(positionals[0])}`);
  }
  if (values.dir !== undefined && values["database-url"] !== undefined) {
    throw new Error("--dir and --database-url name two different stores; pass only one");
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

function write(io: GeminiHookIo, response: GeminiHookResponse): void {
  if (response.stdout !== "") io.stdout.write(`${response.stdout}\n`);
  for (const line of response.stderr) io.stderr.write(`${line}\n`);
}

function failure(reason: unknown): GeminiHookResponse {
  const message = reason instanceof Error ? reason.message : String(reason);
  return {
    stdout: "{}",
    stderr: [`todo-continuation: hook failed, allowing the stop: ${message}`],
    exitCode: 0,
  };
}

/**
 * One Gemini CLI hook event in, Gemini CLI's answer out. Resolves to the exit
 * code, which is always 0: the hook never fails closed on its own errors.
 */
export async function runGeminiHook(argv: readonly string[], io: GeminiHookIo): Promise<number> {
  let args: GeminiHookArgs;
  try {
    args = parseGeminiHookArgs(argv);
  } catch (error) {
    write(io, failure(error));
    return 0;
  }
  if (args.help) {
    io.stdout.write(GEMINI_HOOK_USAGE);
    return 0;
  }
  let store: Store | null = null;
  let response: GeminiHookResponse;
  try {
    const event = parseGeminiHookInput(await readHookInput(io));
    const children = fileChildRuns(io.env.TODO_CONTINUATION_GEMINI_CHILDREN ?? defaultChildRoot());
    const storeless = await handleStorelessEvent(event, children);
    if (storeless !== null) {
      write(io, storeless);
      return 0;
    }
    if (event.kind === "other") return 0; // Answered above; this narrows the type.
    const cwd = event.cwd ?? io.cwd;
    store = await openHookStore({
      dir: args.dir,
      databaseUrl: args.databaseUrl,
      schema: args.schema,
      env: io.env,
      root: geminiStoreRoot({ dir: args.dir, env: io.env, cwd }),
      project: geminiProjectDir(io.env, cwd),
    });
    response = await handleGeminiHookEvent(event, {
      store,
      children,
      ...(args.preset !== undefined ? { preset: args.preset as PresetName } : {}),
      waitOnQuestions: !args.nudgeAfterQuestions,
    });
  } catch (error) {
    response = failure(error);
  } finally {
    await store?.close().catch(() => undefined);
  }
  write(io, response);
  return 0;
}
