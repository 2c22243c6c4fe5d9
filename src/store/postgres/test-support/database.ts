import { randomBytes } from "node:crypto";
import pg from "pg";

/** The local test database (trust auth); override with TODO_CONTINUATION_TEST_DATABASE_URL. */
export const TEST_DATABASE_URL =
  process.env.TODO_CONTINUATION_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A fresh schema name per test run, so runs never see each other's rows. */
export function randomSchema(prefix = "tc_test"): string {
  return `${prefix}_${randomBytes(6).toString("hex")}`;
}

/** Runs one statement on a short-lived connection (setup, hand edits, cleanup). */
export async function sql<T extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}
