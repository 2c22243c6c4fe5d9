import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, BUILT_DIST } from "../../test-support/built.js";
import type { benchPostgres as BenchPostgres } from "./bench.js";
import { randomSchema, sql, TEST_DATABASE_URL } from "./test-support/database.js";

describe("benchPostgres", () => {
  let benchPostgres: typeof BenchPostgres;

  beforeAll(async () => {
    // The benchmark forks built workers, so it runs from the build as users run it.
    assertBuilt("store/postgres/bench.js", "store/postgres/bench-worker.js");
    const built = await import(pathToFileURL(`${BUILT_DIST}/store/postgres/index.js`).href);
    benchPostgres = built.benchPostgres;
  });

  it("counts decisions that all reached the log, and leaves no schema behind", async () => {
    const schema = randomSchema("tc_bench");
    const result = await benchPostgres({
      connectionString: TEST_DATABASE_URL,
      workers: 2,
      durationMs: 1_500,
      scopes: 50,
      lanes: 4,
      schema,
    });
    expect(result.decisions).toBeGreaterThan(0);
    expect(result.loggedDecisions).toBe(result.decisions);
    expect(result.injections).toBeGreaterThan(0);
    expect(result.decisionsPerSecond).toBe(
      Math.round((result.decisions * 1000) / result.elapsedMs),
    );
    const left = await sql("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [
      schema,
    ]);
    expect(left).toEqual([]);
  });

  it("runs the raw compare-and-set baseline with every decision applied once", async () => {
    const schema = randomSchema("tc_bench_raw");
    const result = await benchPostgres({
      connectionString: TEST_DATABASE_URL,
      workers: 2,
      durationMs: 1_500,
      scopes: 20,
      lanes: 4,
      schema,
      mode: "raw",
    });
    expect(result.decisions).toBeGreaterThan(0);
    // Each successful compare-and-set moves one row's revision by one.
    expect(result.loggedDecisions).toBe(result.decisions);
    const left = await sql("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [
      schema,
    ]);
    expect(left).toEqual([]);
  });

  it("names an invalid option", async () => {
    await expect(
      benchPostgres({ connectionString: TEST_DATABASE_URL, workers: 0, durationMs: 10 }),
    ).rejects.toThrow(/^workers: /);
  });

  it("refuses to run in a schema that already exists (it would drop it)", async () => {
    const schema = randomSchema("tc_bench_keep");
    await sql(`CREATE SCHEMA "${schema}"`);
    await sql(`CREATE TABLE "${schema}".precious (id int)`);
    try {
      await expect(
        benchPostgres({ connectionString: TEST_DATABASE_URL, workers: 1, durationMs: 10, schema }),
      ).rejects.toThrow(/already exists/);
      expect(await sql(`SELECT * FROM "${schema}".precious`)).toEqual([]);
    } finally {
      await sql(`DROP SCHEMA "${schema}" CASCADE`);
    }
  });
});
