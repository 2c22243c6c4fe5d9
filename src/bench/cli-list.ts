import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { fixtureScope, writeScaleFixture } from "../store/file/scale-fixture.js";
import { createPostgresStore } from "../store/postgres/index.js";

/**
 * `todo-continuation list` over a store of many scopes, timed from spawn to
 * exit: the real command path (process start, store opening, the scan, the
 * table) with its output read to the end, which is checked to hold one row
 * per scope, so a run that listed nothing cannot pass for a fast one.
 */

const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));

/** Milliseconds from spawn to exit of one `list`. */
function runList(args: string[], scopes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [CLI, ...args, "list"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let rows = 0;
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) rows++;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) return reject(new Error(`list exited ${code}: ${stderr.slice(0, 500)}`));
      // A count line, the header and one line per scope.
      if (rows !== scopes + 2) {
        return reject(new Error(`list printed ${rows} lines for ${scopes} scopes`));
      }
      resolve(ms);
    });
  });
}

/** `list` over a file store of `scopes` scopes under `root` (built once), `runs` times. */
export async function benchListFiles(
  root: string,
  scopes: number,
  runs: number,
): Promise<number[]> {
  await writeScaleFixture(root, scopes);
  const out: number[] = [];
  for (let r = 0; r < runs; r++) out.push(await runList(["--dir", root], scopes));
  return out;
}

/**
 * `list --database-url` over `scopes` scopes in a fresh schema (dropped after):
 * one scope written through the store, copied row for row in SQL.
 */
export async function benchListPostgres(
  url: string,
  scopes: number,
  runs: number,
): Promise<number[]> {
  const schema = `tc_bench_list_${process.pid}`;
  const store = createPostgresStore({ connectionString: url, schema });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const template = fixtureScope(-1);
    await store.transact(template, () => ({
      todos: { todos: [{ content: "a", status: "pending" }], phases: [], nextId: 1 },
      log: Array.from({ length: 20 }, (_, i) => ({
        at: 1_700_000_000_000 + i,
        action: "skip" as const,
        reason: "stagnation" as const,
        episodeId: "ep-1",
        autoTurns: 3,
        tokens: 1200,
        stagnation: 2,
        actionable: 1,
        blocked: 0,
        nudgeChars: null,
        nudgeTokens: null,
        trigger: "idle",
      })),
      result: null,
    }));
    await store.close();
    const keys = Array.from({ length: scopes }, (_, i) => fixtureScope(i).key);
    const s = `"${schema}"`;
    await client.query(
      `INSERT INTO ${s}.scopes (key, kind, todos, todos_revision, state, state_revision, version, log_seq)
       SELECT k, t.kind, t.todos, t.todos_revision, t.state, t.state_revision, t.version, t.log_seq
       FROM unnest($1::text[]) k, ${s}.scopes t WHERE t.key = $2`,
      [keys, template.key],
    );
    await client.query(
      `INSERT INTO ${s}.decision_log (scope_key, seq, entry)
       SELECT k, d.seq, d.entry FROM unnest($1::text[]) k, ${s}.decision_log d WHERE d.scope_key = $2`,
      [keys, template.key],
    );
    await client.query(`DELETE FROM ${s}.scopes WHERE key = $1`, [template.key]);
    await client.query(`ANALYZE ${s}.scopes; ANALYZE ${s}.decision_log`);
    const out: number[] = [];
    for (let r = 0; r < runs; r++) {
      out.push(await runList(["--database-url", url, "--schema", schema], scopes));
    }
    return out;
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await client.end();
  }
}
