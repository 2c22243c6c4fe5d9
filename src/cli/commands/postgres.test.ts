import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresStore } from "../../store/postgres/index.js";
import {
  dropSchema,
  randomSchema,
  TEST_DATABASE_URL,
} from "../../store/postgres/test-support/database.js";
import { runCli } from "../test-support/run-cli.js";
import { ABD, seed, TUI } from "../test-support/seed.js";

/** The commands work on PostgreSQL exactly as on files: the same seed, the same answers. */
const schema = randomSchema("tc_cli");
const seeded = randomSchema("tc_cli");

beforeAll(async () => {
  const store = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema: seeded });
  await seed(store);
  await store.close();
});

afterAll(async () => {
  await dropSchema(schema);
  await dropSchema(seeded);
});

const pg = (...args: string[]) =>
  runCli(["--database-url", TEST_DATABASE_URL, "--schema", seeded, ...args]);

describe("migrate", () => {
  it("creates the schema, then reports it up to date", async () => {
    const first = await runCli([
      "migrate",
      "--database-url",
      TEST_DATABASE_URL,
      "--schema",
      schema,
    ]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^Migrated schema "${schema}" from version 0 to \\d+`));
    const again = await runCli(["migrate", "--schema", schema, "--json"], {
      env: { TODO_CONTINUATION_DATABASE_URL: TEST_DATABASE_URL },
    });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ schema, applied: [] });
  });

  it("needs a database, and says what it could not reach", async () => {
    const none = await runCli(["migrate"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("migrate needs PostgreSQL: pass --database-url");
    const down = await runCli([
      "migrate",
      "--database-url",
      "postgres://postgres@127.0.0.1:1/test",
    ]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("127.0.0.1:1");
  });

  it("rejects a schema name that is not a plain identifier", async () => {
    const run = await runCli(["--database-url", TEST_DATABASE_URL, "--schema", "x; drop", "list"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--schema: expected a lower-case identifier");
  });
});

describe("inspecting and steering a PostgreSQL store", () => {
  it("lists, shows and explains as with files", async () => {
    const list = JSON.parse((await pg("list", "--json")).stdout) as {
      store: string;
      scopes: { key: string }[];
    };
    expect(list.store).toBe("PostgreSQL 127.0.0.1:5432/test");
    expect(list.scopes).toHaveLength(4);
    const show = await pg("show", "tui");
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("[!] Publish the package (#3)");
    expect(JSON.parse((await pg("why", "abd", "--json")).stdout)).toMatchObject({
      key: ABD.key,
      reason: "continuation-stopped",
    });
  });

  it("stops and resumes through TODO_CONTINUATION_DATABASE_URL", async () => {
    const env = { TODO_CONTINUATION_DATABASE_URL: TEST_DATABASE_URL };
    const stop = await runCli(["--schema", seeded, "stop", "tui"], { env });
    expect(stop.code).toBe(0);
    const view = JSON.parse(
      (await runCli(["--schema", seeded, "show", "tui", "--json"], { env })).stdout,
    );
    expect(view).toMatchObject({ key: TUI.key, state: { stopped: true } });
    expect((await runCli(["--schema", seeded, "resume", "tui"], { env })).code).toBe(0);
  });

  it("prefers --dir over the environment's database", async () => {
    const run = await runCli(["--dir", "/nonexistent/tc-cli-store", "list"], {
      env: { TODO_CONTINUATION_DATABASE_URL: TEST_DATABASE_URL },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("No scopes in /nonexistent/tc-cli-store yet.\n");
  });
});
