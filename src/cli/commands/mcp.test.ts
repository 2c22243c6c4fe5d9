import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { resolveScope, scopeKeyProblem } from "../../core/scope/index.js";
import { createFileStore } from "../../store/file/file-store.js";
import { MemoryStore } from "../../store/memory/memory-store.js";
import { MCP_HELP, McpUsageError, parseMcpArgs, runMcpServer } from "./mcp.js";

const REPO = resolve(import.meta.dirname, "../../..");
const BIN = join(REPO, "dist", "cli", "main.js");

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tc-mcp-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function text(result: unknown): string {
  return (result as CallToolResult).content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

/** A client transport over a pair of streams: the other end of a stdio server. */
class StreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #buffer = new ReadBuffer();
  constructor(
    private readonly input: PassThrough,
    private readonly output: PassThrough,
  ) {}
  async start() {
    this.input.on("data", (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (let m = this.#buffer.readMessage(); m; m = this.#buffer.readMessage())
        this.onmessage?.(m);
    });
  }
  async send(message: JSONRPCMessage) {
    this.output.write(serializeMessage(message));
  }
  async close() {
    this.output.end();
    this.onclose?.();
  }
}

describe("parseMcpArgs", () => {
  it("defaults to one list per client session", () => {
    expect(parseMcpArgs([])).toEqual({
      scope: undefined,
      dialect: undefined,
      preset: undefined,
      dir: undefined,
      help: false,
    });
  });

  it("reads a scope key, a session, a dialect, a preset and a folder", () => {
    expect(parseMcpArgs(["--scope", "tui"]).scope).toEqual({ key: "tui", kind: "tui" });
    expect(parseMcpArgs(["--session", "abc", "--host", "claude-code"]).scope).toEqual(
      resolveScope({ kind: "session", host: "claude-code", sessionId: "abc" }),
    );
    expect(parseMcpArgs(["--session", "abc"]).scope).toEqual(
      resolveScope({ kind: "session", host: "mcp", sessionId: "abc" }),
    );
    expect(parseMcpArgs(["--dialect", "pi", "--preset", "omo", "--dir", "/x"])).toMatchObject({
      dialect: "pi",
      preset: "omo",
      dir: "/x",
    });
    expect(parseMcpArgs(["-h"]).help).toBe(true);
  });

  it.each([
    [["--scope", "tui", "--session", "a"], "pass only one"],
    [["--host", "pi"], "--host only applies together with --session"],
    [["--scope", "../etc"], "--scope"],
    [["--session", " "], "--session: expected a session id"],
    [["--dialect", "yaml"], "--dialect: expected one of typeclaw, parley, pi"],
    [["--preset", "fast"], "--preset: expected one of"],
    [["--dir", ""], "--dir: expected a folder path"],
    [["--colour"], "--colour"],
    [["stray"], "stray"],
  ])("rejects %j with a message naming the flag", (argv, message) => {
    expect(() => parseMcpArgs(argv)).toThrow(McpUsageError);
    expect(() => parseMcpArgs(argv)).toThrow(message);
  });

  it("maps any session id to a valid scope key of the chosen host", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).filter((s) => s.trim() !== "" && !s.startsWith("-")),
        fc.constantFrom("mcp", "claude-code", "pi"),
        (session, host) => {
          const { scope } = parseMcpArgs(["--session", session, "--host", host]);
          expect(scope).toEqual(resolveScope({ kind: "session", host, sessionId: session }));
          expect(scopeKeyProblem(scope?.key)).toBeNull();
        },
      ),
    );
  });
});

describe("runMcpServer", () => {
  it("prints its help to stderr and exits 0, writing nothing to stdout", async () => {
    const stdout = new PassThrough();
    const written: string[] = [];
    stdout.on("data", (c: Buffer) => written.push(c.toString()));
    let err = "";
    const code = await runMcpServer({
      argv: ["--help"],
      stdout,
      stderr: { write: (t: string) => (err += t) },
    });
    expect(code).toBe(0);
    expect(err).toBe(MCP_HELP);
    expect(written).toEqual([]);
  });

  it("exits 2 on a bad command line with a pointer to --help", async () => {
    let err = "";
    const code = await runMcpServer({
      argv: ["--dialect", "yaml"],
      stderr: { write: (t: string) => (err += t) },
    });
    expect(code).toBe(2);
    expect(err).toContain("--dialect: expected one of typeclaw, parley, pi");
    expect(err).toContain("mcp --help");
  });

  it("serves over its stdio streams and exits 0 when the client closes stdin", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let err = "";
    const store = new MemoryStore();
    const done = runMcpServer({
      argv: ["--scope", "tui", "--dialect", "typeclaw"],
      stdin,
      stdout,
      stderr: { write: (t: string) => (err += t) },
      store,
    });
    const client = new Client({ name: "t", version: "1" });
    await client.connect(new StreamTransport(stdout, stdin));
    const result = await client.callTool({
      name: "todo_write",
      arguments: { todos: [{ content: "Ship it", status: "pending" }] },
    });
    expect(result.isError).toBe(false);
    expect((await store.read({ key: "tui", kind: "tui" })).todos.todos[0]?.content).toBe("Ship it");
    stdin.end();
    await expect(done).resolves.toBe(0);
    expect(err).toContain("serving the typeclaw tools on stdio (scope tui)");
    expect(err).toContain("todo_write (tui (shared)): ok");
  });
});

describe("todo-continuation mcp (the built bin)", () => {
  it("serves a real file store to the SDK client over stdio", async () => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first`);
    const dir = tempDir();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        BIN,
        "mcp",
        "--dir",
        dir,
        "--session",
        "s-1",
        "--host",
        "claude-code",
        "--dialect",
        "parley",
      ],
      stderr: "pipe",
      env: { PATH: process.env.PATH ?? "" },
    });
    let stderr = "";
    transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString()));
    const client = new Client({ name: "stdio-test", version: "1" });
    await client.connect(transport);
    cleanups.push(() => client.close());

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["todo_list", "todo_update", "todo_write"]);
    const written = await client.callTool({
      name: "todo_write",
      arguments: { items: ["Parse input", "Write output"] },
    });
    expect(written.isError).toBe(false);
    const update = await client.callTool({
      name: "todo_update",
      arguments: { id: "1", status: "done" },
    });
    expect(text(update)).toContain("Parse input");
    await client.close();

    // Real files, readable by any other process (the Claude Code hooks, the CLI).
    const store = createFileStore({ root: dir });
    const scope = resolveScope({ kind: "session", host: "claude-code", sessionId: "s-1" })!;
    const stored = await store.read(scope);
    expect(stored.todos.todos.map((t) => [t.content, t.status])).toEqual([
      ["Parse input", "completed"],
      ["Write output", "pending"],
    ]);
    await store.close();
    expect(stderr).toContain("serving the parley tools on stdio");
  });
});
