import pg from "pg";
import { describe, expect, it } from "vitest";
import {
  DATABASE_URL_ENV,
  DEFAULT_POOL_SIZE,
  DEFAULT_POSTGRES_LOG_LIMIT,
  DEFAULT_SCHEMA,
  describeTarget,
  resolveOptions,
} from "./options.js";

const URL_A = "postgres://app:pw@db.internal:6543/todos";

describe("resolveOptions", () => {
  it("fills in defaults", () => {
    expect(resolveOptions({ connectionString: URL_A }, {})).toEqual({
      connectionString: URL_A,
      pool: null,
      schema: DEFAULT_SCHEMA,
      poolSize: DEFAULT_POOL_SIZE,
      connectTimeoutMs: 10_000,
      logLimit: DEFAULT_POSTGRES_LOG_LIMIT,
      lockTimeoutMs: 5_000,
    });
  });

  it("reads the connection string from the environment when not given", () => {
    expect(resolveOptions({}, { [DATABASE_URL_ENV]: URL_A }).connectionString).toBe(URL_A);
    expect(
      resolveOptions({ connectionString: "postgres://x@h/db" }, { [DATABASE_URL_ENV]: URL_A })
        .connectionString,
    ).toBe("postgres://x@h/db");
  });

  it("explains a missing connection string", () => {
    expect(() => resolveOptions({}, {})).toThrow(
      /^connectionString: .*TODO_CONTINUATION_DATABASE_URL/,
    );
    expect(() => resolveOptions({ connectionString: " " }, {})).toThrow(/^connectionString: /);
  });

  it.each([
    ["poolSize", { poolSize: 0 }],
    ["poolSize", { poolSize: 2.5 }],
    ["logLimit", { logLimit: -1 }],
    ["connectTimeoutMs", { connectTimeoutMs: Number.NaN }],
    ["schema", { schema: "Has-Caps" }],
    ["schema", { schema: "1abc" }],
    ["schema", { schema: "a".repeat(64) }],
  ])("names %s when it is invalid", (field, bad) => {
    expect(() => resolveOptions({ connectionString: URL_A, ...bad }, {})).toThrow(
      new RegExp(`^${field}: `),
    );
  });

  it("accepts a pool instead of a connection string, but not both", () => {
    const pool = new pg.Pool({ connectionString: URL_A });
    try {
      expect(resolveOptions({ pool }, {}).pool).toBe(pool);
      expect(() => resolveOptions({ pool, connectionString: URL_A }, {})).toThrow(/^pool: /);
      expect(() => resolveOptions({ pool: {} as pg.Pool }, {})).toThrow(/^pool: /);
    } finally {
      void pool.end();
    }
  });
});

describe("describeTarget", () => {
  it("reads host, port, database and user, never the password", () => {
    const target = describeTarget(URL_A, null);
    expect(target).toEqual({ host: "db.internal", port: "6543", database: "todos", user: "app" });
    expect(JSON.stringify(target)).not.toContain("pw");
  });

  it("applies libpq's defaults for what the URL leaves out", () => {
    expect(describeTarget("postgres://localhost", null)).toMatchObject({
      host: "localhost",
      port: "5432",
    });
  });

  it("reads a pool's settings", () => {
    const pool = new pg.Pool({ host: "10.0.0.9", port: 5433, database: "d", user: "u" });
    try {
      expect(describeTarget(null, pool)).toEqual({
        host: "10.0.0.9",
        port: "5433",
        database: "d",
        user: "u",
      });
    } finally {
      void pool.end();
    }
  });
});
