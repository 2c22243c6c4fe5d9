import { afterAll, describe, expect, it } from "vitest";
import { migrate } from "./migrate.js";
import { createPostgresStore } from "./postgres-store.js";
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from "./schema.js";
import { dropSchema, randomSchema, sql, TEST_DATABASE_URL } from "./test-support/database.js";

const schemas: string[] = [];

function newSchema(): string {
  const schema = randomSchema("tc_migrate");
  schemas.push(schema);
  return schema;
}

afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

describe("migrate", () => {
  it("creates the schema once and records every version", async () => {
    const schema = newSchema();
    const first = await migrate({ connectionString: TEST_DATABASE_URL, schema });
    expect(first).toEqual({
      schema,
      from: 0,
      to: LATEST_SCHEMA_VERSION,
      applied: MIGRATIONS.map((m) => m.version),
    });
    const again = await migrate({ connectionString: TEST_DATABASE_URL, schema });
    expect(again.applied).toEqual([]);
    const rows = await sql<{ version: number }>(
      `SELECT version FROM "${schema}".schema_migrations ORDER BY version`,
    );
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    const tables = await sql<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
      [schema],
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      "decision_log",
      "schema_migrations",
      "scopes",
    ]);
  });

  it("applies each migration exactly once when many processes start at once", async () => {
    const schema = newSchema();
    const reports = await Promise.all(
      Array.from({ length: 8 }, () => migrate({ connectionString: TEST_DATABASE_URL, schema })),
    );
    const applied = reports.flatMap((r) => r.applied);
    expect(applied).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it("creates the schema on a store's first use", async () => {
    const schema = newSchema();
    const store = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
    try {
      expect(await store.listScopes()).toEqual([]);
      const rows = await sql("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [
        schema,
      ]);
      expect(rows).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it("refuses a schema migrated by a newer release", async () => {
    const schema = newSchema();
    await migrate({ connectionString: TEST_DATABASE_URL, schema });
    await sql(`INSERT INTO "${schema}".schema_migrations (version, name) VALUES ($1, 'future')`, [
      LATEST_SCHEMA_VERSION + 1,
    ]);
    await expect(migrate({ connectionString: TEST_DATABASE_URL, schema })).rejects.toThrow(
      /newer than this package knows/,
    );
    const store = createPostgresStore({ connectionString: TEST_DATABASE_URL, schema });
    try {
      await expect(store.read({ key: "tui", kind: "tui" })).rejects.toThrow(/upgrade/);
    } finally {
      await store.close();
    }
  });

  it("rejects an unsafe schema name before connecting", async () => {
    await expect(
      migrate({ connectionString: TEST_DATABASE_URL, schema: 'x"; DROP TABLE y; --' }),
    ).rejects.toThrow(/^schema: /);
  });
});
