import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStore } from "../../store/postgres/index.js";
import {
  dropSchema,
  randomSchema,
  TEST_DATABASE_URL,
} from "../../store/postgres/test-support/database.js";
import { CLI, cleanEnv, runCli } from "../test-support/run-cli.js";

const folders: string[] = [];

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** Sends JSON-RPC lines, closes stdin, and collects the answers until the server exits. */
function converse(
  args: string[],
  messages: object[],
): Promise<{ code: number | null; replies: unknown[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv() });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const replies = out.split("\n").filter((l) => l.trim() !== "");
      if (replies.length >= messages.filter((m) => "id" in m).length) child.stdin.end();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({
        code,
        replies: out
          .split("\n")
          .filter((l) => l.trim() !== "")
          .map((l) => JSON.parse(l)),
      });
    });
    for (const message of messages) child.stdin.write(`${JSON.stringify(message)}\n`);
  });
}

describe("mcp (wired through the dispatcher)", () => {
  it("serves the tools on stdio against the folder given before the command", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tc-cli-mcp-"));
    folders.push(dir);
    const { code, replies } = await converse(
      ["--dir", dir, "mcp", "--scope", "tui"],
      [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "todo_write", arguments: { items: ["Served over MCP"] } },
        },
      ],
    );
    expect(code).toBe(0);
    expect(JSON.stringify(replies[1])).toContain("Served over MCP");
    const show = JSON.parse((await runCli(["--dir", dir, "show", "tui", "--json"])).stdout);
    expect(show.todos.todos[0].content).toBe("Served over MCP");
  });

  it("takes --database-url and --schema after the command, and its help shows them", async () => {
    const schema = randomSchema("tc_mcp");
    try {
      const { code, replies } = await converse(
        ["mcp", "--scope", "tui", "--database-url", TEST_DATABASE_URL, "--schema", schema],
        [
          {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: {
              protocolVersion: "2025-06-18",
              capabilities: {},
              clientInfo: { name: "t", version: "1" },
            },
          },
          { jsonrpc: "2.0", method: "notifications/initialized" },
          {
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: { name: "todo_write", arguments: { items: ["Kept in PostgreSQL"] } },
          },
        ],
      );
      expect(code).toBe(0);
      expect(JSON.stringify(replies[1])).toContain("Kept in PostgreSQL");
      const store = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
      try {
        const scopes = await store.listScopes();
        const snapshot = await store.read(scopes[0]!);
        expect(snapshot.todos.todos[0]?.content).toBe("Kept in PostgreSQL");
      } finally {
        await store.close();
      }
    } finally {
      await dropSchema(schema);
    }
    const help = await runCli(["mcp", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stderr).toContain("--database-url <url>");
    expect(help.stderr).toContain("--schema <name>");
  });

  it("refuses two stores, before or after the command, with exit 2", async () => {
    const run = await runCli(["--dir", "/tmp/x", "mcp", "--database-url", TEST_DATABASE_URL]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("pass only one");
  });

  it("reports its own usage errors with exit 2", async () => {
    const run = await runCli(["mcp", "--scope", "../etc"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--scope");
  });
});
