import { parseArgs } from "node:util";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { PRESET_NAMES } from "../../core/engine/presets.js";
import { quoteInput } from "../../core/quote.js";
import { parseScopeKey, resolveScope, scopeKeyProblem } from "../../core/scope/index.js";
import type { DialectName, PresetName, Scope, Store } from "../../core/types.js";
import { createTodoMcpServer } from "../../hosts/mcp/index.js";
import { ContinuationRuntime } from "../../runtime/index.js";
import { UsageError } from "../errors.js";
import { openStore } from "../store.js";

export const MCP_HELP = `todo-continuation mcp: serve the todo tools to an MCP client on stdio.

Usage: todo-continuation mcp [options]

Options:
  --scope <key>      Use this scope key for every call ("tui", "session/<host>.<id>", ...)
  --session <id>     Use the list of this host session (see --host)
  --host <name>      Host the --session id belongs to (default: mcp), e.g. claude-code
  --dialect <name>   Tool dialect: typeclaw, parley or pi (default: the preset's)
  --preset <name>    default, typeclaw, parley, omo or pi (default: default)
  --dir <path>       Store folder (default: $TODO_CONTINUATION_DIR, else the standard folder)
  --database-url <url>
                     Serve PostgreSQL instead of files (default: $TODO_CONTINUATION_DATABASE_URL)
  --schema <name>    PostgreSQL schema holding the tables (default: todo_continuation)
  -h, --help         Show this help

Every option may also come before \`mcp\` (todo-continuation --database-url <url> mcp).

Without --scope or --session, each client session gets its own list.
Runs until the client closes stdin. Logs go to stderr; stdout carries only the protocol.
`;

const DIALECTS: readonly DialectName[] = ["typeclaw", "parley", "pi"];

export interface RunMcpServerOptions {
  /** Arguments after `mcp`. */
  argv: readonly string[];
  /** Protocol input; default process.stdin. */
  stdin?: NodeJS.ReadableStream;
  /** Protocol output; default process.stdout. Nothing but protocol messages is written to it. */
  stdout?: NodeJS.WritableStream;
  /** Help, usage errors and diagnostics; default process.stderr. */
  stderr?: { write(text: string): unknown };
  /** Serve this store instead of the one the options name (tests). The caller closes it. */
  store?: Store;
  /** Environment (TODO_CONTINUATION_DIR, TODO_CONTINUATION_DATABASE_URL). Default: process.env. */
  env?: Record<string, string | undefined>;
}

export interface McpSettings {
  /** undefined: one list per client session. */
  scope: Scope | undefined;
  dialect: DialectName | undefined;
  preset: PresetName | undefined;
  dir: string | undefined;
  databaseUrl: string | undefined;
  schema: string | undefined;
  help: boolean;
}

/** A bad `mcp` command line; the message names the flag and the problem. */
export class McpUsageError extends Error {
  override readonly name = "McpUsageError";
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]) {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new McpUsageError(
    `--${flag}: expected one of ${allowed.join(", ")}, got ${quoteInput(value)}`,
  );
}

function nonEmpty(flag: string, value: string | undefined, what: string): string | undefined {
  if (value !== undefined && value.trim() === "") {
    throw new McpUsageError(`--${flag}: expected ${what}, got an empty string`);
  }
  return value;
}

/** Reads `mcp`'s flags, rejecting unknown, missing or conflicting ones. */
export function parseMcpArgs(argv: readonly string[]): McpSettings {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        scope: { type: "string" },
        session: { type: "string" },
        host: { type: "string" },
        dialect: { type: "string" },
        preset: { type: "string" },
        dir: { type: "string" },
        "database-url": { type: "string" },
        schema: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new McpUsageError(message.split("\n")[0] ?? message);
  }
  const str = (key: string) => values[key] as string | undefined;
  const key = str("scope");
  const session = nonEmpty("session", str("session"), "a session id");
  const host = nonEmpty("host", str("host"), "a host name");
  if (key !== undefined && session !== undefined) {
    throw new McpUsageError("--scope and --session both choose the list; pass only one");
  }
  if (host !== undefined && session === undefined) {
    throw new McpUsageError("--host only applies together with --session");
  }
  let scope: Scope | undefined;
  if (key !== undefined) {
    const problem = scopeKeyProblem(key);
    if (problem !== null) throw new McpUsageError(`--scope: ${problem}`);
    scope = parseScopeKey(key)!;
  } else if (session !== undefined) {
    scope = resolveScope({ kind: "session", host: host ?? "mcp", sessionId: session })!;
  }
  return {
    scope,
    dialect: oneOf("dialect", str("dialect"), DIALECTS),
    preset: oneOf("preset", str("preset"), PRESET_NAMES),
    dir: nonEmpty("dir", str("dir"), "a folder path"),
    databaseUrl: nonEmpty("database-url", str("database-url"), "a postgres:// URL"),
    schema: nonEmpty("schema", str("schema"), "a schema name"),
    help: values.help === true,
  };
}

/** The store the settings name: --dir, else --database-url, else the environment's choice. */
function openMcpStore(
  settings: McpSettings,
  env: Record<string, string | undefined>,
): Promise<Store> {
  return openStore(
    {
      dir: settings.dir,
      databaseUrl: settings.databaseUrl,
      schema: settings.schema,
      preset: undefined,
      json: false,
      help: false,
      version: false,
    },
    env,
  );
}

/**
 * `todo-continuation mcp`: serves one dialect's todo tools on stdio until the
 * client closes its end of the pipe. Resolves with the exit code: 0 after a
 * clean close or `--help`, 2 for a bad command line.
 */
export async function runMcpServer(options: RunMcpServerOptions): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  let settings: McpSettings;
  try {
    settings = parseMcpArgs(options.argv);
  } catch (error) {
    if (!(error instanceof McpUsageError)) throw error;
    stderr.write(
      `todo-continuation mcp: ${error.message}\nRun "todo-continuation mcp --help" for usage.\n`,
    );
    return 2;
  }
  if (settings.help) {
    stderr.write(MCP_HELP);
    return 0;
  }
  let store: Store;
  try {
    store = options.store ?? (await openMcpStore(settings, options.env ?? process.env));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(
      `todo-continuation mcp: ${error.message}\nRun "todo-continuation mcp --help" for usage.\n`,
    );
    return 2;
  }
  const runtime = new ContinuationRuntime({
    store,
    ...(settings.preset ? { preset: settings.preset } : {}),
    ...(settings.dialect ? { dialect: settings.dialect } : {}),
  });
  const log = (line: string) => stderr.write(`todo-continuation mcp: ${line}\n`);
  const server = createTodoMcpServer({
    runtime,
    ...(settings.scope ? { scope: settings.scope } : {}),
    log,
  });
  // The SDK's transport is typed with Node's stream classes; any stream pair works.
  const transport = new StdioServerTransport(
    stdin as ConstructorParameters<typeof StdioServerTransport>[0],
    stdout as ConstructorParameters<typeof StdioServerTransport>[1],
  );
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  // The SDK's stdio transport does not watch for end of input, yet the client
  // closing the pipe is how a stdio server is told to stop.
  const stop = () => void server.close();
  stdin.once("end", stop);
  stdin.once("close", stop);
  try {
    await server.connect(transport);
    const target = settings.scope ? `scope ${settings.scope.key}` : "one list per client session";
    log(`serving the ${runtime.dialect} tools on stdio (${target})`);
    await closed;
  } finally {
    stdin.off("end", stop);
    stdin.off("close", stop);
    if (!options.store) await store.close();
  }
  return 0;
}
