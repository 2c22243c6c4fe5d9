import { existsSync, readSync } from "node:fs";
import { join } from "node:path";
import type { ContinuationMode, Store } from "../../core/types.js";
import { createFileStore } from "../../store/file/file-store.js";
import { ignoreStoreFolder } from "../../store/file/self-ignore.js";
import { DATABASE_URL_ENV } from "../../store/postgres/options.js";
import type { InstallTarget } from "./event-claim.js";
import { fdWriter } from "./fd-writer.js";
import { type OptionSpec, readOptions } from "./hook-options.js";
import { MAX_HOOK_INPUT_BYTES } from "./input-limit.js";

/**
 * The plumbing every hook process shares (Claude Code's, and any other host
 * whose agent runs a command per event): read one event from stdin, open the
 * store, write the answer. A host's hook entry is one small file on top of
 * this, so a hook loads only what a hook needs: no CLI, no schema library, no
 * database driver unless PostgreSQL is asked for, no MCP.
 */

export { MAX_HOOK_INPUT_BYTES } from "./input-limit.js";

/** What a hook process reads and writes; the CLI's io satisfies it. */
export interface HookIo {
  stdin: NodeJS.ReadableStream;
  /**
   * The file descriptor behind `stdin`, when there is one: read directly,
   * which spares a hook process setting up a stream (a few milliseconds of
   * its start-up) for one small JSON document.
   */
  stdinFd?: number;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  cwd: string;
}

/**
 * This process's io. `input`: the event, when stdin was read already (a hook
 * server that did not take the event hands it back).
 */
export function processHookIo(input?: string): HookIo {
  if (input !== undefined) {
    return {
      stdin: textStream(input),
      stdout: fdWriter(1, () => process.stdout),
      stderr: fdWriter(2, () => process.stderr),
      env: process.env,
      cwd: process.cwd(),
    };
  }
  return {
    // Only touched when the descriptor cannot be read directly.
    get stdin() {
      return process.stdin;
    },
    stdinFd: 0,
    stdout: fdWriter(1, () => process.stdout),
    stderr: fdWriter(2, () => process.stderr),
    env: process.env,
    cwd: process.cwd(),
  };
}

/** `text` as the one chunk of a stream, for a reader that iterates stdin. */
export function textStream(text: string): NodeJS.ReadableStream {
  return {
    async *[Symbol.asyncIterator]() {
      yield Buffer.from(text, "utf8");
    },
  } as unknown as NodeJS.ReadableStream;
}

const READ_CHUNK_BYTES = 64 * 1024;

/**
 * Reads `fd` to its end. Stops early (`complete: false`) when the descriptor
 * is non-blocking and has nothing yet (EAGAIN): the rest then comes through
 * the stream.
 */
function readDescriptor(fd: number, limit: number): { chunks: Buffer[]; complete: boolean } {
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    let read: number;
    try {
      read = readSync(fd, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN" || code === "EWOULDBLOCK") return { chunks, complete: false };
      if (code === "EOF") return { chunks, complete: true };
      throw error;
    }
    if (read === 0) return { chunks, complete: true };
    size += read;
    if (size > limit) throw new Error(`hook input exceeds ${limit} bytes`);
    chunks.push(buffer.subarray(0, read));
  }
}

/** The whole of the hook's input as UTF-8, refusing more than `limit` bytes. */
export async function readHookInput(
  io: Pick<HookIo, "stdin" | "stdinFd">,
  limit: number = MAX_HOOK_INPUT_BYTES,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (io.stdinFd !== undefined) {
    const direct = readDescriptor(io.stdinFd, limit);
    if (direct.complete) return Buffer.concat(direct.chunks).toString("utf8");
    chunks.push(...direct.chunks);
    size = direct.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  }
  for await (const chunk of io.stdin) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > limit) throw new Error(`hook input exceeds ${limit} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The options every host's hook takes (`hook <host> --help` describes them). */
export interface HookArgs {
  preset: string | undefined;
  /** `--mode advise`: record decisions, never block a stop (wins over the config file's `mode`). */
  mode: ContinuationMode | undefined;
  dir: string | undefined;
  databaseUrl: string | undefined;
  schema: string | undefined;
  nudgeAfterQuestions: boolean;
  help: boolean;
  /** `--event <name>`, for a host whose payloads name no event (Copilot CLI's). */
  event: string | undefined;
  /**
   * `--target user|project`: the host settings the command was installed in, for a host that
   * runs ours from both at once (see `claimCopy`).
   */
  target: InstallTarget | undefined;
}

/**
 * The line of every hook's usage that says it is safe installed twice. `doctor` looks for it in
 * each installed command's `--help`: a copy of the package from before the claims lacks it, and
 * such a copy decides every event itself beside ours.
 */
export const ONE_COMMAND_PER_EVENT =
  "Installed twice: one command handles each event; the other changes nothing.";

/** The lines of a hook's usage that describe those options; `defaultDir` is the host's store. */
export function hookOptionsUsage(defaultDir: string): string {
  return `Options:
  --preset <name>          default, typeclaw, parley, omo or pi (default: default)
  --mode <mode>            enforce, or advise: record every decision, never block a stop
                           (default: the config file's mode, else enforce)
  --dir <path>             store folder (default: $TODO_CONTINUATION_DIR, else
                           ${defaultDir})
  --database-url <url>     use PostgreSQL (default: $TODO_CONTINUATION_DATABASE_URL when set)
  --schema <name>          PostgreSQL schema (default: todo_continuation)
  --nudge-after-questions  nudge even when the agent's last message asks a question
  --target <user|project>  the settings this command is installed in (written by install):
                           with it in both, the copy that claims an event first handles it

${ONE_COMMAND_PER_EVENT}
`;
}

/** The options of every hook, as `readOptions` takes them. */
const HOOK_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  preset: { type: "string" },
  mode: { type: "string" },
  dir: { type: "string" },
  "database-url": { type: "string" },
  schema: { type: "string" },
  "nudge-after-questions": { type: "boolean" },
  target: { type: "string" },
  help: { type: "boolean", short: "h" },
};
const WITH_EVENT = { ...HOOK_OPTIONS, event: { type: "string" } } as const;

/**
 * Reads a hook's options. `argv` may start with `hook` and the host's name, as
 * the command line has them; anything else that is not an option is an error.
 */
export function parseHookArgs(
  host: string,
  argv: readonly string[],
  /** The names `--event` takes; without them the option is refused. */
  events?: readonly string[],
): HookArgs {
  let args = [...argv];
  if (args[0] === "hook") args = args.slice(1);
  if (args[0] === host) args = args.slice(1);
  const { values: read, positionals } = readOptions(args, events ? WITH_EVENT : HOOK_OPTIONS);
  const values = read as Partial<Record<string, string>>;
  const event = values.event;
  if (events && event !== undefined && !events.includes(event)) {
    throw new Error(`--event must be one of ${events.join(", ")}, got ${JSON.stringify(event)}`);
  }
  if (positionals.length > 0) {
    throw new Error(
      `hook ${host}: unexpected argument ${JSON.stringify(positionals[0])}; this is the ${host} hook`,
    );
  }
  if (values.dir !== undefined && values["database-url"] !== undefined) {
    throw new Error(
      `hook ${host}: --dir and --database-url name two different stores; pass only one`,
    );
  }
  const mode = values.mode;
  if (mode !== undefined && mode !== "enforce" && mode !== "advise") {
    throw new Error(`hook ${host}: --mode must be enforce or advise, got ${JSON.stringify(mode)}`);
  }
  const target = values.target;
  if (target !== undefined && target !== "user" && target !== "project") {
    throw new Error(
      `hook ${host}: --target must be user or project, got ${JSON.stringify(target)}`,
    );
  }
  return {
    preset: values.preset,
    mode,
    dir: values.dir,
    databaseUrl: values["database-url"],
    schema: values.schema,
    nudgeAfterQuestions: read["nudge-after-questions"] === true,
    help: read.help === true,
    event,
    target,
  };
}

/** What a hook prints: stdout as is (often empty), then each stderr line. */
export interface HookReply {
  stdout: string;
  stderr: readonly string[];
}

export function writeHookReply(io: HookIo, reply: HookReply): void {
  if (reply.stdout !== "") io.stdout.write(`${reply.stdout}\n`);
  for (const line of reply.stderr) io.stderr.write(`${line}\n`);
}

/** The reply to a hook that failed on its own: nothing on stdout, so the host carries on. */
export function hookFailure(reason: unknown, consequence: string): HookReply {
  const message = reason instanceof Error ? reason.message : String(reason);
  return { stdout: "", stderr: [`todo-continuation: hook failed, ${consequence}: ${message}`] };
}

export interface HookStoreOptions {
  /** `--dir`: an explicit store folder (already resolved by the host). */
  dir?: string | undefined;
  /** `--database-url`; else `$TODO_CONTINUATION_DATABASE_URL` when set. */
  databaseUrl?: string | undefined;
  schema?: string | undefined;
  env: Record<string, string | undefined>;
  /** The file store's folder when no database is named. */
  root: string;
  /**
   * The project the folder belongs to: the first time the folder is created
   * inside a git work tree, it gets a `.gitignore` of its own (the project's
   * own .gitignore is only ever edited by a project install).
   */
  project?: string;
}

/** Where a hook's store lives: a database URL wins when one is named, else files at `root`. */
export function hookDatabaseUrl(options: HookStoreOptions): string | null {
  if (options.dir !== undefined && options.databaseUrl !== undefined) {
    throw new Error("--dir and --database-url name two different stores; pass only one");
  }
  if (options.databaseUrl !== undefined) {
    if (options.databaseUrl.trim() === "") {
      throw new Error("--database-url: expected a postgres:// URL, got an empty string");
    }
    return options.databaseUrl;
  }
  if (options.dir !== undefined) {
    if (options.dir.trim() === "")
      throw new Error("--dir: expected a folder path, got an empty string");
    return null;
  }
  const fromEnv = options.env[DATABASE_URL_ENV];
  return fromEnv !== undefined && fromEnv.trim() !== "" ? fromEnv : null;
}

/** Opens the hook's store; the PostgreSQL driver is loaded only when a database is named. */
export async function openHookStore(options: HookStoreOptions): Promise<Store> {
  const url = hookDatabaseUrl(options);
  if (url !== null) {
    const { createPostgresStore } = await import("../../store/postgres/index.js");
    return createPostgresStore({
      connectionString: url,
      ...(options.schema !== undefined ? { schema: options.schema } : {}),
    });
  }
  const { root, project } = options;
  if (project !== undefined && !existsSync(root) && existsSync(join(project, ".git"))) {
    await ignoreStoreFolder(project, root).catch(() => false);
  }
  return createFileStore({ root });
}
