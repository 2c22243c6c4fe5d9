import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { PresetName, Store } from "../../core/types.js";
import { type HookResponse, handleHookEvent } from "../../hosts/claude-code/handler.js";
import { parseHookInput } from "../../hosts/claude-code/payload.js";
import {
  hookStoreRoot,
  ignoreStoreFolder,
  projectDir,
} from "../../hosts/claude-code/store-location.js";
import { createFileStore } from "../../store/file/index.js";
import { storeTarget } from "../global-options.js";
import type { CliIo } from "../io.js";

/** Hook input larger than this is refused (Claude Code sends a few kilobytes). */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

export const HOOK_USAGE = `Usage: todo-continuation hook claude-code [options] < event.json

Reads one Claude Code hook event as JSON on stdin and answers as Claude Code
expects: a Stop that should continue prints {"decision":"block","reason":...}.
Always exits 0; errors allow the stop and are explained on stderr.

Options:
  --preset <name>          default, typeclaw, parley, omo or pi (default: default)
  --dir <path>             store folder (default: $TODO_CONTINUATION_DIR, else
                           $CLAUDE_PROJECT_DIR/.claude/todo-continuation)
  --database-url <url>     use PostgreSQL (default: $TODO_CONTINUATION_DATABASE_URL when set)
  --schema <name>          PostgreSQL schema (default: todo_continuation)
  --nudge-after-questions  nudge even when the agent's last message asks a question
`;

export interface HookArgs {
  preset: string | undefined;
  dir: string | undefined;
  databaseUrl: string | undefined;
  schema: string | undefined;
  nudgeAfterQuestions: boolean;
  help: boolean;
}

/** Reads the hook's options; `argv` may start with the host name (`claude-code`). */
export function parseHookArgs(argv: readonly string[]): HookArgs {
  const args = argv[0] === "claude-code" ? argv.slice(1) : [...argv];
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
    throw new Error(
      `hook: unexpected argument ${JSON.stringify(positionals[0])}; the only host is claude-code`,
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

async function readInput(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > MAX_INPUT_BYTES) throw new Error(`hook input exceeds ${MAX_INPUT_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Opens the hook's store. The file store's default folder is per project; the
 * first time it is created inside a git work tree it gets a `.gitignore` of
 * its own (the project's .gitignore is only ever edited by a project install).
 */
async function openHookStore(args: HookArgs, io: CliIo, cwd: string): Promise<Store> {
  const target = storeTarget({ dir: args.dir, databaseUrl: args.databaseUrl }, io.env);
  if (target.kind === "postgres") {
    // Loaded only when asked for: the driver costs every hook call start-up time.
    const { createPostgresStore } = await import("../../store/postgres/index.js");
    return createPostgresStore({
      connectionString: target.connectionString,
      ...(args.schema !== undefined ? { schema: args.schema } : {}),
    });
  }
  const root = hookStoreRoot({ dir: args.dir, env: io.env, cwd });
  const project = projectDir(io.env, cwd);
  if (!existsSync(root) && existsSync(join(project, ".git"))) {
    await ignoreStoreFolder(project, root).catch(() => false);
  }
  return createFileStore({ root });
}

function write(io: CliIo, response: HookResponse): void {
  if (response.stdout !== "") io.stdout.write(`${response.stdout}\n`);
  for (const line of response.stderr) io.stderr.write(`${line}\n`);
}

function failure(reason: unknown): HookResponse {
  const message = reason instanceof Error ? reason.message : String(reason);
  return {
    stdout: "",
    stderr: [`todo-continuation: hook failed, allowing the stop: ${message}`],
    exitCode: 0,
  };
}

/**
 * `todo-continuation hook claude-code`: one hook event in, Claude Code's
 * answer out. Resolves to the exit code, which is always 0: the hook never
 * fails closed on its own errors.
 */
export async function runClaudeCodeHook(argv: readonly string[], io: CliIo): Promise<number> {
  let args: HookArgs;
  try {
    args = parseHookArgs(argv);
  } catch (error) {
    write(io, failure(error));
    return 0;
  }
  if (args.help) {
    io.stdout.write(HOOK_USAGE);
    return 0;
  }
  let store: Store | null = null;
  let response: HookResponse;
  try {
    const event = parseHookInput(await readInput(io.stdin));
    // Nothing to do without opening the store: unknown events, subagents.
    if (event.kind === "other" || event.kind === "SubagentStop" || event.agentId !== null) return 0;
    const cwd = event.cwd ?? io.cwd;
    store = await openHookStore(args, io, cwd);
    response = await handleHookEvent(event, {
      store,
      ...(args.preset !== undefined ? { preset: args.preset as PresetName } : {}),
      env: io.env,
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
